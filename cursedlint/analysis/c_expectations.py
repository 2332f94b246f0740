"""Assertions on a call's result, and calls a test expects to fail (C/C++).

An assertion is a call whose function name holds one of the words of an `Assertions` (CUR601
takes them from its `assert-names` option; `TEST_ASSERTIONS`, for a test's expectations:
`assert`, cmocka's `assert_int_equal`, Criterion's `cr_assert_eq`, gtest's `EXPECT_EQ`, CUnit's
`CU_ASSERT_PTR_NULL`). A call's result is stored where `stored_in` says: `x = call(...)` or
`T x = call(...)`, through parentheses and casts.

`asserted_to_fail(context, call, pointer_result)` reads the assertion that first looks at a
call's result: the call written inside it, or the variable (or member) the call's statement
stores it in, when the first later statement of the block that mentions it is an assertion.
It asserts failure when it compares the result for equality with a negative value
(`-FI_EINVAL`, `-1`), or, for a function returning a pointer, with NULL, or asserts `!result`,
`result < 0`, or (named `..._null`) that the result is NULL. A negated assertion (`_ne`, `not`,
`non_null`) never does.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Iterable

from cursedlint.analysis.c_syntax import arguments, callee, unwrapped, wrappers
from cursedlint.patterns import LazyPattern

_NEGATED = LazyPattern(r"not|_neq?(?:$|_)|non_?null|false", re.IGNORECASE)
_EQUALITY = LazyPattern(r"(?:^|_)eq(?:ual)?(?:$|_)", re.IGNORECASE)
_NULL_ASSERTION = LazyPattern(r"null", re.IGNORECASE)
_NULLS = frozenset({"NULL", "nullptr"})
_MAX_LOOK_AHEAD = 8  # statements after the call searched for the first use of its result


class Assertions:
    """What counts as an assertion: a call whose function name holds one of `words`."""

    def __init__(self, words: Iterable[str]):
        self.words = tuple(words)

    def asserts(self, name: str) -> bool:
        """Whether a call of the function `name` ("" for other calls) is an assertion."""
        return bool(name) and any(word in name for word in self.words)

    @cached_property
    def spelled(self) -> re.Pattern[bytes]:
        """Any of the words, wherever it is spelled (for `context.hits`)."""
        return re.compile(b"|".join(re.escape(word.encode()) for word in self.words)
                          or b"(?!)")

    def around(self, context, call):
        """The assertion whose arguments hold `call`, within its statement, or None."""
        for node in context.ancestors(call):
            if node.type.endswith("statement"):
                return None
            if node.type == "call_expression" and self.asserts(callee(context, node)):
                return node
        return None

    def made_by(self, context, statement):
        """The assertion an expression statement makes, or None."""
        if statement.type != "expression_statement" or not statement.named_children:
            return None
        node = unwrapped(statement.named_children[0])
        if node.type == "call_expression" and self.asserts(callee(context, node)):
            return node
        return None


TEST_ASSERTIONS = Assertions(("assert", "Assert", "ASSERT", "expect", "Expect", "EXPECT"))


def stored_in(context, call) -> tuple:
    """(the call with the parentheses and casts around it, the node that takes that value, the
    target `x` of `x = call(...)` or `T x = call(...)` or None)."""
    node = call
    for node in wrappers(context, call):
        pass  # out to the outermost
    parent = context.parent(node)
    if parent is None:
        return node, None, None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == node:
        return node, parent, parent.child_by_field_name("declarator")
    if (parent.type == "assignment_expression" and parent.child_by_field_name("right") == node
            and context.text(parent.child_by_field_name("operator")) == "="):
        return node, parent, parent.child_by_field_name("left")
    return node, parent, None


def asserted_to_fail(context, call, pointer_result: bool) -> bool:
    """Whether the test asserts that `call` fails (see the module)."""
    assertion = TEST_ASSERTIONS.around(context, call)
    if assertion is not None:
        return _asserts_failure(context, assertion, call, pointer_result)
    holder = _result_holder(context, call)
    if holder is None:
        return False
    name, statement = holder
    following = statement.next_named_sibling
    for _ in range(_MAX_LOOK_AHEAD):
        if following is None:
            return False
        if _mentions(context, following, name):
            assertion = TEST_ASSERTIONS.made_by(context, following)
            return assertion is not None and _asserts_failure(context, assertion, name,
                                                              pointer_result)
        following = following.next_named_sibling
    return False


def _result_holder(context, call) -> tuple[str, object] | None:
    """(the text of the variable or member the call's value is stored in, the statement
    storing it), for `x = call(...);` and `T x = call(...);` statements of a block."""
    _, holder, target = stored_in(context, call)
    if holder is None or holder.has_error:
        return None
    statement = context.parent(holder) if target is not None else None
    if statement is None or statement.type not in ("expression_statement", "declaration"):
        return None
    if target.type not in ("identifier", "field_expression"):
        return None
    return context.text(target), statement


def _mentions(context, statement, name: str) -> bool:
    """Whether the statement's text names `name`, a variable or a member (`ctx->ret`)."""
    return re.search(rf"(?<![\w.>]){re.escape(name)}(?!\w)", context.text(statement)) is not None


def _asserts_failure(context, assertion, result, pointer_result: bool) -> bool:
    """Whether the assertion says that `result` (a call node, or the text of where it is
    stored) is an error."""
    name = callee(context, assertion)
    if _NEGATED.search(name):
        return False
    given = arguments(assertion)
    if not given:
        return False
    if _NULL_ASSERTION.search(name):
        return pointer_result and _is_result(context, given[0], result)
    if _EQUALITY.search(name) and len(given) >= 2:
        if _is_result(context, given[0], result):
            return _failure_value(context, given[1], pointer_result)
        return _is_result(context, given[1], result) and _failure_value(context, given[0],
                                                                        pointer_result)
    return _failure_condition(context, given[0], result, pointer_result)


def _is_result(context, node, result) -> bool:
    node = unwrapped(node)
    return node == result if not isinstance(result, str) else context.text(node) == result


def _failure_value(context, node, pointer_result: bool) -> bool:
    """A negative constant (`-FI_EINVAL`, `-1`), or NULL for a pointer result."""
    node = unwrapped(node)
    if node.type == "unary_expression" and context.text(node.child(0)) == "-":
        operand = unwrapped(node.child_by_field_name("argument"))
        return operand.type == "identifier" or (
            operand.type == "number_literal" and context.text(operand).strip("0uUlL") != "")
    return pointer_result and (context.text(node) in _NULLS or (
        node.type == "number_literal" and context.text(node) == "0"))


def _failure_condition(context, node, result, pointer_result: bool) -> bool:
    """`result == failure`, `!result` (pointer), `result < 0`."""
    node = unwrapped(node)
    if node.type == "unary_expression" and context.text(node.child(0)) == "!":
        return pointer_result and _is_result(context, node.child_by_field_name("argument"),
                                             result)
    if node.type != "binary_expression":
        return False
    operator = context.text(node.child_by_field_name("operator"))
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if _is_result(context, right, result):
        left, right = right, left
        operator = {"<": ">", ">": "<"}.get(operator, operator)
    if not _is_result(context, left, result):
        return False
    if operator == "==":
        return _failure_value(context, right, pointer_result)
    return operator == "<" and context.text(unwrapped(right)) == "0"
