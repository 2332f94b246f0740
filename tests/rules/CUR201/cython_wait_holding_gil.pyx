# cython: language_level=3
"""The handoff releases the GIL, but the module waits for the stream holding it: a host
function that needs the GIL can never finish, and the wait never returns."""

from libc.stdint cimport intptr_t

cdef extern from "cuda.h" nogil:
    ctypedef void* CUstream
    ctypedef void (*CUhostFn)(void* user_data)
    int cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* user_data)
    int cuStreamSynchronize(CUstream stream)


cdef void _report(void* user_data) noexcept with gil:
    print("copy finished")


def copy_then_report(intptr_t stream):
    with nogil:
        cuLaunchHostFunc(<CUstream>stream, _report, NULL)  # error: CUR201


def wait(intptr_t stream):
    return cuStreamSynchronize(<CUstream>stream)
