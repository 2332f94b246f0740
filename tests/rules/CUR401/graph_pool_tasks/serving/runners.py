"""Graph runners: each model replica captures its forward pass on first use."""

import torch


class ReplicaRunner:
    """Runs one replica's forward pass, captured into a CUDA graph on its first call."""

    def __init__(self, model, batch_shape):
        self.model = model
        self.static_input = torch.zeros(batch_shape, device="cuda")
        self.graph = None
        self.static_output = None

    def infer(self, batch):
        self.static_input.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the task running ReplicaRunner.infer()"
                self.static_output = self.model(self.static_input)
        self.graph.replay()
        return self.static_output.clone()


class IsolatedRunner:
    """Captures on its own stream with capture_begin() in thread_local mode: other threads'
    captures of other graphs do not count against it."""

    def __init__(self, model, batch_shape):
        self.model = model
        self.static_input = torch.zeros(batch_shape, device="cuda")
        self.stream = torch.cuda.Stream()
        self.graph = None

    def infer(self, batch):
        self.static_input.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.stream(self.stream):
                self.graph.capture_begin(capture_error_mode="thread_local")
                self.static_output = self.model(self.static_input)
                self.graph.capture_end()
        self.graph.replay()
        return self.static_output.clone()


def capture_decoder_step(decoder, tokens):
    """Captures one decoding step (global mode)."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # error: CUR401@10 "reached by a thread or task of another module"
        logits = decoder(tokens)
    return graph, logits
