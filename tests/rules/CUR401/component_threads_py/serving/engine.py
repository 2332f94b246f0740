"""The language engine (a loop thread of its own serves decode requests), and the servers
owning an engine and the components beside it."""

import queue
import threading

from serving.graphs import DecodeGraph, LocalDecodeGraph
from serving.vision import ImageEncoder, PromptTokenizer


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


class VisionLanguageServer:
    def __init__(self, vision_model, language_model):
        self.encoder = ImageEncoder(vision_model)
        self.engine = DecodeEngine(language_model)  # error: CUR401@23 "the thread that ImageEncoder() starts on line 39"


class EngineFirstServer:
    def __init__(self, vision_model, language_model):
        self.engine = DecodeEngine(language_model)  # error: CUR401@23 "the thread that ImageEncoder() starts on line 46"
        self.encoder = ImageEncoder(vision_model)


class LocalModeServer:
    def __init__(self, vision_model, language_model):
        self.encoder = ImageEncoder(vision_model)
        self.engine = LocalDecodeEngine(language_model)  # ok: CUR401 (thread_local)


class TextServer:
    def __init__(self, vocabulary, language_model):
        self.tokenizer = PromptTokenizer(vocabulary)  # ok: CUR401 (its thread does no CUDA work)
        self.engine = DecodeEngine(language_model)  # ok: CUR401
