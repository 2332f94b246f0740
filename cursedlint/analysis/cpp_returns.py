"""C++ functions by the type they return, and `auto` locals by the call that initializes them:
enough to give `auto x = Container::copy(from, to);` the type `Container::copy` is declared to
return in some file of the project.

A call is matched to a declaration by name only: `A::f(...)` to a function whose qualified
name ends with `A::f`; a bare `f(...)` to a free function `f`, or to `f` of the calling
function's own class; a call through an object (`obj.f()`, `p->f()`) to nothing (its class is
not known here)."""

from __future__ import annotations

from typing import Iterable, Iterator

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    callee_text,
    declared_name,
    function_declarator,
    without_template_arguments,
    written_name,
)
from cursedlint.c.classes import TypeFacts, named_type, type_facts

_DECLARATIONS = ("declaration", "field_declaration", "function_definition")
_SCOPES = ("namespace_definition", "class_specifier", "struct_specifier")


class Returning(Struct, frozen=True):
    """A function declared or defined outside any function body: its name qualified by the
    namespaces and classes around it, whether it is a class member (declared in a class, or
    defined with a qualified name) and its return type."""

    name: str
    member: bool
    type: TypeFacts


def functions_returning(context, mentions: Iterable, wanted) -> list[Returning]:
    """The functions declared or defined around `mentions` (nodes: where a type name is written)
    whose return type's name satisfies `wanted` (a predicate on `named_type`)."""
    found = []
    for node in context.enclosing(mentions, _DECLARATIONS):
        type_node = node.child_by_field_name("type")
        if type_node is None or not wanted(named_type(context, type_node)):
            continue
        scope, in_body = _scope(context, node)
        if in_body:
            continue  # `Cloner c(to);` in a body declares a variable, not a function
        for declarator in node.children_by_field_name("declarator"):
            function = function_declarator(declarator)
            name = written_name(context, function) if function is not None else ""
            if name:
                name = without_template_arguments(name).replace(" ", "")
                member = node.type == "field_declaration" or "::" in name or bool(
                    scope and scope[-1][1])
                qualified = "::".join([part for part, _ in scope] + [name])
                found.append(Returning(qualified, member, type_facts(context, type_node,
                                                                     declarator)))
    return found


def _scope(context, node) -> tuple[list[tuple[str, bool]], bool]:
    """(name, is a class) of the namespaces and classes around a declaration, outermost first,
    and whether it lies inside a function body."""
    scope = []
    for parent in context.ancestors(node):
        if parent.type == "compound_statement":
            return [], True
        label = parent.child_by_field_name("name")
        if parent.type in _SCOPES and label is not None:
            if label.type == "template_type":
                label = label.child_by_field_name("name")
            scope.append((context.text(label), parent.type != "namespace_definition"))
    return scope[::-1], False


def auto_locals(context, body) -> Iterator[tuple[str, TypeFacts, str | None]]:
    """(name, type as declared, callee) of the locals of a body declared `auto` (`auto&`,
    `const auto&`, `auto*` too); the callee is the name of the function whose call initializes
    it, as written without template arguments (`Container::copy`), or None (not a call, or a
    call through an object)."""
    for declaration in context.captures("(declaration) @d", body).get("d", ()):
        type_node = declaration.child_by_field_name("type")
        if type_node is None or type_node.type != "placeholder_type_specifier":
            continue
        for declarator in declaration.children_by_field_name("declarator"):
            name = declared_name(context, declarator)
            if name:
                value = declarator.child_by_field_name("value")
                yield name, type_facts(context, type_node, declarator), _made_by(value)


def _made_by(value) -> str | None:
    while value is not None and value.type == "parenthesized_expression":
        value = value.named_children[0] if value.named_children else None
    if value is None or value.type != "call_expression":
        return None
    return callee_text(value) or None


def returned_by(functions: Iterable[Returning], callee: str, own_class: str) -> TypeFacts | None:
    """The return type of the first of `functions` that a call of `callee` (as `auto_locals`
    gives it) written in a function of class `own_class` ("" for none) can mean."""
    called = callee.lstrip(":").split("::")
    for function in functions:
        parts = function.name.split("::")
        if len(called) > 1:
            if parts[-len(called):] == called:
                return function.type
        elif parts[-1] == called[0] and (
                not function.member or (own_class and parts[-2:-1] == [own_class])):
            return function.type
    return None
