"""CUR202: a callback made by a prototype decorator, a library kept in an attribute, and a
setter with a prefix (`tailer_set_log_callback`) keep the callback as C does; the look-alikes
keep it for the process's life, or are called only during the call."""
import ctypes

LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
COMPARE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

lib = ctypes.CDLL("libtailer.so")
libc = ctypes.CDLL("libc.so.6")


@LOG_CALLBACK
def log_forever(message):  # ok: CUR202 (module level: kept for the process's life)
    print(message)


lib.tailer_set_log_callback(log_forever)


def install_decorated():
    @ctypes.CFUNCTYPE(None, ctypes.c_char_p)
    def on_log(message):
        print(message)

    lib.tailer_set_log_callback(on_log)  # error: CUR202@33


def sort(items, count):
    @COMPARE  # ok: CUR202 (qsort calls it only while it runs)
    def by_address(left, right):
        return 0

    libc.qsort(items, count, 8, by_address)


class Tailer:
    def __init__(self, path):
        self._lib = ctypes.CDLL(path)
        self._handler = LOG_CALLBACK(self._on_log)  # ok: CUR202 (kept by the object)

    def _on_log(self, message):
        print(message)

    def start(self):
        self._lib.tailer_set_log_callback(self._handler)

    def start_once(self):
        handler = LOG_CALLBACK(lambda message: print(message))
        self._lib.tailer_set_log_callback(handler)  # error: CUR202@43
