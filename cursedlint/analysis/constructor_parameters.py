"""What a `self.<attr>` that `__init__` sets from its parameter can be: the arguments the
module's own calls of the class pass for that parameter (`Worker(processing_function=embed)`
makes `self.processing_function` `embed`).

`given_values(context, node)` answers for `self.<attr>` read in a class's method where the
class sets the attribute once, in `__init__`, to a parameter `__init__` never rebinds: the
expressions the module's calls of the class pass for it (the parameter's default where a call
passes none; each value a local of the calling function is assigned, where it is bound only
by assignments). Calls from other modules are not read, so the list is never all of them.
"""

from __future__ import annotations

import ast

from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.python_project import assigned_values, attribute_values, value_of


def given_values(context, node: ast.AST) -> list[ast.AST]:
    """The expressions the module's calls of the class pass for the `__init__` parameter
    `node` (`self.<attr>`) is set to; [] when it is not such an attribute."""
    if not is_self_attribute(node):
        return []
    cls = next((a for a in context.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    if cls is None or len(attribute_values(context, cls).get(node.attr, ())) != 1:
        return []
    bound = value_of(context, node)
    init = context.scope_of(bound) if isinstance(bound, ast.Name) else None
    if not (isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)) and init.name == "__init__"
            and context.parent_of(init) is cls) or context.definition(bound) is not None:
        return []
    found = _parameter(init, bound.id)
    if found is None:
        return []
    index, default = found
    values = []
    for call in context.nodes(ast.Call):
        if isinstance(call.func, ast.Name) and context.definition(call.func) is cls:
            given = context.argument(call, index, bound.id)
            given = default if given is None else given
            if isinstance(given, ast.Name) and context.definition(given) is None:
                values.extend(assigned_values(context, given))  # a local bound in branches
            elif isinstance(given, ast.AST):  # not UNKNOWN (a spread the module does not show)
                values.append(given)
    return values


def _parameter(init: ast.AST, name: str) -> tuple[int | None, ast.AST | None] | None:
    """(the parameter's position after `self`, None when keyword-only; its default) of
    `__init__`'s parameter `name`, or None when it has none of that name."""
    arguments = init.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for index, argument in enumerate(positional):
        if argument.arg == name:
            return (index - 1 if index else None), defaults[index]
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if argument.arg == name:
            return None, default
    return None
