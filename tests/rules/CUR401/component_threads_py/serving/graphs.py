"""Decoder graphs captured lazily, on the first request a runner serves."""

import torch


class DecodeGraph:
    def __init__(self, model):
        self.model = model
        self.graph = None

    def __call__(self, static_tokens):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.logits = self.model(static_tokens)
        self.graph.replay()
        return self.logits


class LocalDecodeGraph(DecodeGraph):
    def __call__(self, static_tokens):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
                self.logits = self.model(static_tokens)
        self.graph.replay()
        return self.logits
