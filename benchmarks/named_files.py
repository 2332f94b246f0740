"""Named-file runs (what a pre-commit run lints) against the run over the whole tree: the
findings of each sampled file must be the same, and its time is recorded, for one or two
cursedlint executables side by side (a baseline and the change).

    python benchmarks/named_files.py TREE [--exe NAME=PATH ...] [--per-family N] [--seed S]
        [--out FILE]

TREE is a checkout (a monorepo, or several projects under one git root). The whole tree is
linted once with the first executable (`check --no-cache --output-format json .`); the sample
is every file with a finding, plus up to N files (default 30) holding each family's trigger
words (a file that could get a finding from facts of other files). Each sampled file is then
linted alone (`check --no-cache --output-format json FILE`, from TREE) by each executable, in
turn, so load on the machine falls on all of them alike. One JSON line per file goes to OUT
(default stdout): its path, the whole run's findings (code, line), and per executable the
findings and seconds. The summary on stderr counts the files whose findings differ and gives
the median and largest times.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

FAMILY_WORDS = {
    "CUR1": ("Pool(", "Process(", "ProcessPoolExecutor", "preexec_fn"),
    "CUR2": ("CFUNCTYPE", "cudaLaunchHostFunc", "cuStreamAddCallback", "cudaStreamAddCallback"),
    "CUR3": ("ibv_reg_mr", "fi_mr_reg", "ucp_mem_map"),
    "CUR4": ("CUDAGraph", "cuda.graph(", "cudaStreamBeginCapture"),
    "CUR5": ("IrCloner",),
    "CUR6": ("process_vm_readv", "process_vm_writev"),
}
SOURCES = (".py", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh")


def findings(exe: str, tree: str, path: str) -> tuple[list, float]:
    """(code, line) of the findings in `path` (every file's, for "."), and the seconds taken."""
    started = time.perf_counter()
    done = subprocess.run([exe, "check", "--no-cache", "--output-format", "json", "--exit-zero",
                           path], cwd=tree, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{exe} failed on {path}: {done.stderr[-500:]}")
    found = [(f["path"], f["code"], f["line"]) for f in json.loads(done.stdout)]
    return sorted(found if path == "." else [f for f in found if f[0] == path]), seconds


def sample(tree: str, whole: list, per_family: int, seed: int) -> list[str]:
    listing = subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True, text=True)
    if listing.returncode != 0:
        raise SystemExit(f"{tree} is not a git work tree (its files are sampled from `git "
                         f"ls-files`, as a pre-commit run names them): {listing.stderr.strip()}")
    listed = listing.stdout.splitlines()
    files = [path for path in listed if path.endswith(SOURCES)]
    chosen = {path for path, _, _ in whole}
    rng = random.Random(seed)
    for words in FAMILY_WORDS.values():
        holding = []
        for path in files:
            try:
                with open(os.path.join(tree, path), "rb") as file:
                    data = file.read()
            except OSError:
                continue
            if any(word.encode() in data for word in words):
                holding.append(path)
        rng.shuffle(holding)
        chosen.update(holding[:per_family])
    return sorted(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree")
    parser.add_argument("--exe", action="append", default=[],
                        help="NAME=PATH of a cursedlint executable (default: this checkout's)")
    parser.add_argument("--per-family", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out")
    args = parser.parse_args()
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv",
                        "bin", "cursedlint")
    exes = [(name, os.path.abspath(path) if os.sep in path else path) for name, path in
            (item.split("=", 1) for item in args.exe)] or [("this", here)]  # (run from TREE)
    whole, seconds = findings(exes[0][1], args.tree, ".")
    print(f"whole tree: {len(whole)} findings in {seconds:.1f} s", file=sys.stderr)
    paths = sample(args.tree, whole, args.per_family, args.seed)
    out = open(args.out, "w") if args.out else sys.stdout
    rows = []
    for path in paths:
        row = {"path": path, "whole": [f[1:] for f in whole if f[0] == path]}
        for name, exe in exes:
            found, took = findings(exe, args.tree, path)
            row[f"{name}_s"] = round(took, 2)
            row[name] = [f[1:] for f in found]
        rows.append(row)
        out.write(json.dumps(row) + "\n")
        out.flush()
    differ = [row["path"] for row in rows if any(row[name] != row["whole"] for name, _ in exes)]
    print(f"{len(rows)} files ({len({f[0] for f in whole})} with findings): "
          f"{len(differ)} differ from the whole run {differ[:10]}", file=sys.stderr)
    for name, _ in exes:
        times = [row[f"{name}_s"] for row in rows]
        print(f"{name}: median {statistics.median(times):.2f} s, largest {max(times):.2f} s",
              file=sys.stderr)


if __name__ == "__main__":
    main()
