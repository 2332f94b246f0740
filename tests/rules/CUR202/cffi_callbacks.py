"""cffi: `ffi.callback` objects are what C calls through; C keeps the pointer of the setters,
calls the visitor only while `loader_visit` runs."""
from cffi import FFI

ffi = FFI()
ffi.cdef("void loader_set_progress_callback(void (*fn)(int, int));")
lib = ffi.dlopen("libloader.so")
set_progress = lib.loader_set_progress_callback
_SINKS = {}


def follow_progress(report):
    set_progress(ffi.callback("void(int, int)", lambda done, total: report(done, total)))  # error: CUR202 "cffi callback of lambda"


def follow_lines(name):
    @ffi.callback("void(const char *)")
    def sink(line):
        print(name, ffi.string(line))

    lib.loader_register_sink(sink)  # error: CUR202@30


def follow_lines_kept(name):
    @ffi.callback("void(const char *)")  # ok: CUR202 (kept in a module-level dict)
    def sink(line):
        print(name, ffi.string(line))

    _SINKS[name] = sink
    lib.loader_register_sink(sink)


def count_items():
    seen = []
    visit = ffi.callback("int(int)", lambda item: seen.append(item) or 0)  # ok: CUR202 (called during the call)
    lib.loader_visit(visit)
    return len(seen)


class Loader:
    def __init__(self):
        self._lib = ffi.dlopen("libloader.so")
        self._progress = ffi.callback("void(int, int)", self._on_progress)  # ok: CUR202 (kept by the object)
        self._lib.loader_set_progress_callback(self._progress)

    def _on_progress(self, done, total):
        print(done, total)
