"""ctypes declarations of libusbio: transfers carry their completion callback in a field that
the event loop (`usbio_handle_events`) reads when the transfer completes."""

import ctypes


class RawTransfer(ctypes.Structure):
    pass


TRANSFER_DONE = ctypes.CFUNCTYPE(None, ctypes.POINTER(RawTransfer))
FD_READY = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_short)
ORDER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

RawTransfer._fields_ = [
    ("buffer", ctypes.c_void_p),
    ("length", ctypes.c_int),
    ("callback", TRANSFER_DONE),
]

lib = ctypes.CDLL("libusbio.so.1")


def fill_transfer(raw, buffer, length, callback):
    """Fill a transfer's fields; C calls `callback` when the submitted transfer completes."""
    transfer = raw.contents
    transfer.buffer = ctypes.cast(buffer, ctypes.c_void_p)
    transfer.length = length
    transfer.callback = callback
