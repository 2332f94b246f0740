"""Decoder graphs captured on demand."""

import torch


class LazyDecoder:
    def __init__(self, model, shape):
        self.model = model
        self.static_input = torch.zeros(shape, device="cuda")
        self.static_output = None
        self.graph = None

    def __call__(self, batch):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_output = self.model(self.static_input)
        self.static_input.copy_(batch)
        self.graph.replay()
        return self.static_output


def record_isolated(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        static_output = model(static_input)
    return graph, static_output
