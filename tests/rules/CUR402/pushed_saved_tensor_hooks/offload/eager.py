"""Debugging hooks for eager runs: this module never says it is captured."""

import torch


def log_saved(tensor):
    print(f"saved {tensor}")  # ok: CUR402 (nothing says a capture runs it)
    return tensor


def log_restored(tensor):
    print(f"restored {tensor}")  # ok: CUR402 (nothing says a capture runs it)
    return tensor


def debug_step(model, batch):
    with torch.autograd.graph.saved_tensors_hooks(log_saved, log_restored):
        loss = model(batch).sum()
    loss.backward()
