"""Hooks pushed only when no capture runs."""

import contextlib

import torch


def show(tensor):
    print(f"saved {tensor}")  # ok: CUR402 (never pushed while capturing)
    return tensor


def keep(tensor):
    return tensor


def saving_context():
    if torch.cuda.is_current_stream_capturing():
        return contextlib.nullcontext()
    return torch.autograd.graph.saved_tensors_hooks(show, keep)
