"""A captured training step that registers hooks of another module."""

import torch

from trainer import hooks
from trainer.hooks import gradient_norm_hook, keep, log_gradient, offload, reload, traced_offload


def capture_step(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        hidden = torch.relu(model(static_input))
        hidden.register_hook(gradient_norm_hook)  # error: CUR402 "gradient hook"
        hidden.register_hook(hooks.clip_gradient)  # ok: CUR402 (stays on the GPU)
        with torch.autograd.graph.saved_tensors_hooks(offload, reload):  # error: CUR402 "unpack hook `reload`"
            loss = model(hidden).sum()
        loss.backward()
    return graph


def capture_local_hooks(model, static_input):
    def report(grad):
        print("grad", grad)

    def save(tensor):
        print(f"saved {tensor}")
        return tensor

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        hidden = torch.tanh(model(static_input))
        hidden.register_hook(report)  # error: CUR402 "gradient hook `report` waits"
        with torch.autograd.graph.saved_tensors_hooks(save, keep):  # error: CUR402 "pack hook `save`"
            loss = model(hidden).sum()
        loss.backward()
    return graph


def capture_forward_only(model, static_input):
    def report(grad):
        print("grad", grad)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        hidden = torch.tanh(model(static_input))
        hidden.register_hook(report)  # ok: CUR402 (no backward in the capture)
        print(torch.zeros(3))  # ok: CUR402 (a CPU tensor)
        with torch.autograd.graph.saved_tensors_hooks(traced_offload, keep):  # ok: CUR402 (prints only when debugging)
            out = model(hidden)
    return graph, out


def hooks_without_capture(model, x):
    hidden = torch.relu(model(x))
    hidden.register_hook(log_gradient)  # ok: CUR402 (no capture)
    with torch.autograd.graph.saved_tensors_hooks(offload, reload):  # ok: CUR402 (no capture)
        loss = model(hidden).sum()
    loss.backward()
