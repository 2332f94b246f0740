"""CUR402 on NVIDIA Warp captures, against what a GPU really does.

Each case is a small Warp program: a kernel launched inside `wp.ScopedCapture()` (or between
`wp.capture_begin()` and `wp.capture_end()`), with or without a host read or a
synchronization in the capture. The linter's verdict on its source is checked everywhere; where
Warp and a CUDA device are present, the program also runs in its own interpreter, and the test
asserts that the capture and its replay succeed exactly where the linter reports nothing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from cursedlint.registry import collect
from cursedlint.rules import graph_capture

from harness import lint

RULES = collect([graph_capture])
TIMEOUT_S = 180

PROGRAM = """\
import warp as wp


@wp.kernel
def halve(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = values[i] * 0.5


def main():
    wp.init()
    device = "cuda:0"
    values = wp.ones(1024, dtype=float, device=device)
    wp.load_module(device=device)
{body}
    wp.capture_launch(graph)
    wp.synchronize_device(device)
    print("captured")


main()
"""

SCOPED = """\
with wp.ScopedCapture(device=device) as capture:
    wp.launch(halve, dim=1024, inputs=[values], device=device)
{inside}graph = capture.graph
"""
PAIRED = """\
wp.capture_begin(device)
wp.launch(halve, dim=1024, inputs=[values], device=device)
{inside}graph = wp.capture_end(device)
"""

CASES = {
    "scoped-plain": (SCOPED.format(inside=""), True),
    "scoped-numpy": (SCOPED.format(inside="    host = values.numpy()\n"), False),
    "scoped-synchronize-device": (
        SCOPED.format(inside="    wp.synchronize_device(device)\n"), False),
    "paired-plain": (PAIRED.format(inside=""), True),
    "paired-numpy": (PAIRED.format(inside="host = values.numpy()\n"), False),
}
"""name -> (the capture's statements, whether it captures: the linter reports it if not)."""


def source(body: str) -> str:
    return PROGRAM.format(body=textwrap.indent(body, " " * 4))


def verdict(text: str) -> frozenset[str]:
    return frozenset(f.code for f in lint(text, RULES, path="program.py", dedent=False))


def warp_gpu_available() -> bool:
    if importlib.util.find_spec("warp") is None:
        return False
    probe = subprocess.run(
        [sys.executable, "-c", "import warp as wp; wp.init(); print(wp.is_cuda_available())"],
        capture_output=True, text=True, timeout=TIMEOUT_S)
    return probe.stdout.strip().endswith("True")


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name):
    body, captures = CASES[name]
    assert verdict(source(body)) == (frozenset() if captures else frozenset({"CUR402"}))


@pytest.mark.skipif(not warp_gpu_available(), reason="needs NVIDIA Warp and a CUDA GPU")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    body, captures = CASES[name]
    program = tmp_path / "program.py"
    program.write_text(source(body))
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    captured = done.returncode == 0 and "captured" in done.stdout
    print(f"{name}: captured={captured}\n{done.stderr[-1500:]}")
    assert captured == captures, done.stderr[-1500:]
    assert bool(verdict(source(body))) == (not captured)
