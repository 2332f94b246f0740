"""Schedules Python functions on the compiled ticker."""

from ._ticker import ffi, lib


def every(seconds, job):
    lib.ticker_every(seconds, ffi.callback("void(double)", job))  # error: CUR202@31


def fire(job):
    lib.ticker_fire_now(ffi.callback("void(double)", job))  # ok: CUR202 (its C definition only calls it)
