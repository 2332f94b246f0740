"""Argument binding: which expression a call passes for a parameter, once, for every rule.

`bind(call, context)` reads a call's arguments as Python binds them: positional arguments and
keywords as written, `*args` spread from a tuple or list display, and `**kwargs` from a dict
display with string keys or a `dict(key=value, ...)` call, each written at the call or bound
once to a name the module never changes in place (numba handed its occupancy callback over as
`**kwargs` built by `dict(...)`). A spread the module does not show leaves the binding open.
"""

from __future__ import annotations

import ast
from typing import Any, Mapping

from msgspec import Struct

from cursedlint.python.consteval import UNKNOWN

_DICT = frozenset({"builtins.dict"})


class Arguments(Struct, frozen=True):
    """A call's arguments: `positional` in order as far as known, `keywords` by name;
    `more_positional`/`more_keywords` when a spread the module does not show may add some."""

    positional: tuple[ast.AST, ...]
    keywords: Mapping[str, ast.AST]
    more_positional: bool = False
    more_keywords: bool = False

    def get(self, index: int | None, keyword: str) -> Any:
        """The expression passed for the parameter at position `index` (None: keyword-only)
        named `keyword`: a node; None when the call surely passes none (the callee's default
        applies); UNKNOWN when an unknown spread may hold it."""
        if keyword in self.keywords:
            return self.keywords[keyword]
        if index is not None and index < len(self.positional):
            return self.positional[index]
        if self.more_keywords or (index is not None and self.more_positional):
            return UNKNOWN
        return None

    def values(self) -> list[ast.AST]:
        """Every argument expression the call shows."""
        return [*self.positional, *self.keywords.values()]


def bind(call: ast.Call, context) -> Arguments:
    """The arguments of `call` (in the file of `context`, a PythonContext)."""
    positional: list[ast.AST] = []
    more_positional = False
    for argument in call.args:
        if not isinstance(argument, ast.Starred):
            if not more_positional:
                positional.append(argument)
            continue
        elements = _sequence(argument.value, context)
        if elements is None or more_positional:
            more_positional = True
        else:
            positional.extend(elements)
    keywords: dict[str, ast.AST] = {}
    more_keywords = False
    for keyword in call.keywords:
        if keyword.arg is not None:
            keywords[keyword.arg] = keyword.value
            continue
        entries = _mapping(keyword.value, context)
        if entries is None:
            more_keywords = True
        else:
            keywords.update(entries)
    return Arguments(tuple(positional), keywords, more_positional, more_keywords)


def _sequence(node: ast.AST, context) -> list[ast.AST] | None:
    """The elements a `*` spread of `node` yields, when the module shows them."""
    node = _bound_value(node, context)
    if isinstance(node, (ast.Tuple, ast.List)) and not any(
        isinstance(element, ast.Starred) for element in node.elts
    ):
        return list(node.elts)
    return None


def _mapping(node: ast.AST, context) -> dict[str, ast.AST] | None:
    """The keywords a `**` spread of `node` yields, when the module shows them."""
    node = _bound_value(node, context)
    if isinstance(node, ast.Dict):
        entries = {}
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # a `**` inside, or a key the linter cannot read
            entries[key.value] = value
        return entries
    if (isinstance(node, ast.Call) and not node.args
            and all(keyword.arg is not None for keyword in node.keywords)
            and context.qualified_name(node.func, among=_DICT)):
        return {keyword.arg: keyword.value for keyword in node.keywords}
    return None


def _bound_value(node: ast.AST, context) -> ast.AST | None:
    """`node`, or the one value a name is bound to when the module never changes it in place
    (no item assignment, no method call on it)."""
    if not isinstance(node, ast.Name):
        return node
    value = context.definition(node)
    if value is None or context.evaluator.may_be_mutated(node.id):
        return None
    return value
