"""Scoring models and post-processing a graphed scorer is built with."""

import torch
from torch import nn


class CheckedScorer(nn.Module):
    """Checks its output for NaNs on the host before returning it."""

    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width, device="cuda")

    def forward(self, x):
        out = self.proj(x)
        if torch.isnan(out).any().item():  # waits for the device
            raise FloatingPointError("NaN in the scores")
        return out


class PlainScorer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.proj(x))


class SyncedNormalizer:
    """Normalizes the scores, timing itself with a device-wide wait."""

    def __call__(self, scores):
        torch.cuda.synchronize()
        return scores / scores.norm()


class Normalizer:
    def __call__(self, scores):
        return scores / scores.norm()
