"""Whole-step CUDA graphs for fine-tuning, stepping the optimizer wrapper they are built with."""

import torch

from finetune.gates import ClampedOptimizer, NormGatedOptimizer, ScheduledOptimizer


class GraphedFinetune:
    def __init__(self, model, inner, gated):
        self.model = model
        self.static_input = torch.zeros(32, 1024, device="cuda")
        if gated:
            self.step_fn = NormGatedOptimizer(model.parameters(), inner).step
        else:
            self.step_fn = ClampedOptimizer(model.parameters(), inner).step

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # ok: CUR402 (bound twice: which one is not known)
        return graph


class GatedFinetune:
    def __init__(self, model, inner):
        self.model = model
        self.static_input = torch.zeros(32, 1024, device="cuda")
        self.step_fn = NormGatedOptimizer(model.parameters(), inner).step

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # error: CUR402@13 "self.step_fn() reaches it"
        return graph


class ClampedFinetune:
    def __init__(self, model, inner):
        self.model = model
        self.static_input = torch.zeros(32, 1024, device="cuda")
        self.step_fn = ClampedOptimizer(model.parameters(), inner).step

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # ok: CUR402 (clamped on the device)
        return graph


def capture_scheduled(model, inner, static_input):
    step = ScheduledOptimizer(inner, warmup=100).step
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(static_input).sum().backward()
        step()  # ok: CUR402 (a CPU tensor in the condition)
    return graph


def capture_gated(model, inner, static_input):
    step = NormGatedOptimizer(model.parameters(), inner).step
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(static_input).sum().backward()
        step()  # error: CUR402@9 "step() reaches it"
    return graph


class AnnotatedFinetune:
    """Given its optimizer wrapper, declared by its type."""

    def __init__(self, model, optimizer: NormGatedOptimizer, inner: torch.optim.Optimizer):
        self.model = model
        self.opt = optimizer
        self.step_fn = optimizer.step
        self.inner_step = inner.step
        self.static_input = torch.zeros(32, 1024, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.step_fn()  # error: CUR402@13 "self.step_fn() reaches it"
            self.inner_step()  # ok: CUR402 (a library optimizer's step)
        return graph

    def capture_direct(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.model(self.static_input).sum().backward()
            self.opt.step()  # error: CUR402@13 "self.opt.step() reaches it"
        return graph
