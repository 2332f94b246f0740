"""Workers beside the engine: image encoding (on the GPU) and detokenization (on the CPU)."""

import asyncio

from serving.vision import ImageEncoder, detokenize


class EncoderWorker:
    def __init__(self, backbone, vocabulary):
        self.encoder = ImageEncoder(backbone)
        self.vocabulary = vocabulary

    async def encode_loop(self, images, features):
        loop = asyncio.get_running_loop()
        while True:
            pixels = await images.get()
            await features.put(await loop.run_in_executor(None, self.encoder.encode, pixels))

    async def detokenize_loop(self, finished, texts):
        loop = asyncio.get_running_loop()
        while True:
            token_ids = await finished.get()
            await texts.put(await loop.run_in_executor(None, detokenize, self.vocabulary,
                                                       token_ids))

    def run_forever(self, images, features):
        asyncio.run(self.encode_loop(images, features))
