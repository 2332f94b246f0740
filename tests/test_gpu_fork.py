"""What CUR102 relies on, observed on the GPU itself (`gpu_fork_cases.py`): which forks break
in a process that holds CUDA state. Skipped where there is no CUDA GPU (CI has none); the
outcomes of the last run on one are in `gpu_fork_cases.EXPECTED`."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from gpu_fork_cases import CASES, EXPECTED, kind, run


def _has_cuda() -> bool:
    if sys.platform != "linux" or importlib.util.find_spec("torch") is None:
        return False
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=120)
    return probe.stdout.strip() == "True"


pytestmark = pytest.mark.skipif(not _has_cuda(), reason="needs PyTorch and a CUDA GPU")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fork_breaks_exactly_where_cur102_says(name):
    assert kind(run(name)) == EXPECTED[name]
