"""Overflow checks a graphed training step runs on its gradients."""

import math

import torch


def found_overflow(grads):
    found = torch.zeros(1, device="cuda")
    for grad in grads:
        found += torch.isinf(grad).sum() + torch.isnan(grad).sum()
    return bool(found)  # reads the flag on the host


def overflow_flag(grads):
    found = torch.zeros(1, device="cuda")
    for grad in grads:
        found += torch.isinf(grad).sum()
    return found  # the flag stays on the device


def found_overflow_in_values(values):
    found = torch.zeros(1)  # a CPU tensor
    for value in values:
        found += torch.tensor(value).isinf()
    return bool(found)


def any_nonfinite(losses):
    found = 0
    for loss in losses:
        found += not math.isfinite(loss)  # Python numbers
    return bool(found)
