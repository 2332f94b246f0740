"""ctypes bindings of the native sound library, loaded once and re-exported by name."""

import ctypes
import ctypes.util
import os
from ctypes import CFUNCTYPE, c_int, c_ulong, c_void_p


def _load_library():
    path = os.environ.get("PORTSND_LIBRARY") or ctypes.util.find_library("portsnd")
    if path is None:
        raise OSError("libportsnd not found")
    return ctypes.CDLL(path)


_snd = _load_library()

STREAM_CALLBACK = CFUNCTYPE(c_int, c_void_p, c_ulong, c_void_p)
COMPARE = CFUNCTYPE(c_int, c_void_p, c_void_p)

open_stream = _snd.snd_open_stream
open_stream.argtypes = [c_void_p, STREAM_CALLBACK, c_void_p]
sort_devices = _snd.snd_sort_devices


def describe(stream):
    return f"stream at {stream:#x}"
