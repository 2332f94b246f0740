"""CUR401 and a library's background threads, against what a GPU does: the NCCL process
group's watchdog thread, which queries its collectives' events while the process runs.

Each program sets up a one-rank NCCL process group, issues an all-reduce (work the watchdog
polls), and holds a global-mode `torch.cuda.graph` capture open for half a second, four times.
Observed on an H200 (PyTorch 2.11, NCCL process group of one rank): the watchdog never broke a
capture, with `torch.cuda.graph` and with `capture_begin()` without the device sync before it,
in global and thread_local mode, captures held open up to 1.5 s, the collective still running
when the capture began; so CUR401 does not report a process group's threads. A thread of the program's own that polls
an event the same way failed the run in global mode ("operation failed due to a previous error
during capture"): that one CUR401 reports. The linter's
verdict is checked everywhere; the outcome only where CUDA and NCCL are.
"""

from __future__ import annotations

import importlib.util

import pytest

from harness import lint
from test_graph_capture_gpu import RULES, cuda_available, run_program

TIMEOUT_S = 180

PROGRAM = """\
import sys
import threading
import time

import torch
import torch.distributed as dist


def poll(event):
    while True:
        event.query()
        time.sleep(0.01)


def main():
    dist.init_process_group("nccl", init_method="file://" + sys.argv[1], rank=0, world_size=1,
                            device_id=torch.device("cuda:0"))
    x = torch.ones(1 << 20, device="cuda")
    done = torch.cuda.Event()
    done.record()
{start}
    for _ in range(4):
        dist.all_reduce(x)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            y = x * 2.0
            time.sleep(0.5)
            y = y + 1.0
        graph.replay()
        torch.cuda.synchronize()
    print("captured")
    dist.destroy_process_group()


main()
"""

CASES = {  # name -> (the line that starts a thread of the program's own, observed to fail)
    "the process group's watchdog alone": ("", False),
    "a thread of the program's own polls an event": (
        "    threading.Thread(target=poll, args=(done,), daemon=True).start()", True),
}


def source(name: str) -> str:
    return PROGRAM.format(start=CASES[name][0])


def reported(name: str) -> bool:
    return any(f.code == "CUR401" for f in lint(source(name), RULES, path="program.py",
                                                dedent=False))


def nccl_available() -> bool:
    if not cuda_available() or importlib.util.find_spec("torch.distributed") is None:
        return False
    import torch.distributed as dist

    return dist.is_available() and dist.is_nccl_available()


@pytest.mark.parametrize("name", sorted(CASES))
def test_linter_verdict_on_each_program(name):
    assert reported(name) == CASES[name][1]


@pytest.mark.skipif(not nccl_available(), reason="needs a CUDA GPU, PyTorch and NCCL")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_outcome_agrees_with_the_linter(name, tmp_path):
    done = run_program(source(name), tmp_path, TIMEOUT_S, str(tmp_path / "store"))
    failed = done is None or done.returncode != 0 or "captured" not in done.stdout
    output = "hung" if done is None else f"exit {done.returncode}\n{done.stderr[-1200:]}"
    print(f"{name}: failed={failed} reported={reported(name)}\n{output}")
    assert failed == CASES[name][1], output
    assert reported(name) == failed
