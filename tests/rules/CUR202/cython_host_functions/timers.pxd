# The timer library's declarations, cimported by timers.pyx.
cdef extern from "timers.h" nogil:
    ctypedef void (*timer_fn)(void* data)
    int timer_register(double seconds, timer_fn fn, void* data)
    int timer_register_sync(double seconds, void* data)
