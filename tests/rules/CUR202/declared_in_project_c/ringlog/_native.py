"""The shared library and the callback prototypes, made once for the package."""

import ctypes
import os

DISPATCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_long, ctypes.c_char_p)
COMBINE = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)
ROTATE = ctypes.CFUNCTYPE(None, ctypes.c_int)
EVENT = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    library = ctypes.CDLL(os.path.join(here, "libringlog.so"))
    return library


lib = _load()
