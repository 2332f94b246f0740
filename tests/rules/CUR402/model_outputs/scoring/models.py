"""The scoring model and the tokenizer it is served with."""

import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self, width=1024):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(torch.relu(self.proj(x)))


class Calibrated(Scorer):
    """A scorer with a learned temperature."""

    def __init__(self, width=1024):
        super().__init__(width)
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return super().forward(x) / self.temperature


class Tokenizer:
    def __call__(self, text):
        return text.split()
