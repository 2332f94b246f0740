"""A trainer that captures its whole step, calling the hooks it was given."""

import torch

from training import hooks
from training.clipping import clip_if_asked, clip_then_step, scaled
from training.hooks import count_step, drain_device


def record_peak():
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()


class GraphedTrainer:
    def __init__(self, model, optimizer, timed):
        self.model = model
        self.optimizer = optimizer
        self.after_step = drain_device
        self.measure = record_peak
        self.count = count_step
        self.counters = {"steps": 0}
        self.on_end = hooks.drain_device if timed else count_step

    def capture(self, static_input):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            loss = self.model(static_input).sum()
            loss.backward()
            self.optimizer.step()
            self.after_step()  # error: CUR402@13
            self.measure()  # error: CUR402@13
            self.count(self.counters)  # ok: CUR402 (CPU work)
            self.on_end()  # ok: CUR402 (bound twice: which one is not known)
        self.after_step()  # ok: CUR402 (after the capture)
        return graph


def check_finite(loss):
    total = torch.sum(loss)
    assert total == total  # reads the loss on the host


class ClippedTrainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = clip_then_step

    def capture(self, static_input):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            loss = scaled(self.model(static_input).sum(), 2)  # ok: CUR402 (a number)
            loss.backward()
            clip_if_asked(self.model, 1.0, False)  # ok: CUR402 (only when asked)
            self.step_fn(self.model, self.optimizer, 1.0)  # error: CUR402@13
            check_finite(loss)  # error: CUR402@13
        return graph


def capture_once(model, static_input):
    finish = hooks.drain_device
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(static_input).sum().backward()
        finish()  # error: CUR402@9
    return graph
