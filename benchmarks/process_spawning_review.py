"""Runs CUR101/CUR102 over a tree (the CPython stdlib, an unpacked wheel) and prints the counts,
the time taken, and a seeded random sample of findings with their source lines, for review by
hand.

    python benchmarks/process_spawning_review.py PATH [--python 3.11] [--libc glibc>=2.34]
        [--sample 30] [--seed 0] [--jobs N]
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import time

from cursedlint.engine import Linter, default_jobs
from cursedlint.registry import all_rules
from cursedlint.settings import Settings

CODES = ("CUR101", "CUR102")


def python_files(root: str) -> list[tuple[str, str]]:
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in ("site-packages", "__pycache__"))
        found += [(os.path.join(folder, name), "python") for name in sorted(files) if name.endswith(".py")]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--python", default="3.11")
    parser.add_argument("--libc", default="glibc>=2.34")
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    options = parser.parse_args()

    rules = {code: rule for code, rule in all_rules().items() if code in CODES}
    settings = Settings(
        enabled=frozenset(CODES),
        target_python=tuple(map(int, options.python.split("."))),
        rule_options={"CUR101": {"libc": options.libc}},
    )
    files = python_files(options.path)
    started = time.perf_counter()
    results = Linter(settings, rules).run(files, options.jobs)
    elapsed = time.perf_counter() - started

    findings = [(result, f) for result in results for f in result.findings]
    checked = sum(result.status == "checked" for result in results)
    print(f"{len(files)} files, {checked} parsed, {elapsed:.2f} s on {options.jobs} jobs "
          f"(python {options.python}, libc {options.libc})")
    print(dict(collections.Counter(f.code for _, f in findings)))
    sample = random.Random(options.seed).sample(findings, min(options.sample, len(findings)))
    for number, (result, finding) in enumerate(sorted(sample, key=lambda p: p[1].sort_key), 1):
        path = os.path.relpath(finding.path, options.path)
        print(f"\n[{number}] {path}:{finding.line}:{finding.column} {finding.code}")
        print(f"    {result.lines[finding.line].strip()}")
        print(f"    -> {finding.message[:400]}")


if __name__ == "__main__":
    main()
