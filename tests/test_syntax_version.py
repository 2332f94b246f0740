"""The lowest Python a module's own code runs on (`analysis.syntax_version`)."""

import ast
import sys
import textwrap

import pytest

from cursedlint.analysis.syntax_version import python_needed
from cursedlint.python.context import PythonContext
from cursedlint.settings import Settings
from cursedlint.source import Source


def needed(text: str) -> tuple[int, int]:
    text = textwrap.dedent(text)
    context = PythonContext(Source.from_text("m.py", text, "python"),
                            Settings(enabled=frozenset()), ast.parse(text))
    return python_needed(context)


@pytest.mark.parametrize("text, version", [
    ("import os\n", (3, 0)),
    ("match x:\n    case 1: pass\n", (3, 10)),
    ("def f(a: int | None): pass\n", (3, 10)),
    ("async def f() -> list[int]: ...\n", (3, 9)),
    ("def f(*a: tuple[int, ...], **k: int | str): pass\n", (3, 10)),
    ("class C:\n    class D:\n        def f(self) -> int | None: ...\n", (3, 10)),
    ("from __future__ import annotations\ndef f(a: int | None): pass\n", (3, 0)),
    ("def outer():\n    def f(a: int | None): pass\n", (3, 0)),
    ("if TYPE_CHECKING:\n    def f(a: int | None): pass\n", (3, 0)),
    ("def f(a: 'int | None', b=1 | 2): pass\n", (3, 0)),
    ("x: int | None = None\n", (3, 0)),  # variable annotations are not read
])
def test_what_a_module_needs(text, version):
    assert needed(text) == version


def _since(version, text, needs):
    return pytest.param(text, needs, marks=pytest.mark.skipif(
        sys.version_info < version, reason="the linter's Python does not parse it"))


@pytest.mark.parametrize("text, version", [
    _since((3, 11), "try:\n    pass\nexcept* OSError:\n    pass\n", (3, 11)),
    _since((3, 12), "type Shape = tuple[int, int]\n", (3, 12)),
    _since((3, 12), "def first[T](items: list[T]) -> T: ...\n", (3, 12)),
])
def test_statements_of_newer_pythons(text, version):
    assert needed(text) == version
