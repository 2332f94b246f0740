"""Gradient clipping used inside the captured step (another module than the capture)."""

import torch


class NormClipper:
    def __init__(self, max_norm):
        self.max_norm = max_norm

    def clip(self, grads):
        norm = torch.linalg.vector_norm(grads)
        if (norm > self.max_norm).any():
            grads.mul_(self.max_norm / norm)


class ScaleClipper:
    def __init__(self, scale):
        self.scale = scale

    def clip(self, grads):
        grads.mul_(self.scale)
