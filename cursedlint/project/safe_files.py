"""Reading the files the linter opens that it was not given to lint: ignore files, git
metadata, configurations, baselines, stores, the host files `doctor` probes.

Such a file may come with a cloned repository, so it is read only if it is a regular file
(a FIFO would block, a device never ends or acts on open), without following a symbolic link
unless the caller allows it, without blocking, and up to a size limit. A refused file raises
`RefusedFile`, an OSError whose message names the path and the reason in one line.
"""

from __future__ import annotations

import errno
import os
import stat

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))

_CHUNK = 1 << 16
"""A read's least size: files that tell no size (`/proc` files) are read by such chunks."""

SMALL_FILE_BYTES = 1 << 20
"""The limit for files of a few lines (ignore files, git metadata, `/proc` values)."""


class RefusedFile(OSError):
    """A file that is not read: `reason` says why, `str()` names the path too."""

    def __init__(self, path: str, reason: str, code: int = errno.EINVAL):
        super().__init__(code, reason, path)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def read_regular(path: str, limit: int, follow_symlinks: bool = False) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises `RefusedFile` for a symbolic link (unless `follow_symlinks`), anything but a regular
    file, or a file over `limit` bytes (checked on the bytes read, since `/proc` files and
    files that grow report another size); other OSErrors (absent, unreadable) as they come.
    The type is checked before the open (opening a device can act) and again on the open
    descriptor (the path may have been swapped in between).
    """
    try:
        before = os.stat(path) if follow_symlinks else os.lstat(path)
    except ValueError:  # a NUL in the path
        raise RefusedFile(path, "the name holds a NUL byte") from None
    if stat.S_ISLNK(before.st_mode):
        raise RefusedFile(path, "is a symbolic link (not followed)", errno.ELOOP)
    if not stat.S_ISREG(before.st_mode):
        raise RefusedFile(path, f"is not a regular file ({_kind(before.st_mode)})")
    try:
        descriptor = os.open(path, _READ_FLAGS | (0 if follow_symlinks else _NOFOLLOW))
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_symlinks:
            raise RefusedFile(path, "is a symbolic link (not followed)", errno.ELOOP) from None
        raise
    with open(descriptor, "rb", buffering=0) as handle:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            raise RefusedFile(path, f"is not a regular file ({_kind(opened.st_mode)})")
        if opened.st_size > limit:  # refused unread (a sparse file); a grown one is caught below
            raise RefusedFile(path, f"is larger than {limit:,} bytes", errno.EFBIG)
        chunks, size = [], 0
        while size <= limit:  # one read may stop short (a /proc file gives a page at a time)
            # a read allocates what it asks for: the size the file tells, not the limit (1 GiB
            # for a store made each read 10 times slower, and a MemoryError under `ulimit -v`)
            chunk = handle.read(min(limit + 1 - size, max(opened.st_size + 1 - size, _CHUNK)))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > limit:
        raise RefusedFile(path, f"is larger than {limit:,} bytes", errno.EFBIG)
    return data


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def is_real_directory(path: str) -> bool:
    """Whether `path` is a directory itself, not a symbolic link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False
