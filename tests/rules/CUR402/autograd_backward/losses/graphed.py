"""Whole training steps captured into CUDA graphs."""

import torch

from losses.functions import cross_entropy, fused_cross_entropy, scaled_square


def capture_train_step(model, static_x, static_y):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = fused_cross_entropy(model(static_x), static_y)  # error: CUR402@16 "backward"
        loss.backward()
    return graph


def capture_forward(model, static_x, static_y):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = fused_cross_entropy(model(static_x), static_y)  # ok: CUR402 (no backward here)
    return graph, loss


def capture_regularized(model, static_x):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        penalty = scaled_square(model(static_x), 0.1)  # ok: CUR402 (reads no gradient)
        penalty.backward()
    return graph


def capture_configured(model, static_x, static_y, fused):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = cross_entropy(model(static_x), static_y, fused)  # ok: CUR402 (only when fused)
        loss.backward()
    return graph
