"""Gradient clipping steps a trainer may be configured with."""

import torch


def clip_then_step(model, optimizer, max_norm):
    norms = torch.stack([param.grad.norm() for param in model.parameters()])
    total = torch.linalg.vector_norm(norms)
    if total > max_norm:  # reads the norm on the host
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()


def clip_if_asked(model, max_norm, asked):
    if asked:
        total = torch.linalg.vector_norm(
            torch.stack([param.grad.norm() for param in model.parameters()]))
        if total > max_norm:
            print("clipping")


def scaled(loss, factor):
    if factor > 1:  # a Python number
        return loss * factor
    return loss
