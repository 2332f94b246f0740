"""Optimizer wrappers and end-of-step hooks a graphed trainer is built with."""

import torch


class NormGatedOptimizer:
    """Scales the gradients down when their norm is too large, deciding on the host."""

    def __init__(self, params, inner, max_norm=1.0):
        self.params = list(params)
        self.inner = inner
        self.max_norm = max_norm

    def step(self):
        total = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in self.params]))
        if total > self.max_norm:  # reads the norm on the host
            for param in self.params:
                param.grad.mul_(self.max_norm / total)
        self.inner.step()


class ClampedOptimizer:
    """Scales the gradients down on the device."""

    def __init__(self, params, inner, max_norm=1.0):
        self.params = list(params)
        self.inner = inner
        self.max_norm = max_norm

    def step(self):
        total = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in self.params]))
        scale = torch.clamp(self.max_norm / (total + 1e-6), max=1.0)
        for param in self.params:
            param.grad.mul_(scale)
        self.inner.step()


def drain_device():
    """Waits for every stream, to time the step."""
    torch.cuda.synchronize()


def count_step():
    count_step.calls = getattr(count_step, "calls", 0) + 1
