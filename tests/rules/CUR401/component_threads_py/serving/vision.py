"""Image encoding and text preparation, each on a worker thread of its own."""

import asyncio
import queue
import threading


class ImageEncoder:
    def __init__(self, vision_model):
        self.vision_model = vision_model
        self.images = queue.Queue()
        self.features = queue.Queue()
        self._worker = threading.Thread(target=self._encode, daemon=True)
        self._worker.start()

    def _encode(self):
        while True:
            pixels = self.images.get()
            self.features.put(self.vision_model(pixels.cuda(non_blocking=True)))


class PromptTokenizer:
    def __init__(self, vocabulary):
        self.vocabulary = vocabulary
        self.prompts = queue.Queue()
        self.tokens = queue.Queue()
        self._worker = threading.Thread(target=self._tokenize, daemon=True)
        self._worker.start()

    def _tokenize(self):
        while True:
            text = self.prompts.get()
            self.tokens.put([self.vocabulary.get(word, 0) for word in text.split()])


class StreamingImageEncoder:
    """Encodes on the default executor of an event loop that a thread of its own runs."""

    def __init__(self, vision_model):
        self.vision_model = vision_model
        self._loop = asyncio.new_event_loop()
        self._start_loop_thread()

    def _start_loop_thread(self):
        def run_loop():
            asyncio.set_event_loop(self._loop)
            self.pending = asyncio.Queue()
            self._loop.run_until_complete(self._encode_forever())

        self._loop_thread = threading.Thread(target=run_loop, daemon=True)
        self._loop_thread.start()

    async def _encode_forever(self):
        loop = asyncio.get_running_loop()
        while True:
            pixels = await self.pending.get()
            await loop.run_in_executor(None, self.encode, pixels)

    def encode(self, pixels):
        return self.vision_model(pixels.cuda()).cpu()


class StreamingTokenizer(StreamingImageEncoder):
    """The same loop, its executor tasks doing CPU work only."""

    def __init__(self, vocabulary):
        self.vocabulary = vocabulary
        self._loop = asyncio.new_event_loop()
        self._start_loop_thread()

    def encode(self, text):
        return [self.vocabulary.get(word, 0) for word in text.split()]
