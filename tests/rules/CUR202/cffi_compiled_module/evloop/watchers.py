"""Watchers on the compiled event loop: Python functions handed to C through cffi."""

from ._ev_cffi import ffi, lib

_ON_SIGNAL = None


def watch(fd, on_ready):
    lib.ev_io_start(fd, ffi.callback("void(int, int)", on_ready))  # error: CUR202@25


def after(seconds, fire):
    @ffi.callback("void(void)")
    def on_timer():
        fire()

    lib.ev_timer_start(seconds, on_timer)  # error: CUR202@33


def pending_sorted(items, count, key):
    lib.ev_sort_pending(items, count, ffi.callback("int(void *, void *)", key))  # ok: CUR202 (a sort calls it before returning)


def watch_kept(fd, on_ready):
    global _ON_SIGNAL
    _ON_SIGNAL = ffi.callback("void(int, int)", on_ready)  # ok: CUR202 (module level)
    lib.ev_io_start(fd, _ON_SIGNAL)


@ffi.def_extern()
def on_default(code):
    print("default handler", code)


def install_default():
    lib.ev_set_default_handler(lib.on_default)  # ok: CUR202 (a def_extern function is static C code)
