"""The reads of files the linter did not get to lint: regular files only, bounded, no links."""

import os

import pytest

from cursedlint.safe_files import RefusedFile, is_real_directory, read_regular


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
