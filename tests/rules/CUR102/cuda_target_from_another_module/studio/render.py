"""The project's render steps: one on the GPU, one on the CPU."""

import torch


def upscale(path):
    frames = torch.load(path).to("cuda")
    torch.save(frames.mul(2).cpu(), path)


def thumbnail(path):
    frames = torch.load(path)
    torch.save(frames[:, ::4, ::4], path + ".thumb")
