"""Capture a hooked model's step."""

import torch

from bench.probes import log_grads, log_output, peak, quiet, scale


class Net(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width)

    def forward(self, x):
        return torch.tanh(self.linear(x))


def show(module, args, output):
    print(f"{type(module).__name__}: {output}")


def capture_logged(width, static_input):
    model = Net(width).cuda()
    model.register_forward_hook(show)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)  # error: CUR402 "forward hook `show`"
    return graph, out


def capture_trained(model, static_input):
    model.register_full_backward_hook(log_grads)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_input).sum()  # error: CUR402 "backward hook `log_grads`"
        loss.backward()
    return graph


def capture_removed(width, static_input):
    model = Net(width).cuda()
    handle = model.register_forward_hook(peak)
    model(static_input)
    handle.remove()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)  # ok: CUR402 (the hook was removed before the capture)
    return graph, out


def capture_clean(width, static_input, debug):
    model = Net(width).cuda()
    model.register_forward_hook(quiet)
    model.register_forward_hook(scale)
    if debug:
        model.register_forward_hook(log_output)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)  # ok: CUR402 (hooks that print under a flag, stay on the GPU, or are registered under a condition)
    return graph, out


def capture_forward_only(model, static_input):
    model.register_full_backward_hook(log_grads)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)  # ok: CUR402 (no backward in the capture)
    return graph, out


def capture_rebound(width, static_input):
    model = Net(width).cuda()
    model.register_forward_hook(show)
    model = Net(width).cuda()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)  # ok: CUR402 (another model than the hooked one)
    return graph, out
