"""Fuzzing: random and mutated bytes of every kind of file, programs assembled from every rule's
trigger words in random syntactic positions, random configurations (tests/fuzz_inputs.py).
Whatever the input, a run exits 0, 1 or 2 with no traceback and no internal error (CUR000), and
prints the same for `--jobs 1` and `--jobs 4` and with and without the cache. A fixed seed and
few examples keep it fast; `benchmarks/fuzz.py` is the long run."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

from hypothesis import HealthCheck, given, settings

from cursedlint.engine.scheduler import PARALLEL_MIN_BYTES

from fuzz_inputs import (
    Project,
    Run,
    byte_projects,
    check_project,
    config_projects,
    describe,
    program_projects,
    run_failures,
)

FUZZ = settings(
    derandomize=True,  # the same examples on every run: a CI failure is reproducible
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.large_base_example],
)


def assert_no_failure(project: Project) -> None:
    failures = check_project(project)
    assert not failures, describe(project, failures)


@settings(FUZZ, max_examples=40)
@given(byte_projects())
def test_random_and_mutated_bytes_of_every_kind(project):
    assert_no_failure(project)


@settings(FUZZ, max_examples=30)
@given(program_projects())
def test_programs_assembled_from_every_rules_trigger_words(project):
    assert_no_failure(project)


@settings(FUZZ, max_examples=30)
@given(config_projects())
def test_random_configurations(project):
    assert_no_failure(project)


def lint_in_a_new_process(root: str, jobs: int) -> Run:
    command = [sys.executable, "-m", "cursedlint", "check", ".", "--output-format", "json",
               "--no-cache", "--jobs", str(jobs)]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    return Run(done.returncode, done.stdout, done.stderr)


@settings(FUZZ, max_examples=2)
@given(program_projects())
def test_the_command_line_over_a_project_large_enough_to_fork(project):
    """The real `cursedlint` process, with more than PARALLEL_MIN_BYTES to read: `--jobs 4`
    forks its workers as it would on a real project."""
    padding = ("pad/data.py", b"VALUES = [1, 2, 3]\n" * (PARALLEL_MIN_BYTES // 16))
    large = Project((*project.files, padding))
    assert large.size > PARALLEL_MIN_BYTES
    with tempfile.TemporaryDirectory() as root:
        large.write(root)
        serial, parallel = (lint_in_a_new_process(root, jobs) for jobs in (1, 4))
    failures = run_failures("--jobs 1", serial) + run_failures("--jobs 4", parallel)
    assert not failures, describe(project, failures)
    assert (parallel.code, parallel.out) == (serial.code, serial.out)
    assert serial.code in (0, 1) and isinstance(json.loads(serial.out), list)
