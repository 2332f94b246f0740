# cython: language_level=3
"""Host functions on a CUDA stream: the shapes that keep their Python object and those that
do not."""

cimport cpython
from libc.stdint cimport intptr_t

include "_cuda_extern.pxi"

_KEEP_FOREVER = []


cdef void _run_once(void* user_data) noexcept nogil:
    with gil:
        obj = <object>user_data
        cpython.Py_DECREF(obj)  # the reference the launcher took
        func, arg = obj
        func(arg)


cdef void _run(void* user_data) noexcept with gil:
    func, arg = <object>user_data
    func(arg)


cdef void _stream_done(Stream stream, int status, void* user_data) noexcept with gil:
    obj = <object>user_data
    cpython.Py_DECREF(obj)
    func, arg = obj
    func(status, arg)


cpdef launch_once(intptr_t stream, callback, arg):
    func_arg = (callback, arg)
    cpython.Py_INCREF(func_arg)
    with nogil:
        status = cudaLaunchHostFunc(
            <Stream>stream, <HostFn>_run_once,  # ok: CUR201 (the GIL is released)
            <void*>func_arg)  # error: CUR202 "releases it on its first call"
    return status


cpdef launch_once_unless_capturing(intptr_t stream, callback, arg):
    cdef CaptureStatus capturing
    cudaStreamIsCapturing(<Stream>stream, &capturing)
    if capturing != captureStatusNone:
        raise RuntimeError("keep the callback for the graph's life instead")
    func_arg = (callback, arg)
    cpython.Py_INCREF(func_arg)
    return cudaLaunchHostFunc(<Stream>stream, <HostFn>_run_once, <void*>func_arg)  # error: CUR201; ok: CUR202


cpdef add_callback(intptr_t stream, callback, arg):
    # Stream callbacks cannot be captured: the trampoline runs exactly once.
    func_arg = (callback, arg)
    cpython.Py_INCREF(func_arg)
    return cudaStreamAddCallback(<Stream>stream, _stream_done, <void*>func_arg, 0)  # error: CUR201; ok: CUR202


cpdef launch_closure(intptr_t stream, callback, arg):
    def bound(_):
        callback(arg)
    return cudaLaunchHostFunc(<Stream>stream, <HostFn>_run, <void*>bound)  # error: CUR201, CUR202 "only reference"


cpdef launch_pair(intptr_t stream, callback, arg):
    return cudaLaunchHostFunc(<Stream>stream, <HostFn>_run, <void*>(callback, arg))  # error: CUR201, CUR202 "temporary"


cpdef launch_kept(intptr_t stream, callback, arg):
    func_arg = (callback, arg)
    _KEEP_FOREVER.append(func_arg)  # kept for the life of the process
    return cudaLaunchHostFunc(<Stream>stream, <HostFn>_run, <void*>func_arg)  # error: CUR201; ok: CUR202


cpdef launch_managed(intptr_t stream, tuple func_arg):
    # The caller keeps `func_arg` alive (a graph holds it for its life).
    return cudaLaunchHostFunc(<Stream>stream, <HostFn>_run, <void*>func_arg)  # error: CUR201; ok: CUR202


cdef class HostQueue:

    def __cinit__(self, intptr_t stream):
        self.stream = stream
        self._pending = []

    cpdef enqueue(self, callback, arg):
        func_arg = (callback, arg)
        self._pending.append(func_arg)
        self._launch(func_arg)

    cdef int _launch(self, tuple func_arg) except -1:
        cdef void* data = <void*>func_arg
        return cudaLaunchHostFunc(<Stream>self.stream, <HostFn>_run, data)  # error: CUR201; ok: CUR202
