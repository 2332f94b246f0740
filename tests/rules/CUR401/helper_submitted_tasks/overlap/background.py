"""The process's worker pools and the helpers that hand work to them."""

from concurrent.futures import ThreadPoolExecutor

_WORKERS = ThreadPoolExecutor(max_workers=4)
_ORDERED = ThreadPoolExecutor(max_workers=1)


def run_async(fn, *args):
    return _WORKERS.submit(fn, *args)


def run_in_order(fn, *args):
    return _ORDERED.submit(fn, *args)
