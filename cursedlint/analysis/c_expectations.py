"""Calls a test expects to fail (C/C++): the result is asserted to be an error right away.

`asserted_to_fail(context, call, pointer_result)` reads the assertion that first looks at a
call's result: the call written inside it, or the variable (or member) the call's statement
stores it in, when the first later statement of the block that mentions it is an assertion.
An assertion is a call whose name holds `assert` or `expect` (any case: `assert`, cmocka's
`assert_int_equal`, Criterion's `cr_assert_eq`, gtest's `EXPECT_EQ`, CUnit's
`CU_ASSERT_PTR_NULL`). It asserts failure when it compares the result for equality with a
negative value (`-FI_EINVAL`, `-1`), or, for a function returning a pointer, with NULL, or
asserts `!result`, `result < 0`, or (named `..._null`) that the result is NULL. A negated
assertion (`_ne`, `not`, `non_null`) never does.
"""

from __future__ import annotations

import re

from cursedlint.analysis.c_syntax import arguments, callee, unwrapped

_ASSERTION = re.compile(r"assert|expect", re.IGNORECASE)
_NEGATED = re.compile(r"not|_neq?(?:$|_)|non_?null|false", re.IGNORECASE)
_EQUALITY = re.compile(r"(?:^|_)eq(?:ual)?(?:$|_)", re.IGNORECASE)
_NULL_ASSERTION = re.compile(r"null", re.IGNORECASE)
_NULLS = frozenset({"NULL", "nullptr"})
_MAX_LOOK_AHEAD = 8  # statements after the call searched for the first use of its result


def asserted_to_fail(context, call, pointer_result: bool) -> bool:
    """Whether the test asserts that `call` fails (see the module)."""
    assertion = _enclosing_assertion(context, call)
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
            assertion = _assertion_of(context, following)
            return assertion is not None and _asserts_failure(context, assertion, name,
                                                              pointer_result)
        following = following.next_named_sibling
    return False


def _enclosing_assertion(context, call):
    """An assertion call whose arguments hold `call`, within its statement."""
    for node in context.ancestors(call):
        if node.type.endswith("statement"):
            return None
        if node.type == "call_expression" and _ASSERTION.search(callee(context, node)):
            return node
    return None


def _result_holder(context, call) -> tuple[str, object] | None:
    """(the text of the variable or member the call's value is stored in, the statement
    storing it), for `x = call(...);` and `T x = call(...);` statements of a block."""
    node = call
    for parent in context.ancestors(call):
        if parent.type not in ("parenthesized_expression", "cast_expression"):
            break
        node = parent
    else:
        return None
    if parent.has_error:
        return None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == node:
        target, statement = parent.child_by_field_name("declarator"), context.parent(parent)
    elif (parent.type == "assignment_expression" and parent.child_by_field_name("right") == node
          and context.text(parent.child_by_field_name("operator")) == "="):
        target, statement = parent.child_by_field_name("left"), context.parent(parent)
    else:
        return None
    if statement is None or statement.type not in ("expression_statement", "declaration"):
        return None
    if target is None or target.type not in ("identifier", "field_expression"):
        return None
    return context.text(target), statement


def _mentions(context, statement, name: str) -> bool:
    return re.search(rf"(?<![\w.>]){re.escape(name)}(?!\w)", context.text(statement)) is not None


def _assertion_of(context, statement):
    """The assertion call an expression statement makes, or None."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    node = unwrapped(statement.named_children[0])
    if node.type == "call_expression" and _ASSERTION.search(callee(context, node)):
        return node
    return None


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
