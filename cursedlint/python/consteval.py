"""Constant evaluation of Python expressions, shared by rules.

Evaluates literals (numbers, strings, bytes, None/True/False, f-strings without fields),
tuples/lists/sets/dicts of them, simple arithmetic and string concatenation, and names bound
exactly once by a plain assignment in the enclosing function or at module level. Anything else is
UNKNOWN: a rule must treat it as "cannot know" and stay silent rather than guess.
Containers keep their shape with UNKNOWN elements, so `[prog, "-v"]` still has a known length.
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any, Callable

from cursedlint.patterns import LazyPattern

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN", "__bool__": None})()

_MAX_SHIFT = 1 << 16
_MAX_SIZE = 1 << 16  # items of a built sequence, bits of a built integer
_FORMAT_FIELD = LazyPattern(
    r"%(?:\([^)]{0,256}\)|(?P<long_key>\())?[-+ #0]*(?P<width>\*|\d*)(?:\.(?P<precision>\*|\d*))?")
"""A %-format field; a key (`%(name)s`) not closed within 256 characters is not read to its
end (a text of `%(` never closed was read to the end from each)."""
_GLOBAL_STATEMENT = LazyPattern(r"global[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)")
_NAME_OR_DOT = re.compile(r"[\w.]")
_METHOD_CALL_AFTER_NAME = re.compile(r"\s*\.\s*\w+\s*\(")
_ITEM_AFTER_NAME = re.compile(r"\s*\[")
_DEL = re.compile(r"del\s+")  # (led by its letters: `\b` first would be tried at every position)
_WORD_CHARACTER = re.compile(r"\w")
_ITEM_ASSIGNED = LazyPattern(r"\]\s*[-+*/|&^%@]?=(?!=)")  # the end of `x[i] = v`, `x[i] += v`
_MUTABLE = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_MAX_DEPTH = 50

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
    ast.BitXor: operator.xor,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_COMPARED = (str, bytes, int, float, type(None))
"""Values a comparison is worked out for (`is` with None, `==` of strings and numbers)."""
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}

_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_REBOUND = object()  # a name bound in a way other than one plain assignment


def is_known(value: Any) -> bool:
    """True when `value` and, for containers, every element is known."""
    if value is UNKNOWN:
        return False
    if isinstance(value, (tuple, list, set, frozenset)):
        return all(is_known(item) for item in value)
    if isinstance(value, dict):
        return all(is_known(k) and is_known(v) for k, v in value.items())
    return True


def _bound_names(target: ast.AST) -> list[str]:
    """Names an assignment target binds: `x`, `a, *b`; not `x[k]` or `x.a`, which mutate `x`
    (see ConstantEvaluator.may_be_mutated) without rebinding it."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    return []


_NOT_BINDING_FIELDS = frozenset({"ctx", "op", "ops"})  # singleton leaves, never bindings
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(node_class: type) -> tuple[str, ...]:
    fields = _FIELDS.get(node_class)
    if fields is None:
        fields = _FIELDS[node_class] = tuple(
            name for name in node_class._fields if name not in _NOT_BINDING_FIELDS
        )
    return fields


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements (or except handlers and match cases, which hold them)."""


_BINDING_CLASSES = frozenset({
    ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.With,
    ast.AsyncWith, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.FunctionDef,
    ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.Delete, ast.Lambda,
    *((ast.MatchAs, ast.MatchStar) if hasattr(ast, "MatchAs") else ())})
"""The node classes `_Bindings.record` binds names for (and the nested scopes)."""


class _Bindings:
    """Name -> the value expression of its only plain assignment in one scope, or _REBOUND."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def bind(self, name: str, value: ast.AST | None) -> None:
        self.values[name] = _REBOUND if (name in self.values or value is None) else value

    @classmethod
    def of(cls, scope: ast.AST, walrus: bool = True) -> dict[str, Any]:
        """The table of `scope`. Without `walrus` (the module holds no `:=`), expressions bind
        nothing, so the walk skips them: only statements, handlers and match patterns bind."""
        table = cls()
        skipped = () if walrus else ast.expr
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = scope.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                        arguments.vararg, arguments.kwarg):
                if arg is not None:
                    table.bind(arg.arg, None)
        body = scope.body if isinstance(scope.body, list) else [scope.body]
        pending = list(body)
        push, node_class, binding = pending.append, ast.AST, _BINDING_CLASSES
        while pending:  # iterative: scopes can be long and deeply nested
            node = pending.pop()
            kind = type(node)
            if kind in binding:
                table.record(node)
                if kind in _NESTED_SCOPES:
                    continue  # their bodies are their own scopes
            if kind in _COMPREHENSIONS:
                pending.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
                continue
            for name in _fields(kind):
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, node_class) and not isinstance(item, skipped):
                            push(item)
                elif isinstance(value, node_class) and not isinstance(value, skipped):
                    push(value)
        return table.values

    def record(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            simple = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            for target in node.targets:
                for name in _bound_names(target):
                    self.bind(name, node.value if simple else None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            self.bind(node.target.id, node.value)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
            for name in _bound_names(node.target):
                self.bind(name, None)
        elif isinstance(node, ast.NamedExpr):
            self.bind(node.target.id, None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in _bound_names(item.optional_vars):
                        self.bind(name, None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bind(name, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self.bind((alias.asname or alias.name).partition(".")[0], None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bind(node.name, node)  # evaluates to UNKNOWN, but is known not to be None
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bind(node.name, None)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                for name in _bound_names(target):
                    self.bind(name, None)
        elif hasattr(ast, "MatchAs") and isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name:
                self.bind(node.name, None)


class ModuleTables:
    """What a module's evaluator finds of its tree and text alone (each scope's bindings, the
    names rebound by `nonlocal` and `global`, the names mutated in place), kept for every
    context of the tree (`TreeIndex.derived`)."""

    def __init__(self) -> None:
        self.tables: dict[int, dict[str, Any]] = {}
        self.nonlocals: dict[int, set[str]] | None = None
        self.any_nonlocal: bool | None = None
        self.globals_rebound: frozenset[str] | None = None
        self.mutated: dict[str, bool] = {}
        self.deleted_at: list[int] | None = None


class ConstantEvaluator:
    """Evaluates expressions of one module. `scope_of(node)` returns the innermost enclosing
    function (or None at module level); it is supplied by the file's context."""

    def __init__(
        self, module: ast.Module, scope_of: Callable[[ast.AST], ast.AST | None], text: str,
        tables: ModuleTables | None = None,
    ):
        """`text` is the module's source: cheap substring tests on it skip whole-tree searches
        for constructs the module does not contain (`global`, `nonlocal`, method calls).
        `tables`: what another evaluator of the same tree and text found already."""
        self.module = module
        self.scope_of = scope_of
        self.text = text
        self._known = ModuleTables() if tables is None else tables
        self._tables = self._known.tables
        self._walrus = ":=" in text
        self._mutated = self._known.mutated

    def _table(self, scope: ast.AST) -> dict[str, Any]:
        table = self._tables.get(id(scope))
        if table is None:
            table = self._tables[id(scope)] = _Bindings.of(scope, self._walrus)
            if not isinstance(scope, ast.Module) and self._any_nonlocal():
                # `nonlocal` in the scope or a function nested in it rebinds
                nonlocal_names = self._nonlocal_names().get(id(scope), ())
                table.update((name, _REBOUND) for name in nonlocal_names if name in table)
        return table

    def _any_nonlocal(self) -> bool:
        """Whether the text holds `nonlocal` (searched once per module, not per scope)."""
        if self._known.any_nonlocal is None:
            self._known.any_nonlocal = "nonlocal" in self.text
        return self._known.any_nonlocal

    def _nonlocal_names(self) -> dict[int, set[str]]:
        """id(scope) -> the names `nonlocal` statements declare in it or in scopes nested in
        it, from one walk of the module's statements (no expression holds a statement)."""
        if self._known.nonlocals is None:
            self._known.nonlocals = {}
            pending: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(self.module, ())]
            while pending:
                node, scopes = pending.pop()
                if isinstance(node, ast.Nonlocal):
                    for scope in scopes:
                        self._known.nonlocals.setdefault(id(scope), set()).update(node.names)
                if isinstance(node, _NESTED_SCOPES):
                    scopes = (*scopes, node)
                for name in _BLOCK_FIELDS:
                    block = getattr(node, name, None)
                    if isinstance(block, list):
                        pending.extend((child, scopes) for child in block)
        return self._known.nonlocals

    def may_be_mutated(self, name: str) -> bool:
        """Whether the module may change the container `name` in place: call a method on it
        (`argv.append(...)`), assign or delete an item (`env[k] = v`, `del env[k]`). A textual
        test that can only err towards yes."""
        mutated = self._mutated.get(name)
        if mutated is None:
            text = self.text
            mutated = self._mutated[name] = self._mutation_at_a_use(name) or any(
                text.startswith(name, at) and _ITEM_AFTER_NAME.match(text, at + len(name))
                for at in self._deleted_at())
        return mutated

    def _deleted_at(self) -> list[int]:
        """Where the text's `del` statements' first targets begin (`del env[k]`: at `env`),
        found once per module."""
        if self._known.deleted_at is None:
            text = self.text
            self._known.deleted_at = [
                found.end() for found in _DEL.finditer(text)
                if not found.start() or not _WORD_CHARACTER.match(text, found.start() - 1)]
        return self._known.deleted_at

    def _mutation_at_a_use(self, name: str) -> bool:
        """Whether some occurrence of `name` (not part of a longer name or attribute) is followed
        by a method call or an item assignment (found with str.find: a regex starting with a
        lookbehind would be tried at every position of the text). An item's line is searched
        once, from its end, for the last `] =` (not from each item: a line of `x[0], x[0], ...`
        took time quadratic in its length)."""
        text, start = self.text, 0
        line_end = assigned = -1  # the line read last, and where its last `] =` is (or -1)
        while True:
            found = text.find(name, start)
            if found < 0:
                return False
            start = found + 1
            if found and _NAME_OR_DOT.match(text, found - 1):
                continue
            end = found + len(name)
            if _METHOD_CALL_AFTER_NAME.match(text, end):
                return True
            item = _ITEM_AFTER_NAME.match(text, end)
            if item is None:
                continue
            if item.end() > line_end:
                line_end = text.find("\n", item.end())
                line_end = len(text) if line_end < 0 else line_end
                assigned = _last_item_assignment(text, item.end(), line_end)
            if assigned >= item.end():
                return True

    def _module_rebound(self) -> frozenset[str]:
        """Names that some function declares `global` (and may therefore reassign)."""
        if self._known.globals_rebound is None:
            self._known.globals_rebound = globals_declared(self.text)
        return self._known.globals_rebound

    def lookup(self, name: str, at: ast.AST) -> Any:
        """The expression a name refers to at `at`, or UNKNOWN."""
        scope = self.scope_of(at)
        innermost = True
        while scope is not None:
            # a class body's names are seen by its own statements, not by its methods
            if innermost or not isinstance(scope, ast.ClassDef):
                table = self._table(scope)
                if name in table:
                    return table[name]
            innermost = False
            scope = self.scope_of(scope)
        table = self._table(self.module)
        if name in table and name not in self._module_rebound():
            return table[name]
        return UNKNOWN

    def declared_elsewhere(self, name: str, scope: ast.AST) -> bool:
        """Whether code other than `scope`'s own statements may rebind its `name`: a function
        declaring it `global` (for the module) or `nonlocal` (for a function)."""
        if scope is self.module:
            return name in self._module_rebound()
        return self._any_nonlocal() and name in self._nonlocal_names().get(id(scope), ())

    def binding_scope(self, name: str, at: ast.AST) -> ast.AST | None:
        """The innermost scope seen from `at` that binds `name` (assigns, defines, imports it,
        or has it as a parameter): a function, lambda, class or the module; None if none."""
        scope = self.scope_of(at)
        innermost = True
        while scope is not None:
            if (innermost or not isinstance(scope, ast.ClassDef)) and name in self._table(scope):
                return scope
            innermost = False
            scope = self.scope_of(scope)
        if name in self._table(self.module) or name in self._module_rebound():
            return self.module
        return None

    def evaluate(self, node: ast.AST | None, _depth: int = 0) -> Any:
        """The value of `node`, or UNKNOWN."""
        if node is None or _depth > _MAX_DEPTH:
            return UNKNOWN
        depth = _depth + 1
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = [self.evaluate(value, depth) for value in node.values]
            return "".join(parts) if all(isinstance(p, str) for p in parts) else UNKNOWN
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                return UNKNOWN
            items = [self.evaluate(element, depth) for element in node.elts]
            if isinstance(node, ast.Tuple):
                return tuple(items)
            if isinstance(node, ast.Set):
                return set(items) if all(is_known(item) for item in items) else UNKNOWN
            return items
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):
                return UNKNOWN
            keys = [self.evaluate(key, depth) for key in node.keys]
            if not all(is_known(key) for key in keys):
                return UNKNOWN
            return {key: self.evaluate(value, depth) for key, value in zip(keys, node.values)}
        if isinstance(node, ast.Name):
            bound = self.lookup(node.id, node)
            if bound is UNKNOWN or bound is _REBOUND:
                return UNKNOWN
            if isinstance(bound, _MUTABLE) and self.may_be_mutated(node.id):
                return UNKNOWN  # argv.append(...) may have changed it
            return self.evaluate(bound, depth)
        if isinstance(node, ast.BinOp):
            return self._binary(node, depth)
        if isinstance(node, ast.BoolOp):
            return self._boolean(node, depth)
        if isinstance(node, ast.Compare):
            return self._compare(node, depth)
        if isinstance(node, ast.UnaryOp):
            operand = self.evaluate(node.operand, depth)
            if not is_known(operand):
                return UNKNOWN
            try:
                return _UNARY[type(node.op)](operand)
            except (TypeError, KeyError):
                return UNKNOWN
        return UNKNOWN

    def _boolean(self, node: ast.BoolOp, depth: int) -> Any:
        """`a and b`, `a or b` as Python works them out: the first operand that decides, so
        `x is not None and x > 1` is False where `x = None`, whatever the rest."""
        value = UNKNOWN
        for operand in node.values:
            value = self.evaluate(operand, depth)
            if not isinstance(value, _COMPARED + (bool,)):
                return UNKNOWN
            if bool(value) != isinstance(node.op, ast.And):
                return value
        return value

    def _compare(self, node: ast.Compare, depth: int) -> Any:
        """A chain of comparisons of strings, bytes, numbers and None."""
        left = self.evaluate(node.left, depth)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.evaluate(comparator, depth)
            function = _COMPARE.get(type(op))
            if function is None or not (isinstance(left, _COMPARED)
                                        and isinstance(right, _COMPARED)):
                return UNKNOWN
            if isinstance(op, (ast.Is, ast.IsNot)) and None not in (left, right):
                return UNKNOWN  # the identity of equal numbers or strings is CPython's choice
            try:
                if not function(left, right):
                    return False
            except TypeError:  # "a" < 1
                return UNKNOWN
            left = right
        return True

    def _binary(self, node: ast.BinOp, depth: int) -> Any:
        left = self.evaluate(node.left, depth)
        right = self.evaluate(node.right, depth)
        function = _BINARY.get(type(node.op))
        if function is None or not (is_known(left) and is_known(right)):
            return UNKNOWN
        if isinstance(node.op, (ast.LShift, ast.Pow)) and (
            not isinstance(right, int) or abs(right) > _MAX_SHIFT
        ):
            return UNKNOWN  # keep 2 ** 10**9 from hanging the linter
        if _too_big(node.op, left, right):
            return UNKNOWN  # keep "x" * 10**9 from exhausting memory
        try:
            return function(left, right)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return UNKNOWN


def _last_item_assignment(text: str, start: int, end: int) -> int:
    """Where the last `]` of text[start:end] that ends an item assignment is, or -1."""
    bracket = text.rfind("]", start, end)
    while bracket >= 0 and not _ITEM_ASSIGNED.match(text, bracket):
        bracket = text.rfind("]", start, bracket)
    return bracket


def _wider(digits: str) -> bool:
    """Whether a format's width or precision is over _MAX_SIZE (digits past int()'s limit of
    4,300 raise: any over 6 are too many)."""
    return len(digits) > 6 or int(digits or 0) > _MAX_SIZE


def _too_big(op: ast.operator, left: Any, right: Any) -> bool:
    """Whether `left op right` would build a sequence of more than _MAX_SIZE items, an integer
    of more than _MAX_SIZE bits, or format a field that wide."""
    if isinstance(op, ast.Mult):
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (str, bytes, tuple, list)) and isinstance(count, int):
                return len(sequence) * count > _MAX_SIZE
        if isinstance(left, int) and isinstance(right, int):
            return left.bit_length() + right.bit_length() > _MAX_SIZE
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
        return right > 0 and left.bit_length() * right > _MAX_SIZE
    if isinstance(op, ast.LShift) and isinstance(left, int) and isinstance(right, int):
        return left.bit_length() + right > _MAX_SIZE
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        text = left.decode("latin-1") if isinstance(left, bytes) else left
        return any(field["long_key"] or "*" in field["width"] + (field["precision"] or "")
                   or _wider(field["width"]) or _wider(field["precision"] or "")
                   for field in _FORMAT_FIELD.finditer(text))
    return False


def globals_declared(text: str) -> frozenset[str]:
    """Names some function declares `global` (it may rebind them), read from the text: a
    `global` statement of its own line or after a `;` (a line of a string that reads so only
    adds a name, which errs towards UNKNOWN and keeps an import from being followed). The
    search looks for the word and then at what precedes it (a pattern starting with `^|;`
    tried every position of every file)."""
    names: set[str] = set()
    for match in _GLOBAL_STATEMENT.finditer(text):
        start = match.start()
        while start and text[start - 1] in " \t":
            start -= 1
        if not start or text[start - 1] in "\n;":
            names.update(name.strip(" \t") for name in match.group(1).split(","))
    return frozenset(names)
