"""Streams: the process callback handed to the library through the module's re-exports."""

from . import _native
from ._native import STREAM_CALLBACK, open_stream as _open

_KEPT_CALLBACKS = []


class Stream:
    def __init__(self, device, process):
        self.device = device
        self.process = process

    def start(self):
        _native.open_stream(self.device, _native.STREAM_CALLBACK(self.process), None)  # error: CUR202@42

    def start_raw(self):
        _native._snd.snd_start_raw(self.device, STREAM_CALLBACK(self.process))  # error: CUR202@49


def play(device, process):
    _open(device, STREAM_CALLBACK(process), None)  # error: CUR202@19


def play_kept(device, process):
    callback = STREAM_CALLBACK(process)  # ok: CUR202 (kept on a module-level list)
    _KEPT_CALLBACKS.append(callback)
    _native.open_stream(device, callback, None)


def sorted_devices(devices, count, key):
    _native.sort_devices(devices, count, _native.COMPARE(key))  # ok: CUR202 (a sort calls it before returning)


def describe(stream, render):
    return _native.describe(STREAM_CALLBACK(render))  # ok: CUR202 (a Python function of the module)
