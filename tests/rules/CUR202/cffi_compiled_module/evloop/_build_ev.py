"""Build script of the out-of-line cffi module `evloop._ev_cffi` (run by setup.py)."""

from cffi import FFI

ffibuilder = FFI()
ffibuilder.cdef("""
    typedef void (*ev_io_cb)(int fd, int events);
    typedef int (*ev_compare)(const void *, const void *);
    void ev_io_start(int fd, ev_io_cb cb);
    void ev_timer_start(double after, void (*cb)(void));
    void ev_sort_pending(void *items, int count, ev_compare compare);
    void ev_set_default_handler(void (*handler)(int));
    extern "Python" void on_default(int);
""")
ffibuilder.set_source("evloop._ev_cffi", '#include "ev.h"', libraries=["ev"])

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
