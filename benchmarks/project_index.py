"""Time the project index build on a C/C++ tree, cold (no stored summaries) and warm (all
summaries in the store), with every shipped rule enabled (so every indexer runs).

    python benchmarks/project_index.py /path/to/torch/include --repeat 3

Each build runs in a fresh process, as a `cursedlint check` would; the store lives in a
temporary directory removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

ONE_BUILD = r"""
import json, sys, time
from cursedlint.cli import _index_store
from cursedlint.config import build_settings, load_config
from cursedlint.project.discovery import discover
from cursedlint.engine import Linter
from cursedlint.registry import all_rules

root, store_dir = sys.argv[1], sys.argv[2]
rules = all_rules()
config = load_config(None, rules)
settings = build_settings(config, rules)
files = discover([root], config).files
started = time.perf_counter()
linter = Linter(settings, rules)
index = linter.index_project(files, _index_store(store_dir, settings) if store_dir else None)
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "files": len(files),
    "parsed": index.summarized,
    "facts": {name: len(facts) for name, facts in linter.project.items()},
}))
"""


def build(root: str, store_dir: str) -> dict:
    output = subprocess.run(
        [sys.executable, "-c", ONE_BUILD, root, store_dir],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="the C/C++ tree to index (e.g. torch/include)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as store_dir:
        for _ in range(args.repeat):
            runs["cold"].append(build(args.root, ""))
        build(args.root, store_dir)  # fill the store
        for _ in range(args.repeat):
            runs["warm"].append(build(args.root, store_dir))
    print("| index build | min | median | max | files | parsed | facts |")
    print("|---|---|---|---|---|---|---|")
    for kind, results in runs.items():
        seconds = [result["seconds"] for result in results]
        last = results[-1]
        facts = ", ".join(f"{name} {count}" for name, count in last["facts"].items())
        print(f"| {kind} | {min(seconds):.2f} s | {statistics.median(seconds):.2f} s | "
              f"{max(seconds):.2f} s | {last['files']} | {last['parsed']} | {facts} |")


if __name__ == "__main__":
    main()
