"""The worst-case benchmark corpus (`benchmarks/compare.py`): the block appended to every file
is derived from the rules' declared triggers and second looks, so every rule of a file's language
reads every file, and the files still parse."""

from __future__ import annotations

import ast
import importlib.util
import os
import sys

import pytest

COMPARE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "compare.py")


@pytest.fixture(scope="module")
def compare():
    spec = importlib.util.spec_from_file_location("benchmark_compare", COMPARE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_every_python_rule_reads_every_file_of_the_worst_case(compare, tmp_path):
    source = tmp_path / "stdlib" / "lib"
    (source / "pkg").mkdir(parents=True)
    (source / "plain.py").write_text('"""Paths."""\nimport os\n\nSEP = os.sep\n')
    (source / "pkg" / "__init__.py").write_text("from __future__ import annotations\nx: int = 1")
    (source / "pkg" / "stub.pyi").write_text("def f(a: int) -> str: ...\n")
    (source / "notes.txt").write_text("not Python\n")
    (source / "xxmodule.c").write_text("int x;\n")  # C in the stdlib: not this corpus's
    before = compare.files_skipping_rules(str(source), ("python",))
    assert len(before) == 3  # plain stdlib code leaves most rules out

    compare.write_worst_case("python", str(tmp_path / "stdlib"), str(tmp_path / "worst"))

    assert compare.files_skipping_rules(str(tmp_path / "worst" / "lib"), ("python",)) == []
    for name in ("plain.py", "pkg/__init__.py", "pkg/stub.pyi"):
        text = (tmp_path / "worst" / "lib" / name).read_text()
        assert text.startswith((source / name).read_text())
        ast.parse(text)
    assert (tmp_path / "worst" / "lib" / "notes.txt").read_text() == "not Python\n"


def test_every_c_rule_reads_every_c_file_of_the_worst_case(compare, tmp_path):
    from cursedlint.c.context import parse

    source = tmp_path / "tree"
    (source / "include").mkdir(parents=True)
    (source / "build").mkdir()
    (source / "ring.c").write_text('#include "ring.h"\nint ring_size(void) { return 4; }')
    (source / "include" / "ring.h").write_text("struct ring { int head; };\n")
    (source / "clone.cpp").write_text("class A { int x; };\n")
    (source / "build" / "generated.c").write_text("int g;\n")
    (source / "README").write_text("not C\n")
    assert len(compare.files_skipping_rules(str(source), compare.C_FAMILY)) == 4

    compare.write_worst_case("c", str(source), str(tmp_path / "worst"))

    copied = tmp_path / "worst" / "src"
    assert compare.files_skipping_rules(str(copied), compare.C_FAMILY) == []
    assert sorted(path.relative_to(copied).as_posix() for path in copied.rglob("*") if path.is_file()) \
        == ["clone.cpp", "include/ring.h", "ring.c"]  # cursedlint's default excludes left out
    for name, language in (("ring.c", "c"), ("include/ring.h", "cpp"), ("clone.cpp", "cpp")):
        data = (copied / name).read_bytes()
        assert data.startswith((source / name).read_bytes())
        assert not parse(data, language).root_node.has_error
