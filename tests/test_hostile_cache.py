"""The cache directory as a cloned repository or a killed run may leave it: a symbolic link out of
the tree, links and FIFOs inside it, damaged stores, temporary files of a run killed mid-write.
Nothing is written, read or removed outside the tree, no run hangs, and a damaged store is
empty (reproducers of the 2026-11-27 audit: D1, D11, D12, D15, D17, D19)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from cursedlint.cache import CACHE_DIR, load_store, save_store
from cursedlint.cli import main

FIXME = """\
import os
import subprocess

def start(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)
"""
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


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


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
