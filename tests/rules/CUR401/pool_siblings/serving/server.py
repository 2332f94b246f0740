"""A server that overlaps the next decoding step with the previous step's sampling."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from serving.graphs import IsolatedDecoder, LazyGraphDecoder
from serving.outputs import best_score, sample, to_json


class Server:
    def __init__(self, model):
        self.decoder = LazyGraphDecoder(model, (8, 512))
        self.isolated = IsolatedDecoder(model, (8, 512))
        self.pool = ThreadPoolExecutor(max_workers=4)
        self.serial = ThreadPoolExecutor(max_workers=1)

    def step(self, batch, previous_logits):
        logits = self.pool.submit(self.decoder.decode, batch)  # error: CUR401@18 "other tasks"
        tokens = self.pool.submit(sample, previous_logits)
        return logits.result(), tokens.result()

    def step_scored(self, batch, previous_logits):
        score = self.pool.submit(best_score, previous_logits)
        logits = self.pool.submit(self.decoder.decode, batch)  # error: CUR401@18 "other tasks"
        return logits.result(), score.result()

    def step_then_sample(self, batch, previous_logits):
        tokens = self.pool.submit(sample, previous_logits).result()
        logits = self.pool.submit(self.decoder.decode, batch)  # ok: CUR401 (sampled before)
        return logits.result(), tokens

    def step_and_encode(self, batch, tokens):
        logits = self.pool.submit(self.decoder.decode, batch)  # ok: CUR401 (CPU-only sibling)
        text = self.pool.submit(to_json, tokens)
        return logits.result(), text.result()

    def step_isolated(self, batch, previous_logits):
        logits = self.pool.submit(self.isolated.decode, batch)  # ok: CUR401 (thread_local)
        tokens = self.pool.submit(sample, previous_logits)
        return logits.result(), tokens.result()

    def step_serial(self, batch, previous_logits):
        logits = self.serial.submit(self.decoder.decode, batch)  # ok: CUR401 (one worker)
        tokens = self.serial.submit(sample, previous_logits)
        return logits.result(), tokens.result()

    async def step_async(self, batch, previous_logits):
        loop = asyncio.get_running_loop()
        logits = loop.run_in_executor(None, self.decoder.decode, batch)  # error: CUR401@18
        tokens = loop.run_in_executor(None, sample, previous_logits)
        return await asyncio.gather(logits, tokens)

    async def step_awaited(self, batch, previous_logits):
        loop = asyncio.get_running_loop()
        tokens = await loop.run_in_executor(None, sample, previous_logits)
        logits = await loop.run_in_executor(None, self.decoder.decode, batch)  # ok: CUR401
        return logits, tokens


class Replicas:
    def __init__(self, models):
        self.decoders = [LazyGraphDecoder(model, (8, 512)) for model in models]
        self.pool = ThreadPoolExecutor(max_workers=4)

    def step(self, batches):
        futures = [self.pool.submit(decoder.decode, batch)  # error: CUR401@20 "at once"
                   for decoder, batch in zip(self.decoders, batches)]
        return [future.result() for future in futures]
