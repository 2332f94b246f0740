"""Greedy transducer decoding, its loop captured into a CUDA graph on the first batch."""

import torch


class GraphDecoder:
    def __init__(self, joint, max_symbols):
        self.joint = joint
        self.max_symbols = max_symbols
        self.graph = None

    def decode(self, encoded):
        if self.graph is None:
            self._capture(encoded)
        self.static_encoded.copy_(encoded)
        self.graph.replay()
        return self.static_labels.clone()

    def _capture(self, encoded):
        self.static_encoded = encoded.clone()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_labels = self.joint(self.static_encoded).argmax(-1)


class LocalGraphDecoder(GraphDecoder):
    def _capture(self, encoded):
        self.static_encoded = encoded.clone()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
            self.static_labels = self.joint(self.static_encoded).argmax(-1)
