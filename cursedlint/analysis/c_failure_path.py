"""The path a failed call's result takes through its function (C/C++), and the assertion or
`abort()` it reaches (CUR601: a `process_vm_readv`/`process_vm_writev` result, -1 on failure).

`FailurePaths(context, assertions, value).reached(result)` follows a `Result` (the call, and
the variable holding its value, if any) from the statement holding the call to the end of the
function, along the path a failure (-1, the result taken as signed) takes: into the branch an
`if` on the result sends -1 to (`n == -1`, `n < 0`, `n != len`, the `else` of `n == len`, `!`,
`||` and `&&` of these, inside a branch hint too, `c_conditions.hinted`; `value(node)`
evaluates the other side, a side it cannot evaluate is a length, never negative), on through the statements after it when that branch falls through,
and through both branches of other `if`s and of `#if`/`#else`, and from a `goto` on at its
label. A `return`, `break`, `continue`, `throw`, `exit()`, `longjmp()` or a new value of the
result ends it; an assertion on the result (a call `assertions` names, taking the variable)
ends it, as do `abort()` and a fatal handler (`c_fatal`: one that aborts, exits or is declared
never to return) once the path has passed a check on the result. A failure may be a range of values
(`-errno`: `Result.lowest`); a check whose answer differs within it is unknown. Loops,
`switch`, checks whose answer for -1 is unknown (`n < 0 && errno == EPERM`), code nested
deeper than `_MAX_NESTING` and code tree-sitter cannot read leave it unknown, and so does a
call handed a label of its function (`GOTO_ERROR(rma, error, ...)`, `CHECK_GOTO(n == len,
out)`: a function-like macro that may `goto` it, perhaps under a condition; such a call is no
assertion either, whatever its name: `hands_label`).
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import cached_property
from enum import Enum
from typing import Callable, Iterator

from msgspec import Struct

from cursedlint.analysis.c_conditions import (
    COMPARISONS, MIRRORED, hinted, holds, short_circuit,
)
from cursedlint.analysis.c_errno_fallbacks import RESTRICTED, errno_condition
from cursedlint.analysis.c_expectations import Assertions
from cursedlint.analysis.c_fatal import ABORTS, EXITS, JUMPS, Fatal
from cursedlint.analysis.c_syntax import arguments, callee, mentions, unwrapped, within, writes

_EXITS = EXITS | {"longjmp", "siglongjmp"}
_PREPROCESSOR = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef",
                           "preproc_else"})
_PREPROCESSOR_ALTERNATIVES = frozenset({"preproc_elif", "preproc_elifdef", "preproc_else"})
# -1 compared with a length (a value the file does not show, never negative)
_AGAINST_LENGTH = {"<": True, "<=": True, ">": False, ">=": False, "==": False, "!=": True}
_JUMP_WORDS = {"return": "return_statement", "break": "break_statement",
               "continue": "continue_statement", "goto": "goto_statement"}
_LEAVING_WORDS = {**_JUMP_WORDS, "throw": "throw_statement"}
_RESTRICTED = frozenset(RESTRICTED)
_MAX_NESTING = 100  # statements and conditions followed inside each other; deeper: unknown
_DECLARING = frozenset({"init_declarator", "declaration", "parameter_declaration",
                        "pointer_declarator", "array_declarator", "reference_declarator"})


class _TooDeep(Exception):
    """The failure path goes deeper into nested statements or conditions than is followed."""


class Outcome(Enum):
    """Where the failure path goes after a statement."""

    THROUGH = "falls through"
    END = "ends (return, jump, exit, or the result is replaced)"
    UNKNOWN = "cannot be told"


class Path(Struct, frozen=True):
    """The failure path's state: how it ends (or the assert it reaches), whether it has
    passed through the failure branch of a check on the result, and, where it ends, the
    `return` statements it ends in (None among them: it may end otherwise); and the
    restricted errno values (`c_errno_fallbacks.RESTRICTED`) that may reach it untested by
    name (`errno == EPERM` names EPERM; followed only for throws: `FailurePaths.thrown`)."""

    outcome: Outcome | None  # None: `hit` is reached
    detected: bool
    hit: object = None
    returns: tuple = ()
    unnamed: frozenset = _RESTRICTED
    stored: tuple[tuple[str, int], ...] = ()
    """The constants the path has stored into plain variables so far (`err = 99;` before a
    `goto fn_fail`), the last store of each name."""
    returned: tuple[tuple[object, tuple], ...] = ()
    """Where it ends: each `return` with the `stored` of the path reaching it."""

    def stored_at(self, statement) -> set[tuple]:
        """The `stored` of each way the path reaches a `return` of `returns`."""
        return {stored for reached, stored in self.returned if reached == statement}


MAX_ERRNO = 4095
"""The largest error number (Linux's `MAX_ERRNO`): `-errno` is between -4095 and -1."""


class Result(Struct, frozen=True):
    """A call's result: the variable holding it (None when the call itself is checked), and
    the value it has when the copy failed (-1, or the error code a wrapper returns then), or
    the range of values, from `lowest` to `failure` (`-errno`: -4095 to -1)."""

    function: str  # the called name
    call: object
    variable: str | None
    failure: int = -1
    lowest: int | None = None


class FailurePaths:
    """Failure paths in one file. `assertions`: what asserts; `value(node)`: an integer
    expression's value (UNKNOWN when unknown); `fatal()`: the fatal handlers the file may call
    (`c_fatal`: name -> `Fatal`), an `abort()` or `exit()` of their kind, asked for when a
    path is first followed."""

    def __init__(self, context, assertions: Assertions, value: Callable,
                 fatal: Callable[[], dict[str, Fatal]] = dict):
        self.context = context
        self.assertions = assertions
        self.value = value
        self._handlers = fatal
        self._nesting = 0
        self._jumped: set[int] = set()
        self._function_labels: dict[int, frozenset[str]] = {}
        self._leaving: Callable | None = None

    @cached_property
    def fatal(self) -> dict[str, Fatal]:
        return self._handlers()

    @cached_property
    def _enders(self) -> frozenset[str]:
        return ABORTS | _EXITS | set(self.fatal)

    def reached(self, result: Result) -> Path | None:
        """The path, when it reaches an assertion or `abort()` (`hit`), else None."""
        path = self.path(result)
        return path if path is not None and path.outcome is None else None

    def thrown(self, result: Result, leaving: Callable) -> Path | None:
        """The path, when it reaches a `throw` (`hit`) that `leaving(throw)` says leaves for no
        recovery, on the failure branch, where a restricted errno value not tested by name may
        reach it (`Path.unnamed`: `if (errno == EFAULT) throw BadAddress();` is not reached by
        EPERM, `if (errno == EPERM) throw Denied();` is a choice); else None. Code the path
        cannot be followed through that may throw leaves it unknown."""
        self._leaving = leaving
        try:
            path = self.path(result)
        finally:
            self._leaving = None
        return path if path is not None and path.outcome is None \
            and path.hit.type == "throw_statement" else None

    def path(self, result: Result) -> Path | None:
        """Where the failure path goes (None when the value goes elsewhere or the path is
        nested deeper than followed)."""
        try:
            return self._follow(result)
        except _TooDeep:
            return None

    @contextmanager
    def _deeper(self):
        """One level further into nested statements or conditions."""
        self._nesting += 1
        try:
            if self._nesting > _MAX_NESTING:
                raise _TooDeep
            yield
        finally:
            self._nesting -= 1

    def _follow(self, result: Result) -> Path | None:
        start = self._statement_of(result.call)
        condition = start.child_by_field_name("condition") \
            if start is not None and start.type == "if_statement" else None
        checked = condition is not None and within(result.call, condition)
        if not checked and start is not None:  # `check_rc(f(...))`, `FATAL_IF(f(...) < 0)`
            for call in self._stopping_calls(start):
                handler = self.fatal.get(callee(self.context, call))
                ended = self._tested(handler, call, result, Path(Outcome.THROUGH, False)) \
                    if handler is not None and within(result.call, call) else None
                if ended is not None:
                    return ended
        if start is not None and start.type == "return_statement" and start.named_children \
                and self.is_result(start.named_children[0], result):
            return Path(Outcome.END, False, returns=(start,), returned=((start, ()),))  # handed on
        if not checked and (start is None or result.variable is None):
            return None  # the value goes elsewhere (an argument, a loop condition)
        path = Path(Outcome.THROUGH, False)
        if checked:
            path = self._if(start, result, path)
        if path.outcome is Outcome.THROUGH:
            path = self._after(start, result, path)
        return path

    def _statement_of(self, node):
        """The innermost statement (or declaration) containing `node`."""
        return next((found for found in self.context.ancestors(node)
                     if found.type.endswith("statement") or found.type == "declaration"), None)

    def _after(self, statement, result: Result, path: Path) -> Path:
        """The path from the end of `statement` on, out of the enclosing blocks and `if`s up to
        the end of the function."""
        node, around = statement, list(self.context.ancestors(statement))
        for index, parent in enumerate(around):
            if parent.type == "compound_statement" or parent.type in _PREPROCESSOR:
                path = self._sequence(_following(node), result, path)
                if path.outcome is not Outcome.THROUGH:
                    return path
                if index + 1 < len(around) and around[index + 1].type == "function_definition":
                    return Path(Outcome.END, path.detected, returns=(None,))  # falls off
            elif parent.type not in ("if_statement", "else_clause"):
                return Path(Outcome.UNKNOWN, path.detected)  # loops, switch, lambdas
            node = parent
        return Path(Outcome.UNKNOWN, path.detected)

    # -- statements --------------------------------------------------------------------------
    def _sequence(self, statements, result: Result, path: Path) -> Path:
        for statement in statements:
            path = self._statement(statement, result, path)
            if path.outcome is not Outcome.THROUGH:
                return path
        return path

    def _statement(self, statement, result: Result, path: Path) -> Path:
        with self._deeper():
            return self._statement_path(statement, result, path)

    def _statement_path(self, statement, result: Result, path: Path) -> Path:
        kind = statement.type
        if kind == "return_statement":
            return Path(Outcome.END, path.detected, returns=(statement,),
                        returned=((statement, path.stored),))
        if kind == "goto_statement":
            return self._goto(statement, result, path)
        if kind == "throw_statement" and self._leaving is not None and path.detected \
                and path.unnamed and self._leaving(statement):
            return Path(None, True, statement, unnamed=path.unnamed)
        if kind in JUMPS:
            return Path(Outcome.END, path.detected, returns=(None,))
        if kind == "compound_statement":
            return self._sequence(self.context.children(statement), result, path)
        if kind == "if_statement":
            return self._if(statement, result, path)
        if kind in _PREPROCESSOR:
            return self._preprocessor(statement, result, path)
        if kind in ("expression_statement", "declaration"):
            return self._simple(statement, result, path)
        if not self._matters(statement, result):
            return path
        return Path(Outcome.UNKNOWN, path.detected)

    def _goto(self, statement, result: Result, path: Path) -> Path:
        """A `goto`: the path on from its label (`fn_fail: fatal(...);`), when that reaches an
        assertion, an abort or a `return`; else it ends there (a label not found, one already
        followed, code after it that cannot be followed)."""
        ends = Path(Outcome.END, path.detected, returns=(None,))
        target = self._label(statement)
        if target is None or target.id in self._jumped:
            return ends
        self._jumped.add(target.id)
        try:
            after = self._statement(target.named_children[-1], result, path)
            if after.outcome is Outcome.THROUGH:
                after = self._after(target, result, after)
        finally:
            self._jumped.discard(target.id)
        return after if after.outcome is None or after.outcome is Outcome.END else ends

    def _label(self, statement):
        """The labeled statement a `goto` jumps to, in its function."""
        label = statement.child_by_field_name("label")
        function = next((found for found in self.context.ancestors(statement)
                         if found.type == "function_definition"), None)
        if label is None or function is None:
            return None
        name = self.context.text(label)
        return next((found for found in self.context.captures(
            "(labeled_statement) @labeled", function).get("labeled", ())
            if self.context.text(found.child_by_field_name("label")) == name), None)

    def _simple(self, statement, result: Result, path: Path) -> Path:
        """An expression statement or declaration: an assert or abort (or a fatal handler
        that aborts) on the path, an exit, a new value of the result, a jump the text cannot
        tell (`hands_label`), or nothing that matters."""
        if statement.has_error or self.hands_label(statement):
            return Path(Outcome.UNKNOWN, path.detected)
        for call in self._stopping_calls(statement):
            name = callee(self.context, call)
            handler = self.fatal.get(name)
            if handler is not None and handler.conditional:
                ended = self._tested(handler, call, result, path)
                if ended is not None:
                    return ended
                continue
            if name in _EXITS:
                return Path(Outcome.END, path.detected, returns=(None,))
            if ((name in ABORTS or handler is not None) and path.detected) or (
                self.assertions.asserts(name) and mentions(self.context, call, result.variable)
            ):
                return Path(None, path.detected, call)
        if result.variable is not None and any(writes(self.context, statement,
                                                      result.variable)):
            return Path(Outcome.END, path.detected, returns=(None,))
        return self._stores(statement, path)

    def _stores(self, statement, path: Path) -> Path:
        """`path` with the constant an assignment statement stores into a plain variable
        (`err = 99;`; another value forgets the name)."""
        expression = statement.named_children[0] if statement.type == "expression_statement" \
            and statement.named_children else None
        if expression is None or expression.type != "assignment_expression":
            return path
        target = expression.child_by_field_name("left")
        if target.type != "identifier" or self.context.text(
                expression.child_by_field_name("operator")) != "=":
            return path
        name, given = self.context.text(target), self.value(expression.child_by_field_name("right"))
        stored = tuple(item for item in path.stored if item[0] != name)
        if isinstance(given, int):
            stored += ((name, given),)
        return Path(path.outcome, path.detected, path.hit, path.returns, path.unnamed, stored,
                    path.returned)

    def hands_label(self, node) -> bool:
        """Whether a call within `node` is given a label of its function as an argument (a
        function cannot take one: a macro that may `goto` it). A label that also names a
        local or parameter of the function is not taken for one."""
        labels = self._labels_of(node)
        if not labels:
            return False
        for _, leaf in self.context.tokens(labels, node):
            listed = self.context.parent(leaf)
            if leaf.type == "identifier" and listed is not None \
                    and listed.type == "argument_list" \
                    and self.context.parent(listed).type == "call_expression":
                return True
        return False

    def _labels_of(self, node) -> frozenset[str]:
        """The labels of the function holding `node` that name nothing else there."""
        function = next((found for found in self.context.ancestors(node)
                         if found.type == "function_definition"), None)
        if function is None:
            return frozenset()
        known = self._function_labels.get(function.id)
        if known is None:
            names = {self.context.text(found.child_by_field_name("label"))
                     for found in self.context.captures("(labeled_statement) @labeled",
                                                        function).get("labeled", ())}
            declared = {name for name, leaf in self.context.tokens(names, function)
                        if self.context.parent(leaf).type in _DECLARING} if names else set()
            known = self._function_labels[function.id] = frozenset(names - declared)
        return known

    def _tested(self, handler: Fatal, call, result: Result, path: Path) -> Path | None:
        """Where a call of a handler that ends the process under a condition on one argument
        (`check_rc(rc)`, `FATAL_IF(rc != 0)`) takes the path: None unless that argument is
        (or tests) the result and the condition surely holds for the failure; else the
        handler's call (`hit`)."""
        given = arguments(call)
        argument = given[handler.argument] if handler.argument < len(given) else None
        if not handler.conditional or argument is None \
                or not self._mentions_result(argument, result):
            return None
        if holds(handler.when, lambda: self._fails_when(argument, result),
                 lambda operator_, value: self._compares(argument, result, operator_,
                                                         value)) is not True:
            return None  # (true on success, unknown, or about something else)
        return Path(None, path.detected, call)

    def _compares(self, node, result: Result, operator_: str, value: int) -> bool | None:
        """`node <operator_> value` for the failure: the result compared, or the truth of a
        condition on it compared with 0."""
        if self.is_result(node, result):
            return _compared(operator_, result, value)
        truth = self._fails_when(node, result) if value == 0 and operator_ in ("==", "!=") \
            else None
        return None if truth is None else truth == (operator_ == "!=")

    def _if(self, statement, result: Result, path: Path) -> Path:
        condition = statement.child_by_field_name("condition")
        consequence = statement.child_by_field_name("consequence")
        alternative = statement.child_by_field_name("alternative")
        branches = [consequence, alternative.named_children[-1] if alternative else None]
        if self._mentions_result(condition, result):
            fails_when = self._fails_when(condition, result)
            if fails_when is None:
                return Path(Outcome.UNKNOWN, path.detected)
            failure = branches[0] if fails_when else branches[1]
            detected = Path(Outcome.THROUGH, True, unnamed=path.unnamed, stored=path.stored)
            return detected if failure is None else self._statement(failure, result, detected)
        if self._matters(condition, result):
            return Path(Outcome.UNKNOWN, path.detected)
        tested = errno_condition(self.context, condition) if self._leaving is not None \
            else None
        if tested is None:
            return _merged([self._statement(branch, result, path) if branch else path
                            for branch in branches])
        values, equal = tested  # (`errno == E...`: those values named; the rest go on)
        rest = path.unnamed - values
        states = [Path(path.outcome, path.detected, unnamed=frozenset() if equal else rest),
                  Path(path.outcome, path.detected, unnamed=rest if equal else frozenset())]
        return _merged([self._statement(branch, result, state) if branch else state
                        for branch, state in zip(branches, states)])

    def _preprocessor(self, node, result: Result, path: Path) -> Path:
        """`#if`/`#ifdef` with its `#elif`/`#else`: one configuration or another, like an if."""
        with self._deeper():
            return self._configurations(node, result, path)

    def _configurations(self, node, result: Result, path: Path) -> Path:
        condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
        if self._matters(condition, result):
            return Path(Outcome.UNKNOWN, path.detected)
        alternative = node.child_by_field_name("alternative")
        body = [child for child in node.named_children
                if child != condition and child.type not in _PREPROCESSOR_ALTERNATIVES]
        return _merged([
            self._sequence(body, result, path),
            self._preprocessor(alternative, result, path) if alternative else path,
        ])

    # -- conditions --------------------------------------------------------------------------
    def fails_when(self, node, result: Result) -> bool | None:
        """The value of a condition on the result when the call failed, or None when it cannot
        be told (or is nested deeper than followed)."""
        try:
            return self._fails_when(node, result)
        except _TooDeep:
            return None

    def _fails_when(self, node, result: Result) -> bool | None:
        """The value of the condition when the call failed (the result is -1), or None when it
        cannot be told. The result is taken as signed (ssize_t, the functions' return type)."""
        with self._deeper():
            return self._failure_value(node, result)

    def _failure_value(self, node, result: Result) -> bool | None:
        node = unwrapped(node)
        if (inner := hinted(node)) is not None:  # `unlikely(n < 0)`: the same truth
            return self._fails_when(inner, result)
        if self.is_result(node, result):
            return result.failure != 0  # (-1 is true; so is every -errno)
        if node.type == "unary_expression" and self.context.text(node.child(0)) == "!":
            inner = self._fails_when(node.child_by_field_name("argument"), result)
            return None if inner is None else not inner
        if node.type != "binary_expression":
            return None
        operator = self.context.text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator in ("||", "&&"):
            return short_circuit(operator, *(
                self._fails_when(side, result) if self._mentions_result(side, result) else None
                for side in (left, right)))
        if self.is_result(right, result) and not self.is_result(left, result):
            left, right, operator = right, left, MIRRORED.get(operator)
        if operator not in COMPARISONS or not self.is_result(left, result) \
                or self._mentions_result(right, result):
            return None
        value = self.value(right)
        if isinstance(value, int):
            return _compared(operator, result, value)
        if result.lowest is not None and unwrapped(right).type == "unary_expression":
            return None  # `rc == -EPERM`: one of the failures
        return _AGAINST_LENGTH[operator] if result.failure < 0 else None

    def is_result(self, node, result: Result) -> bool:
        """Whether the expression is the result: the call, the variable, or `(n = call)`."""
        node = unwrapped(node)
        if node.type == "assignment_expression":
            node = unwrapped(node.child_by_field_name("right"))
        if node.type == "identifier":
            return result.variable == self.context.text(node)
        return node == result.call

    def _mentions_result(self, node, result: Result) -> bool:
        return (node is not None and within(result.call, node)) or mentions(
            self.context, node, result.variable)

    def _matters(self, node, result: Result) -> bool:
        """Whether code the path cannot be followed through touches it: mentions the result,
        jumps, asserts, aborts or exits."""
        if node is None:
            return False
        if mentions(self.context, node, result.variable) or node.has_error:
            return True
        words = _JUMP_WORDS if self._leaving is None else _LEAVING_WORDS
        if any(self.context.parent(keyword).type == words[word]
               for word, keyword in self.context.tokens(words, node)):
            return True
        return bool(self._stopping_calls(node))

    def _stopping_calls(self, node) -> list:
        """The calls within `node` that may end the path (exits, aborts, asserts), in order."""
        found = {call.id: call for _, call in self.context.calls(self._enders, node)}
        for _, _, leaf in self.context.hits(self.assertions.spelled, node):
            call = self.context.call_of(leaf)
            if call is not None:
                found.setdefault(call.id, call)
        return sorted(found.values(), key=lambda call: call.start_byte)


def _following(node) -> Iterator:
    """The statements after `node` in its block (not an `#else`: another configuration)."""
    sibling = node.next_named_sibling
    while sibling is not None and sibling.type not in _PREPROCESSOR_ALTERNATIVES:
        yield sibling
        sibling = sibling.next_named_sibling


def _merged(paths: list[Path]) -> Path:
    """The paths through the two branches of an `if` that does not test the result: an assert
    reached on either, else the first of unknown, falling through, ending."""
    hits = [path for path in paths if path.outcome is None]
    if hits:
        return hits[0]
    for outcome in (Outcome.UNKNOWN, Outcome.THROUGH):
        chosen = [path for path in paths if path.outcome is outcome]
        if chosen:
            stored = set(chosen[0].stored).intersection(*(path.stored for path in chosen))
            return Path(outcome, any(path.detected for path in chosen),
                        unnamed=chosen[0].unnamed if len(chosen) == 1
                        else frozenset().union(*(path.unnamed for path in chosen)),
                        stored=tuple(item for item in chosen[0].stored if item in stored))
    return Path(Outcome.END, False, returns=tuple(
        returned for path in paths for returned in path.returns), returned=tuple(
        reached for path in paths for reached in path.returned))


def _compared(operator_: str, result: Result, value: int) -> bool | None:
    """`result <operator> value` for every value the failure may have, or None when it
    depends on which (`rc == -EPERM` of a `-errno`)."""
    lowest = result.failure if result.lowest is None else result.lowest
    if operator_ in ("==", "!=") and lowest != result.failure \
            and lowest <= value <= result.failure:
        return None
    answers = {COMPARISONS[operator_](lowest, value),
               COMPARISONS[operator_](result.failure, value)}
    return answers.pop() if len(answers) == 1 else None
