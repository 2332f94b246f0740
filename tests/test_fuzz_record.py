"""The fuzz harness's measures (benchmarks/fuzz.py): every input is recorded with its sizes, its
time and its peak memory, and an input over the time or memory bound is a failure. Tiny runs of
the real harness, the bounds made tiny through its own options."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "fuzz.py")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the harness reads /proc and forks")


def fuzz(tmp_path, *options: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """The harness over a few programs with a fixed seed: its output and its records."""
    record = tmp_path / "inputs.jsonl"
    done = subprocess.run([sys.executable, FUZZ, "--kinds", "programs", "--seed", "3",
                           "--minimize", "0", "--record", str(record), *options],
                          capture_output=True, text=True, timeout=300)
    return done, [json.loads(line) for line in record.read_text().splitlines()]


def test_every_input_is_recorded_with_its_sizes_time_and_peak_memory(tmp_path):
    done, records = fuzz(tmp_path, "-n", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(records) == 5 and len({record["id"] for record in records}) == 5
    for record in records:
        assert record["kind"] == "programs" and record["failures"] == []
        assert 0 < record["largest"] <= record["bytes"]
        assert 0 < record["seconds"] < record["child_s"]
        assert 10 < record["base_mb"] <= record["peak_mb"] < record["bound_mb"]
        assert record["bound_mb"] == pytest.approx(20 * record["largest"] / 2**20 + 200)
    assert "inputs run: 5 (programs 5)" in done.stdout
    assert "time of an input's slowest run: p50 " in done.stdout
    assert "peak RSS: p50 " in done.stdout and "failures: 0 kind(s)" in done.stdout


def test_an_input_over_the_time_or_memory_bound_is_a_failure(tmp_path):
    done, records = fuzz(tmp_path, "-n", "2", "--slow", "0.001", "--memory-base", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(records) == 2
    for record in records:
        assert record["bound_mb"] < 1 < record["peak_mb"]
        kinds = sorted(failure.split(":")[0] for failure in record["failures"])
        assert kinds == ["memory", "slow"], record
    assert "[memory: peak RSS over 20x the largest file + 0 MB] in 2 input(s)" in done.stdout
    assert "[slow: a run over 0.001 s, at " in done.stdout
