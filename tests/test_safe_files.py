"""The reads of files the linter did not get to lint: regular files only, bounded, no links."""

import os
import subprocess
import sys

import pytest

from cursedlint.project.safe_files import RefusedFile, is_real_directory, read_regular


def test_reads_a_regular_file(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x = 1\n")
    assert read_regular(str(path), 100) == b"x = 1\n"


def test_refuses_a_fifo_without_blocking(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    with pytest.raises(RefusedFile, match="pipe: is not a regular file \\(a FIFO\\)"):
        read_regular(str(path), 100)


def test_refuses_a_link_to_a_device_unread(tmp_path):
    path = tmp_path / ".gitignore"
    path.symlink_to("/dev/zero")
    with pytest.raises(RefusedFile, match="symbolic link"):
        read_regular(str(path), 100)
    with pytest.raises(RefusedFile, match="character device"):
        read_regular(str(path), 100, follow_symlinks=True)


def test_follows_a_link_to_a_regular_file_only_when_allowed(tmp_path):
    (tmp_path / "target").write_bytes(b"data")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert read_regular(str(tmp_path / "link"), 10, follow_symlinks=True) == b"data"
    with pytest.raises(RefusedFile):
        read_regular(str(tmp_path / "link"), 10)


def test_refuses_a_file_over_the_limit(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 11)
    assert read_regular(str(path), 11) == b"x" * 11
    with pytest.raises(RefusedFile, match="larger than 10 bytes"):
        read_regular(str(path), 10)


def test_proc_files_read_whole_despite_their_zero_size():
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    assert b"Name:" in read_regular("/proc/self/status", 1 << 20)


def test_absent_file_is_an_ordinary_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_regular(str(tmp_path / "absent"), 10)


def test_real_directory(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "dir")
    assert is_real_directory(str(tmp_path / "dir"))
    assert not is_real_directory(str(tmp_path / "link"))
    assert not is_real_directory(str(tmp_path / "absent"))


def test_a_sparse_file_over_the_limit_is_refused_unread(tmp_path):
    import tracemalloc

    path = tmp_path / "sparse"
    with open(path, "wb") as handle:
        handle.truncate(2 << 30)  # 2 GiB of holes
    tracemalloc.start()
    try:
        with pytest.raises(RefusedFile, match="larger than"):
            read_regular(str(path), 1 << 30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # nothing like the 1 GiB a read up to the limit allocates


def test_a_small_file_under_a_large_limit_is_read_without_allocating_the_limit(tmp_path):
    """Stores are read with a limit of 1 GiB: a read of a few bytes must not ask for that much
    memory (under `ulimit -v` the allocation alone failed)."""
    pytest.importorskip("resource")
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    path = tmp_path / "store"
    path.write_bytes(b"s" * 100_000)
    script = (
        "import resource, sys\n"
        "from cursedlint.project.safe_files import read_regular\n"
        "status = open('/proc/self/status').read()\n"
        "size = int(status.split('VmSize:')[1].split()[0]) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size + (256 << 20), resource.RLIM_INFINITY))\n"
        "print(len(read_regular(sys.argv[1], 1 << 30)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "100000\n", "")
