# cython: language_level=3
"""CUR201 in Cython: cdef trampolines that take the GIL handed over while this module holds
it, compiled ones that do not take it, and Python callables handed to CuPy's runtime."""

from libc.stdint cimport intptr_t
from cupy_backends.cuda.api cimport runtime

cdef extern from "cuda.h" nogil:
    ctypedef void* CUstream
    ctypedef void (*CUhostFn)(void* user_data)
    ctypedef size_t (*CUoccupancyB2DSize)(int block_size)
    int cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* user_data)
    int cuOccupancyMaxPotentialBlockSize(int* grid, int* block, void* func,
                                         CUoccupancyB2DSize b2d, size_t smem, int limit)

cdef volatile int _done = 0


cdef void _mark_done(void* user_data) noexcept nogil:
    global _done
    _done = 1


cdef void _notify(void* user_data) noexcept with gil:
    (<object>user_data)()


cdef void _notify_later(void* user_data) noexcept nogil:
    with gil:
        print("batch finished")


cdef size_t _shared_bytes(int block_size) noexcept nogil:
    return 4 * block_size


cdef size_t _shared_bytes_logged(int block_size) noexcept with gil:
    print(block_size)
    return 4 * block_size


def enqueue(intptr_t stream, done):
    cuLaunchHostFunc(<CUstream>stream, _mark_done, NULL)  # ok: CUR201
    cuLaunchHostFunc(<CUstream>stream, _notify, <void*>done)  # error: CUR201 "takes the GIL"
    cuLaunchHostFunc(<CUstream>stream, <CUhostFn>_notify_later, NULL)  # error: CUR201


def enqueue_released(intptr_t stream, done):
    # The GIL is released around the handoff, and this module never waits for a stream
    # holding it: the callback can always take the GIL.
    with nogil:
        cuLaunchHostFunc(<CUstream>stream, _notify, <void*>done)  # ok: CUR201


def best_block(intptr_t func):
    cdef int grid, block
    cuOccupancyMaxPotentialBlockSize(&grid, &block, <void*>func, _shared_bytes, 0, 1024)  # ok: CUR201
    cuOccupancyMaxPotentialBlockSize(&grid, &block, <void*>func, _shared_bytes_logged, 0, 1024)  # error: CUR201
    return block


def on_host(intptr_t stream, callback, arg):
    def relay(data):
        callback(data)
    runtime.launchHostFunc(stream, relay, arg)  # error: CUR201 "Python function relay()"
