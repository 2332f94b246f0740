import torch


class StepGraph:
    """Captures one whole optimizer step on static tensors and replays it."""

    def __init__(self):
        self.graph = None
        self.static_loss = None

    def capture(self, step, static_batch):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step(static_batch)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_loss = step(static_batch)

    def capture_isolated(self, step, static_batch):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
            self.static_loss = step(static_batch)

    def replay(self):
        self.graph.replay()
