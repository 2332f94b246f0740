"""The issue-30 shapes of `benchmarks/compare.py` (`benchmarks/shapes.py`): the files a real
tree's named-file shape picks."""

from __future__ import annotations

import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


@pytest.fixture(scope="module")
def shapes():
    sys.path.insert(0, BENCHMARKS)
    saved = {name: sys.modules.pop(name, None) for name in ("compare", "shapes")}
    try:
        import shapes

        yield shapes
    finally:
        sys.path.remove(BENCHMARKS)
        for name, module in saved.items():
            sys.modules.pop(name, None)
            if module is not None:
                sys.modules[name] = module


def test_named_files_are_spread_over_the_sorted_python_files(shapes, tmp_path):
    for folder in ("a", "b", ".git", ".cursedlint_cache", "a/.ruff_cache"):
        (tmp_path / folder).mkdir()
    for k in range(10):
        (tmp_path / ("a" if k < 5 else "b") / f"m{k}.py").write_text("x = 1\n")
    for hidden in (".git/hook.py", ".cursedlint_cache/s.py", "a/.ruff_cache/c.py", "a/notes.txt"):
        (tmp_path / hidden).write_text("")
    tree = shapes.Corpus("tree", str(tmp_path), ["."])
    assert shapes.named_files(tree, 5) == ["a/m0.py", "a/m2.py", "a/m4.py", "b/m6.py", "b/m8.py"]
    assert len(shapes.named_files(tree, 50)) == 10


def test_big_growth_is_per_doubling_of_the_file(shapes, tmp_path):
    rows = []
    for megabytes, cpu in ((2, 1.0), (4, 2.0), (8, 8.0)):
        folder = tmp_path / f"c{megabytes}"
        folder.mkdir()
        (folder / "big.c").write_bytes(b"x" * (megabytes * 1000))
        task = shapes.Task("cursedlint me", shapes.Corpus("big.c", str(folder), ["big.c"]), [])
        task.times, task.cpu = [cpu], [cpu]
        rows.append(task)
    lines = shapes.big_growth(rows)
    assert len(lines) == 2
    assert "×2.00 the CPU per doubling" in lines[0]  # linear
    assert "×4.00 the CPU per doubling" in lines[1]  # the square of the size
