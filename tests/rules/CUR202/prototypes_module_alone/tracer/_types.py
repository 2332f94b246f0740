"""The C types of libtrace's API, declared once for every module that calls it."""

import ctypes

EVENT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)
FILTER_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p)
