"""Decoder runners that capture a CUDA graph of their step lazily, on first use."""

import torch


class LazyRunner:
    def __init__(self, model, width):
        self.model = model
        self.static = torch.zeros(width, device="cuda")
        self.graph = None

    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the task running LazyRunner.step()"
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out.cpu()


class PrefillRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the thread running PrefillRunner.step()"
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out


class LocalModeRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):  # ok: CUR401
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out.cpu()


class TextRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR401 (its sibling task is CPU work)
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out


class JoinedRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR401 (the loading thread is joined first)
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out


class WarmRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR401 (captured once before the tasks start)
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out.cpu()


class SerialRunner(LazyRunner):
    def step(self, batch):
        self.static.copy_(batch)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR401 (one worker runs the tasks in turn)
                self.out = self.model(self.static)
        self.graph.replay()
        return self.out.cpu()
