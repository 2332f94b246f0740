"""Files cursedlint reads but was not given to lint (ignore files, git metadata, baselines,
configurations, `doctor`'s /proc files), made hostile by a cloned repository, a configuration
or a `--root` image: a FIFO, which would block the run forever, or a link to a device, which
would be read until memory runs out. Each is refused unread with one line naming it.

The command line runs as a subprocess under a timeout and a memory limit, so that a
regression fails the test instead of hanging the suite or the machine."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and POSIX devices")

FORKING = """\
import os
import subprocess

subprocess.Popen(["/usr/bin/rsync", "-a", "src", "dst"], preexec_fn=os.setsid)
"""
MEMORY_LIMIT = 1 << 30
"""Address space of a run: a fixed one takes under 100 MB; reading /dev/zero reaches 1 GiB
within a second."""
TIMEOUT = 30
"""Seconds for a run that takes under 1 s fixed and forever when a FIFO blocks it."""


def cursedlint(cwd, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `cursedlint ARGS` run in `cwd`, within TIMEOUT seconds
    and MEMORY_LIMIT bytes."""

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    process = subprocess.Popen(
        [sys.executable, "-m", "cursedlint", *args], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=limit_memory, start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its forked workers too
        process.communicate()
        pytest.fail(f"cursedlint {' '.join(args)} still ran after {TIMEOUT} s")
    return process.returncode, out, err


@pytest.fixture
def project(tmp_path):
    (tmp_path / "fixme.py").write_text(FORKING)
    return tmp_path


def make_hostile(path, kind: str) -> None:
    """`path` made a FIFO, or a symbolic link to the device `kind`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(kind)


# -- D2: .gitignore and git metadata ----------------------------------------------------------


def test_a_cloned_gitignore_linked_to_dev_zero_is_not_followed(tmp_path):
    """The audit's reproducer: a committed `.gitignore -> /dev/zero`, cloned. git warns and
    goes on (2.32+ opens an in-tree .gitignore without following links); so does cursedlint,
    where it read /dev/zero until memory ran out."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    source, clone = tmp_path / "hostile_src", tmp_path / "hostile_clone"
    source.mkdir()
    (source / "fixme.py").write_text(FORKING)
    (source / ".gitignore").symlink_to("/dev/zero")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", str(source)], check=True)
    subprocess.run([*git, "-C", str(source), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(source), "commit", "-qm", "init"], check=True)
    subprocess.run([*git, "clone", "-q", str(source), str(clone)], check=True)
    assert os.readlink(clone / ".gitignore") == "/dev/zero"
    started = time.monotonic()
    code, out, err = cursedlint(clone, "check", "--no-cache", ".")
    assert (code, err) == (1, f"cursedlint: warning: {clone / '.gitignore'}: is a symbolic link "
                              "(not followed); its patterns are not used\n")
    assert "fixme.py:4:1: CUR101" in out
    assert time.monotonic() - started < 10  # about 0.3 s


def test_a_gitignore_linked_to_a_file_is_not_used_as_git_does_not(project):
    """Not following the link is git's rule, not only a guard against devices: the patterns
    a linked .gitignore holds do not apply, in git or in cursedlint."""
    (project / "patterns").write_text("fixme.py\n")
    (project / ".gitignore").symlink_to("patterns")
    (project / ".git").mkdir()
    code, out, err = cursedlint(project, "check", "--no-cache", ".")
    assert code == 1 and "fixme.py:4:1: CUR101" in out
    assert err.endswith(".gitignore: is a symbolic link (not followed); its patterns are not "
                        "used\n") and err.count("\n") == 1
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
        ignored = subprocess.run(["git", "-C", str(project), "check-ignore", "fixme.py"],
                                 capture_output=True, text=True)
        assert (ignored.returncode, ignored.stdout) == (1, "")  # not ignored


@pytest.mark.parametrize("name, kind, reason, unused", [
    (".gitignore", "fifo", "is not a regular file (a FIFO)", "its patterns are not used"),
    (".gitignore", "/dev/urandom", "is a symbolic link (not followed)",
     "its patterns are not used"),
    ("sub/.gitignore", "fifo", "is not a regular file (a FIFO)", "its patterns are not used"),
    (".git/info/exclude", "fifo", "is not a regular file (a FIFO)",
     "its patterns are not used"),
    (".git/info/exclude", "/dev/zero", "is not a regular file (a character device)",
     "its patterns are not used"),
    (".git/commondir", "fifo", "is not a regular file (a FIFO)",
     "the repository's info/exclude is not used"),
    (".git", "fifo", "is not a regular file (a FIFO)",
     "the repository's info/exclude is not used"),
    (".git", "/dev/zero", "is not a regular file (a character device)",
     "the repository's info/exclude is not used"),
])
def test_hostile_ignore_files_and_git_metadata_are_refused_unread(project, name, kind, reason,
                                                                  unused):
    """The audit's other cases: each hung the run (a FIFO) or read until memory ran out (a
    device). git's metadata (`.git` as a file naming the git directory, info/exclude,
    commondir) is followed through a link, as git does, but only to a regular file."""
    if name != ".git":
        (project / ".git" / "info").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / "sub" / "fixme.py").write_text(FORKING)
    make_hostile(project / name, kind)
    code, out, err = cursedlint(project, "check", "--no-cache", ".")
    assert (code, err) == (1, f"cursedlint: warning: {project / name}: {reason}; {unused}\n")
    assert "fixme.py:4:1: CUR101" in out and "sub/fixme.py:4:1: CUR101" in out


# -- D8: a baseline the configuration names -----------------------------------------------------


@pytest.mark.parametrize("named, kind, reason", [
    ("/dev/zero", None, "is not a regular file (a character device)"),
    ("baseline.json", "/dev/urandom", "is not a regular file (a character device)"),
    ("baseline.json", "fifo", "is not a regular file (a FIFO)"),
])
def test_a_configured_baseline_that_is_a_device_or_a_fifo_is_refused(project, named, kind,
                                                                     reason):
    """The audit's reproducer: `baseline = "/dev/zero"` in a repository's cursedlint.toml read
    to the memory limit (3.8 GB), a FIFO hung. A link is followed (the user names the file),
    to a regular file only."""
    if kind:
        make_hostile(project / named, kind)
    (project / "cursedlint.toml").write_text(f'baseline = "{named}"\n')
    code, out, err = cursedlint(project, "check", "--no-cache", ".")
    assert (code, out, err) == (2, "", f"cursedlint: error: cannot read the baseline "
                                       f"{str(project / named)!r}: {reason}\n")


# -- D20: doctor --root ---------------------------------------------------------------------


def test_doctor_refuses_a_fifo_and_a_device_link_under_root(tmp_path):
    """The audit's reproducer: a FIFO for ptrace_scope hung `doctor --root`; osrelease linked
    to /dev/zero was an internal MemoryError. Each is now a condition it cannot tell."""
    make_hostile(tmp_path / "proc/sys/kernel/yama/ptrace_scope", "fifo")
    make_hostile(tmp_path / "proc/sys/kernel/osrelease", "/dev/zero")
    (tmp_path / "proc/sys/vm").mkdir(parents=True)
    (tmp_path / "proc/sys/vm/overcommit_memory").write_text("2\n")
    code, out, err = cursedlint(tmp_path, "doctor", "--root", ".", "--output-format", "json")
    assert (code, err) == (0, "")
    why = {condition["name"]: (condition["status"], condition["why"])
           for condition in json.loads(out)}
    assert why["yama ptrace_scope"] == ("unknown", "cannot read /proc/sys/kernel/yama/"
                                        "ptrace_scope: is not a regular file (a FIFO) (no Yama "
                                        "LSM, or not Linux)")
    assert why["kernel version"] == ("unknown", "cannot read /proc/sys/kernel/osrelease: is a "
                                     "symbolic link (not followed)")
    assert why["vm.overcommit_memory"][0] == "armed"  # the regular file is read


# -- the configuration file -------------------------------------------------------------------


@pytest.mark.parametrize("kind, reason", [
    ("fifo", "is not a regular file (a FIFO)"),
    ("/dev/zero", "is not a regular file (a character device)"),
])
def test_a_configuration_that_is_a_fifo_or_a_device_is_refused(project, kind, reason):
    """A FIFO blocked the read, a link to /dev/zero was read to the memory limit. A link is
    followed (a monorepo's packages may share one file), to a regular file only."""
    make_hostile(project / "shared.toml", kind)
    code, out, err = cursedlint(project, "check", "--no-cache", "--config", "shared.toml", ".")
    assert (code, out, err) == (2, "", f"cursedlint: error: shared.toml: cannot read the "
                                       f"configuration file: {reason}\n")
