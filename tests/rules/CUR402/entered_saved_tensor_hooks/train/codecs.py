"""Pack and unpack functions for saved activations."""

import torch


def to_host(tensor):
    return tensor.device, tensor.cpu()


def to_device(packed):
    device, tensor = packed
    return tensor.to(device, non_blocking=True)


def keep(tensor):
    return tensor
