"""What a `self.<attr>` that `__init__` sets from its parameter can be: the arguments the
module's own calls of the class pass for that parameter (`Worker(processing_function=embed)`
makes `self.processing_function` `embed`).

`given_values(context, node)` answers for `self.<attr>` read in a class's method where the
class sets the attribute once, in `__init__`, to a parameter `__init__` never rebinds: the
expressions the module's calls of the class pass for it (`python_project.constructor_arguments`).
Calls from other modules are not read, so the list is never all of them.
"""

from __future__ import annotations

import ast

from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.python_project import attribute_values, constructor_arguments, value_of


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
    if init is None or context.parent_of(init) is not cls:
        return []
    return constructor_arguments(context, bound)
