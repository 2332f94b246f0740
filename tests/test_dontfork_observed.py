"""What CUR301 and CUR302 rest on, observed on this kernel: `MADV_DONTFORK` (what libibverbs
applies to a registered range, rounded out to whole pages, when fork protection is on) takes
the whole page from every forked child, with whatever else malloc put in it; a page-aligned
block of whole pages takes nothing else with it. Each test restores the advice before it
returns (a page left marked would crash the suite's later children: the hazard itself)."""

from __future__ import annotations

import ctypes
import faulthandler
import mmap
import os
import signal
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="MADV_DONTFORK is Linux's")

MADV_DOFORK, MADV_DONTFORK = 11, 10
PAGE = mmap.PAGESIZE


@pytest.fixture(scope="module")
def libc():
    lib = ctypes.CDLL(None, use_errno=True)
    lib.malloc.restype = ctypes.c_void_p
    lib.malloc.argtypes = [ctypes.c_size_t]
    lib.free.argtypes = [ctypes.c_void_p]
    lib.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    lib.posix_memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                   ctypes.c_size_t]
    return lib


def _child_reads(address: int) -> int:
    """The wait status of a forked child that reads the byte at `address`, then exits 0."""
    pid = os.fork()
    if pid == 0:  # (nothing but the read: the child may lack any page of the heap)
        faulthandler.disable()  # (its crash is the observation, not an error to print)
        ctypes.string_at(address, 1)
        os._exit(0)
    return os.waitpid(pid, 0)[1]


def _advise(libc, start: int, length: int, advice: int) -> None:
    if libc.madvise(start, length, advice) != 0:
        pytest.skip(f"madvise failed: {os.strerror(ctypes.get_errno())}")


def _neighbours(libc, size: int) -> tuple[int, int, list[int]]:
    """Two blocks of `size` bytes from malloc on one page (and all the blocks asked for)."""
    blocks = [libc.malloc(size) for _ in range(64)]
    by_page: dict[int, int] = {}
    for block in blocks:
        page = block // PAGE
        if page in by_page:
            return by_page[page], block, blocks
        by_page[page] = block
    pytest.skip("malloc put no two small blocks on one page")


def test_a_small_heap_block_takes_its_neighbours_page_from_the_child(libc):
    """CUR301/CUR302's hazard: a 64-byte registration inside the malloc heap."""
    registered, neighbour, blocks = _neighbours(libc, 64)
    page = registered - registered % PAGE
    _advise(libc, page, PAGE, MADV_DONTFORK)
    try:
        status = _child_reads(neighbour)
        ctypes.string_at(neighbour, 1)  # the parent still has it
    finally:
        _advise(libc, page, PAGE, MADV_DOFORK)
        for block in blocks:
            libc.free(block)
    assert os.WIFSIGNALED(status), "the child read the neighbour's page"
    assert os.WTERMSIG(status) in (signal.SIGSEGV, signal.SIGBUS)


def test_a_page_aligned_block_of_whole_pages_takes_nothing_else(libc):
    """What CUR302 leaves silent: `posix_memalign(&p, page, n * page)` registered whole."""
    block = ctypes.c_void_p()
    assert libc.posix_memalign(ctypes.byref(block), PAGE, 2 * PAGE) == 0
    neighbour = libc.malloc(64)
    _advise(libc, block.value, 2 * PAGE, MADV_DONTFORK)
    try:
        outside = _child_reads(neighbour)
        inside = _child_reads(block.value + PAGE)
    finally:
        _advise(libc, block.value, 2 * PAGE, MADV_DOFORK)
        libc.free(neighbour)
        libc.free(block.value)
    assert os.WIFEXITED(outside) and os.WEXITSTATUS(outside) == 0
    assert os.WIFSIGNALED(inside), "the child kept a page marked MADV_DONTFORK"
