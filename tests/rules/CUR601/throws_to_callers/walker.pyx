# distutils: language = c++
from libc.stdint cimport uintptr_t
from libcpp.memory cimport unique_ptr

from probe cimport RemoteMemory


cdef class FrameWalker:
    cdef unique_ptr[RemoteMemory] memory

    def __cinit__(self, int pid):
        self.memory.reset(new RemoteMemory(pid))

    def frame_bytes(self, uintptr_t addr, size_t size):
        buffer = bytearray(size)
        cdef char *data = buffer
        self.memory.get().readFrame(addr, size, data)
        return bytes(buffer)
