"""Platform branches: whether a node lies in code that cannot run on the target system.

`excluding_guard(node, system, context)` reads the conditions that guard `node`: the test of
each `if`/`elif` and conditional expression around it (its `else` needs the test false), the
operands before it in `and`/`or`, and early exits before it in its block
(`if sys.platform != "linux": return`, `raise`, `continue`, `break`, `sys.exit()`,
`pytest.skip()`), and the test skips around it (below). It gives the first one that rules
`node` out on `system` ("linux" or "darwin"), or None; `only_without_fork` asks it of both.

A condition is read as Python evaluates it there, from what every machine of that system
reports: `sys.platform`, `os.name`, `platform.system()` and `hasattr(os, name)` of a POSIX
function (`POSIX_OS`); string methods, indexes, slices and `==`, `!=`, `in`, `not in` on them;
`not`, `and`, `or`; and names bound once in the module or function to such an expression
(`IS_WINDOWS = sys.platform == "win32"`) or to a constant. Anything else (a call, a
configuration value, a name imported from another module or bound twice) is unknown, and an
unknown condition rules nothing out. `assert` guards are not read: `python -O` removes them.

Test skips rule code out the same way: the body of a function, or of every method of a class,
whose skip decorator skips it on `system` (`@unittest.skipIf(cond, reason)` when `cond` is
true, `@unittest.skipUnless(cond, reason)` when it is false, `@pytest.mark.skipif(cond, ...,
reason=...)` when one of its conditions is true), and the tests pytest collects from a module
whose `pytestmark` is such a mark. pytest's string conditions (`"sys.platform == 'win32'"`)
are parsed, never run, and read like the others, with the module's globals and pytest's `os`,
`sys` and `platform`. A skip without a condition (`@unittest.skip("slow")`) rules its code out
on every system: it never runs anywhere, and the rules see it again when the skip is removed.
A pytest mark skips only tests: on a function it counts when pytest collects the function (its
name starts with `test`; a mark on a fixture or helper does nothing), and a module's
`pytestmark` covers its `test*` functions and the methods of its `Test*` classes. The
decorators and class-level statements of a skipped test run on import and stay live, and so
does the code of a test or class skipped only under a condition the linter cannot read.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from msgspec import Struct

from cursedlint.python.consteval import UNKNOWN, is_known
from cursedlint.python.imports import ImportTable
from cursedlint.source import parse_python

_MAX_DEPTH = 50  # conditions nested deeper, or names chained further, are unknown


class System(Struct, frozen=True):
    """What Python reports on every machine of one operating system."""

    platform: str  # sys.platform
    os_name: str  # os.name
    name: str  # platform.system()


SYSTEMS = {
    "linux": System("linux", "posix", "Linux"),
    "darwin": System("darwin", "posix", "Darwin"),
}

POSIX_OS = frozenset({
    "fork", "forkpty", "openpty", "setreuid", "setregid", "setgroups", "getgroups",
    "initgroups", "setuid", "setgid", "seteuid", "setegid", "getuid", "geteuid", "getgid",
    "getegid", "setsid", "getsid", "setpgid", "getpgid", "setpgrp", "getpgrp", "getppid",
    "killpg", "wait3", "wait4", "chown", "lchown", "fchown", "chroot", "mkfifo", "mknod",
    "nice", "getloadavg", "uname", "sysconf", "statvfs", "fchmod", "ttyname", "getpriority",
    "setpriority",
})
"""Functions of `os` on every Linux and macOS CPython (POSIX; none added in a 3.x release):
`hasattr(os, "setreuid")` is true there (a test skipped so runs on neither)."""

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
_EXIT_CALLS = frozenset({
    "sys.exit", "os._exit", "pytest.skip", "pytest.exit", "pytest.fail", "pytest.xfail",
})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# unittest's skip decorators: the truth of the condition that skips (None: skip always)
_UNITTEST_SKIPS = {
    f"{module}.{name}": skips
    for module in ("unittest", "unittest.case")
    for name, skips in (("skip", None), ("skipIf", True), ("skipUnless", False))
}
_PYTEST_SKIPS = frozenset({"pytest.mark.skip", "pytest.mark.skipif"})
_SKIPS = _UNITTEST_SKIPS.keys() | _PYTEST_SKIPS
# the names pytest gives a string condition besides the module's globals
_PYTEST_GLOBALS = ImportTable()
_PYTEST_GLOBALS.names.update({"os": "os", "sys": "sys", "platform": "platform"})
_MAX_STRING_CONDITION = 1000  # characters; a longer string condition is unknown


def excluding_guard(node: ast.AST, system: str, context) -> ast.expr | None:
    """The condition that keeps `node` from running on `system` ("linux" or "darwin"), in the
    file of `context` (a PythonContext); None when `node` may run there."""
    conditions = context.shared((_Conditions, system),
                                lambda: _Conditions(SYSTEMS[system], context))
    child = node
    for parent in context.ancestors(node):
        guard = (conditions.branch_guard(parent, child) or conditions.exit_before(parent, child)
                 or conditions.skip_guard(parent, child))
        if guard is not None:
            return guard
        child = parent
    return None


def only_without_fork(node: ast.AST, context) -> bool:
    """Whether `node` runs only on a system without fork (under `if sys.platform == "win32":`,
    `if IS_WINDOWS:`, the `else` of `if IS_LINUX:`): neither Linux nor macOS takes its branch."""
    return all(excluding_guard(node, system, context) is not None
               for system in ("linux", "darwin"))


class _Conditions:
    """Conditions read on one system: True, False, or UNKNOWN (one per file and system)."""

    def __init__(self, system: System, context):
        self.context = context
        self.attributes = {"sys.platform": system.platform, "os.name": system.os_name}
        self.calls = {"platform.system": system.name}
        self._names: dict[tuple[int, str], Any] = {}
        self._strings: dict[str, ast.expr | None] = {}  # string condition -> its expression
        self._string_nodes: set[int] = set()

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
        """Whether a block always ends in return, raise, continue, break, or a call that always
        raises (`sys.exit()`, `pytest.skip()`)."""
        if not block:
            return False
        last = block[-1]
        if isinstance(last, _EXITS):
            return True
        return (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
                and self.context.qualified_name(last.value.func, among=_EXIT_CALLS) is not None)

    # -- test skips ------------------------------------------------------------------------
    def skip_guard(self, parent: ast.AST, child: ast.AST) -> ast.expr | None:
        """The skip that keeps function `parent`, whose body holds statement `child`, from
        running: a skip decorator of the function or of its class, or the module's
        `pytestmark`."""
        if not (isinstance(parent, _FUNCTIONS)
                and any(statement is child for statement in parent.body)):
            return None
        tree = self.context.tree
        owner = self.context.parent_of(parent)
        method = isinstance(owner, ast.ClassDef) and any(item is parent for item in owner.body)
        collected = parent.name.startswith("test") and (method or owner is tree)
        guard = self._skipping(parent.decorator_list, collected)
        if guard is None and method:
            guard = self._skipping(owner.decorator_list, pytest_counts=True)
        in_test_class = (method and owner.name.startswith("Test")
                         and self.context.parent_of(owner) is tree)
        if guard is None and (collected and owner is tree or in_test_class):
            guard = self._skipping(self._module_marks(), pytest_counts=True)
        return guard

    def _module_marks(self) -> list[ast.expr]:
        """The marks of the module's `pytestmark`, when one statement of the module body binds
        it and nothing else binds or changes it: a mark, or a list or tuple of marks."""
        evaluator, tree = self.context.evaluator, self.context.tree
        marks = evaluator.lookup("pytestmark", tree)
        if not (isinstance(marks, ast.expr)
                and isinstance(self.context.parent_of(marks), (ast.Assign, ast.AnnAssign))
                and self.context.parent_of(self.context.parent_of(marks)) is tree):
            return []
        if isinstance(marks, ast.List) and evaluator.may_be_mutated("pytestmark"):
            return []  # `pytestmark.remove(...)`
        return list(marks.elts) if isinstance(marks, (ast.List, ast.Tuple)) else [marks]

    def _skipping(self, marks: list[ast.expr], pytest_counts: bool) -> ast.expr | None:
        """The first of `marks` (decorators, or the items of `pytestmark`) that skips on this
        system: its condition, or the mark itself when it skips always. pytest's marks count
        only where `pytest_counts` (on a test pytest collects)."""
        for mark in marks:
            if isinstance(mark, ast.Name):  # `windows_only = pytest.mark.skipif(...)`
                bound = self.context.definition(mark)
                if isinstance(bound, (ast.Call, ast.Attribute)):
                    mark = bound
            self._index_parents(mark)
            call = mark if isinstance(mark, ast.Call) else None
            name = self.context.qualified_name(mark if call is None else call.func,
                                               among=_SKIPS)
            if name in _UNITTEST_SKIPS:
                guard = self._unittest_skip(_UNITTEST_SKIPS[name], mark, call)
            elif name == "pytest.mark.skip" and pytest_counts:
                guard = mark
            elif name == "pytest.mark.skipif" and pytest_counts:
                guard = self._pytest_skipif(mark, call)
            else:
                guard = None
            if guard is not None:
                return guard
        return None

    def _unittest_skip(self, skips: bool | None, mark: ast.expr,
                       call: ast.Call | None) -> ast.expr | None:
        """`skip(reason)` (or bare `@skip`) always; `skipIf`/`skipUnless` when the truth of
        their condition is `skips`."""
        if skips is None:
            return mark
        condition = None if call is None else self.context.argument(call, 0, "condition")
        if not isinstance(condition, ast.expr):
            return None  # none (a TypeError on import) or in a spread
        return condition if self.truth(condition) is skips else None

    def _pytest_skipif(self, mark: ast.expr, call: ast.Call | None) -> ast.expr | None:
        """`pytest.mark.skipif`: skips when one of its conditions is true, and always when it
        has none (pytest reads `condition=` instead of the positional ones)."""
        if call is None:
            return mark
        if any(keyword.arg is None for keyword in call.keywords):
            return None  # `**options` may hold `condition`
        conditions = [keyword.value for keyword in call.keywords if keyword.arg == "condition"]
        for condition in conditions or call.args:
            if not isinstance(condition, ast.Starred) and self._pytest_truth(condition) is True:
                return condition
        return None if conditions or call.args else mark

    def _pytest_truth(self, condition: ast.expr) -> Any:
        """A pytest condition: a string is an expression pytest evaluates, read here from its
        parse; any other value counts by its truth."""
        text = self.value(condition)
        if not isinstance(text, str):
            return self.truth(condition)
        if text not in self._strings:
            self._strings[text] = self._parse_at_module_level(text)
        expression = self._strings[text]
        return UNKNOWN if expression is None else self.truth(expression)

    def _parse_at_module_level(self, text: str) -> ast.expr | None:
        """The expression a string condition holds, placed at the module's level so its names
        resolve in the module's globals (kept with its parents for as long as the file is
        analysed); None when it does not parse."""
        if len(text) > _MAX_STRING_CONDITION:
            return None
        try:
            expression = parse_python(text, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        self.context.parents[expression] = self.context.tree
        self._index_parents(expression)
        self._string_nodes.update(id(node) for node in ast.walk(expression))
        return expression

    def _index_parents(self, expression: ast.expr) -> None:
        """Record the parents of the nodes in `expression` with the context's: the walk reaches
        a function's decorators after its body, and a name whose parent the context does not
        know makes it index the whole tree."""
        parents = self.context.parents
        for node in ast.walk(expression):
            for child in ast.iter_child_nodes(node):
                parents[child] = node

    def _fact(self, node: ast.expr, facts: dict[str, str]) -> str | None:
        """Which of `facts` (`sys.platform`, `platform.system`) `node` names: through the
        module's imports, or, in a string condition, through pytest's `os`, `sys` and
        `platform` where the module binds no such name."""
        fact = self.context.qualified_name(node, among=facts)
        if fact is not None or id(node) not in self._string_nodes:
            return fact
        fact = _PYTEST_GLOBALS.qualified_name(node)
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if fact not in facts or self.context.evaluator.binding_scope(base.id, base) is not None:
            return None
        return fact

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
            fact = self._fact(node, self.attributes)
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
        """`platform.system()`, `hasattr(os, "name")` of a function every POSIX build of `os`
        has (`POSIX_OS`), or a string method on a known string with known arguments."""
        if not node.args and not node.keywords:
            fact = self._fact(node.func, self.calls)
            if fact is not None:
                return self.calls[fact]
        if isinstance(node.func, ast.Name) and node.func.id == "hasattr" and len(node.args) == 2 \
                and not node.keywords and isinstance(name := node.args[1], ast.Constant) \
                and name.value in POSIX_OS and self.context.qualified_name(node.args[0]) == "os" \
                and self.context.evaluator.binding_scope("hasattr", node.func) is None:
            return True
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
