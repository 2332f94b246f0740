"""Conditions on one integer value, kept as data (C/C++): what a fatal handler tests its
parameter for (`c_fatal`: `if (rc != 0) abort();`), read from its definition and answered at a
call for the value the caller passes (`c_failure_path`: the result of a failed copy).

A condition is a nested tuple over the value `x` (a summary that travels between files):
`("x",)` is `x` taken as a truth value (`x != 0`), `("cmp", op, v)` compares `x` with the
integer `v` (`op` one of `COMPARISONS`), `("not", c)`, `("and", a, b)` and `("or", a, b)`
combine conditions. `condition_over(node, name, value)` reads one from an expression that
mentions no variable but `name` (`rc`, `!rc`, `(rc) < 0`, `rc != 0 && rc != 11`; constants by
`value(node)`, an int or anything else when unknown); `substituted(outer, inner)` is `outer`
with `x` replaced by the condition `inner` (a handler calling another with `rc != 0`);
`holds(condition, truth, compare)` answers it given how the value's truth and comparisons come
out (None where unknown).
"""

from __future__ import annotations

import operator
from typing import Callable

from cursedlint.analysis.c_syntax import arguments, callee_text, unwrapped

COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}
MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
TRUE = ("x",)


_HINTS = ("likely", "expect_true", "expect_false", "predict_true", "predict_false")
"""How the names of branch-hint wrappers end (lower case): `unlikely`, `OPAL_UNLIKELY`,
`expect_false`, `ABSL_PREDICT_FALSE`."""


def hinted(node):
    """The condition inside a branch hint, which has its truth: `__builtin_expect(c, 0)`
    (`_with_probability` too) and a call of one argument whose name ends as `_HINTS` say
    (by convention `__builtin_expect(!!(c), v)`); else None."""
    if node is None or node.type != "call_expression":
        return None
    name = callee_text(node).rpartition("::")[2]
    given = arguments(node)
    if name.startswith("__builtin_expect") and given:
        return given[0]
    if len(given) == 1 and name.lower().endswith(_HINTS):
        return given[0]
    return None


def condition_over(node, name: str, value: Callable) -> tuple | None:
    """The condition `node` states about the variable `name`, or None when it is not one (it
    mentions something else, or a constant whose value is unknown)."""
    node = unwrapped(node)
    while (inner := hinted(node)) is not None:
        node = unwrapped(inner)
    if node is None:
        return None
    if node.type == "identifier":
        return TRUE if node.text.decode("utf-8", errors="replace") == name else None
    if node.type == "unary_expression" and node.child(0).type == "!":
        inner = condition_over(node.child_by_field_name("argument"), name, value)
        return None if inner is None else ("not", inner)
    if node.type != "binary_expression":
        return None
    operator_ = node.child_by_field_name("operator").type
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if operator_ in ("&&", "||"):
        sides = (condition_over(left, name, value), condition_over(right, name, value))
        return None if None in sides else ("and" if operator_ == "&&" else "or", *sides)
    if operator_ not in COMPARISONS:
        return None
    for side, other, compared in ((left, right, operator_), (right, left, MIRRORED[operator_])):
        inner = condition_over(side, name, value)  # (first: most sides are about no parameter)
        constant = literal(other) if inner is not None else None
        if inner is not None and constant is None:
            constant = value(other)
        if not isinstance(constant, int):
            continue
        if inner == TRUE:  # the variable itself
            return ("cmp", compared, constant)
        if inner is not None and constant == 0 and compared in ("!=", "=="):
            return inner if compared == "!=" else ("not", inner)  # `(rc < 0) != 0`
    return None


def substituted(outer: tuple, inner: tuple) -> tuple | None:
    """`outer` with its value replaced by `inner`: the value itself (`TRUE`), or the truth of
    a condition on it (None where `outer` then compares it with something other than 0)."""
    if len(inner) == 1 and inner[0] == "x":
        return outer  # the value itself
    kind = outer[0]
    if kind == "x":
        return tuple(inner)
    if kind == "cmp":
        if outer[2] == 0 and outer[1] in ("!=", "=="):
            return tuple(inner) if outer[1] == "!=" else ("not", tuple(inner))
        return None
    parts = [substituted(part, inner) for part in outer[1:]]
    return None if None in parts else (kind, *parts)


def holds(condition, truth: Callable[[], bool | None],
          compare: Callable[[str, int], bool | None]) -> bool | None:
    """Whether the condition holds, given the value's truth (`truth()`) and comparisons
    (`compare(op, v)`), each None where unknown."""
    kind = condition[0]
    if kind == "x":
        return truth()
    if kind == "cmp":
        return compare(condition[1], condition[2])
    if kind == "not":
        inner = holds(condition[1], truth, compare)
        return None if inner is None else not inner
    return short_circuit("&&" if kind == "and" else "||",
                         *(holds(part, truth, compare) for part in condition[1:]))


def described(condition, name: str) -> str:
    """The condition written in C over `name`."""
    kind = condition[0]
    if kind == "x":
        return name
    if kind == "cmp":
        return f"{name} {condition[1]} {condition[2]}"
    if kind == "not":
        return f"!({described(condition[1], name)})"
    joined = " && " if kind == "and" else " || "
    return joined.join(f"({described(part, name)})" for part in condition[1:])


def short_circuit(operator_: str, left: bool | None, right: bool | None) -> bool | None:
    """`left || right` or `left && right` of values that may be unknown (None)."""
    deciding = operator_ == "||"  # true decides ||, false decides &&
    if deciding in (left, right):
        return deciding
    return None if None in (left, right) else not deciding


def literal(node) -> int | None:
    """The value of an integer literal, perhaps negated or in parentheses, else None."""
    node = unwrapped(node)
    if node is None:
        return None
    if node.type == "unary_expression" and node.child(0).type in ("-", "+"):
        inner = literal(node.child_by_field_name("argument"))
        return None if inner is None else (-inner if node.child(0).type == "-" else inner)
    if node.type != "number_literal":
        return None
    text = node.text.decode("ascii", errors="replace").rstrip("uUlL").replace("'", "")
    try:
        return int(text, 8) if len(text) > 1 and text[0] == "0" and text.isdigit() \
            else int(text, 0)
    except ValueError:
        return None
