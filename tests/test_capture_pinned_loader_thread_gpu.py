"""CUR401's pinning units, against what a GPU does: a loading thread iterates a DataLoader made
with pin_memory=True (pinning each batch itself, or, with workers, in the iterator's pin-memory
thread) and hands the batches on through a bounded deque, while the main thread copies each batch to
the GPU (`non_blocking=True`: the caching host allocator records an event on its pinned block)
and captures a step into a fresh CUDA graph each round (global mode unless the case says
otherwise). The loading thread keeps only the last 16 batches and never waits, so it pins
while the main thread captures.

The loading and decoding modules and the runner are a project of their own. The linter's
verdict is checked everywhere; on a machine with CUDA the program runs in its own interpreter,
and the test asserts that some round failed (an exception, or the process aborted) exactly where
the linter reports the loading thread alive at the capture. Expected, from PyTorch's sources
(`_SingleProcessDataLoaderIter._next_data` and `_pin_memory_loop` pin each batch; the caching
host allocator's `allocate` queries the events of blocks in use (`cudaEventQuery`) and calls
`cudaHostAlloc` when no cached block fits) and its documentation of `capture_error_mode`
("global" errors on actions in other threads): the pinning thread breaks a global-mode
capture; a thread_local capture, or a loader without pin_memory, does not fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness import lint_project
from test_capture_task_race_gpu import project_rounds_failed
from test_graph_capture_gpu import RULES, cuda_available

ROUNDS = 30

LOADING = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


def feed(out, stopped):
    dataset = TensorDataset(torch.randn(4096, 1024))
    loader = DataLoader(dataset, batch_size=64{options})
    while not stopped.is_set():
        for (batch,) in loader:
            out.append(batch)  # (a bounded deque: the thread never waits, it keeps pinning)
            if stopped.is_set():
                return
"""

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
        return self.out
"""

MAIN = """\
import collections
import threading
import time

import torch

from shapes.graphs import LazyRunner
from shapes.loading import feed


def next_batch(batches):
    while not batches:
        time.sleep(0.001)
    return batches.popleft()


def main():
    batches = collections.deque(maxlen=16)
    stopped = threading.Event()
    loading = threading.Thread(target=feed, args=(batches, stopped), daemon=True)
    loading.start()
    for number in range({rounds}):
        print("round", number, flush=True)
        x = next_batch(batches).cuda(non_blocking=True)
        runner = LazyRunner()
        runner(x)
        torch.cuda.synchronize()
    stopped.set()
    loading.join()  # (a daemon thread inside torch at exit aborts the interpreter: exit -6)
    print("served")


if __name__ == "__main__":
    main()
"""


@dataclass(frozen=True)
class Case:
    options: str
    mode: str
    races: bool  # expected: some round fails

    def files(self) -> dict[str, str]:
        return {"shapes/__init__.py": "", "shapes/graphs.py": GRAPHS.format(mode=self.mode),
                "shapes/loading.py": LOADING.format(options=self.options),
                "shapes/main.py": MAIN.format(rounds=ROUNDS)}


THREAD_LOCAL = ', capture_error_mode="thread_local"'
PINNED = ", pin_memory=True"
CASES = {
    "capture beside a pinning thread": Case(PINNED, "", True),
    "capture beside a pin-memory thread": Case(PINNED + ", num_workers=2", "", True),
    "thread_local capture beside a pinning thread": Case(PINNED, THREAD_LOCAL, False),
    "capture beside an unpinned loader": Case("", "", False),
}


def races_reported(case: Case, root) -> bool:
    return any(f.code == "CUR401" and f.path == "shapes/main.py"
               and "running feed() (loading.py)" in f.message
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
