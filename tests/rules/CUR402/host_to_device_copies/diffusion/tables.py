"""Host-side tables of the diffusion model, and an embedding that keeps its table on the
device."""

import math

import torch


def timestep_table(steps, width):
    return [[math.sin(step / 10000 ** (2 * i / width)) for i in range(width)]
            for step in range(steps)]


class CachedEmbedding(torch.nn.Module):
    def __init__(self, steps, width):
        super().__init__()
        self.register_buffer("table", torch.tensor(timestep_table(steps, width)))

    def forward(self, timesteps):
        return self.table[timesteps]
