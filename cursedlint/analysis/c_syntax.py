"""C/C++ syntax helpers over tree-sitter nodes, in one place for every rule and analysis: a
call's callee and arguments, an expression without its parentheses and casts, the function
around a node, and what a declarator declares."""

from __future__ import annotations

from cursedlint.analysis.c_macros import function_scope

NAMES = frozenset({"identifier", "field_identifier"})
_WRAPPING = frozenset({"parenthesized_expression", "cast_expression"})
_DECLARATOR_KINDS = {"array_declarator": "array", "pointer_declarator": "pointer",
                     "reference_declarator": "reference"}


def arguments(call) -> list:
    """A call's arguments, comments left out."""
    listed = call.child_by_field_name("arguments")
    if listed is None:
        return []
    return [child for child in listed.named_children if child.type != "comment"]


def callee(context, call) -> str:
    """The called function's name (`f(...)`, `ns::f(...)`); "" for other calls."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "qualified_identifier":
        function = function.child_by_field_name("name")
    return context.text(function) if function is not None and function.type == "identifier" \
        else ""


def unwrapped(node):
    """The expression inside parentheses, C casts and C++ named casts."""
    while True:
        if node.type in _WRAPPING:
            node = node.child_by_field_name("value") or node.named_children[-1]
        elif node.type == "call_expression" and _is_named_cast(node):
            node = arguments(node)[0]
        else:
            return node


def _is_named_cast(call) -> bool:
    function = call.child_by_field_name("function")
    if function is None or function.type != "template_function":
        return False
    name = function.child_by_field_name("name")
    return name is not None and name.text.decode().endswith("_cast") and len(arguments(call)) == 1


def within(node, region) -> bool:
    return region.start_byte <= node.start_byte and node.end_byte <= region.end_byte


def scope_of(context, node):
    """The innermost function, lambda or macro-defined function body (`TEST(a, b) {...}`)
    containing `node`, or None at file scope."""
    parent = next(iter(context.ancestors(node)), None)
    return None if parent is None else function_scope(context, parent)


def function_declarator(node):
    """The function declarator inside a function definition's declarator (through pointers
    and references of the return type)."""
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


def inner_declarator(node):
    """The declarator inside a pointer, array, reference, parenthesized or init declarator."""
    inner = node.child_by_field_name("declarator")
    if inner is not None:
        return inner
    return next((child for child in node.named_children
                 if child.type in NAMES or child.type.endswith("declarator")), None)


def declared_name(context, declarator) -> str:
    """The name a declarator declares ("" for an abstract one)."""
    node = declarator
    while node is not None and node.type not in NAMES:
        node = inner_declarator(node)
    return context.text(node) if node is not None else ""


def declarator_kind(declarator) -> str:
    """"array", "pointer", "reference" or "object": what the declarator makes of its name
    (the wrapper nearest the name decides: `*a[4]` is an array, `(*p)[4]` a pointer)."""
    kind, node = "object", declarator
    while node is not None and node.type not in NAMES:
        kind = _DECLARATOR_KINDS.get(node.type, kind)
        node = inner_declarator(node)
    return kind


def leads_to(parent, child) -> bool:
    """Whether `declared_name(parent)` goes down through `child`."""
    return inner_declarator(parent) == child


def parameter_names(context, declarator) -> list[str]:
    """The names of a function declarator's parameters, in order ("" where unnamed)."""
    parameters = declarator.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else ():
        inner = parameter.child_by_field_name("declarator")
        names.append(declared_name(context, inner) if inner is not None else "")
    return names


def block_statement(context, node):
    """The statement of a block (compound statement) that holds `node`, or None."""
    for parent in context.ancestors(node):
        if parent.type == "compound_statement":
            return node
        node = parent
    return None


def assigns(context, body, name: str) -> bool:
    """Whether `body` assigns or increments the variable `name`."""
    for _, leaf in context.tokens((name,), body):
        parent = context.parent(leaf)
        if leaf.type == "identifier" and within(parent, body) and (
                parent.type == "assignment_expression"
                and parent.child_by_field_name("left") == leaf
                or parent.type == "update_expression"
                and parent.child_by_field_name("argument") == leaf):
            return True
    return False
