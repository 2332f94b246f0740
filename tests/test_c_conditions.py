"""Conditions on one value (cursedlint/analysis/c_conditions.py): what a fatal handler tests
its parameter for, read from C, composed with what a caller hands it, and answered for a
failure (end to end: tests/rules/CUR601/conditional_fatal_handlers)."""

from __future__ import annotations

import pytest

from cursedlint.analysis.c_conditions import (
    condition_over, described, holds, literal, substituted,
)
from cursedlint.c.context import parse


def expression(text: str):
    """The expression of `int v = (text);`."""
    tree = parse(f"int v = ({text});".encode(), "c")
    declarator = tree.root_node.named_children[0].child_by_field_name("declarator")
    return declarator.child_by_field_name("value")


def answer(condition, value: int):
    """The condition for one known value."""
    from cursedlint.analysis.c_conditions import COMPARISONS

    return holds(condition, lambda: value != 0,
                 lambda operator_, constant: COMPARISONS[operator_](value, constant))


@pytest.mark.parametrize("text, failure, success", [
    ("rc", True, False),
    ("!rc", False, True),
    ("(rc) != 0", True, False),
    ("0 > rc", True, False),
    ("rc == -1", True, False),
    ("rc != 0 && rc != 11", True, False),
    ("(rc < 0) != 0", True, False),
    ("rc == 0", False, True),
])
def test_a_condition_on_the_parameter_is_read_and_answered(text, failure, success):
    condition = condition_over(expression(text), "rc", literal)
    assert condition is not None
    assert (answer(condition, -1), answer(condition, 0)) == (failure, success)


@pytest.mark.parametrize("text", ["verbose && rc", "rc == LIMIT", "rc + 1", "f(rc)", "ok"])
def test_a_condition_on_something_else_or_an_unknown_constant_is_none(text):
    assert condition_over(expression(text), "rc", literal) is None


def test_a_handler_given_a_condition_tests_the_condition_and_given_the_value_tests_it():
    handler = condition_over(expression("cond"), "cond", literal)  # FATAL_IF(cond)
    given = condition_over(expression("rc < 0"), "rc", literal)    # FATAL_IF(rc < 0)
    assert substituted(handler, given) == ("cmp", "<", 0)
    negative = condition_over(expression("x < 0"), "x", literal)   # if (x < 0) abort();
    assert substituted(negative, ("x",)) == negative               # check(rc)
    assert substituted(negative, given) is None  # (rc < 0) < 0: not followed
    assert described(substituted(("not", ("x",)), given), "rc") == "!(rc < 0)"


def test_an_unknown_side_decides_only_where_the_other_does_not():
    condition = condition_over(expression("rc || flag_set"), "rc", literal)
    assert condition is None
    either = ("or", ("x",), ("cmp", "==", 5))
    assert holds(either, lambda: None, lambda operator_, constant: True) is True
    assert holds(either, lambda: None, lambda operator_, constant: False) is None
