"""A tracing session: libtrace calls the event sink from its own thread while it runs."""

import ctypes

from ._types import EVENT_CALLBACK, FILTER_CALLBACK

_trace = ctypes.CDLL("libtrace.so.3")


class Session:
    def __init__(self, sink):
        self.sink = sink
        self._on_event = EVENT_CALLBACK(self._deliver)

    def _deliver(self, data, size):
        self.sink(ctypes.string_at(data, size))

    def start(self):
        _trace.trace_set_event_callback(self._on_event)  # ok: CUR202 (kept on the session)


def start_unkept(sink):
    _trace.trace_set_event_callback(EVENT_CALLBACK(lambda data, size: sink(data)))  # error: CUR202@37


def apply_filter(keep):
    return _trace.trace_filter_each(FILTER_CALLBACK(keep))  # ok: CUR202 (called before it returns)
