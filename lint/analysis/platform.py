"""Platform branches: whether a node lies in code that cannot run on the target system.

`excluding_guard(node, system, context)` reads the conditions that guard `node`: the test of
each `if`/`elif` and conditional expression around it (its `else` needs the test false), the
operands before it in `and`/`or`, and early exits before it in its block
(`if sys.platform != "linux": return`, `raise`, `continue`, `break`, `sys.exit()`). It gives the
first one that rules `node` out on `system` ("linux" or "darwin"), or None.

A condition is read as Python evaluates it there, from what every machine of that system
reports: `sys.platform`, `os.name` and `platform.system()`; string methods, indexes, slices and
`==`, `!=`, `in`, `not in` on them; `not`, `and`, `or`; and names bound once in the module or
function to such an expression (`IS_WINDOWS = sys.platform == "win32"`) or to a constant.
Anything else (a call, a configuration value, a name imported from another module or bound
twice) is unknown, and an unknown condition rules nothing out. `assert` guards are not read:
`python -O` removes them.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Any

from cursedlint.python_consteval import UNKNOWN, is_known

_MAX_DEPTH = 50  # conditions nested deeper, or names chained further, are unknown


@dataclass(frozen=True)
class System:
    """What Python reports on every machine of one operating system."""

    platform: str  # sys.platform
    os_name: str  # os.name
    name: str  # platform.system()


SYSTEMS = {
    "linux": System("linux", "posix", "Linux"),
    "darwin": System("darwin", "posix", "Darwin"),
}

_COMPARISONS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.In: lambda item, container: item in container,
    ast.NotIn: lambda item, container: item not in container,
}
_STRING_METHODS = frozenset({"startswith", "endswith", "lower", "upper", "casefold"})
# expressions whose value this module may know where the constant evaluator does not
_PLATFORM_SHAPES = (
    ast.Compare, ast.Attribute, ast.Call, ast.Subscript, ast.Name, ast.BoolOp, ast.UnaryOp,
)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_EXIT_CALLS = frozenset({"sys.exit", "os._exit"})


def excluding_guard(node: ast.AST, system: str, context) -> ast.expr | None:
    """The condition that keeps `node` from running on `system` ("linux" or "darwin"), in the
    file of `context` (a PythonContext); None when `node` may run there."""
    conditions = _Conditions(SYSTEMS[system], context)
    child = node
    for parent in context.ancestors(node):
        guard = conditions.branch_guard(parent, child) or conditions.exit_before(parent, child)
        if guard is not None:
            return guard
        child = parent
    return None


class _Conditions:
    """Conditions read on one system: True, False, or UNKNOWN."""

    def __init__(self, system: System, context):
        self.context = context
        self.attributes = {"sys.platform": system.platform, "os.name": system.os_name}
        self.calls = {"platform.system": system.name}
        self._names: dict[tuple[int, str], Any] = {}

    def branch_guard(self, parent: ast.AST, child: ast.AST) -> ast.expr | None:
        """The test of `parent` that rules out its part `child`: the test of an `if` or
        conditional expression whose branch `child` is, or an `and`/`or` operand before it."""
        if isinstance(parent, ast.If) and child is not parent.test:
            needed = any(statement is child for statement in parent.body)
            return parent.test if self.truth(parent.test) is (not needed) else None
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            return parent.test if self.truth(parent.test) is (child is not parent.body) else None
        if isinstance(parent, ast.BoolOp):
            deciding = isinstance(parent.op, ast.Or)  # the operand value that skips the rest
            for operand in parent.values:
                if operand is child:
                    return None
                if self.truth(operand) is deciding:
                    return operand
        return None

    def exit_before(self, parent: ast.AST, child: ast.AST) -> ast.expr | None:
        """The test of an `if` before statement `child` in its block of `parent` whose branch
        taken on this system always leaves the block."""
        for statement in _statements_before(parent, child):
            if isinstance(statement, ast.If):
                truth = self.truth(statement.test)
                taken = statement.body if truth is True else statement.orelse
                if truth is not UNKNOWN and self._leaves(taken):
                    return statement.test
        return None

    def _leaves(self, block: list[ast.stmt]) -> bool:
        """Whether a block always ends in return, raise, continue, break or sys.exit()."""
        if not block:
            return False
        last = block[-1]
        if isinstance(last, _EXITS):
            return True
        return (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
                and self.context.qualified_name(last.value.func, among=_EXIT_CALLS) is not None)

    # -- values ----------------------------------------------------------------------------
    def truth(self, node: ast.expr, depth: int = 0) -> Any:
        """Whether `node` is true on this system: True, False or UNKNOWN."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.truth(node.operand, depth + 1)
            return UNKNOWN if operand is UNKNOWN else not operand
        if isinstance(node, ast.BoolOp):
            deciding = isinstance(node.op, ast.Or)
            truths = [self.truth(operand, depth + 1) for operand in node.values]
            if any(truth is deciding for truth in truths):
                return deciding
            return UNKNOWN if UNKNOWN in truths else not deciding
        bound = self._bound(node)
        if bound is not None:
            return self._remembered(bound, "truth", depth)
        value = self.value(node, depth)
        return UNKNOWN if value is UNKNOWN else bool(value)

    def value(self, node: ast.expr, depth: int = 0) -> Any:
        """The value of `node` on this system, or UNKNOWN."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(node, (ast.Attribute, ast.Name)):
            fact = self.context.qualified_name(node, among=self.attributes)
            if fact is not None:
                return self.attributes[fact]
        if isinstance(node, ast.Compare):
            return self._compare(node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth)
        bound = self._bound(node)
        if bound is not None:
            return self._remembered(bound, "value", depth)
        return self.context.evaluate(node)

    def _bound(self, node: ast.expr) -> ast.expr | None:
        """The expression a name is bound to once, when it has a shape read here (a constant or
        a container is left to the constant evaluator, which knows whether it changes)."""
        if not isinstance(node, ast.Name):
            return None
        bound = self.context.definition(node)
        return bound if isinstance(bound, _PLATFORM_SHAPES) else None

    def _remembered(self, bound: ast.expr, kind: str, depth: int) -> Any:
        """The truth or value of an expression a name is bound to, read once per binding (a
        cycle of names is UNKNOWN)."""
        key = (id(bound), kind)
        if key not in self._names:
            self._names[key] = UNKNOWN
            read = self.truth if kind == "truth" else self.value
            self._names[key] = read(bound, depth + 1)
        return self._names[key]

    def _compare(self, node: ast.Compare, depth: int) -> Any:
        """A comparison chain: False when one link is surely false, True when all are true."""
        left = self.value(node.left, depth + 1)
        results = []
        for op, comparator in zip(node.ops, node.comparators):
            right = self.value(comparator, depth + 1)
            compare = _COMPARISONS.get(type(op))
            results.append(_apply(compare, left, right) if compare else UNKNOWN)
            left = right
        if False in results:
            return False
        return UNKNOWN if UNKNOWN in results else True

    def _call(self, node: ast.Call, depth: int) -> Any:
        """`platform.system()`, or a string method on a known string with known arguments."""
        if not node.args and not node.keywords:
            fact = self.context.qualified_name(node.func, among=self.calls)
            if fact is not None:
                return self.calls[fact]
        method = node.func
        if not (isinstance(method, ast.Attribute) and method.attr in _STRING_METHODS
                and not node.keywords):
            return UNKNOWN
        text = self.value(method.value, depth + 1)
        if not isinstance(text, str):
            return UNKNOWN
        arguments = [self.value(argument, depth + 1) for argument in node.args]
        return _apply(getattr(str, method.attr), text, *arguments)

    def _subscript(self, node: ast.Subscript, depth: int) -> Any:
        """An index or slice of a known string (`sys.platform[:3]`)."""
        text = self.value(node.value, depth + 1)
        if not isinstance(text, str):
            return UNKNOWN
        part = node.slice
        if isinstance(part, ast.Slice):
            bounds = [None if bound is None else self.value(bound, depth + 1)
                      for bound in (part.lower, part.upper, part.step)]
            return _apply(lambda *bounds: text[slice(*bounds)], *bounds)
        return _apply(operator.getitem, text, self.value(part, depth + 1))


def _apply(function, *values: Any) -> Any:
    """`function(*values)` when every value is known; UNKNOWN otherwise or if it fails."""
    if not all(is_known(value) for value in values):
        return UNKNOWN
    try:
        return function(*values)
    except (TypeError, ValueError, IndexError):  # where Python would raise too
        return UNKNOWN


def _statements_before(parent: ast.AST, child: ast.AST) -> list[ast.stmt]:
    """The statements before `child` in the block of `parent` that holds it (none when `child`
    is no statement of a block of `parent`)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list):
            for index, statement in enumerate(block):
                if statement is child:
                    return block[:index]
    return []
