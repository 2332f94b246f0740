"""Optimizer wrappers the fine-tuning loop may be configured with."""

import torch


class NormGatedOptimizer:
    """Skips the step when the gradients overflowed and scales them down when too large."""

    def __init__(self, params, inner, max_norm=1.0):
        self.params = list(params)
        self.inner = inner
        self.max_norm = max_norm
        self.last_norm = 0.0

    def step(self):
        norms = torch.stack([param.grad.norm() for param in self.params])
        total = torch.linalg.vector_norm(norms)
        if total > self.max_norm:  # reads the norm on the host
            for param in self.params:
                param.grad.mul_(self.max_norm / total)
        self.inner.step()
        self.last_norm = float(total)


class ClampedOptimizer:
    """Scales the gradients down on the device, with no read of the norm on the host."""

    def __init__(self, params, inner, max_norm=1.0):
        self.params = list(params)
        self.inner = inner
        self.max_norm = max_norm

    def step(self):
        total = torch.linalg.vector_norm(
            torch.stack([param.grad.norm() for param in self.params]))
        scale = torch.clamp(self.max_norm / (total + 1e-6), max=1.0)
        for param in self.params:
            param.grad.mul_(scale)
        self.inner.step()


class ScheduledOptimizer:
    """Steps the inner optimizer with a warm-up factor kept on the host."""

    def __init__(self, inner, warmup):
        self.inner = inner
        self.warmup = torch.tensor(float(warmup))  # a CPU tensor
        self.steps = 0

    def step(self):
        if self.warmup > 0:  # a CPU tensor: no copy from the device
            self.steps += 1
        self.inner.step()
