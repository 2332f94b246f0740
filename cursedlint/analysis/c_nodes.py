"""C/C++ expressions as tree-sitter gives them, read without their wrapping: a call's arguments,
the expression inside parentheses and casts, a called name as written, the last name of a
qualified one. The lowest layer of the C/C++ syntax helpers (`c_syntax` gives them to every
analysis; `c_system_calls`, which `c_syntax` needs, reads its calls' arguments with them)."""

from __future__ import annotations

import re

WRAPPING = frozenset({"parenthesized_expression", "cast_expression", "condition_clause"})


def arguments(call) -> list:
    """A call's arguments (or an argument list's: `T x(a, b)`), comments left out."""
    listed = call if call.type == "argument_list" else call.child_by_field_name("arguments")
    if listed is None:
        return []
    return [child for child in listed.named_children if child.type != "comment"]


def unwrapped(node, passing=frozenset()):
    """The expression inside parentheses, C casts, C++ named casts, an `if`'s condition clause
    and the calls of one argument whose `callee_text` is in `passing` (`std::move`); None for
    None."""
    while node is not None:
        if node.type == "cast_expression":
            node = node.child_by_field_name("value") or node.named_children[-1]
        elif node.type in WRAPPING:
            node = node.child_by_field_name("value") or next(
                (child for child in node.named_children if child.type != "comment"), None)
        elif node.type == "call_expression" and (
                is_named_cast(node) or passing and callee_text(node) in passing
                and len(arguments(node)) == 1):
            node = arguments(node)[0]
        else:
            return node
    return None


def is_named_cast(call) -> bool:
    function = call.child_by_field_name("function")
    if function is None or function.type != "template_function":
        return False
    name = function.child_by_field_name("name")
    return name is not None and name.text.decode().endswith("_cast") and len(arguments(call)) == 1


def unqualified(node):
    """The last name of a qualified one (`a::b::name` -> `name`, `::name` -> `name`), the node
    itself otherwise; None for None."""
    while node is not None and node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    return node


def callee_text(call) -> str:
    """The called function's name as written, qualified, without template arguments or spaces
    (`Container::copy`, `std::move`); "" for a call through an object or of an expression."""
    function = call.child_by_field_name("function")
    if function is None or function.type not in (
            "identifier", "qualified_identifier", "template_function"):
        return ""
    return re.sub(r"\s+", "", without_template_arguments(function.text.decode(errors="replace")))


def without_template_arguments(name: str) -> str:
    """A name as written without its template arguments: `Scalar<T>::Scalar` -> `Scalar::Scalar`,
    `A<B<C>>::f` -> `A::f`: each matched `<...>` goes, an unmatched `<` (`operator<`) stays. One
    pass and a running sum, so a hostile nest of them costs its length."""
    opened: list[int] = []
    depth = [0] * (len(name) + 1)  # +1 where a matched pair starts, -1 after it ends
    for position, char in enumerate(name):
        if char == "<":
            opened.append(position)
        elif char == ">" and opened:
            depth[opened.pop()] += 1
            depth[position + 1] -= 1
    kept, inside = [], 0
    for char, change in zip(name, depth):
        inside += change
        if not inside:
            kept.append(char)
    return "".join(kept)
