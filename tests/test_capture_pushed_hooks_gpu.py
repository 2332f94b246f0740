"""CUR402's saved-tensors hooks pushed by a module's own context manager, against what a GPU
does. An offload manager pushes its hooks in `__enter__`
(`torch._C._autograd._push_saved_tensors_default_hooks`, what `saved_tensors_hooks` does);
a layer of another module enters it in its forward; a third module captures the layer's
forward and backward. Reported where the manager's module asks `is_graph_capturing()` and a
hook formats the tensor it is given (the unpack hook: where the pack hook may return the
tensor as it is); the same manager entered inside a capture region is reported at the region.
Look-alikes: the pack hook returns a tag of host integers, the formatting runs only under a
debug flag tested first, the pack hook formats the shape.

The linter's verdict is checked everywhere; on a machine with CUDA each program runs in its
own interpreter (warm-up on a side stream, then `torch.cuda.graph` of the forward and the
backward), and the test asserts that the capture failed exactly where the linter reports.
"""

from __future__ import annotations

import pytest

from harness import lint_project
from test_capture_device_values_gpu import module_captured
from test_graph_capture_gpu import RULES, cuda_available

GRAPHS = """\
import torch

from hooked.layers import Block
from hooked.offload import Offload

_CAPTURING = False


def is_graph_capturing():
    return _CAPTURING


def main():
    global _CAPTURING
    block = Block(64).cuda()
    x = torch.ones(8, 64, device="cuda", requires_grad=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            block(x).sum().backward()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    _CAPTURING = True
    try:
        with torch.cuda.graph(graph):
            {region}
    except Exception as error:
        print("FAILED", type(error).__name__, error)
        return
    finally:
        _CAPTURING = False
    graph.replay()
    torch.cuda.synchronize()
    print("CAPTURED")


if __name__ == "__main__":
    main()
"""

LAYERS = """\
import torch

from hooked.offload import Offload


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width)

    def forward(self, x):
        with {entered}:
            return torch.tanh(self.linear(x))
"""

OFFLOAD = """\
import contextlib

import torch

VERBOSE = False


def trace(message):
    if VERBOSE:
        print(message)


def is_graph_capturing():
    from hooked.graphs import is_graph_capturing as capturing

    return capturing()


class Offload:
    def __init__(self):
        self.slots = []

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.save, self.load)

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def wait(self, event):
        if not is_graph_capturing():
            event.synchronize()

    def save(self, tensor):
        {save}

    def load(self, saved):
        {load}

"""

PRINTING = """\
import torch


class Printing(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        super().__init__(self.pack, self.unpack)

    def pack(self, tensor):
        print(f"pack {tensor}")
        return tensor

    def unpack(self, tensor):
        if torch.cuda.is_current_stream_capturing():
            return tensor
        return tensor.clone()
"""

PASS = "self.slots.append(tensor)\n        return tensor"
TAG = "self.slots.append(tensor)\n        return (0, len(self.slots) - 1)"
RETURN_SAVED = "return saved"
RETURN_TAGGED = "return self.slots[saved[1]]"
REGION = "block(x).sum().backward()"
CASES = {  # name: (entered by the layer, save, load, the region, reported)
    "unpack_formats_passed_tensor": (
        "Offload()", PASS, f'trace(f"load {{saved}}")\n        {RETURN_SAVED}', REGION, True),
    "unpack_formats_tag": (
        "Offload()", TAG, f'trace(f"load {{saved}}")\n        {RETURN_TAGGED}', REGION, False),
    "unpack_formats_under_flag": (
        "Offload()", PASS,
        f'if VERBOSE:\n            print(f"load {{saved}}")\n        {RETURN_SAVED}', REGION,
        False),
    "pack_formats_shape": (
        "Offload()", f'trace(f"save {{tuple(tensor.shape)}}")\n        {PASS}', RETURN_SAVED,
        REGION, False),
    "subclass_pack_prints": ("Printing()", PASS, RETURN_SAVED, REGION, True),
    "entered_in_region": (
        "contextlib.nullcontext()", PASS, f'print(f"load {{saved}}")\n        {RETURN_SAVED}',
        "with Offload():\n                y = block(x)\n            y.sum().backward()", True),
}


def _files(name: str) -> dict[str, str]:
    entered, save, load, region, _ = CASES[name]
    files = {"hooked/__init__.py": "", "hooked/graphs.py": GRAPHS.format(region=region),
             "hooked/layers.py": LAYERS.format(entered=entered),
             "hooked/offload.py": OFFLOAD.format(save=save, load=load)}
    if entered == "Printing()":
        files["hooked/printing.py"] = PRINTING
        files["hooked/layers.py"] = files["hooked/layers.py"].replace(
            "from hooked.offload import Offload", "from hooked.printing import Printing")
    elif entered.startswith("contextlib"):
        files["hooked/layers.py"] = "import contextlib\n" + files["hooked/layers.py"]
    return files


def _reported(name: str, root) -> bool:
    return any(f.code == "CUR402" for f in lint_project(root, _files(name), RULES))


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name, tmp_path):
    assert _reported(name, tmp_path) == CASES[name][4]


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    reported = _reported(name, tmp_path)
    captured, output = module_captured(tmp_path, "hooked.graphs")
    print(f"{name}: reported={reported}\n{output[-2000:]}")
    assert captured == (not reported), output
