"""CUR401 to CUR404 against what a GPU really does.

Each case is a small program in the shape of a row of the verified table in issue 5. The
linter's verdict on its source (which CUR4xx codes it reports) is checked everywhere; on a
machine with CUDA, the program also runs in its own interpreter (a failed capture can leave
the CUDA context unusable, and cuBLAS must start uninitialized), and the test asserts that the
capture fails exactly where the table says it does, next to the linter's verdict.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

from cursedlint.cli import main
from cursedlint.registry import collect
from cursedlint.rules import graph_capture

from harness import lint

RULES = collect([graph_capture])
TIMEOUT_S = 120

PROGRAM = """\
import logging
import threading
import time

import torch
{functions}

def main():
    x = torch.ones(512, 512, device="cuda")
{setup}
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g{mode}):
{body}
    g.replay()
    torch.cuda.synchronize()
{after}
    print("captured")


main()
"""

STEP = """

def step(x):
    for _ in range(300):
        x = x * 0.5 + 1.0
    return x
"""
POLLER = STEP + """

def poll(event):
    while True:
        event.query()
"""
DRAINER = STEP + """

def drain():
    while True:
        torch.cuda.synchronize()
"""
WARM_UP = """\
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        {call}
torch.cuda.current_stream().wait_stream(side)
"""
START_POLLER = """\
event = torch.cuda.Event()
event.record()
threading.Thread(target=poll, args=(event,), daemon=True).start()
time.sleep(0.2)
"""
START_DRAINER = """\
threading.Thread(target=drain, daemon=True).start()
time.sleep(0.2)
"""
ALLOCATOR = STEP + """

def allocate(stop):
    kept = []
    while not stop.is_set():
        kept.append(torch.full((64, 64), 2.0, device="cuda"))
"""
START_ALLOCATOR = """\
stop = threading.Event()
allocator = threading.Thread(target=allocate, args=(stop,), daemon=True)
allocator.start()
time.sleep(0.2)
"""
STOP_ALLOCATOR = """\
stop.set()
allocator.join()
"""
LOSS_LOGGER = STEP + """

def log_loss(loss):
    while True:
        logging.info("loss %.4f", loss.cpu().sum())
"""
START_LOSS_LOGGER = """\
loss = x.sum()
threading.Thread(target=log_loss, args=(loss,), daemon=True).start()
time.sleep(0.2)
"""
WORD_COUNTER = STEP + """

def count_words(text):
    while True:
        counts = {}
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
"""
START_WORD_COUNTER = """\
threading.Thread(target=count_words, args=("to be or not to be " * 100,), daemon=True).start()
time.sleep(0.2)
"""
PINNED_LOADER = """\
rows = torch.utils.data.TensorDataset(torch.randn(8192, 512))
loader = torch.utils.data.DataLoader(rows, batch_size=64, pin_memory=True, num_workers=2)
batches = iter(loader)
next(batches)
"""
NEXT_BATCHES = "y = step(x)\nfor _ in range(8):\n    batch = next(batches)\n"
THREAD_LOCAL = ', capture_error_mode="thread_local"'
LAYER = 'layer = torch.nn.Linear(512, 512).cuda()\n'


@dataclass(frozen=True)
class Case:
    """A program: `setup` runs before the capture, `body` inside it; `captures` is what the
    GPU does (issue 5's table), `codes` what the linter reports on the program."""

    row: str
    functions: str
    setup: str
    body: str
    captures: bool
    codes: frozenset[str]
    mode: str = ""
    after: str = ""

    def source(self) -> str:
        return PROGRAM.format(functions=self.functions, mode=self.mode,
                              setup=textwrap.indent(self.setup, " " * 4),
                              body=textwrap.indent(self.body, " " * 8),
                              after=textwrap.indent(self.after, " " * 4))


STEP_WARM_UP = WARM_UP.format(call="step(x)")
FUNCTION = """

class Fused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y):
        ctx.save_for_backward(y)
        return (y * y).sum()

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
{check}        return 2 * y * grad_output
"""
FUNCTION_WITH_EQUAL = FUNCTION.format(
    check="        if torch.equal(grad_output, torch.ones_like(grad_output)):\n"
          "            return 2 * y\n")
FUNCTION_PLAIN = FUNCTION.format(check="")
FUNCTION_WARM_UP = WARM_UP.format(call="Fused.apply(layer(x)).backward()")
HOOKS = """

def show_grad(grad):
    print(f"grad {grad}")
    return grad


def scale_grad(grad):
    return grad * 0.5


def show_saved(tensor):
    print("saved", tensor)
    return tensor


def keep_saved(tensor):
    return tensor
"""
HOOKS_WARM_UP = LAYER + WARM_UP.format(call="torch.tanh(layer(x)).sum().backward()")

CASES = {
    "poll-global": Case("thread polling Event.query() alive during torch.cuda.graph(g)",
                        POLLER, STEP_WARM_UP + START_POLLER, "y = step(x)\n", False,
                        frozenset({"CUR401"})),
    "poll-thread-local": Case("same with capture_error_mode='thread_local'", POLLER,
                              STEP_WARM_UP + START_POLLER, "y = step(x)\n", True,
                              frozenset(), THREAD_LOCAL),
    "drain-thread-local": Case("worker thread calling torch.cuda.synchronize(), thread_local",
                               DRAINER, STEP_WARM_UP + START_DRAINER, "y = step(x)\n", False,
                               frozenset({"CUR401"}), THREAD_LOCAL),
    "item-in-region": Case(".item() inside the capture region", STEP, STEP_WARM_UP,
                           "y = step(x)\ntotal = y.sum().item()\n", False,
                           frozenset({"CUR402"})),
    "tensor-in-if": Case("a CUDA tensor tested by `if` inside the capture region", STEP,
                         STEP_WARM_UP, "y = step(x)\nfound = torch.isinf(y).any()\n"
                         "if found:\n    y = y * 0\n", False, frozenset({"CUR402"})),
    "tensor-in-if-of-a-helper": Case(
        "a helper called in the capture region tests a CUDA tensor by `if`", STEP + """

def zero_if_inf(y):
    found = torch.isinf(y).any()
    if found:
        y.zero_()
""", STEP_WARM_UP, "y = step(x)\nzero_if_inf(y)\n", False, frozenset({"CUR402"})),
    "tensor-in-if-of-a-helper-when-asked": Case(
        "the helper tests it only when asked, and is not asked", STEP + """

def zero_if_inf(y, asked):
    if asked:
        found = torch.isinf(y).any()
        if found:
            y.zero_()
""", STEP_WARM_UP, "y = step(x)\nzero_if_inf(y, False)\n", True, frozenset()),
    "tensor-to-float": Case("float() of a CUDA tensor inside the capture region", STEP,
                            STEP_WARM_UP, "y = step(x)\nscale = float(torch.linalg."
                            "vector_norm(y))\n", False, frozenset({"CUR402"})),
    "tensor-equal": Case("torch.equal() of a CUDA tensor inside the capture region", STEP,
                         STEP_WARM_UP,
                         "y = torch.sigmoid(step(x))\nif torch.equal(y, x):\n    z = y * 0\n",
                         False, frozenset({"CUR402"})),
    "tensor-allclose": Case("Tensor.allclose() of a CUDA tensor inside the capture region",
                            STEP, STEP_WARM_UP, "y = torch.sigmoid(step(x))\nsame = y.allclose(x)\n", False,
                            frozenset({"CUR402"})),
    "clip-norm-in-if": Case("the norm clip_grad_norm_ returns tested by `if` in the region",
                            STEP, STEP_WARM_UP + LAYER + "layer(x).sum().backward()\n",
                            "layer(step(x)).sum().backward()\n"
                            "norm = torch.nn.utils.clip_grad_norm_(layer.parameters(), 1.0)\n"
                            "if norm > 1e6:\n    layer.zero_grad()\n", False,
                            frozenset({"CUR402"})),
    "function-backward-equal": Case(
        "an autograd Function's backward, run by the captured backward, calls torch.equal() "
        "on its gradient", FUNCTION_WITH_EQUAL, LAYER + FUNCTION_WARM_UP,
        "Fused.apply(layer(x)).backward()\n", False, frozenset({"CUR402"})),
    "function-backward-plain": Case(
        "the same Function's backward without the comparison", FUNCTION_PLAIN,
        LAYER + FUNCTION_WARM_UP, "Fused.apply(layer(x)).backward()\n", True, frozenset()),
    "tensor-where": Case("torch.where on a CUDA comparison: stays on the GPU", STEP,
                         STEP_WARM_UP, "y = step(x)\nnorm = torch.linalg.vector_norm(y)\n"
                         "y = torch.where(norm > 1.0, y / norm, y)\n", True, frozenset()),
    "matmul-cold": Case("cuBLAS work captured without a prior warm-up", "",
                        'w = torch.randn(512, 512, device="cuda")\n',
                        "y = torch.matmul(x, w)\n", False, frozenset({"CUR404"})),
    "matmul-current-stream": Case("cuBLAS work run once on the capturing thread's current "
                                  "stream before capture", "",
                                  'w = torch.randn(512, 512, device="cuda")\ny = x @ w\n',
                                  "y = x @ w\n", True, frozenset()),
    "linear-cold": Case("nn.Linear captured without a prior warm-up", "", LAYER,
                        "y = layer(x)\n", False, frozenset({"CUR404"})),
    "conv-cold": Case("nn.Conv2d (cuDNN) captured without a prior warm-up", "",
                      "conv = torch.nn.Conv2d(3, 16, 3).cuda()\n"
                      'images = torch.randn(8, 3, 64, 64, device="cuda")\n',
                      "y = conv(images)\n", False, frozenset({"CUR404"})),
    "loader-global": Case("DataLoader(pin_memory=True, num_workers>0) iterated before and "
                          "during capture", STEP, STEP_WARM_UP + PINNED_LOADER, NEXT_BATCHES,
                          False, frozenset({"CUR403"})),
    "loader-thread-local": Case("same with capture_error_mode='thread_local'", STEP,
                                STEP_WARM_UP + PINNED_LOADER, NEXT_BATCHES, True, frozenset(),
                                THREAD_LOCAL),
    "loader-after-capture": Case("graph captured before the pinned DataLoader is created", STEP,
                                 STEP_WARM_UP, "y = step(x)\n", True, frozenset(),
                                 after=PINNED_LOADER),
    "allocator-global": Case("thread allocating CUDA tensors during capture", ALLOCATOR,
                             STEP_WARM_UP + START_ALLOCATOR, "y = step(x)\n", False,
                             frozenset({"CUR401"}), after=STOP_ALLOCATOR),
    "allocator-thread-local": Case("same with capture_error_mode='thread_local'", ALLOCATOR,
                                   STEP_WARM_UP + START_ALLOCATOR, "y = step(x)\n", True,
                                   frozenset(), THREAD_LOCAL, STOP_ALLOCATOR),
    "allocator-joined": Case("thread that used CUDA but was joined before capture", ALLOCATOR,
                             STEP_WARM_UP + START_ALLOCATOR + STOP_ALLOCATOR, "y = step(x)\n", True,
                             frozenset()),
    "logger-cpu": Case("logging thread calling tensor.cpu() during capture", LOSS_LOGGER,
                       STEP_WARM_UP + START_LOSS_LOGGER, "y = step(x)\n", False,
                       frozenset({"CUR401"})),
    "cpu-only-thread": Case("thread doing CPU-only work during capture", WORD_COUNTER,
                            STEP_WARM_UP + START_WORD_COUNTER, "y = step(x)\n", True,
                            frozenset()),
    "print-in-region": Case("print of a CUDA tensor inside the capture region", STEP,
                            STEP_WARM_UP, "y = torch.relu(step(x))\nprint(y)\n", False,
                            frozenset({"CUR402"})),
    "print-shape-in-region": Case("print of a CUDA tensor's shape inside the capture region",
                                  STEP, STEP_WARM_UP,
                                  "y = torch.relu(step(x))\nprint(y.shape, y.dtype)\n", True,
                                  frozenset()),
    "fstring-in-region": Case("an f-string of a CUDA tensor inside the capture region", STEP,
                              STEP_WARM_UP, 'y = torch.relu(step(x))\nnote = f"y={y}"\n',
                              False, frozenset({"CUR402"})),
    "cpu-tensor-printed": Case("print of a CPU tensor inside the capture region", STEP,
                               STEP_WARM_UP, "y = step(x)\nprint(torch.arange(4))\n", True,
                               frozenset()),
    "grad-hook-print": Case(
        "a gradient hook registered in the region prints its gradient in the captured "
        "backward", HOOKS, HOOKS_WARM_UP,
        "y = torch.tanh(layer(x))\ny.register_hook(show_grad)\ny.sum().backward()\n", False,
        frozenset({"CUR402"})),
    "grad-hook-plain": Case(
        "a gradient hook that stays on the GPU, in the captured backward", HOOKS,
        HOOKS_WARM_UP,
        "y = torch.tanh(layer(x))\ny.register_hook(scale_grad)\ny.sum().backward()\n", True,
        frozenset()),
    "grad-hook-no-backward": Case(
        "the printing gradient hook registered in a region that runs no backward", HOOKS,
        HOOKS_WARM_UP, "y = torch.tanh(layer(x))\ny.register_hook(show_grad)\n", True,
        frozenset()),
    "saved-tensors-pack-print": Case(
        "a saved-tensors pack hook that prints the tensor the captured forward saves", HOOKS,
        HOOKS_WARM_UP,
        "with torch.autograd.graph.saved_tensors_hooks(show_saved, keep_saved):\n"
        "    y = torch.tanh(layer(x))\ny.sum().backward()\n", False, frozenset({"CUR402"})),
    "saved-tensors-plain": Case(
        "saved-tensors hooks that keep the tensor, in the captured forward and backward",
        HOOKS, HOOKS_WARM_UP,
        "with torch.autograd.graph.saved_tensors_hooks(keep_saved, keep_saved):\n"
        "    y = torch.tanh(layer(x))\ny.sum().backward()\n", True, frozenset()),
    "linear-side-stream": Case("nn.Linear warmed up on a side stream before capture", "",
                               LAYER + WARM_UP.format(call="layer(x)"), "y = layer(x)\n",
                               True, frozenset()),
    "module-output-in-if": Case(
        "an nn.Module's output on a CUDA input, tested by `if` in the region", "",
        LAYER + WARM_UP.format(call="layer(x)"),
        "loss = layer(x).sum()\nif loss > 0:\n    y = x * 0\n", False, frozenset({"CUR402"})),
    "module-output-on-the-device": Case(
        "the same output compared on the device (torch.where): it is a CUDA tensor", "",
        LAYER + WARM_UP.format(call="layer(x)"),
        "loss = layer(x).sum()\ny = torch.where(loss > 0, x * 0.5, x)\n", True, frozenset(),
        after="assert loss.is_cuda\n"),
    "model-class-output-to-float": Case(
        "float() of the output of a project nn.Module moved to CUDA", """

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(512, 512)

    def forward(self, x):
        return torch.relu(self.proj(x))
""", "net = Net().cuda()\n" + WARM_UP.format(call="net(x)"),
        "score = float(net(x).mean())\n", False, frozenset({"CUR402"})),
    "cpu-tensor-in-if": Case(
        "a CPU tensor tested by `if` next to a module's output", "",
        LAYER + "limit = torch.tensor(2.0)\n" + WARM_UP.format(call="layer(x)"),
        "y = layer(x)\nif limit > 1.0:\n    y = y * 0.5\n", True, frozenset()),
}


def verdict(source: str) -> frozenset[str]:
    """The CUR4xx codes the linter reports on a program."""
    return frozenset(f.code for f in lint(source, RULES, path="program.py", dedent=False))


def run_program(source: str, tmp_path, timeout: float = TIMEOUT_S, *arguments: str):
    """The program run in an interpreter of its own (`CompletedProcess`), given `arguments`;
    None when it hung for `timeout` seconds."""
    program = tmp_path / "program.py"
    program.write_text(source)
    try:
        return subprocess.run([sys.executable, str(program), *arguments], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def run_on_gpu(source: str, tmp_path, clean_exit: bool = True) -> tuple[bool, str]:
    """Whether the program captured and replayed its graph, and its error output's end.
    `clean_exit`: also ask that it exit cleanly (a daemon thread still in a CUDA call when
    the interpreter exits aborts it after the capture succeeded)."""
    done = run_program(source, tmp_path)
    if done is None:
        return False, f"hung for {TIMEOUT_S} s"
    captured = ("captured" in done.stdout and "Exception in thread" not in done.stderr
                and (done.returncode == 0 or not clean_exit))
    return captured, done.stderr[-1500:]


def cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name):
    case = CASES[name]
    assert verdict(case.source()) == case.codes


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    case = CASES[name]
    captured, errors = run_on_gpu(case.source(), tmp_path)
    reported = verdict(case.source())
    print(f"{name}: {case.row}: captured={captured} reported={sorted(reported)}\n{errors}")
    assert captured == case.captures, errors
    assert reported == case.codes
    assert bool(reported) == (not captured)


def thread_local_fixed(source: str, tmp_path, capsys) -> str:
    """The program after `cursedlint check --fix --unsafe-fixes` (CUR4xx only)."""
    program = tmp_path / "fixed.py"
    program.write_text(source)
    main(["check", "--no-cache", "--select", "CUR4", "--fix", "--unsafe-fixes", str(program)])
    capsys.readouterr()
    return program.read_text()


FIXABLE = {name: case for name, case in CASES.items()
           if not case.mode and case.codes & {"CUR401", "CUR403"}}
"""Global-mode captures with a live thread or loader: the thread_local fix is offered unless
the thread synchronizes the whole device (which fails in every mode)."""


@pytest.mark.parametrize("name", sorted(FIXABLE))
def test_the_thread_local_fix_is_applied_where_it_helps(name, tmp_path, capsys):
    case = FIXABLE[name]
    after = thread_local_fixed(case.source(), tmp_path, capsys)
    if "synchronize()" in case.functions:
        assert after == case.source()  # device-wide: thread_local would not help
    else:
        assert 'capture_error_mode="thread_local"' in after
        assert verdict(after) == frozenset()


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(FIXABLE))
def test_gpu_captures_once_the_thread_local_fix_is_applied(name, tmp_path, capsys):
    case = FIXABLE[name]
    after = thread_local_fixed(case.source(), tmp_path, capsys)
    captured, errors = run_on_gpu(after, tmp_path, clean_exit=False)
    print(f"{name} fixed: captured={captured}\n{errors}")
    assert captured == (after != case.source()), errors
