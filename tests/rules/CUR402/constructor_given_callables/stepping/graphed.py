"""Whole-step CUDA graphs stepping the optimizer and the hooks their constructors are given."""

import torch

from stepping import steps
from stepping.steps import ClampedOptimizer, NormGatedOptimizer, count_step, drain_device


class GraphedStep:
    def __init__(self, model, optimizer, finish):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = optimizer.step
        self.finish = finish
        self.static_input = torch.zeros(32, 1024, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # error: CUR402@13 "self.step_fn() reaches it"
            self.optimizer.step()  # error: CUR402@13 "self.optimizer.step() reaches it"
            self.finish()  # error: CUR402@13 "self.finish() reaches it"
        return graph


def build_gated(model, inner):
    optimizer = NormGatedOptimizer(model.parameters(), inner)
    return GraphedStep(model, optimizer, finish=drain_device)


class ClampedStep:
    """Built only with an optimizer that decides on the device and a CPU-only hook."""

    def __init__(self, model, optimizer, finish=count_step):
        self.model = model
        self.step_fn = optimizer.step
        self.finish = finish
        self.static_input = torch.zeros(32, 1024, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # ok: CUR402 (clamped on the device)
            self.finish()  # ok: CUR402 (CPU work)
        return graph


def build_clamped(model, inner):
    return ClampedStep(model, ClampedOptimizer(model.parameters(), inner))


class ConfiguredStep:
    """Built in two ways: which optimizer and hook a capture runs is not known."""

    def __init__(self, model, optimizer, finish):
        self.model = model
        self.step_fn = optimizer.step
        self.finish = finish
        self.static_input = torch.zeros(32, 1024, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # ok: CUR402 (two optimizers given)
            self.finish()  # ok: CUR402 (two hooks given)
        return graph


def build_configured(model, inner, gated):
    if gated:
        return ConfiguredStep(model, NormGatedOptimizer(model.parameters(), inner),
                              steps.drain_device)
    return ConfiguredStep(model, ClampedOptimizer(model.parameters(), inner), count_step)


class ForwardedStep:
    """Given what its own caller was given: not shown in this module."""

    def __init__(self, model, optimizer):
        self.model = model
        self.step_fn = optimizer.step
        self.static_input = torch.zeros(32, 1024, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # ok: CUR402 (the caller's parameter)
        return graph


def build_forwarded(model, optimizer):
    return ForwardedStep(model, optimizer)
