from libc.stdint cimport uintptr_t

cdef extern from "remote_memory.h" namespace "probe":
    cdef cppclass RemoteMemory:
        RemoteMemory(int pid) except +
        size_t readFrame(uintptr_t addr, size_t len, void *dst) except +
