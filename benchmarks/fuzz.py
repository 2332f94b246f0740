"""The fuzz test's long run, by hand: the generators of tests/fuzz_inputs.py for N inputs.

    python benchmarks/fuzz.py -n 10000 --seed 1 --budget 3600

Each input is a small project (random or mutated bytes, programs assembled from trigger words,
or a random configuration over trigger-rich files) linted four ways in this process (see
`fuzz_inputs.check_project`). Prints the count of inputs run and, for each kind of failure, how
many inputs showed it and a minimal reproducer (the smallest failing input, reduced line by
line and byte by byte while it fails the same way). Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import fuzz_inputs  # noqa: E402
from fuzz_inputs import Failure, Project, check_project  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis.errors import NonInteractiveExampleWarning  # noqa: E402

KINDS = {
    "bytes": fuzz_inputs.byte_projects,
    "programs": fuzz_inputs.program_projects,
    "configs": fuzz_inputs.config_projects,
}


class OutOfTime(BaseException):
    """The time budget is spent: ends the hypothesis run early (a BaseException, which
    hypothesis lets through rather than reporting it as a failure)."""


class Findings:
    """Failures by (kind, detail): how many inputs showed each, and the smallest of them."""

    def __init__(self):
        self.count: dict[Failure, int] = {}
        self.smallest: dict[Failure, Project] = {}

    def add(self, project: Project, failures: list[Failure]) -> None:
        for failure in failures:
            self.count[failure] = self.count.get(failure, 0) + 1
            known = self.smallest.get(failure)
            if known is None or project.size < known.size:
                self.smallest[failure] = project


def fuzz(kind: str, inputs: int, seed_value: int, deadline: float, limit: float,
         findings: Findings) -> int:
    """Run `inputs` inputs of one kind (fewer if the deadline passes); how many ran."""
    ran = 0

    @seed(seed_value)
    @settings(max_examples=inputs, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(KINDS[kind]())
    def one(project: Project) -> None:
        nonlocal ran
        if time.monotonic() > deadline:
            raise OutOfTime
        ran += 1
        findings.add(project, check_project(project, limit))

    try:
        one()
    except OutOfTime:
        pass
    return ran


def reduced(parts: list, still_fails) -> list:
    """`parts` with chunks removed (halves, quarters, ... single parts) while `still_fails`."""
    chunk = max(1, len(parts) // 2)
    while chunk >= 1:
        start = 0
        while start < len(parts):
            candidate = parts[:start] + parts[start + chunk:]
            if still_fails(candidate):
                parts = candidate
            else:
                start += chunk
        chunk //= 2
    return parts


CONFIG_NAMES = ("cursedlint.toml", "pyproject.toml")


def project_of(entries: list[tuple[str, bytes]]) -> Project:
    config = next((entry for entry in entries if entry[0] in CONFIG_NAMES), None)
    return Project(tuple(entry for entry in entries if entry is not config), config)


def minimize(project: Project, failure: Failure, limit: float, budget: float) -> Project:
    """A smaller project that fails the same way: files (and the configuration) dropped, then
    each one's lines, then bytes, removed while it still does (within `budget` seconds)."""
    deadline = time.monotonic() + budget

    def fails(entries: list[tuple[str, bytes]]) -> bool:
        return time.monotonic() < deadline and failure in check_project(project_of(entries),
                                                                        limit)

    entries = reduced(list(project.entries), fails)
    for index, (name, data) in enumerate(entries):
        def with_parts(parts: list[bytes]) -> list[tuple[str, bytes]]:
            return [*entries[:index], (name, b"".join(parts)), *entries[index + 1:]]

        for split in (lambda d: d.splitlines(keepends=True), lambda d: [bytes([b]) for b in d]):
            data = b"".join(reduced(split(data), lambda parts: fails(with_parts(parts))))
        entries[index] = (name, data)
    return project_of(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--inputs", type=int, default=10_000, help="inputs in all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=3600, help="seconds for the inputs")
    parser.add_argument("--limit", type=float, default=20, help="seconds for one input")
    parser.add_argument("--kinds", default=",".join(KINDS), help="of: " + ", ".join(KINDS))
    parser.add_argument("--minimize", type=float, default=300,
                        help="seconds to minimize each kind of failure (0: not at all)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    kinds = args.kinds.split(",")
    started = time.monotonic()
    findings, ran = Findings(), {}
    for number, kind in enumerate(kinds):
        share = args.inputs // len(kinds) + (number < args.inputs % len(kinds))
        deadline = started + args.budget * (number + 1) / len(kinds)
        ran[kind] = fuzz(kind, share, args.seed + number, deadline, args.limit, findings)
    elapsed = time.monotonic() - started
    total = sum(ran.values())
    print(f"inputs run: {total} ({', '.join(f'{k} {n}' for k, n in ran.items())}) in "
          f"{elapsed:.0f} s, seed {args.seed}")
    failing = sum(findings.count.values())
    print(f"failures: {len(findings.count)} kind(s) in {failing} input-failure(s)")
    for failure, count in sorted(findings.count.items(), key=lambda item: -item[1]):
        project = findings.smallest[failure]
        again = failure in check_project(project, args.limit)
        if args.minimize and again:
            project = minimize(project, failure, min(args.limit, 5.0), args.minimize)
        how = "minimal reproducer" if again else "did NOT fail again when re-run (flaky)"
        print(f"\n[{failure}] in {count} input(s); {how}:\n{project.text()}")
    return 1 if findings.count else 0


if __name__ == "__main__":
    sys.exit(main())
