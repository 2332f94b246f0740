"""CUR401's components that leave threads running, against what a GPU does: one function makes
an image encoder, whose constructor starts a thread reading CUDA tensors back to the host in a
loop, and an engine, whose constructor starts a thread serving requests with a step captured
into a CUDA graph on its first request (global mode unless the case says otherwise).

The three modules and the owner are a project of their own (the encoder, the engine and the
runner each in another module than the function making them). The linter's verdict on the
project is checked everywhere; on a machine with CUDA the program runs in its own interpreter,
and the test asserts that some round failed (an exception, or the process aborted) exactly where
the linter reports the race at the engine's construction. Expected from the observations
`test_capture_task_race_gpu` records (a `.cpu()` of another thread invalidates a global-mode
capture; thread_local does not fail): the encoder's reads break the engine's lazy global-mode
capture; a thread_local capture, or an encoder doing CPU work only, does not fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness import lint_project
from test_capture_task_race_gpu import project_rounds_failed
from test_graph_capture_gpu import RULES, cuda_available

ROUNDS = 20

GRAPHS = """\
import torch


def step(x):
    for _ in range(200):
        x = x * 0.5 + 1.0
    return x


class LazyRunner:
    def __init__(self):
        self.graph = None

    def __call__(self, x):
        if self.graph is None:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                step(x)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph{mode}):
                self.out = step(x)
        self.graph.replay()
        return float(self.out.sum().item())
"""

ENGINE = """\
import queue
import threading

from shapes.graphs import LazyRunner


class Engine:
    def __init__(self):
        self.runner = LazyRunner()
        self.requests = queue.Queue()
        self.results = queue.Queue()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            x = self.requests.get()
            if x is None:
                return
            try:
                self.results.put(self.runner(x))
            except Exception as error:
                self.results.put(error)
"""

ENCODER = """\
import threading
import time

import torch


class Encoder:
    def __init__(self):
        self.stopped = threading.Event()
        self.started = threading.Event()
        self._thread = threading.Thread(target=self._encode, daemon=True)
        self._thread.start()

    def _encode(self):
        x = torch.ones(1024, 1024, device="cuda")
        self.started.set()
        while not self.stopped.is_set():
            float((x * 2.0).sum().cpu())


class CpuEncoder:
    def __init__(self):
        self.stopped = threading.Event()
        self.started = threading.Event()
        self._thread = threading.Thread(target=self._encode, daemon=True)
        self._thread.start()

    def _encode(self):
        self.started.set()
        while not self.stopped.is_set():
            sum(value * 2 for value in range(10000))
            time.sleep(0.001)  # (a thread spinning on the GIL slows the capture past the timeout)
"""

MAIN = """\
import torch

from shapes.encoder import {encoder}
from shapes.engine import Engine


def serve_round():
    encoder = {encoder}()
    engine = Engine()
    encoder.started.wait(timeout=60)
    engine.requests.put(torch.ones(256, 256, device="cuda"))
    result = engine.results.get(timeout=60)
    encoder.stopped.set()
    engine.requests.put(None)
    # (each round's threads end before the next round captures: a graph torn down on one
    # while the next engine captures would be another race than the one asked about)
    encoder._thread.join(timeout=60)
    engine._thread.join(timeout=60)
    if isinstance(result, Exception):
        raise result
    torch.cuda.synchronize()


def main():
    for number in range({rounds}):
        print("round", number, flush=True)
        serve_round()
    print("served")


if __name__ == "__main__":
    main()
"""


@dataclass(frozen=True)
class Case:
    encoder: str
    mode: str
    races: bool  # expected: some round fails

    def files(self) -> dict[str, str]:
        return {"shapes/__init__.py": "", "shapes/graphs.py": GRAPHS.format(mode=self.mode),
                "shapes/engine.py": ENGINE, "shapes/encoder.py": ENCODER,
                "shapes/main.py": MAIN.format(encoder=self.encoder, rounds=ROUNDS)}


THREAD_LOCAL = ', capture_error_mode="thread_local"'
CASES = {
    "engine capture beside encoder reads": Case("Encoder", "", True),
    "thread_local engine capture beside encoder reads": Case("Encoder", THREAD_LOCAL, False),
    "engine capture beside a CPU-only encoder": Case("CpuEncoder", "", False),
}


def races_reported(case: Case, root) -> bool:
    return any(f.code == "CUR401" and f.path == "shapes/main.py"
               and "is alive when the thread Engine() starts" in f.message
               for f in lint_project(root, case.files(), RULES))


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name, tmp_path):
    assert races_reported(CASES[name], tmp_path) == CASES[name].races


@pytest.mark.skipif(not cuda_available(), reason="needs a CUDA GPU and PyTorch")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    case = CASES[name]
    reported = races_reported(case, tmp_path)
    failed, output = project_rounds_failed(tmp_path)
    print(f"{name}: failed={failed} reported={reported}\n{output}")
    assert failed == case.races, output
    assert reported == failed
