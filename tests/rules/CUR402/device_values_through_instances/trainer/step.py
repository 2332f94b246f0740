"""A captured training step whose helpers read device values on the host."""

import torch

from .clipping import NormClipper, ScaleClipper


class LossMonitor:
    def __init__(self, limit):
        self.limit = limit

    def check(self, loss):
        if bool(loss > self.limit):
            raise RuntimeError("loss diverged")

    def same(self, left, right):
        return torch.equal(left, right)

    def describe(self, loss):
        return f"loss {loss}"


class HostThresholds:
    def equal(self, value):
        return value == 0


class GraphedStep:
    def __init__(self, model):
        self.model = model.cuda()
        self.x = torch.zeros(64, 128, device="cuda")
        self.target = torch.zeros(64, 10, device="cuda")
        self.clipper = NormClipper(1.0)
        self.scaler = ScaleClipper(0.5)
        self.monitor = LossMonitor(100.0)
        self.guard = self.monitor.check
        self.thresholds = HostThresholds()
        self.cpu_reference = torch.zeros(10)
        self.graph = torch.cuda.CUDAGraph()

    def capture_clipped(self, grads):
        with torch.cuda.graph(self.graph):
            self.clipper.clip(self.x)  # error: CUR402@13

    def capture_monitored(self):
        with torch.cuda.graph(self.graph):
            loss = (self.model(self.x) - self.target).square().mean()
            self.monitor.check(loss)  # error: CUR402@13

    def capture_guarded(self):
        with torch.cuda.graph(self.graph):
            loss = (self.model(self.x) - self.target).square().mean()
            self.guard(loss)  # error: CUR402@13

    def capture_compared(self):
        with torch.cuda.graph(self.graph):
            out = self.model(self.x)
            self.monitor.same(out, self.target)  # error: CUR402@13

    def capture_described(self):
        with torch.cuda.graph(self.graph):
            loss = (self.model(self.x) - self.target).square().mean()
            self.monitor.describe(loss)  # error: CUR402@13

    def capture_elementwise(self):
        with torch.cuda.graph(self.graph):
            out = self.model(self.x)
            if (out == self.target).all():  # error: CUR402@16
                out.zero_()

    def look_alikes(self, threshold):
        with torch.cuda.graph(self.graph):
            self.scaler.clip(self.x)  # ok: CUR402 (no host read)
            self.monitor.check(threshold)  # ok: CUR402 (given a host value)
            self.monitor.check(self.cpu_reference)  # ok: CUR402 (a CPU tensor)
            self.thresholds.equal(self.x)  # ok: CUR402 (another object's `equal`)
            out = self.model(self.x)
            if out is None:  # ok: CUR402 (an identity test)
                return None
            cpu = torch.zeros(3)
            if (cpu == 0).all():  # ok: CUR402 (a CPU tensor)
                out.zero_()
        loss = out.square().mean()
        self.monitor.check(loss)  # ok: CUR402 (after the capture)
        return out
