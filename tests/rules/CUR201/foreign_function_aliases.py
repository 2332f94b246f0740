"""CUR201: the driver's functions reached through aliases of a library's function (a module
name, a local, an attribute a method binds) are the driver's functions: a Python callable handed
to them runs on the driver's thread. The look-alikes pass a compiled function, or call a
same-named function of something that is not a loaded library."""
import ctypes

libcuda = ctypes.CDLL("libcuda.so.1")
HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
enqueue = libcuda.cuLaunchHostFunc
_KEPT = []


def note_done(stream):
    callback = HostFn(lambda data: print("done", data))  # error: CUR201
    _KEPT.append(callback)
    enqueue(stream, callback, None)


def note_done_compiled(stream, marker_address):
    enqueue(stream, ctypes.cast(marker_address, HostFn), None)  # ok: CUR201


def note_done_elsewhere(queue, stream):
    launch = queue.cuLaunchHostFunc
    launch(stream, lambda data: None, None)  # ok: CUR201 (a parameter's method, not the driver's)


class Recorder:
    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self._add_callback = self.cuda.cuStreamAddCallback
        self._status_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)

    def _on_status(self, stream, status, data):
        print(status)

    def watch(self, stream):
        self._add_callback(stream, self._status_type(self._on_status), None, 0)  # error: CUR201
