"""A captured encoder whose forward hooks, registered by the constructor, read the output."""

import torch

from .models import Encoder


class GraphedEncoder:
    def __init__(self, width):
        self.encoder = Encoder(width).cuda()
        self.shadow = Encoder(width).cuda()
        self.reference = Encoder(width)
        self.encoder.register_forward_hook(self._check_range)
        self.shadow.register_forward_hook(self._log_output)
        self.reference.register_forward_hook(self._check_range)
        self.encoder.register_forward_pre_hook(self._count_inputs)
        self.x = torch.zeros(8, width, device="cuda")
        self.cpu_x = torch.zeros(8, width)
        self.calls = 0
        self.graph = torch.cuda.CUDAGraph()

    def _check_range(self, module, args, output):
        if output.abs().max() > 1e4:
            raise RuntimeError("activation overflow")

    def _log_output(self, module, args, output):
        print(f"{type(module).__name__}: {output}")

    def _count_inputs(self, module, args):
        self.calls += len(args)

    def capture(self):
        with torch.cuda.graph(self.graph):
            out = self.encoder(self.x)  # error: CUR402 "forward hook `_check_range`"
        return out

    def capture_logged(self):
        with torch.cuda.graph(self.graph):
            out = self.shadow(self.x)  # error: CUR402 "forward hook `_log_output`"
        return out

    def capture_reference(self):
        with torch.cuda.graph(self.graph):
            out = self.reference(self.cpu_x)  # ok: CUR402 (a CPU module given a CPU tensor)
        return out

    def run_eagerly(self):
        return self.encoder(self.x)  # ok: CUR402 (no capture)
