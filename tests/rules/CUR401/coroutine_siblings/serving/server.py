"""The server: runs the engine beside its workers."""

import asyncio
import threading

from serving.engine import Engine
from serving.encoders import EncoderWorker


class Server:
    def __init__(self, model, backbone, vocabulary):
        self.engine = Engine(model, 4096)
        self.workers = EncoderWorker(backbone, vocabulary)
        self.queues = [asyncio.Queue() for _ in range(6)]

    async def serve(self):
        requests, results, images, features, finished, texts = self.queues
        await asyncio.gather(
            self.engine.decode_loop(requests, results),  # error: CUR401@13 "global-mode capture"
            self.workers.encode_loop(images, features),
        )

    async def serve_text(self):
        requests, results, images, features, finished, texts = self.queues
        await asyncio.gather(
            self.engine.decode_loop(requests, results),  # ok: CUR401 (the sibling is CPU work)
            self.workers.detokenize_loop(finished, texts),
        )

    async def serve_isolated(self):
        requests, results, images, features, finished, texts = self.queues
        await asyncio.gather(
            self.engine.isolated_loop(requests, results),  # ok: CUR401 (thread_local)
            self.workers.encode_loop(images, features),
        )

    async def serve_tasks(self):
        requests, results, images, features, finished, texts = self.queues
        encoding = asyncio.create_task(self.workers.encode_loop(images, features))
        decoding = asyncio.create_task(self.engine.decode_loop(requests, results))  # error: CUR401@40 "the coroutine started on line 39"
        await asyncio.wait([encoding, decoding])

    async def serve_after_encoding(self, pixels):
        requests, results, images, features, finished, texts = self.queues
        await asyncio.create_task(self.workers.encode_loop(images, features))
        await asyncio.create_task(self.engine.decode_loop(requests, results))  # ok: CUR401 (awaited)

    async def serve_beside_encoder(self):
        requests, results, images, features, finished, texts = self.queues
        encoding = asyncio.create_task(self.workers.encode_loop(images, features))
        await self.engine.decode_loop(requests, results)  # error: CUR401@15 "the coroutine started on line 50"
        await encoding

    async def serve_then_encode(self):
        requests, results, images, features, finished, texts = self.queues
        await self.engine.decode_loop(requests, results)  # ok: CUR401 (returns before the encoder starts)
        await asyncio.create_task(self.workers.encode_loop(images, features))

    def start_threads(self):
        requests, results, images, features, finished, texts = self.queues
        threading.Thread(target=self.engine.run_forever, args=(requests, results),  # error: CUR401@9 "the thread started on line 63"
                         daemon=True).start()
        threading.Thread(target=self.workers.run_forever, args=(images, features),
                         daemon=True).start()
