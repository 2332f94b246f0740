# cython: language_level=3
"""An event loop's C API, declared here: a registration that keeps its callback and user
data, its removal (which keeps neither), and a sort whose comparator runs only inside the
call."""

cdef extern from "evloop.h" nogil:
    ctypedef struct loop_t
    ctypedef void (*watch_cb)(int fd, void* data)
    int ev_register_watch(loop_t* loop, int fd, watch_cb cb, void* data)
    int ev_deregister_watch(loop_t* loop, int fd, watch_cb cb, void* data)
    void qsort_r(void* base, size_t count, size_t size,
                 int (*compare)(const void*, const void*, void*), void* arg)


cdef void _on_ready(int fd, void* data) noexcept with gil:
    (<object>data)(fd)


cdef int _compare(const void* a, const void* b, void* arg) noexcept with gil:
    key = <object>arg
    return key((<int*>a)[0]) - key((<int*>b)[0])


cdef class Watcher:
    cdef loop_t* loop
    cdef object _handler

    def watch(self, int fd, handler):
        self._handler = handler
        ev_register_watch(self.loop, fd, _on_ready, <void*>self._handler)  # ok: CUR202


def watch_once(Watcher watcher, int fd, handler):
    def on_ready(ready_fd):
        handler(ready_fd)
    ev_register_watch(watcher.loop, fd, _on_ready, <void*>on_ready)  # error: CUR202 "on_ready"


def unwatch(Watcher watcher, int fd, handler):
    def on_ready(ready_fd):
        handler(ready_fd)
    ev_deregister_watch(watcher.loop, fd, _on_ready, <void*>on_ready)  # ok: CUR202 (a removal)


def sort_by(int[:] values, key):
    ordering = lambda item: key(item)
    qsort_r(&values[0], values.shape[0], sizeof(int), _compare, <void*>ordering)  # ok: CUR202
