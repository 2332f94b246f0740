"""A native runtime's targets: its library function takes the pointer back when the object is
closed, so an instance returned to the caller is the caller's to keep."""

import ctypes

HOOK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_lib = ctypes.CDLL("libnrt.so")


class Hook:
    def __init__(self, name, body):
        self.name = name
        self.body = body
        self.trampoline = HOOK(lambda data: self.body(data))
        _lib.nrt_set_hook(name.encode(), self.trampoline)

    def close(self):
        _lib.nrt_set_hook(self.name.encode(), None)


def open_hook(name, body):
    return Hook(name, body)
