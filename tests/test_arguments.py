"""Argument binding (`cursedlint.analysis.arguments`): positional arguments, keywords, and the
spreads the module shows, as Python binds them."""

from __future__ import annotations

import ast
import textwrap

import pytest

from cursedlint.analysis.arguments import bind
from cursedlint.python.consteval import UNKNOWN
from cursedlint.python.context import PythonContext
from cursedlint.settings import Settings
from cursedlint.source import Source


def passed(text: str, index: int | None, keyword: str):
    """What the last call named `target` in `text` passes for (index, keyword), as source."""
    text = textwrap.dedent(text)
    tree = ast.parse(text)
    context = PythonContext(Source.from_text("m.py", text, "python"), Settings(enabled=frozenset()), tree)
    calls = [node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("target")]
    found = bind(max(calls, key=lambda call: call.lineno), context).get(index, keyword)
    return found if found is None or found is UNKNOWN else ast.unparse(found)


@pytest.mark.parametrize("text, index, keyword, expected", [
    ("target(a, b)", 1, "size", "b"),
    ("target(a, size=b)", 1, "size", "b"),
    ("target(a)", 1, "size", None),  # absent: the callee's default applies
    ("target(a, *(b, c))", 2, "flags", "c"),
    ("target(*[a, b], c)", 2, "flags", "c"),
    ("target(a, *rest)", 1, "size", UNKNOWN),
    ("target(a, *rest)", 0, "handle", "a"),
    ("target(a, *rest)", None, "flags", None),  # keyword-only: no positional spread holds it
    ("target(a, **options)", 1, "size", UNKNOWN),
    ("target(a, **{'size': n})", 1, "size", "n"),
    ("target(a, **{'size': n})", 2, "flags", None),
    ("target(a, **{**base, 'size': n})", 2, "flags", UNKNOWN),
    ("target(**dict(func=f, b2d=lambda t: 0))", 1, "b2d", "lambda t: 0"),
    ("target(**dict(base, b2d=g))", 1, "b2d", UNKNOWN),  # a mapping spread inside: unknown
])
def test_arguments_at_the_call(text, index, keyword, expected):
    assert passed(text, index, keyword) == expected


def test_keywords_from_a_dict_bound_in_the_function():
    """The shape of numba's occupancy call before its fix: the lambda reaches the driver
    through `**kwargs` built by `dict(...)` in the method."""
    text = """
    class ForAll:
        def block_size(self, kernel):
            ctx = get_context()
            kwargs = dict(
                func=kernel.handle,
                b2d_func=lambda tpb: 0,
                memsize=self.sharedmem,
                blocksizelimit=1024,
            )
            _, tpb = ctx.target(**kwargs)
            return tpb
    """
    assert passed(text, 1, "b2d_func") == "lambda tpb: 0"
    assert passed(text, None, "flags") is None


@pytest.mark.parametrize("change", [
    "kwargs['b2d_func'] = callback",
    "kwargs.update(b2d_func=callback)",
    "kwargs = dict(kwargs, b2d_func=callback)",  # bound twice
])
def test_a_dict_the_module_changes_is_unknown(change):
    text = f"""
    def block_size(kernel, callback):
        kwargs = dict(func=kernel, b2d_func=lambda tpb: 0)
        {change}
        return ctx.target(**kwargs)
    """
    assert passed(text, 1, "b2d_func") is UNKNOWN


def test_spreads_of_parameters_and_calls_are_unknown():
    text = """
    def launch(*args, **kwargs):
        target(*args, **kwargs)
        target(*make(), **settings())
    """
    assert passed(text, 0, "handle") is UNKNOWN
    assert passed(text, None, "flags") is UNKNOWN


def test_a_tuple_bound_once_spreads_its_elements():
    text = """
    shape = (grid, block)
    target(*shape, stream)
    """
    assert passed(text, 2, "stream") == "stream"
    assert passed(text, 1, "block") == "block"
