"""CUR401's concurrent units against what a GPU does: coroutines run together, one of which
begins a lazy capture while the other reads tensors back to the host.

Each case is a program that, round after round, runs two coroutines with `asyncio.gather`:
one reads a CUDA tensor back to the host in a loop (`.cpu()`), on the event loop's thread or
in an executor task; the other runs a step captured into a CUDA graph on its first call in the
round, on the loop's thread or in an executor task. The linter's verdict on the source is
checked everywhere; on a machine with CUDA the program runs in its own interpreter, and the
test asserts that some round failed (an exception, or the process aborted) exactly where the
linter reports the race. The reading coroutine is gathered first, so that its reads are under
way when the capture begins. Expected from the observations `test_capture_task_race_gpu` and
CUR401's documentation record (a `.cpu()` of another thread invalidates a global-mode capture;
thread_local does not fail): the reads on another thread break the global-mode capture; reads
on the loop's own thread cannot run while the capture does (it does not await), nor can reads
queued on the same single-worker executor.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness import lint
from test_capture_task_race_gpu import failed_on_gpu
from test_graph_capture_gpu import RULES, cuda_available

ROUNDS = 20

PROGRAM = """\
import asyncio
from concurrent.futures import ThreadPoolExecutor

import torch

GRAPHS = {{}}
SERIAL = ThreadPoolExecutor(max_workers=1)


def step(x):
    for _ in range(200):
        x = x * 0.5 + 1.0
    return x


def run_step():
    entry = GRAPHS.get("step")
    if entry is None:
        x = torch.ones(256, 256, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            step(x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph{mode}):
            out = step(x)
        entry = GRAPHS["step"] = (graph, out)
    entry[0].replay()
    return float(entry[1].sum().item())


def read_back(x):
    total = 0.0
    for _ in range(400):
        total += float((x * 2.0).sum().cpu())
    return total


async def capture_on_loop():
    return run_step()


async def capture_in_executor():
    return await asyncio.get_running_loop().run_in_executor(None, run_step)


async def capture_serial():
    return await asyncio.get_running_loop().run_in_executor(SERIAL, run_step)


async def read_on_loop(x):
    return read_back(x)


async def read_in_executor(x):
    return await asyncio.get_running_loop().run_in_executor(None, read_back, x)


async def read_serial(x):
    return await asyncio.get_running_loop().run_in_executor(SERIAL, read_back, x)


async def serve():
    x = torch.ones(1024, 1024, device="cuda")
    return await asyncio.gather({reader}(x), {capturer}())


def main():
    for number in range({rounds}):
        print("round", number, flush=True)
        GRAPHS.clear()
        asyncio.run(serve())
        torch.cuda.synchronize()
    print("served")


main()
"""


@dataclass(frozen=True)
class Case:
    reader: str
    capturer: str
    mode: str
    races: bool  # expected: some round fails

    def source(self) -> str:
        return PROGRAM.format(reader=self.reader, capturer=self.capturer, mode=self.mode,
                              rounds=ROUNDS)


THREAD_LOCAL = ', capture_error_mode="thread_local"'
CASES = {
    "loop capture, executor reads": Case("read_in_executor", "capture_on_loop", "", True),
    "loop capture thread_local, executor reads": Case("read_in_executor", "capture_on_loop",
                                                      THREAD_LOCAL, False),
    "executor capture, executor reads": Case("read_in_executor", "capture_in_executor", "",
                                             True),
    "loop capture, loop reads": Case("read_on_loop", "capture_on_loop", "", False),
    "one-worker executor for both": Case("read_serial", "capture_serial", "", False),
}


def races_reported(source: str) -> bool:
    return any(f.code == "CUR401" and "may begin a global-mode capture while" in f.message
               for f in lint(source, RULES, path="program.py", dedent=False))


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
