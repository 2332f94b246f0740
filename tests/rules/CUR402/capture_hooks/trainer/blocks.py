"""Modules with hooks registered in their constructors, captured by their own methods."""

import torch

from trainer.hooks import keep


class WatchedBlock(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)
        self.proj.register_forward_hook(self._check_output)
        self.norm.register_full_backward_hook(self._log_grads)

    def _check_output(self, module, args, output):
        peak = torch.amax(output)
        print(f"{type(module).__name__} peak {peak}")

    def _log_grads(self, module, grad_input, grad_output):
        torch.cuda.synchronize()

    def forward(self, x):
        return self.norm(self.proj(x))

    def capture(self, static_input):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            hidden = self.proj(static_input)  # error: CUR402 "forward hook `_check_output`"
            out = self.norm(hidden)  # error: CUR402 "backward hook `_log_grads`"
            out.sum().backward()
        return graph

    def capture_forward(self, static_input):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = self.norm(static_input)  # ok: CUR402 (no backward: its hook never runs)
        return graph, out


class QuietBlock(torch.nn.Module):
    def __init__(self, width, verbose):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)
        if verbose:
            self.proj.register_forward_hook(lambda m, a, o: print(torch.amax(o)))
        self.proj.register_forward_hook(lambda m, a, o: keep(o))

    def capture(self, static_input):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = self.proj(static_input)  # ok: CUR402 (a hook under a condition; one that syncs nothing)
        return graph, out


def uncaptured(width, x):
    block = WatchedBlock(width)
    block.proj.register_forward_hook(lambda m, a, o: print(torch.amax(o)))
    return block(x)  # ok: CUR402 (no capture)
