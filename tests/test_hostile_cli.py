"""The command line on hostile input: malformed configuration, file names that are not UTF-8,
paths that cannot be read, and failures outside any rule. Each ends in a clear message and the
right exit code, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cursedlint.cli import main
from cursedlint.engine.forked import WorkerError

FORKING = """\
import os
import subprocess

subprocess.Popen(["/usr/bin/rsync", "-a", "src", "dst"], preexec_fn=os.setsid)
"""
CALLBACKS = """\
import ctypes

HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "train.py").write_text(FORKING)
    (tmp_path / "callbacks.py").write_text(CALLBACKS)
    return tmp_path


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- configuration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "toml, problem",
    [
        ("[rules.CUR201]\nextra-apis = ['']\n",
         "rules.CUR201.extra-apis[0]: expected a non-empty string, got a string ''"),
        ("[rules.CUR201]\nextra-apis = [1]\n",
         "rules.CUR201.extra-apis[0]: expected a string, got an integer 1"),
        ("[rules.CUR202]\nkeeping-apis = [1]\n",
         "rules.CUR202.keeping-apis[0]: expected a string, got an integer 1"),
        ("[rules.CUR102]\nmodules = ['']\n",
         "rules.CUR102.modules[0]: expected a non-empty string, got a string ''"),
        ("select = " + "[" * 2000 + "]" * 2000 + "\n",
         "cannot be read: its arrays or tables nest too deeply for the TOML parser"),
        ("select = ['CUR1']\n# \xff\n", "is not valid UTF-8 (byte 20), as TOML must be"),
    ],
    ids=["extra-apis-empty", "extra-apis-int", "keeping-int", "modules-empty", "deep-array", "latin-1"],
)
def test_a_malformed_configuration_is_one_line_naming_file_and_key(project, capsys, toml, problem):
    config = project / "cursedlint.toml"
    config.write_bytes(toml.encode("latin-1"))
    code, out, err = cli(capsys, "check", ".")
    assert (code, out) == (2, "")
    assert err == f"cursedlint: error: {config}: {problem}\n"


# -- version numbers past int()'s 4,300 digits ----------------------------------------------

HUGE = "3." + "9" * 5000


def test_a_huge_requires_python_falls_back_to_the_running_interpreter(project, capsys):
    """Any project's pyproject.toml may carry it (no [tool.cursedlint] needed): the target is
    the running interpreter's, with the reason, and the run goes on (an internal error, once)."""
    (project / "pyproject.toml").write_text(f'[project]\nname = "x"\nrequires-python = ">={HUGE}"\n')
    code, out, err = cli(capsys, "check", "--no-cache", "--concise", "-v", ".")
    assert code == 1 and out.startswith("train.py:4:1: CUR101 ")
    assert f"the running interpreter ({project / 'pyproject.toml'}: requires-python: not a " \
           f"version clause: '>={HUGE}')" in err
    assert "internal error" not in err


@pytest.mark.parametrize("where", ["command line", "cursedlint.toml"])
def test_a_huge_target_python_is_a_configuration_error(project, capsys, where):
    if where == "command line":
        code, out, err = cli(capsys, "check", "--target-python", HUGE, ".")
        prefix = "command line: --target-python"
    else:
        (project / "cursedlint.toml").write_text(f'target-python = "{HUGE}"\n')
        code, out, err = cli(capsys, "check", ".")
        prefix = f"{project / 'cursedlint.toml'}: target-python"
    assert (code, out) == (2, "")
    assert err.startswith(f"cursedlint: error: {prefix}: unsupported Python version '{HUGE}';")
    assert err.count("\n") == 1


# -- file names that read as options (pre-commit hands them over) ---------------------------


@pytest.fixture
def option_names(project):
    """Files a pull request can add to make the hook pass: pre-commit appends their names."""
    (project / "--stdin-filename=a.py").write_text("x = 1\n")
    (project / "--output-file=pwned.py").write_text("x = 1\n")
    script = project / "--exit-zero"
    script.write_text("#!/usr/bin/env python3\n" + FORKING)
    script.chmod(0o755)
    return ["--exit-zero", "--output-file=pwned.py", "--stdin-filename=a.py"]


def test_after_pre_commit_a_file_named_like_an_option_is_a_file(option_names, capsys):
    """The hook's entry ends with --pre-commit; after it come the hook's args (options that
    name no file) and the file names (the hook passed: exit 0, or linted stdin)."""
    hook = ["check", "--no-cache", "--force-exclude", "--pre-commit"]
    code, out, err = cli(capsys, *hook, "--concise", *option_names, "train.py")
    assert (code, err) == (1, "")
    assert [line.split(" ")[0] for line in out.splitlines()] == [
        "--exit-zero:5:1:", "train.py:4:1:", "Found"]
    assert not os.path.exists("pwned.py")
    # a hook arg whose name a file also has is taken as that file: never an option it wasn't
    assert cli(capsys, *hook, "--exit-zero", *option_names)[0] == 1
    assert cli(capsys, *hook, "--ignore", "CUR101", *option_names, "train.py")[0] == 0


# -- file names that are not UTF-8 ----------------------------------------------------------


@pytest.fixture
def foreign_name(project):
    """A file whose name holds the byte 0xff (no UTF-8) and a CUR101 finding."""
    try:
        with open(os.path.join(os.fsencode(project), b"\xffbad.py"), "w") as handle:
            handle.write(FORKING)
    except OSError:  # a file system that only takes UTF-8 names (macOS)
        pytest.skip("this file system refuses names that are not UTF-8")
    os.remove("train.py")
    return project


@pytest.mark.parametrize("format", ["text", "json", "sarif", "github"])
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "output-file"])
def test_every_format_writes_valid_utf8_for_a_name_that_is_not(foreign_name, capsys, format, to_file):
    args = ["check", ".", "--no-cache", "--output-format", format]
    if to_file:
        args += ["--output-file", "report"]
    code, out, err = cli(capsys, *args)
    assert (code, err) == (1, "")
    text = (foreign_name / "report").read_bytes().decode("utf-8") if to_file else out
    text.encode("utf-8")  # strict: no lone surrogate
    if format == "json":
        assert json.loads(text)[0]["path"] == "\\xffbad.py"
    elif format == "sarif":
        location = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "%FFbad.py"
    elif format == "github":
        assert text.startswith("::warning file=\\xffbad.py,line=4,col=1,")
    else:
        assert text.startswith("\\xffbad.py:4:1: CUR101 ")


# -- paths that cannot be read --------------------------------------------------------------


@pytest.fixture
def locked(project, monkeypatch):
    """`locked/` holds a file with a finding but cannot be listed, as a directory of another
    user with mode 0700 (simulated: the tests may run as root, whom chmod does not stop)."""
    (project / "locked").mkdir()
    (project / "locked" / "job.py").write_text(FORKING)
    scandir = os.scandir

    def guarded(path="."):
        if os.path.basename(os.path.abspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", guarded)
    return project


def test_a_named_directory_that_cannot_be_read_is_an_error(locked, capsys):
    code, out, err = cli(capsys, "check", "locked", "train.py")
    assert (code, out) == (2, "")
    assert err == "cursedlint: error: cannot read 'locked': Permission denied\n"


@pytest.mark.parametrize("flags", [[], ["--exit-zero"], ["--output-format", "json"]])
def test_a_directory_met_in_the_walk_that_cannot_be_read_fails_the_run(locked, capsys, flags):
    code, out, err = cli(capsys, "check", ".", "--no-cache", *flags)
    assert code == 2
    assert "train.py" in out and "locked/job.py" not in out  # what could be read is reported
    assert err == (
        "cursedlint: error: cannot read 'locked': Permission denied; what it holds is not "
        "checked (exclude it with extend-exclude if it is not part of the project)\n"
    )


def test_an_excluded_directory_that_cannot_be_read_is_never_listed(locked, capsys):
    (locked / "cursedlint.toml").write_text("extend-exclude = ['locked/']\n")
    code, out, err = cli(capsys, "check", ".", "--no-cache")
    assert (code, err) == (1, "")
    assert "train.py" in out


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="needs a user whom file modes stop (not root, POSIX)")
def test_real_permissions(project, capsys):
    locked = project / "locked"
    locked.mkdir()
    (locked / "job.py").write_text(FORKING)
    locked.chmod(0)
    try:
        assert cli(capsys, "check", "locked")[0] == 2
        code, _, err = cli(capsys, "check", "locked/job.py")
        assert (code, err) == (2, "cursedlint: error: cannot read 'locked/job.py': Permission denied\n")
        code, _, err = cli(capsys, "check", ".", "--no-cache")
        assert code == 2 and "cannot read 'locked': Permission denied" in err
    finally:
        locked.chmod(0o755)


# -- failures outside the rules -------------------------------------------------------------


def test_the_report_file_s_missing_directories_are_created(project, capsys):
    code, out, _ = cli(capsys, "check", ".", "--output-format", "json", "--output-file", "out/ci/report.json")
    assert (code, out) == (1, "")
    assert json.loads((project / "out" / "ci" / "report.json").read_text())[0]["path"] == "train.py"


@pytest.mark.parametrize(
    "target, reason",
    [("train.py/report.txt", "Not a directory"), (".", "Is a directory"), ("/dev/full", "No space left on device")],
)
def test_a_report_file_that_cannot_be_written_is_an_error(project, capsys, target, reason):
    if target == "/dev/full" and not os.path.exists(target):
        pytest.skip("no /dev/full here")
    code, out, err = cli(capsys, "check", ".", "--output-file", target)
    assert (code, out) == (2, "")
    assert err == f"cursedlint: error: cannot write the report to {target!r}: {reason}\n"


@pytest.mark.parametrize(
    "error, line",
    [
        (RuntimeError("the index lost a file"), "internal error: RuntimeError: the index lost a file"),
        (WorkerError("a worker process raised:\nTraceback (most recent call last):\n  ...\nValueError: bad chunk"),
         "internal error: WorkerError: a worker process raised: ValueError: bad chunk"),
        (OSError(28, "No space left on device", ".cursedlint_cache/x"),
         "No space left on device: '.cursedlint_cache/x'"),
    ],
    ids=["runtime", "worker", "os"],
)
def test_an_exception_outside_a_rule_is_one_line_and_exit_2(project, capsys, monkeypatch, error, line):
    from cursedlint.engine import Linter

    def failing(self, files, jobs, project=None):
        raise error

    monkeypatch.setattr(Linter, "run", failing)
    code, out, err = cli(capsys, "check", ".")
    assert (code, out) == (2, "")
    hint = " (please report it; --show-traceback prints where)" if "internal" in line else ""
    assert err == f"cursedlint: error: {line}{hint}\n"
    code, _, err = cli(capsys, "check", ".", "--show-traceback")
    assert code == 2
    assert err.startswith("Traceback (most recent call last):\n") and "in failing" in err
    assert err.endswith(f"cursedlint: error: {line}{hint}\n")


def test_an_interrupt_exits_130_quietly(project, capsys, monkeypatch):
    from cursedlint.engine import Linter

    def interrupted(self, files, jobs, project=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(Linter, "run", interrupted)
    assert cli(capsys, "check", ".") == (130, "", "")


def run_cursedlint(project: Path, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cursedlint", *args], cwd=project, stderr=subprocess.PIPE, **popen
    )


@pytest.mark.parametrize("args, code", [(("check", "."), 1), (("check", "callbacks.py"), 0), (("rules",), 0)])
def test_a_reader_that_goes_away_ends_the_output_not_the_run(project, args, code):
    """`cursedlint check | head`: the pipe's reader is gone before the report is written; the
    exit code still tells whether there were findings, and nothing is printed about it."""
    process = run_cursedlint(project, *args, "--no-cache" if args[0] == "check" else "--format=text",
                             stdout=subprocess.PIPE)
    process.stdout.close()
    assert (process.wait(timeout=60), process.stderr.read()) == (code, b"")
    process.stderr.close()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_standard_output_is_an_error(project):
    with open("/dev/full", "w") as full:
        process = run_cursedlint(project, "check", ".", "--no-cache", stdout=full)
        assert process.wait(timeout=60) == 2
    assert process.stderr.read() == (
        b"cursedlint: error: cannot write the report to standard output: No space left on device\n"
    )
    process.stderr.close()


def _interruptible() -> None:
    """In the child before its exec: SIGINT's default action, as a terminal's foreground job
    has it. A test run started in the background of a shell without job control (`pytest &`,
    `nohup`) ignores SIGINT, the child inherits that, and a Ctrl-C would never reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIONREAD on a pipe's write end")
def test_ctrl_c_stops_the_run_with_130_and_no_traceback(project):
    """SIGINT to the process group, as a terminal sends it, while cursedlint is busy: reading
    standard input (--stdin-filename) from a pipe whose writer (this test) sends one line, then
    waits until cursedlint has taken it (the pipe is empty), and sends no more."""
    import fcntl
    import termios

    reader, writer = os.pipe()
    process = run_cursedlint(project, "check", "--stdin-filename", "train.py", stdin=reader,
                             stdout=subprocess.DEVNULL, start_new_session=True,
                             preexec_fn=_interruptible)
    os.close(reader)
    try:
        os.write(writer, b"import os\n")
        for _ in range(600):  # until cursedlint has read the line (and waits for more)
            if not struct.unpack("i", fcntl.ioctl(writer, termios.FIONREAD, b"\0" * 4))[0]:
                break
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.05)
        else:
            pytest.fail("cursedlint did not read its standard input in 30 s")
        os.killpg(process.pid, signal.SIGINT)
        assert (process.wait(timeout=60), process.stderr.read()) == (130, b"")
    finally:
        os.close(writer)
        process.stderr.close()
