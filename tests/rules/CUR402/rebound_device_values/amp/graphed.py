"""Graphed training steps: the overflow check, a settle loop and a moved model."""

import torch

from amp.overflow import (
    any_nonfinite, found_overflow, found_overflow_in_values, overflow_flag,
)


def capture_step(model, optimizer, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_input).sum()
        loss.backward()
        grads = [param.grad for param in model.parameters()]
        if found_overflow(grads):  # error: CUR402@12 "found_overflow() reaches it"
            optimizer.zero_grad()
        flag = overflow_flag(grads)  # ok: CUR402 (the flag stays on the device)
        optimizer.step()
    return graph, flag


def capture_checked(model, static_input, history):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_input).sum()
        if found_overflow_in_values(history):  # ok: CUR402 (a CPU tensor)
            loss = loss * 0
        if any_nonfinite(history):  # ok: CUR402 (Python numbers)
            loss = loss * 0
    return graph, loss


def capture_settle(static_input):
    weights = torch.randn(8, 8, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = static_input @ weights
        settled = out.abs().max() < 1e-3
        while not settled:  # error: CUR402@15 "`while` tests the CUDA tensor `settled`"
            out = out * 0.5
            settled = True
    return graph, out


def capture_limited(static_input, limit):
    weights = torch.randn(8, 8, device="cuda")
    over = torch.zeros((), dtype=torch.bool, device="cuda")
    over = limit > 8  # a Python bool from here on
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = static_input @ weights
        if over:  # ok: CUR402 (rebound to a Python bool before the capture)
            out = out.clamp(-limit, limit)
    return graph, out


def capture_moved(model, static_input):
    model = model.cuda()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)
        if out.isnan().any():  # error: CUR402@12 "`if` tests the CUDA tensor"
            out.zero_()
    return graph, out


def capture_maybe_moved(model, static_input, on_gpu):
    if on_gpu:
        model = model.cuda()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)
        if out.isnan().any():  # ok: CUR402 (the model may be the one given)
            out.zero_()
    return graph, out


def capture_cast(model, static_input):
    model = model.float()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(static_input)
        if out.isnan().any():  # ok: CUR402 (not moved to the GPU here)
            out.zero_()
    return graph, out
