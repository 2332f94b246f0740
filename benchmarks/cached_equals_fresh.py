"""Checks that a cached run reports what a run without the cache reports, after edits: for
each file named, each of three edits in turn (a comment line on top, one a third of the way
down, a new function at the end that synchronizes the GPU), a cached `cursedlint check` and a
`--no-cache` one are compared, for the whole tree and for the file alone (as pre-commit runs
it). Every file is restored afterwards. Prints each difference and a count; exits 1 when a
run differs.

    python benchmarks/cached_equals_fresh.py --tree DIR [--cursedlint EXE] FILE ...

The tree should hold a `cursedlint.toml` (or be a git work tree) at its root, so that a run
naming one file takes the whole tree as its project, as in a repository.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def _top(text: str) -> str:
    return f"# edited {time.time_ns()}\n{text}"


def _middle(text: str) -> str:
    lines = text.splitlines(keepends=True)
    third = len(lines) // 3
    return "".join([*lines[:third], f"# edited {time.time_ns()}\n", *lines[third:]])


def _synchronizing_function(text: str) -> str:
    return (f"{text.rstrip()}\n\n\ndef _edited_{time.time_ns()}():\n"
            "    import torch\n\n    torch.cuda.synchronize()\n")


EDITS = {"line on top": _top, "line in the middle": _middle,
         "synchronizing function": _synchronizing_function}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", required=True)
    parser.add_argument("--cursedlint", default="cursedlint")
    parser.add_argument("files", nargs="+", help="paths relative to the tree")
    args = parser.parse_args()

    def report(*paths: str) -> str:
        return subprocess.run([args.cursedlint, "check", *paths], cwd=args.tree,
                              capture_output=True, text=True).stdout

    report(".")  # the cache holds the tree as it is
    equal = differ = 0
    for name in args.files:
        path = os.path.join(args.tree, name)
        with open(path, "rb") as handle:
            original = handle.read()
        try:
            for label, edit in EDITS.items():
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(edit(original.decode("utf-8")))
                for paths in (["."], [name]):
                    if report(*paths) == report(*paths, "--no-cache"):
                        equal += 1
                    else:
                        differ += 1
                        print(f"differs: {name}, {label}, check {' '.join(paths)}")
        finally:
            with open(path, "wb") as handle:
                handle.write(original)
    print(f"{args.tree}: {equal} equal, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
