"""The language engine (a loop thread of its own serves decode requests), and the servers
owning an engine and the components beside it."""

import asyncio
import queue
import threading

from serving.graphs import DecodeGraph, LocalDecodeGraph
from serving.vision import (
    ImageEncoder, PromptTokenizer, StreamingImageEncoder, StreamingTokenizer,
)


class DecodeEngine:
    def __init__(self, model):
        self.decode = DecodeGraph(model)
        self.requests = queue.Queue()
        self.results = queue.Queue()
        self._loop_thread = threading.Thread(target=self._serve, daemon=True)
        self._loop_thread.start()

    def _serve(self):
        while True:
            tokens = self.requests.get()
            self.results.put(self.decode(tokens))  # ok: CUR401 (the capture runs on this thread)


class LocalDecodeEngine:
    def __init__(self, model):
        self.decode = LocalDecodeGraph(model)
        self.requests = queue.Queue()
        self._loop_thread = threading.Thread(target=self._serve, daemon=True)
        self._loop_thread.start()

    def _serve(self):
        while True:
            self.decode(self.requests.get())


class AsyncDecodeEngine:
    """Decodes in executor tasks of an event loop that a thread of its own runs."""

    def __init__(self, model):
        self.decode = DecodeGraph(model)
        self._loop = asyncio.new_event_loop()
        self._loop_thread = threading.Thread(target=self._run_loop, daemon=True)
        self._loop_thread.start()

    def _run_loop(self):
        asyncio.set_event_loop(self._loop)
        self.requests = asyncio.Queue()
        self._loop.run_until_complete(self._serve())

    async def _serve(self):
        loop = asyncio.get_running_loop()
        while True:
            tokens = await self.requests.get()
            await loop.run_in_executor(None, self.decode, tokens)


class VisionLanguageServer:
    def __init__(self, vision_model, language_model):
        self.encoder = ImageEncoder(vision_model)
        self.engine = DecodeEngine(language_model)  # error: CUR401@23 "the thread that ImageEncoder() starts on line 63"


class EngineFirstServer:
    def __init__(self, vision_model, language_model):
        self.engine = DecodeEngine(language_model)  # error: CUR401@23 "the thread that ImageEncoder() starts on line 70"
        self.encoder = ImageEncoder(vision_model)


class LocalModeServer:
    def __init__(self, vision_model, language_model):
        self.encoder = ImageEncoder(vision_model)
        self.engine = LocalDecodeEngine(language_model)  # ok: CUR401 (thread_local)


class TextServer:
    def __init__(self, vocabulary, language_model):
        self.tokenizer = PromptTokenizer(vocabulary)  # ok: CUR401 (its thread does no CUDA work)
        self.engine = DecodeEngine(language_model)  # ok: CUR401


class StreamingVisionServer:
    def __init__(self, vision_model, language_model):
        self.engine = DecodeEngine(language_model)  # error: CUR401@23 "the thread that StreamingImageEncoder() starts on line 88"
        self.encoder = StreamingImageEncoder(vision_model)


class StreamingTextServer:
    def __init__(self, vocabulary, language_model):
        self.engine = DecodeEngine(language_model)  # ok: CUR401 (the executor tasks do no CUDA work)
        self.tokenizer = StreamingTokenizer(vocabulary)


class AsyncEngineServer:
    def __init__(self, vision_model, language_model):
        self.encoder = ImageEncoder(vision_model)
        self.engine = AsyncDecodeEngine(language_model)  # error: CUR401@23 "the thread that ImageEncoder() starts on line 99"
