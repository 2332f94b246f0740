"""Decoder blocks: attention, then a normalization."""

import torch
from torch import nn

from serving.attention import GuardedAttention, HostScaledAttention, PagedAttention


class DecoderBlock(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.attn = PagedAttention(heads)
        self.norm = nn.LayerNorm(64)

    def forward(self, x, lengths):
        return self.norm(self.attn(x, lengths))


class GuardedBlock(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.attn = GuardedAttention(heads)

    def forward(self, x, lengths):
        return self.attn(x, lengths)


class HostScaledBlock(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.attn = HostScaledAttention(heads)

    def forward(self, x, lengths):
        return self.attn(x, lengths)


class PrefillBlock(nn.Module):
    """Pads with the attention only in `prefill`, which runs eagerly before any capture."""

    def __init__(self, heads):
        super().__init__()
        self.attn = PagedAttention(heads)
        self.proj = nn.Linear(64, 64)

    def prefill(self, x, lengths):
        return self.attn(x, lengths)

    def forward(self, x, lengths):
        return self.proj(x)


class CheckedBlock(nn.Module):
    """Runs the padding attention only when no capture is under way."""

    def __init__(self, heads):
        super().__init__()
        self.attn = PagedAttention(heads)
        self.proj = nn.Linear(64, 64)

    def forward(self, x, lengths):
        if not torch.cuda.is_current_stream_capturing():
            x = self.attn(x, lengths)
        return self.proj(x)
