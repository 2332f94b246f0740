"""A UNet step captured into a CUDA graph, with host tables copied to the device inside it."""

import torch

from .tables import CachedEmbedding, timestep_table


class ScaleGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        return grad * torch.tensor(0.5, device=grad.device)


class UNet(torch.nn.Module):
    def __init__(self, steps, width):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)
        self.time_table = torch.Tensor(timestep_table(steps, width))
        self.cached = CachedEmbedding(steps, width)

    def forward(self, x, timesteps):
        emb = self.time_table.to(timesteps.device)[timesteps]
        return self.proj(x + emb)


class CachedUNet(torch.nn.Module):
    def __init__(self, steps, width):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)
        self.cached = CachedEmbedding(steps, width)

    def forward(self, x, timesteps):
        return self.proj(x + self.cached(timesteps))


class GraphedUNet:
    def __init__(self, steps, width):
        self.unet = UNet(steps, width).cuda()
        self.cached_unet = CachedUNet(steps, width).cuda()
        self.x = torch.zeros(8, width, device="cuda", requires_grad=True)
        self.t = torch.zeros(8, dtype=torch.long, device="cuda")
        self.offsets = torch.zeros(8, dtype=torch.long)
        self.pinned = torch.zeros(8, pin_memory=True)
        self.graph = torch.cuda.CUDAGraph()

    def capture(self):
        with torch.cuda.graph(self.graph):
            out = self.unet(self.x, self.t)  # error: CUR402 "copies the CPU tensor `self.time_table`"
        return out

    def capture_backward(self):
        with torch.cuda.graph(self.graph):
            loss = ScaleGradient.apply(self.x).sum()  # error: CUR402 "backward that waits"
            loss.backward()

    def capture_counter(self):
        with torch.cuda.graph(self.graph):
            step = torch.tensor([0], device="cuda")  # error: CUR402 "copies host data to the GPU"
            shifted = self.offsets.to(self.t.device)  # error: CUR402 "CPU tensor `self.offsets`"
        return step, shifted

    def look_alikes(self, timesteps):
        with torch.cuda.graph(self.graph):
            out = self.cached_unet(self.x, self.t)  # ok: CUR402 (the table is a buffer, moved once)
            step = torch.zeros(1, dtype=torch.long, device="cuda")  # ok: CUR402 (made on the GPU)
            again = torch.as_tensor(self.t, device="cuda")  # ok: CUR402 (already on the GPU)
            early = self.pinned.to("cuda", non_blocking=True)  # ok: CUR402 (pinned, asynchronous)
            given = timesteps.to(self.t.device)  # ok: CUR402 (not known to be on the CPU)
        moved = self.offsets.to(self.t.device)  # ok: CUR402 (after the capture)
        return out, step, again, early, given, moved
