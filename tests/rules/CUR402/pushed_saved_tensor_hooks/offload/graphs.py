"""Captures a layer's forward and backward; other modules ask whether a capture runs."""

import torch

_CAPTURING = False


def is_graph_capturing():
    return _CAPTURING


def capture_layer(layer, static_input):
    global _CAPTURING
    forward_graph, backward_graph = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    _CAPTURING = True
    try:
        with torch.cuda.graph(forward_graph):
            static_output = layer(static_input)
        with torch.cuda.graph(backward_graph):
            grads = torch.autograd.grad(static_output.sum(), layer.parameters())
    finally:
        _CAPTURING = False
    return forward_graph, backward_graph, grads
