"""A server that overlaps the next decoding step with the previous step's post-processing."""

from concurrent.futures import ThreadPoolExecutor

from overlap.background import run_async, run_in_order
from overlap.postprocess import encode, to_host
from overlap.runners import LazyDecoder

_LOCAL = ThreadPoolExecutor(max_workers=2)


def in_background(job, *args):
    return _LOCAL.submit(job, *args)


class Server:
    def __init__(self, model):
        self.decoder = LazyDecoder(model)

    def step(self, batch, previous):
        logits = run_async(self.decoder.decode, batch)  # error: CUR401@18 "other tasks"
        host = run_async(to_host, previous)
        return logits.result(), host.result()

    def step_local(self, batch, previous):
        logits = in_background(self.decoder.decode, batch)  # error: CUR401@18 "other tasks"
        host = in_background(to_host, previous)
        return logits.result(), host.result()

    def step_and_encode(self, batch, tokens):
        logits = run_async(self.decoder.decode, batch)  # ok: CUR401 (CPU-only sibling)
        text = run_async(encode, tokens)
        return logits.result(), text.result()

    def step_in_order(self, batch, previous):
        logits = run_in_order(self.decoder.decode, batch)  # ok: CUR401 (one worker)
        host = run_in_order(to_host, previous)
        return logits.result(), host.result()


def overlap(decoder, batch, previous):
    logits = _LOCAL.submit(decoder.decode, batch)  # error: CUR401@14 "other tasks"
    host = _LOCAL.submit(to_host, previous)
    return logits.result(), host.result()


def serve(model, batch, previous):
    return overlap(LazyDecoder(model), batch, previous)


def overlap_any(runner, batch, previous):
    logits = _LOCAL.submit(runner.decode, batch)  # ok: CUR401 (what `runner` is: not shown)
    host = _LOCAL.submit(to_host, previous)
    return logits.result(), host.result()


def serve_any(runner, batch, previous):
    return overlap_any(runner, batch, previous)
