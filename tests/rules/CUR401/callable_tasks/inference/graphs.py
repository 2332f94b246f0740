"""Graph runners a server calls like functions: each captures its graph on first use."""

import torch


class LazyGraphRunner:
    def __init__(self, model, shape):
        self.model = model
        self.static_input = torch.zeros(shape, device="cuda")
        self.static_output = None
        self.graph = None

    def __call__(self, batch):
        if self.graph is None:
            side = torch.cuda.Stream()
            with torch.cuda.stream(side):
                for _ in range(3):
                    self.model(self.static_input)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the task running LazyGraphRunner.__call__()"
                self.static_output = self.model(self.static_input)
        self.static_input.copy_(batch)
        self.graph.replay()
        return self.static_output


class IsolatedGraphRunner:
    """Captures in thread-local mode: other threads' CUDA calls do not break its capture."""

    def __init__(self, model, shape):
        self.model = model
        self.static_input = torch.zeros(shape, device="cuda")
        self.static_output = None
        self.graph = None

    def __call__(self, batch):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
                self.static_output = self.model(self.static_input)
        self.static_input.copy_(batch)
        self.graph.replay()
        return self.static_output
