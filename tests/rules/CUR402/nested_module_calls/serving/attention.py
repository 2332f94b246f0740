"""Attention and normalization layers of the serving model."""

import torch
from torch import nn


class PagedAttention(nn.Module):
    """Attention over a paged cache, padded to the longest sequence of the batch."""

    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def forward(self, q, lengths):
        longest = int(lengths.max().item())
        return q[:, :longest] * self.heads


class GuardedAttention(nn.Module):
    """The same padding, measured only when no capture is under way."""

    def __init__(self, heads):
        super().__init__()
        self.heads = heads
        self.longest = 0

    def forward(self, q, lengths):
        if not torch.cuda.is_current_stream_capturing():
            self.longest = int(lengths.max().item())
        return q * self.heads


class HostScaledAttention(nn.Module):
    """Attention scaled by a temperature kept on the CPU."""

    def __init__(self, heads):
        super().__init__()
        self.heads = heads
        self.temperature = torch.tensor(2.0)

    def forward(self, q, lengths):
        if self.temperature > 1.0:
            return q / float(self.temperature)
        return q


class ClampedNorm(nn.Module):
    """A normalization that reads its input's peak to pick a scale."""

    def forward(self, x):
        peak = x.abs().max().item()
        return x / max(peak, 1.0)
