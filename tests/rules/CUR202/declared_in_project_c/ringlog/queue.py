"""Python side of the ring log: what the C side keeps decides how long each callback lives."""

from ._native import COMBINE, DISPATCH, EVENT, ROTATE, lib
from .logs import log_event

ROTATE_HOOKS = []


class Queue:
    def __init__(self, handle):
        self.q = handle
        self._event = None

    def tail(self, cb=None):
        handler = None
        if cb:
            handler = DISPATCH(cb)
        return lib.rl_tail(self.q, handler, None)  # error: CUR202@36

    def drain(self, cb):
        return lib.rl_drain(self.q, DISPATCH(cb))  # ok: CUR202 (the visitor is on C's stack)

    def watch(self):
        self._event = EVENT(self.on_event)  # ok: CUR202 (kept in an attribute)
        lib.rl_watch(self._event)

    def on_event(self, kind, detail):
        print(kind, detail)


def total(values):
    array = (len(values) * __import__("ctypes").c_double)(*values)
    return lib.rl_reduce(array, len(values), COMBINE(lambda acc, v: acc + v))  # ok: CUR202


def on_rotate(fn):
    hook = ROTATE(fn)  # ok: CUR202 (kept on a module-level list)
    ROTATE_HOOKS.append(hook)
    lib.rl_on_rotate(hook)


def on_rotate_once(fn):
    lib.rl_on_rotate(ROTATE(fn))  # error: CUR202


def watch_events(fn):
    lib.rl_watch(EVENT(fn))  # error: CUR202


class Printer:
    def on_event(self, kind, detail):
        print(kind, detail)


def watch_printer(printer: Printer):
    lib.rl_watch(EVENT(printer.on_event))  # error: CUR202


def watch_logged():
    lib.rl_watch(EVENT(log_event))  # error: CUR202


def rotate_at(hook_address: int):
    lib.rl_on_rotate(ROTATE(hook_address))  # ok: CUR202 (a pointer made of an address)


def rotate_through(table):
    lib.rl_on_rotate(ROTATE(table.hook_ptr))  # ok: CUR202 (an address, by its name)
