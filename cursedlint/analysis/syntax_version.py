"""The lowest Python a module can run on, from its own code: a module that older versions
cannot compile or import runs only on newer ones, whatever `requires-python` allows.

Read: statements older versions do not compile (`match`: 3.10; `except*`: 3.11; `type` aliases
and type parameters: 3.12), and the annotations of functions defined when the module is
imported (in its body or a class body there) unless `from __future__ import annotations`
defers them: `X | Y` there needs 3.10 (`type.__or__`), `list[int]` and the other builtin
generics 3.9. A function defined elsewhere (inside a function, under `if TYPE_CHECKING:`)
evaluates its annotations only when that code runs, so it bounds nothing.
"""

from __future__ import annotations

import ast

from cursedlint.python.context import PythonContext

_STATEMENTS = {ast.Match: (3, 10)}
for _name, _version in (("TryStar", (3, 11)), ("TypeAlias", (3, 12))):
    if hasattr(ast, _name):  # (the linter itself may run on 3.10)
        _STATEMENTS[getattr(ast, _name)] = _version
_BUILTIN_GENERICS = frozenset({"list", "dict", "tuple", "set", "frozenset", "type"})
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def python_needed(context: PythonContext) -> tuple[int, int]:
    """The lowest (major, minor) that runs the module as written; (3, 0) when nothing says."""
    return context.derived(python_needed, lambda: _needed(context))


def _needed(context: PythonContext) -> tuple[int, int]:
    found = [version for kind, version in _STATEMENTS.items() if context.tree_index.of(kind)]
    definitions = context.tree_index.of(*_DEFINITIONS)
    if any(getattr(node, "type_params", None) for node in definitions):
        found.append((3, 12))
    if not _defers_annotations(context.tree):
        found.extend(_annotation_needs(context.tree.body))
    return max(found, default=(3, 0))


def _defers_annotations(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module == "__future__" and
               any(alias.name == "annotations" for alias in node.names) for node in tree.body)


def _annotation_needs(body: list[ast.stmt]):
    """What the annotations of the functions `body` defines on import need, and those of the
    classes it defines, recursively."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield from _annotation_needs(node.body)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                     *filter(None, (arguments.vararg, arguments.kwarg)))
            for annotation in [argument.annotation for argument in every] + [node.returns]:
                if annotation is not None:
                    yield from _expression_needs(annotation)


def _expression_needs(annotation: ast.expr):
    for node in ast.walk(annotation):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            yield (3, 10)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                node.value.id in _BUILTIN_GENERICS:
            yield (3, 9)
