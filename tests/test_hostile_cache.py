"""The cache directory as a cloned repository or a killed run may leave it: a symbolic link out of
the tree, links and FIFOs inside it, damaged stores, temporary files of a run killed mid-write.
Nothing is written, read or removed outside the tree, no run hangs, and a damaged store is
empty (reproducers of the 2026-11-27 audit: D1, D11, D12, D15, D17, D19)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cursedlint.project import cache
from cursedlint.project.cache import (CACHE_DIR, MAX_STORES, ResultCache, fingerprint, load_store,
                              save_store)
from cursedlint.cli import main
from cursedlint.project.index import IndexStore

FIXME = """\
import os
import subprocess

def start(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)
"""
HOUR = 3600
OLD = 1_577_836_800  # 2020-01-01


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with one finding whose files are old enough to be trusted by their stat."""
    tree = tmp_path / "project"
    tree.mkdir()
    (tree / "fixme.py").write_text(FIXME)
    os.utime(tree / "fixme.py", (OLD, OLD))
    monkeypatch.chdir(tree)
    return tree


@pytest.fixture
def victim(tmp_path):
    """A directory outside the tree holding a user's files, some of them of the names cursedlint
    gives its own files (stores, pickle stores of earlier versions, temporary files)."""
    directory = tmp_path / "victim"
    directory.mkdir()
    (directory / "model.pickle").write_bytes(b"weights")
    for day in range(1, 10):
        (directory / f"run{day}.msgpack").write_text(f"{day}\n")
        os.utime(directory / f"run{day}.msgpack", (OLD + day * 86400,) * 2)
    for name in ("0" * 32 + ".msgpack", "index-" + "0" * 32 + ".msgpack", "1" * 32 + ".pickle",
                 ".tmp-1-1-0"):
        (directory / name).write_bytes(b"a user's file")
        os.utime(directory / name, (OLD, OLD))
    return directory


def snapshot(directory) -> dict[str, tuple[bytes, int]]:
    return {entry.name: (open(entry.path, "rb").read(), entry.stat().st_mtime_ns)
            for entry in os.scandir(directory)}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def git(*args, cwd) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=cwd, check=True, capture_output=True)


def test_d1_a_cloned_cache_link_is_not_used_and_nothing_outside_is_touched(
        tmp_path, victim, monkeypatch, capsys):
    if shutil.which("git") is None:
        pytest.skip("no git")
    source = tmp_path / "evil_src"
    source.mkdir()
    (source / "fixme.py").write_text(FIXME)
    (source / CACHE_DIR).symlink_to("../victim")
    git("init", "-q", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-qm", "init", cwd=source)
    git("clone", "-q", str(source), str(tmp_path / "evil_clone"), cwd=tmp_path)
    clone = tmp_path / "evil_clone"
    assert (clone / CACHE_DIR).is_symlink()
    monkeypatch.chdir(clone)
    before = snapshot(victim)
    read: list[str] = []
    real = cache.read_regular
    monkeypatch.setattr(cache, "read_regular",
                        lambda path, limit: read.append(path) or real(path, limit))
    for _ in range(2):
        code, out, err = run(capsys, "check", ".")
        assert code == 1 and "fixme.py:5:12: CUR101" in out
        assert err.count("\n") == 1 and err.startswith("cursedlint: warning: ")
        assert err.endswith(f"{CACHE_DIR}: is a symbolic link (not followed); running as with "
                            "--no-cache\n")
    assert read == [], "no store is read through the link"
    assert snapshot(victim) == before, "nothing written or removed in the directory linked to"


@pytest.mark.parametrize("kind", ["link to nothing", "file"])
def test_d1_a_cache_path_that_is_not_a_directory_is_not_used(project, capsys, kind):
    if kind == "file":
        (project / CACHE_DIR).write_text("notes\n")
    else:
        (project / CACHE_DIR).symlink_to(project.parent / "absent")
    reason = "is not a directory" if kind == "file" else "is a symbolic link (not followed)"
    code, out, err = run(capsys, "check", ".")
    assert code == 1 and "CUR101" in out
    assert err == (f"cursedlint: warning: {os.path.join(os.getcwd(), CACHE_DIR)}: {reason}; "
                   "running as with --no-cache\n")
    assert not (project.parent / "absent").exists()


@pytest.mark.parametrize("store", ["results", "index"])
def test_d1_stores_neither_read_nor_written_through_a_linked_directory(tmp_path, victim, store):
    """The store functions refuse the link themselves, as when the directory is swapped for
    one during a run: a valid store in the linked directory is not read, and saving writes and
    removes nothing there."""
    elsewhere = tmp_path / "elsewhere"
    made = (ResultCache(str(elsewhere), fingerprint("linked"), int) if store == "results"
            else IndexStore(str(elsewhere / CACHE_DIR), fingerprint("linked")))
    made.run = 5
    made.changed = True
    made.save()
    os.rename(elsewhere / CACHE_DIR / os.path.basename(made.path),
              victim / os.path.basename(made.path))
    before = snapshot(victim)
    (tmp_path / CACHE_DIR).symlink_to(victim)
    again = (ResultCache(str(tmp_path), fingerprint("linked"), int) if store == "results"
             else IndexStore(str(tmp_path / CACHE_DIR), fingerprint("linked")))
    assert again.run == 0, "the store in the linked directory is not read"
    again.changed = True
    again.save()
    assert snapshot(victim) == before


def test_d1_only_files_of_the_names_cursedlint_gives_are_removed(tmp_path):
    top = tmp_path / CACHE_DIR
    top.mkdir()
    outside = tmp_path / "outside.pickle"
    outside.write_bytes(b"weights")
    foreign = ["model.pickle", "run1.msgpack", "index-run.msgpack", "0" * 31 + ".msgpack",
               "A" * 32 + ".msgpack", "0" * 32 + ".msgpack.bak", ".tmp-build", ".tmp-1-2"]
    for name in foreign:
        (top / name).write_bytes(b"a user's file")
        os.utime(top / name, (OLD, OLD))
    (top / ("2" * 32 + ".pickle")).symlink_to(outside)
    for name in ("1" * 32 + ".pickle", "index-" + "1" * 32 + ".pickle"):
        (top / name).write_bytes(b"a pickle store of an earlier version")
    for index in range(MAX_STORES + 2):
        stored = ResultCache(str(tmp_path), fingerprint("bounded", index), int)
        stored.put("key", index)
        stored.save()
        os.utime(stored.path, (OLD + index, OLD + index))
    names = set(os.listdir(top))
    assert set(foreign) <= names and outside.read_bytes() == b"weights"
    assert "2" * 32 + ".pickle" in names, "a link is no store cursedlint wrote"
    assert not {"1" * 32 + ".pickle", "index-" + "1" * 32 + ".pickle"} & names
    assert len([name for name in names if cache._STORE_NAME.fullmatch(name)]) == MAX_STORES + 1


def test_d11_a_gitignore_link_to_nothing_is_not_written_through(project, tmp_path, capsys):
    (project / CACHE_DIR).mkdir()
    target = tmp_path / "outside2" / "created-by-linter"
    target.parent.mkdir()
    (project / CACHE_DIR / ".gitignore").symlink_to(target)
    first = run(capsys, "check", ".")
    assert first[0] == 1 and first[2] == ""
    assert not os.path.lexists(target)
    assert (project / CACHE_DIR / ".gitignore").is_symlink()
    assert list((project / CACHE_DIR).glob("*.msgpack")), "the store is written all the same"
    assert run(capsys, "check", ".") == first


def lint_in_child(project, *args: str) -> tuple[int, str, int, float]:
    """A run in a child process under a 3 GiB address-space limit: its exit code, output, peak
    RSS in MB (VmHWM: ru_maxrss would count the parent's, kept across exec) and seconds."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))\n"
        "from cursedlint.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "peak = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
        "print(int(peak) // 1024, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script, "check", "--jobs", "1", *args],
                          cwd=project, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, int(done.stderr.split()[-1]), \
        time.monotonic() - started


@pytest.mark.parametrize("replacement", ["FIFO", "/dev/zero", "/dev/urandom"])
def test_d12_a_store_that_is_a_fifo_or_a_link_to_a_device_is_empty(project, replacement):
    pytest.importorskip("resource")
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    first = lint_in_child(project, ".")
    stores = list((project / CACHE_DIR).glob("*.msgpack"))
    assert first[0] == 1 and stores
    for store in stores:
        store.unlink()
        if replacement == "FIFO":
            os.mkfifo(store)
        else:
            store.symlink_to(replacement)
    code, out, peak_mb, seconds = lint_in_child(project, ".")
    assert (code, out) == first[:2]
    assert seconds < 20 and peak_mb < 400, (seconds, peak_mb)  # the bug: a hang, or 3 GB
    assert all(store.is_file() and not store.is_symlink() for store in stores), "written anew"


def test_d15_a_flipped_byte_in_a_stored_message_empties_the_store(project, capsys):
    uncached = run(capsys, "check", ".", "--no-cache")
    assert run(capsys, "check", ".") == uncached
    (store,) = (path for path in (project / CACHE_DIR).glob("*.msgpack")
                if not path.name.startswith("index-"))
    data = bytearray(store.read_bytes())
    at = data.find(b"fork()s this whole process")
    assert at > 0
    data[at + 1] ^= 0x01  # "fork()s" -> "fnrk()s", as in the audit's altered findings
    store.write_bytes(bytes(data))
    assert run(capsys, "check", ".") == uncached


def test_d15_every_single_bit_flip_of_a_store_is_found(tmp_path):
    path = str(tmp_path / CACHE_DIR / ("index-" + "a" * 32 + ".msgpack"))
    held = {"Plugin": "subclasses of Registry", "count": "3"}
    save_store(path, held)
    assert load_store(path, dict[str, str]) == held
    data = open(path, "rb").read()
    for at in range(len(data)):
        for bit in (0x01, 0x80):
            damaged = bytearray(data)
            damaged[at] ^= bit
            with open(path, "wb") as handle:
                handle.write(damaged)
            assert load_store(path, dict[str, str]) is None, (at, bit)


def test_d17_a_temporary_file_left_by_kill_9_is_removed_once_an_hour_old(project, capsys):
    """A run killed between a store's write and its rename leaves its temporary file; a later
    run that saves removes it once it is an hour old, and never a younger one (a run's
    own, alive or not)."""
    script = (
        "import os, sys, time\n"
        "def stalled(*args, **kwargs):\n"
        "    print('stalled', file=sys.stderr, flush=True)\n"
        "    time.sleep(120)\n"
        "os.replace = stalled\n"
        "from cursedlint.cli import main\n"
        "main(['check', '--jobs', '1', '.'])\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], cwd=project,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr.readline() == "stalled\n"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stderr.close()
    (left,) = (project / CACHE_DIR).glob(f".tmp-{child.pid}-*")
    live = project / CACHE_DIR / f".tmp-{os.getpid()}-{time.time_ns()}-0"
    live.write_bytes(b"a concurrent run's store, before its rename")
    os.utime(live, (time.time() - HOUR + 60,) * 2)
    first = run(capsys, "check", ".")
    assert first[0] == 1 and left.exists() and live.exists(), "younger than an hour: kept"
    os.utime(left, (time.time() - HOUR - 60,) * 2)
    (project / "other.py").write_text("x = 1\n")  # a run that saves
    assert run(capsys, "check", ".")[0] == 1
    assert not left.exists() and live.exists()


def test_d19_clean_removes_a_cache_link_not_what_it_points_to(project, victim, capsys):
    before = snapshot(victim)
    (project / CACHE_DIR).symlink_to(victim)
    assert run(capsys, "clean") == (0, "", "cursedlint: removed the symbolic link "
                                           f"{project / CACHE_DIR}, not what it points to\n")
    assert not os.path.lexists(project / CACHE_DIR)
    assert snapshot(victim) == before
    assert run(capsys, "clean")[2] == f"cursedlint: no cache in {project}\n"


def test_clean_removes_a_cache_directory_but_not_what_links_in_it_point_to(project, victim,
                                                                           capsys):
    before = snapshot(victim)
    assert run(capsys, "check", ".")[0] == 1
    (project / CACHE_DIR / "escape").symlink_to(victim)
    assert run(capsys, "clean") == (0, "", f"cursedlint: removed cache in {project}\n")
    assert not os.path.lexists(project / CACHE_DIR)
    assert snapshot(victim) == before
