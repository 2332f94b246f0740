"""CUR402's device values read on the host, against what a GPU does: a comparison of CUDA
tensors made a Python bool (`bool(loss > limit)`, `if (out == target).all():`), `torch.equal`,
`.tolist()` and formatting, in a method that the capture calls on an instance with CUDA
tensors; a forward hook the constructor registered that reads the output of a model of
another file; host data copied to the device (`torch.tensor(data, device="cuda")`, a CPU
tensor's `.to(device)`). Look-alikes: the same method given a CPU tensor, a method that keeps
to the GPU, an elementwise comparison kept on the device (`torch.where`), a tensor made on the
GPU.

Each case is a project of its own (the model in another module than the capture; the helpers'
class in the capture's: a method of another module's class that reads its parameter is not
followed yet). The linter's verdict is checked everywhere; on a machine with CUDA each program
runs in its own interpreter (warm-up on a side stream, then `torch.cuda.graph`), and the test
asserts that the capture failed exactly where the linter reports.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness import lint_project
from test_capture_task_race_gpu import TIMEOUT_S
from test_graph_capture_gpu import RULES, cuda_available

MODELS = """\
import torch


class Projection(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width)

    def forward(self, x):
        return torch.tanh(self.linear(x))
"""

GRAPHED = """\
import torch

from shapes.models import Projection


class Monitor:
    def __init__(self, limit):
        self.limit = limit

    def diverged(self, loss):
        return bool(loss > self.limit)

    def all_equal(self, out, target):
        if (out == target).all():
            return True
        return False

    def same(self, out, target):
        return torch.equal(out, target)

    def values(self, out):
        return out.tolist()

    def describe(self, out):
        return f"out {{out}}"

    def scale(self, out):
        return out * 0.5

    def clamp(self, out, target):
        return torch.where(out == target, out, target)


class Graphed:
    def __init__(self):
        self.model = Projection(64).cuda()
        self.x = torch.ones(8, 64, device="cuda")
        self.target = torch.zeros(8, 64, device="cuda")
        self.cpu_loss = torch.zeros(())
        self.table = torch.Tensor([[0.5] * 64] * 8)
        self.monitor = Monitor(100.0)
        self.peak = None
        {hook}

    def _check(self, module, args, output):
        self.peak = float(output.abs().max())

    def capture(self):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                self.model(self.x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = self.model(self.x)
            {call}
        return graph


def main():
    try:
        graph = Graphed().capture()
    except Exception as error:
        print("FAILED", type(error).__name__, error)
        return
    graph.replay()
    torch.cuda.synchronize()
    print("CAPTURED")


if __name__ == "__main__":
    main()
"""

CASES = {  # name: (the statement in the captured step, the hook registered, reported)
    "bool_of_comparison": ("self.monitor.diverged((out - self.target).square().mean())",
                           False, True),
    "elementwise_all_in_if": ("self.monitor.all_equal(out, self.target)", False, True),
    "torch_equal": ("self.monitor.same(out, self.target)", False, True),
    "tolist": ("self.monitor.values(out)", False, True),
    "formatted": ("self.monitor.describe(out)", False, True),
    "forward_hook_output": ("out = out * 1.0", True, True),
    "tensor_from_host_data": ("step = torch.tensor([0], device=\"cuda\")", False, True),
    "cpu_table_to_device": ("table = self.table.to(self.x.device)", False, True),
    "made_on_the_gpu": ("step = torch.zeros(1, device=\"cuda\")", False, False),
    "cpu_tensor_compared": ("self.monitor.diverged(self.cpu_loss)", False, False),
    "kept_on_the_gpu": ("self.monitor.scale(out)", False, False),
    "elementwise_kept_on_the_gpu": ("self.monitor.clamp(out, self.target)", False, False),
}


def _files(name: str) -> dict[str, str]:
    call, hooked, _ = CASES[name]
    hook = "self.model.register_forward_hook(self._check)" if hooked else "self.hooks = ()"
    return {"shapes/__init__.py": "", "shapes/models.py": MODELS,
            "shapes/graphed.py": GRAPHED.format(call=call, hook=hook)}


def _reported(name: str, root) -> bool:
    return any(f.code == "CUR402" and f.path.endswith("graphed.py")
               for f in lint_project(root, _files(name), RULES))


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name, tmp_path):
    assert _reported(name, tmp_path) == CASES[name][2]


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    reported = _reported(name, tmp_path)
    captured, output = module_captured(tmp_path, "shapes.graphed")
    print(f"{name}: reported={reported}\n{output[-2000:]}")
    assert captured == (not reported), output


def module_captured(root, module: str) -> tuple[bool, str]:
    """Whether the project's `module`, run from `root`, printed CAPTURED, and its output."""
    done = subprocess.run([sys.executable, "-m", module], cwd=root, capture_output=True,
                          text=True, timeout=TIMEOUT_S)
    return "CAPTURED" in done.stdout, done.stdout + done.stderr
