"""CUR201 fixture: a ctypes callback whose function pointer is read out of the object's bytes
(`int.from_bytes(cb, ...)`, a ctypes function object is a buffer holding its address) and
wrapped in cuda-python's callback type; the bytes of a library function or of any other buffer
are no Python callback."""

import ctypes

from cuda.bindings import driver

Done = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.py_object)
native = ctypes.CDLL("libstreamhooks.so")


class CompletionQueue:
    def __init__(self, stream_handle):
        self.stream_handle = stream_handle
        self.pending = []

    @staticmethod
    @Done
    def _on_stream_done(handle, status, record):
        queue, token = record
        queue.pending.remove(token)

    def push(self, token):
        self.pending.append(token)
        address = int.from_bytes(self._on_stream_done, byteorder="little")
        hook = driver.CUstreamCallback(address)
        driver.cuStreamAddCallback(self.stream_handle, hook, id((self, token)), 0)  # error: CUR201


@Done
def log_status(handle, status, record):
    print("stream finished with", status)


def watch(stream_handle):
    address = int.from_bytes(log_status, "little")
    driver.cuStreamAddCallback(stream_handle, driver.CUstreamCallback(address), None, 0)  # error: CUR201


def watch_natively(stream_handle):
    address = int.from_bytes(native.record_completion, byteorder="little")
    driver.cuStreamAddCallback(stream_handle, driver.CUstreamCallback(address), None, 0)  # ok: CUR201


def watch_with(stream_handle, pointer_bytes):
    address = int.from_bytes(pointer_bytes, byteorder="little")
    driver.cuStreamAddCallback(stream_handle, driver.CUstreamCallback(address), None, 0)  # ok: CUR201
