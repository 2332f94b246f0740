"""CUR401's task races against what a GPU does: thread-pool tasks that each begin a capture.

Each case is a program that serves a list of graph runners on a `ThreadPoolExecutor`, round
after round, each round with new runners (each captures its graph on its first call). The
linter's verdict on the source is checked everywhere; on a machine with CUDA the program runs
in its own interpreter, and the test asserts that some round failed (an exception, or the
process aborted) exactly where the linter reports the race. The race is random; observed on
an H200 (PyTorch 2.11, 30 rounds each): 4 workers capturing 8 graphs with `torch.cuda.graph`
failed in the first round with `cudaErrorStreamCaptureInvalidated`, in global and in
thread_local mode (the region begins by synchronizing the device; with 8 graphs over 4
runners reused, the process aborted in round 2 to 7), and so did `capture_begin()` in global
mode; `capture_begin()` in thread_local mode, one worker, and a serial warm-up before the
pool never failed.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest

from harness import lint
from test_graph_capture_gpu import RULES, cuda_available, run_program

ROUNDS = 30
TIMEOUT_S = 240

PROGRAM = """\
from concurrent.futures import ThreadPoolExecutor

import torch


def step(x):
    for _ in range(200):
        x = x * 0.5 + 1.0
    return x


class Runner:
    def __init__(self):
        self.x = torch.ones(256, 256, device="cuda")
        self.graph = None

    def warm_up(self):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            step(self.x)
        torch.cuda.current_stream().wait_stream(side)

    def run(self):
        if self.graph is None:
            self.warm_up()
            self.graph = torch.cuda.CUDAGraph()
{capture}
        self.graph.replay()
        return float(self.out.sum().item())


def serve(count):
    runners = [Runner() for _ in range(count)]
{serve}


def main():
    for number in range({rounds}):
        print("round", number, flush=True)
        serve(8)
        torch.cuda.synchronize()
    print("served")


main()
"""

GRAPH = """\
            with torch.cuda.graph(self.graph{mode}):
                self.out = step(self.x)"""
BEGIN = """\
            side = torch.cuda.Stream()
            with torch.cuda.stream(side):
                self.graph.capture_begin({mode})
                self.out = step(self.x)
                self.graph.capture_end()"""
IN_POOL = """\
    with ThreadPoolExecutor(max_workers={workers}) as pool:
        futures = [pool.submit(runner.run) for runner in runners]
    return [future.result() for future in futures]"""
WARMED_UP = """\
    for runner in runners:
        runner.run()
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(runner.run) for runner in runners]
    return [future.result() for future in futures]"""


@dataclass(frozen=True)
class Case:
    capture: str
    serve: str
    races: bool  # observed: some round fails

    def source(self) -> str:
        return PROGRAM.format(capture=self.capture, serve=self.serve, rounds=ROUNDS)


THREAD_LOCAL = 'capture_error_mode="thread_local"'
CASES = {
    "graph, 4 workers": Case(GRAPH.format(mode=""), IN_POOL.format(workers=4), True),
    "graph thread_local, 4 workers": Case(GRAPH.format(mode=", " + THREAD_LOCAL),
                                          IN_POOL.format(workers=4), True),
    "capture_begin global, 4 workers": Case(BEGIN.format(mode=""), IN_POOL.format(workers=4),
                                            True),
    "capture_begin thread_local, 4 workers": Case(BEGIN.format(mode=THREAD_LOCAL),
                                                  IN_POOL.format(workers=4), False),
    "graph, 1 worker": Case(GRAPH.format(mode=""), IN_POOL.format(workers=1), False),
    "graph, warmed up before the pool": Case(GRAPH.format(mode=""), WARMED_UP, False),
}


def races_reported(source: str) -> bool:
    return any(f.code == "CUR401" and "captures at once" in f.message
               for f in lint(source, RULES, path="program.py", dedent=False))


def failed_on_gpu(source: str, tmp_path) -> tuple[bool, str]:
    """Whether some round failed (an exception, an abort, a hang), and the output's end."""
    return rounds_failed(run_program(source, tmp_path, TIMEOUT_S))


def rounds_failed(done: subprocess.CompletedProcess | None) -> tuple[bool, str]:
    """Whether some round of a program that prints `round N` and, at its end, `served`
    failed (an exception, an abort, a hang: `done` None), and the output's end."""
    if done is None:
        return True, f"hung for {TIMEOUT_S} s"
    rounds = done.stdout.count("round ")
    return done.returncode != 0 or "served" not in done.stdout, \
        f"{rounds} rounds begun, exit {done.returncode}\n{done.stderr[-1200:]}"


def project_rounds_failed(root) -> tuple[bool, str]:
    """`rounds_failed` of a project's `shapes.main`, run from `root`."""
    try:
        done = subprocess.run([sys.executable, "-m", "shapes.main"], cwd=root,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        done = None
    return rounds_failed(done)


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name):
    assert races_reported(CASES[name].source()) == CASES[name].races


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    case = CASES[name]
    failed, output = failed_on_gpu(case.source(), tmp_path)
    print(f"{name}: failed={failed} reported={races_reported(case.source())}\n{output}")
    assert failed == case.races, output
    assert races_reported(case.source()) == failed
