# cython: language_level=3
from timers cimport timer_fn, timer_register, timer_register_sync

_ARMED = {}


cdef void _fire(void* data) noexcept with gil:
    (<object>data)()


def after(double seconds, callback):
    def fire():
        callback()
    timer_register(seconds, _fire, <void*>fire)  # error: CUR202 "freed when after() returns"


def after_kept(double seconds, callback):
    def fire():
        del _ARMED[id(fire)]
        callback()
    _ARMED[id(fire)] = fire
    timer_register(seconds, _fire, <void*>fire)  # ok: CUR202


def after_blocking(double seconds, callback):
    # No C function pointer is handed over, and the module does not declare the callee.
    wrapped = lambda: callback()
    timer_register_sync(seconds, <void*>wrapped)  # ok: CUR202
