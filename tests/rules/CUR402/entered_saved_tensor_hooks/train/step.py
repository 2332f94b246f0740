"""Steps captured with activation offloading contexts entered inside the capture."""

import torch

from train.codecs import keep, to_device, to_host


class Offload:
    def __init__(self, threshold):
        self.threshold = threshold
        self.store = {}

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.save, self.load)
        return self

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def save(self, tensor):
        if tensor.numel() < self.threshold:
            return tensor
        key = len(self.store)
        self.store[key] = tensor
        return key

    def load(self, saved):
        print(f"load {saved}")
        return self.store.pop(saved) if isinstance(saved, int) else saved


class Tagged:
    def __init__(self):
        self.store = []

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.save, self.load)

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def save(self, tensor):
        self.store.append(tensor)
        return ("slot", len(self.store) - 1)

    def load(self, tag):
        print(f"load {tag}")
        return self.store[tag[1]]


class HostCopies(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        super().__init__(to_host, to_device)


class Kept(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        super().__init__(keep, keep)


def capture_step(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with Offload(1 << 20):  # error: CUR402 "unpack hook `load`"
            loss = model(static_input).sum()
        loss.backward()
    return graph


def capture_host_copies(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with HostCopies():  # error: CUR402 "pack hook `to_host`"
            out = model(static_input)
    return graph, out


def capture_clean(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with Tagged():  # ok: CUR402 (the unpack hook is given a tag of host values)
            loss = model(static_input).sum()
        with Kept():  # ok: CUR402 (hooks that keep the tensor on the GPU)
            loss = loss + model(static_input).sum()
        loss.backward()
    return graph


def capture_forward(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        with Offload(1 << 20):  # ok: CUR402 (no backward in the capture: `load` never runs)
            out = model(static_input)
    return graph, out


def eager_step(model, batch):
    with Offload(1 << 20):  # ok: CUR402 (no capture)
        loss = model(batch).sum()
    loss.backward()
