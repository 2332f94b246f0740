"""Image encoding and text preparation, each on a worker thread of its own."""

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
