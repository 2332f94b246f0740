"""Custom-call targets and timers of a native runtime: callbacks kept in instance attributes."""

import ctypes
from ctypes import CFUNCTYPE, POINTER, c_void_p

_runtime = ctypes.CDLL("libxrt.so")
CALL_FRAME = CFUNCTYPE(c_void_p, POINTER(c_void_p))
TICK = CFUNCTYPE(None, c_void_p)
_LIVE = []


class FfiTarget:
    """The runtime keeps the target's address for the life of the process."""

    def __init__(self, name, body):
        self.name = name
        self.body = body
        self.callback_func = CALL_FRAME(lambda frame: self.invoke(frame))
        _runtime.xrt_register_target(name.encode(), self.callback_func)  # error: CUR202@53

    def invoke(self, frame):
        return self.body(frame)


def probe_target(name, body):
    target = FfiTarget(name, body)
    return target.name


class Timer:
    def __init__(self, period):
        self.period = period

    def start(self):
        self._on_tick = TICK(self._tick)
        _runtime.xrt_timer_start(self.period, self._on_tick)  # error: CUR202@47

    def _tick(self, data):
        print("tick", self.period)


def tick_once(period):
    timer = Timer(period)
    timer.start()


class Watch:
    """Unregisters itself when it dies: C never outlives the object."""

    def __init__(self, fd, on_ready):
        self.fd = fd
        self._on_ready = TICK(on_ready)  # ok: CUR202 (__del__ releases the registration)
        _runtime.xrt_watch_fd(fd, self._on_ready)

    def __del__(self):
        _runtime.xrt_unwatch_fd(self.fd)


def poll_once(fd, on_ready):
    Watch(fd, on_ready)


class Tracer:
    def __init__(self, sink):
        self._sink = TICK(sink)  # ok: CUR202 (the instance registers itself in _LIVE)
        _LIVE.append(self)
        _runtime.xrt_set_trace_sink(self._sink)


def trace_once(sink):
    Tracer(sink)


class Hook:
    def __init__(self, body):
        self._entry = CALL_FRAME(body)  # ok: CUR202 (every instance is returned to a caller)
        _runtime.xrt_register_target(b"hook", self._entry)


def make_hook(body):
    return Hook(body)


class Listener:
    def __init__(self, on_event):
        self._on_event = TICK(on_event)  # ok: CUR202 (the instance is handed on where it is made)
        _runtime.xrt_listen(self._on_event)


def listen(on_event, listeners):
    listener = Listener(on_event)
    listeners.append(listener)
    return len(listeners)
