"""The decoding engine: its steps run in the event loop's executor."""

import asyncio

from serving.graphs import IsolatedGraphRunner, LazyGraphRunner


class Engine:
    def __init__(self, model, max_tokens):
        self.runner = LazyGraphRunner(model, max_tokens)
        self.isolated = IsolatedGraphRunner(model, max_tokens)

    async def decode_loop(self, requests, results):
        loop = asyncio.get_running_loop()
        while True:
            token_ids = await requests.get()
            logits = await loop.run_in_executor(None, self.runner.forward, token_ids)
            await results.put(logits)

    async def isolated_loop(self, requests, results):
        loop = asyncio.get_running_loop()
        while True:
            token_ids = await requests.get()
            logits = await loop.run_in_executor(None, self.isolated.forward, token_ids)
            await results.put(logits)

    def run_forever(self, requests, results):
        asyncio.run(self.decode_loop(requests, results))
