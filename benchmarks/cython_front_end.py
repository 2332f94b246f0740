"""How fast cursedlint's Cython front end reads a tree, against `ast.parse` of the same tree's
Python files and against Cython's own parser, and whether it reads the same functions, classes
and calls as Cython's parser does.

    python benchmarks/cython_front_end.py TREE [--repeat N]

Run it with an interpreter that can import this checkout (`PYTHONPATH=.`) and, for the
comparison, Cython (not a dependency of cursedlint: install it in a scratch environment).
Prints, per reader: files, MB, files that failed, best-of-N seconds and seconds per MB. The
agreement compares, per Cython file both read, the names of functions (`def`, `cdef`,
`cpdef`, declarations of `.pxd` files and of extern blocks included: cursedlint keeps these in
its facts), of classes, and the multiset of called names (`f(...)` and `x.f(...)`; not
`sizeof`, an operator in Cython's tree), and prints the files where they differ.
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cursedlint.languages import CYTHON, EXTENSIONS  # noqa: E402
from cursedlint.python.cython import parse_cython, translate  # noqa: E402

CYTHON_EXTENSIONS = tuple(extension for extension, language in EXTENSIONS.items()
                          if language == CYTHON)


def _files(tree: str, extensions: tuple[str, ...]) -> dict[str, str]:
    found = {}
    for folder, _, names in os.walk(tree):
        for name in sorted(names):
            if name.endswith(extensions):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    found[path] = handle.read()
    return found


def _timed(texts: dict[str, str], read, repeat: int) -> tuple[float, dict[str, object]]:
    """Best wall time of `repeat` passes, and each file's result (an exception if it failed)."""
    best, results = float("inf"), {}
    for _ in range(repeat):
        start = time.perf_counter()
        for path, text in texts.items():
            try:
                results[path] = read(path, text)
            except Exception as error:  # a reader's failure on one file is a result
                results[path] = error
        best = min(best, time.perf_counter() - start)
    return best, results


def _row(label: str, texts: dict[str, str], seconds: float, results: dict[str, object]) -> None:
    size = sum(len(text.encode()) for text in texts.values()) / 1e6
    failed = sum(isinstance(result, Exception) for result in results.values())
    print(f"| {label} | {len(texts)} | {size:.2f} | {failed} | {seconds:.3f} | "
          f"{seconds / size if size else 0:.3f} |")


def _python_names(read) -> tuple[set, set, collections.Counter]:
    tree, facts = read
    functions, classes, calls = {*facts.functions, *facts.externs}, set(), collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            classes.add(node.name)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else None
            if name and name != "sizeof":
                calls[name] += 1
    return functions, classes, calls


def _cython_names(tree) -> tuple[set, set, collections.Counter]:
    functions, classes, calls = set(), set(), collections.Counter()
    pending = [tree]
    while pending:
        node = pending.pop()
        kind = type(node).__name__
        if kind in ("DefNode", "PyClassDefNode"):
            (functions if kind == "DefNode" else classes).add(node.name)
        elif kind == "CFuncDefNode":
            declarator = node.declarator
            while not hasattr(declarator, "name") and hasattr(declarator, "base"):
                declarator = declarator.base
            functions.add(declarator.name)
        elif kind == "CVarDefNode" and getattr(node, "declarators", None):
            for declarator in node.declarators:  # a function declared in a .pxd
                while type(declarator).__name__ in ("CPtrDeclaratorNode",
                                                    "CReferenceDeclaratorNode"):
                    declarator = declarator.base  # (one returning a pointer)
                if type(declarator).__name__ == "CFuncDeclaratorNode":
                    inner = declarator.base
                    while not hasattr(inner, "name") and hasattr(inner, "base"):
                        inner = inner.base
                    functions.add(inner.name)
        elif kind == "CClassDefNode":
            classes.add(node.class_name)
        elif kind in ("SimpleCallNode", "GeneralCallNode"):
            function = node.function
            name = getattr(function, "name", None) if type(function).__name__ == "NameNode" \
                else getattr(function, "attribute", None)
            if name:
                calls[name] += 1
        for attribute in getattr(node, "child_attrs", ()):
            child = getattr(node, attribute, None)
            for item in child if isinstance(child, list) else [child]:
                if item is not None and hasattr(item, "child_attrs"):
                    pending.append(item)
    return functions, classes, calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree")
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    python = _files(arguments.tree, (".py",))
    cython = _files(arguments.tree, CYTHON_EXTENSIONS)
    print("| reader | files | MB | failed | best s | s per MB |\n|---|---|---|---|---|---|")
    seconds, _ = _timed(python, lambda path, text: ast.parse(text), arguments.repeat)
    _row("ast.parse, the tree's .py files", python, seconds, _)
    seconds, results = _timed(cython, lambda path, text: translate(text), arguments.repeat)
    _row("cursedlint translation alone, Cython files", cython, seconds, results)
    seconds, ours = _timed(cython, lambda path, text: parse_cython(text), arguments.repeat)
    _row("cursedlint translation + ast.parse, Cython files", cython, seconds, ours)
    try:
        from Cython.Compiler.TreeFragment import parse_from_strings
    except ImportError:
        print("\n(Cython is not importable: its parser is not measured)")
        return 0

    def cython_parse(path: str, text: str):
        name = os.path.basename(path).replace(".", "_").replace("-", "_")
        return parse_from_strings(name, text, level="module_pxd" if path.endswith(".pxd")
                                  else None)

    seconds, theirs = _timed(cython, cython_parse, arguments.repeat)
    _row("Cython's parser (`parse_from_strings`), Cython files", cython, seconds, theirs)
    for path, result in theirs.items():
        if isinstance(result, Exception):
            print(f"- Cython's parser failed on {os.path.relpath(path, arguments.tree)}: "
                  f"{type(result).__name__}: {str(result).strip().splitlines()[0][:100]}")
    for path, result in ours.items():
        if isinstance(result, Exception):
            print(f"- cursedlint failed on {os.path.relpath(path, arguments.tree)}: {result}")
    both = [path for path in cython if not isinstance(ours[path], Exception)
            and not isinstance(theirs[path], Exception)]
    same = 0
    for path in both:
        mine, other = _python_names(ours[path]), _cython_names(theirs[path])
        if mine == other:
            same += 1
            continue
        parts = []
        for label, a, b in zip(("functions", "classes", "calls"), mine, other):
            if a != b:
                extra = sorted((a - b) if isinstance(a, set) else (a - b).elements())
                missing = sorted((b - a) if isinstance(a, set) else (b - a).elements())
                parts.append(f"{label}: only cursedlint {extra[:6]}, only Cython "
                             f"{missing[:6]}")
        print(f"- differs on {os.path.relpath(path, arguments.tree)}: " + "; ".join(parts))
    print(f"\nSame functions, classes and calls in {same} of the {len(both)} files both read.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
