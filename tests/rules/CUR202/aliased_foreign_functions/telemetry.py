"""A client of a native telemetry library: log and event hooks through aliases."""

import ctypes
from ctypes import CDLL, CFUNCTYPE, c_char_p, c_int, c_void_p

LOG_HANDLER = CFUNCTYPE(None, c_int, c_char_p)
COMPARE = CFUNCTYPE(c_int, c_void_p, c_void_p)

native = ctypes.cdll.LoadLibrary("libtelemetry.so")
subscribe = native.tm_register_event_handler
sort_records = native.tm_sort  # synchronous: calls the comparator before returning


def print_event(level, text):
    print(level, text.decode())


def by_time(left, right):
    return 0


class TelemetryClient:
    def __init__(self, path):
        self.lib = CDLL(path)
        self._install_log = self.lib.tm_set_log_callback
        self._log_prototype = CFUNCTYPE(None, c_int, c_char_p)
        self._keep = None

    def verbose(self, level):
        @self._log_prototype
        def on_log(severity, message):
            print(severity, message)

        self._install_log(level, on_log)  # error: CUR202@34

    def verbose_kept(self, level):
        @self._log_prototype  # ok: CUR202 (kept in an attribute)
        def on_log(severity, message):
            print(severity, message)

        self._keep = on_log
        self._install_log(level, self._keep)


def watch_events():
    handler = LOG_HANDLER(print_event)
    subscribe(handler)  # error: CUR202@15


def sort_events(records, count):
    sort_records(records, count, COMPARE(by_time))  # ok: CUR202 (synchronous)


_EVENT_HANDLER = LOG_HANDLER(print_event)  # ok: CUR202 (module level)


def watch_events_kept():
    subscribe(_EVENT_HANDLER)
