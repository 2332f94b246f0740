# cython: language_level=3
"""Completion callbacks run on a stream after its work: the user data travels as a pointer
variable cast once, then handed to the driver without the GIL."""

cimport cpython
from libc.stdint cimport intptr_t

from runtime_api cimport HostFn, Stream, cudaLaunchHostFunc

_PENDING = []


cdef void _complete(void* user_data) noexcept with gil:
    (<object>user_data)()


cpdef on_complete(intptr_t stream, callback, value):
    def done():
        callback(value)
    cdef void* data = <void*>done
    with nogil:
        status = cudaLaunchHostFunc(<Stream>stream, <HostFn>_complete, data)  # error: CUR202 "the local 'done' is its only reference"
    return status


cpdef on_complete_kept(intptr_t stream, callback, value):
    def done():
        callback(value)
    _PENDING.append(done)
    cdef void* data = <void*>done
    with nogil:
        status = cudaLaunchHostFunc(<Stream>stream, <HostFn>_complete, data)  # ok: CUR202 (kept on a module list)
    return status


cpdef on_complete_owned(intptr_t stream, callback, value):
    def done():
        callback(value)
    cpython.Py_INCREF(done)  # the trampoline's to release
    cdef void* data = <void*>done
    with nogil:
        status = cudaLaunchHostFunc(<Stream>stream, <HostFn>_complete, data)  # ok: CUR202 (a reference taken)
    return status


cpdef on_complete_given(intptr_t stream, callback):
    cdef void* data = <void*>callback
    with nogil:
        status = cudaLaunchHostFunc(<Stream>stream, <HostFn>_complete, data)  # ok: CUR202 (the caller's object)
    return status
