from libc.stdint cimport intptr_t


cdef class HostQueue:
    cdef readonly intptr_t stream
    cdef list _pending

    cpdef enqueue(self, callback, arg)
    cdef int _launch(self, tuple func_arg) except -1
