"""A server that overlaps a batch's forward with copying the previous batch's results out."""

from concurrent.futures import ThreadPoolExecutor

from inference.graphs import IsolatedGraphRunner, LazyGraphRunner
from inference.outputs import encode, to_host


class Server:
    def __init__(self, model):
        self.runner = LazyGraphRunner(model, (8, 512))
        self.isolated = IsolatedGraphRunner(model, (8, 512))
        self.pool = ThreadPoolExecutor(max_workers=4)

    def step(self, batch, previous_logits):
        logits = self.pool.submit(self.runner, batch)  # error: CUR401@18 "other tasks"
        host = self.pool.submit(to_host, previous_logits)
        return logits.result(), host.result()

    def step_and_encode(self, batch, tokens):
        logits = self.pool.submit(self.runner, batch)  # ok: CUR401 (CPU-only sibling)
        text = self.pool.submit(encode, tokens)
        return logits.result(), text.result()

    def step_isolated(self, batch, previous_logits):
        logits = self.pool.submit(self.isolated, batch)  # ok: CUR401 (thread_local)
        host = self.pool.submit(to_host, previous_logits)
        return logits.result(), host.result()


def serve(model, batches, previous):
    runner = LazyGraphRunner(model, (8, 512))
    with ThreadPoolExecutor(max_workers=2) as pool:
        logits = pool.submit(runner, batches[0])  # error: CUR401@18 "other tasks"
        host = pool.submit(to_host, previous)
        return logits.result(), host.result()
