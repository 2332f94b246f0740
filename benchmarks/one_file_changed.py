"""The first run after one file changes, on a warm project (the torch wheel's Python tree that
compare.py builds as WORK/torch-py): for each file of a seeded sample, and each file named,
a comment line never written before is put at its top (every line below moves, so facts
citing the file change; no cached result or summary can serve it), and two runs are timed:
the whole tree (`cursedlint check .`) and the run pre-commit makes (`cursedlint check FILE`).
Prints per pass and shape the median, 90th percentile and maximum wall seconds; the files are
restored afterwards. With `--against`, a second executable (another version) is timed in the
same passes, each file changed and timed for one and then the other (the order swapped every
pass): the machine's drift, which on a small VM moves by more than a change to compare, hits
both alike.

    python benchmarks/one_file_changed.py --tree WORK/torch-py [--cursedlint EXE]
        [--against OTHER_EXE] [--sample N] [--seed S] [--passes N] [FILE ...]

The cache is primed by a whole-tree run first. The first pass also stores, for each file named
alone, the summaries of the modules its seeds lead to; the passes after it are the warm
re-runs a developer sees once a file has been checked before.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

SHAPES = ("whole tree", "pre-commit")


def timed(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def python_files(tree: str) -> list[str]:
    found = []
    for folder, directories, names in os.walk(tree):
        directories[:] = sorted(d for d in directories if not d.startswith("."))
        found += [os.path.relpath(os.path.join(folder, name), tree)
                  for name in sorted(names) if name.endswith(".py")]
    return found


def one_pass(tree: str, checks: list[list[str]], files: list[str],
             reverse: bool) -> list[dict[str, list[float]]]:
    """Per executable and shape, the seconds of each file's run after a new line on its top;
    with two executables, each file is changed and timed for one, then for the other (the
    order swapped when `reverse`), so that the machine's drift hits both alike."""
    times: list[dict[str, list[float]]] = [{shape: [] for shape in SHAPES} for _ in checks]
    order = list(range(len(checks)))[::-1 if reverse else 1]
    for name in files:
        for which in order:
            for shape, paths in zip(SHAPES, (["."], [name])):
                with open(os.path.join(tree, name), "rb") as handle:
                    data = handle.read()
                with open(os.path.join(tree, name), "wb") as handle:
                    handle.write(f"# changed {time.time_ns()}\n".encode() + data)  # new bytes
                times[which][shape].append(timed([*checks[which], *paths], tree))
            print(f"{name} ({checks[which][0]}): " + ", ".join(
                f"{shape} {times[which][shape][-1]:.2f} s" for shape in SHAPES), file=sys.stderr)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", required=True, help="the project (a cursedlint.toml at its root)")
    parser.add_argument("--cursedlint", default="cursedlint", help="the executable to time")
    parser.add_argument("--against", help="a second executable (another version), timed "
                        "file by file alternately with the first")
    parser.add_argument("--sample", type=int, default=24, help="files drawn from the tree")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("files", nargs="*", help="files (relative to the tree) timed as well")
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    files = random.Random(args.seed).sample(python_files(tree), args.sample) + args.files
    checks = [[exe, "check", "--exit-zero"] for exe in (args.cursedlint, args.against) if exe]
    originals = {name: open(os.path.join(tree, name), "rb").read() for name in files}
    try:
        for check in checks:
            timed([*check, "."], tree)
        for number in range(1, args.passes + 1):
            for check, times in zip(checks, one_pass(tree, checks, files, number % 2 == 0)):
                for shape in SHAPES:
                    values = sorted(times[shape])
                    print(f"- pass {number}, {check[0]}, {shape}, {len(values)} files: median "
                          f"{statistics.median(values):.2f} s, 90th percentile "
                          f"{values[int(len(values) * 0.9)]:.2f} s, max {values[-1]:.2f} s, "
                          f"{sum(value < 0.3 for value in values)} below 0.3 s")
    finally:
        for name, data in originals.items():
            with open(os.path.join(tree, name), "wb") as handle:
                handle.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
