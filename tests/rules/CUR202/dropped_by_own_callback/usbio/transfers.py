"""Transfers whose completion callbacks close them, and look-alikes that keep theirs."""

import ctypes

from . import _native

_KEPT = []


class BulkTransfer:
    """Closes itself from its completion callback once doomed."""

    def __init__(self, size):
        self._raw = _native.lib.usbio_alloc_transfer()
        self._buffer = ctypes.create_string_buffer(size)
        self._doomed = False
        self._on_done = _native.TRANSFER_DONE(self._completed)

    def submit(self, user_callback):
        self._user_callback = user_callback
        _native.fill_transfer(self._raw, self._buffer, len(self._buffer), self._on_done)
        _native.lib.usbio_submit_transfer(self._raw)

    def _completed(self, raw):
        self._user_callback(self)
        if self._doomed:
            self.close()

    def doom(self):
        self._doomed = True

    def close(self):
        self._user_callback = None
        self._on_done = None  # error: CUR202@9
        if self._raw is not None:
            _native.lib.usbio_free_transfer(self._raw)
            self._raw = None


class OneShotWatch:
    """Stops watching from its own callback by deleting the thunk."""

    def __init__(self, fd, handler):
        self._handler = handler
        self._ready = _native.FD_READY(self._fire)
        _native.lib.usbio_watch_fd(fd, self._ready)

    def _fire(self, fd, events):
        _native.lib.usbio_unwatch_fd(fd)
        del self._ready  # error: CUR202@9
        self._handler(fd, events)


class RearmingWatch:
    """Replaces its thunk from inside the callback: the running one loses its reference."""

    def __init__(self, fd, handler):
        self._fd = fd
        self._handler = handler
        self._ready = _native.FD_READY(self._fire)
        _native.lib.usbio_watch_fd(fd, self._ready)

    def _fire(self, fd, events):
        self._handler(fd, events)
        self._rearm()

    def _rearm(self):
        self._ready = _native.FD_READY(self._fire)  # error: CUR202@9
        _native.lib.usbio_watch_fd(self._fd, self._ready)


class ControlTransfer:
    """Cleared only by close(), which the user calls after the transfer completed."""

    def __init__(self):
        self._raw = _native.lib.usbio_alloc_transfer()
        self._on_done = _native.TRANSFER_DONE(self._completed)
        self.done = False

    def submit(self, buffer):
        _native.fill_transfer(self._raw, buffer, len(buffer), self._on_done)
        _native.lib.usbio_submit_transfer(self._raw)

    def _completed(self, raw):
        self.done = True
        self._buffer = None  # ok: CUR202 (another attribute)

    def close(self):
        self._on_done = None  # ok: CUR202 (not reached from the callback)


class RegisteredTransfer:
    """Its callback object is also kept on a module-level list."""

    def __init__(self):
        self._raw = _native.lib.usbio_alloc_transfer()
        self._on_done = _native.TRANSFER_DONE(self._completed)
        _KEPT.append(self._on_done)

    def submit(self, buffer):
        _native.fill_transfer(self._raw, buffer, len(buffer), self._on_done)

    def _completed(self, raw):
        self.close()

    def close(self):
        self._on_done = None  # ok: CUR202 (the module-level list keeps it)


class SortedPacket:
    """Its comparator runs only inside the sort call, whose arguments hold it."""

    def __init__(self, items):
        self._items = items
        self._order = _native.ORDER(self._compare)

    def sort(self, count):
        _native.lib.usbio_sort_packets(self._items, count, self._order)

    def _compare(self, left, right):
        self._order = None  # ok: CUR202 (synchronous: the call's arguments hold it)
        return 0


class SharedThunkTransfer:
    """The fix's shape: one object for the class, made at module level."""

    def __init__(self):
        self._raw = _native.lib.usbio_alloc_transfer()

    def submit(self, buffer):
        _native.fill_transfer(self._raw, buffer, len(buffer), SharedThunkTransfer.on_done)

    def _completed(self, raw):
        self.close()

    def close(self):
        self.on_done = None  # ok: CUR202 (an instance attribute, not the class's object)


SharedThunkTransfer.on_done = _native.TRANSFER_DONE(SharedThunkTransfer._completed)
