"""Offloads saved activations of the layers it wraps; its hooks run in captured passes."""

import torch

from offload.graphs import is_graph_capturing

VERBOSE = False


def trace(message):
    if VERBOSE:
        print(message)


class Chunk:
    def __init__(self):
        self.slots = {}
        self.reload_event = torch.cuda.Event()

    def stash(self, tensor):
        if not tensor.is_cuda or isinstance(tensor, torch.nn.Parameter):
            return tensor
        tag = len(self.slots)
        self.slots[tag] = tensor
        return tag

    def fetch(self, tag):
        if isinstance(tag, torch.Tensor):
            return tag
        return self.slots.pop(tag)

    def wait_reload(self):
        if not is_graph_capturing():
            self.reload_event.synchronize()


class OffloadManager:
    def __init__(self):
        self.chunk = Chunk()

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.on_save, self.on_get)

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def on_save(self, tensor):
        trace(f"saving {tuple(tensor.shape)} {tensor.dtype}")  # ok: CUR402 (host values)
        return self.chunk.stash(tensor)

    def on_get(self, saved):
        trace(f"restoring {saved}")  # error: CUR402 "unpack hook `on_get`"
        if VERBOSE:
            print(f"restored {saved}")  # ok: CUR402 (only when debugging)
        return self.chunk.fetch(saved)


class TaggedOffload:
    """Saves every tensor under a tag of host integers: the unpack hook never sees one."""

    def __init__(self):
        self.slots = []

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.pack, self.unpack)

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def pack(self, tensor):
        self.slots.append(tensor)
        return (0, len(self.slots) - 1)

    def unpack(self, tag):
        trace(f"unpack {tag}")  # ok: CUR402 (a tag of host integers)
        print(torch.zeros(4))  # ok: CUR402 (a CPU tensor)
        return self.slots[tag[1]]


class PrintingHooks(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        super().__init__(self.pack, self.unpack)

    def pack(self, tensor):
        print(f"pack {tensor}")  # error: CUR402 "pack hook `pack`"
        return tensor

    def unpack(self, tensor):
        return tensor
