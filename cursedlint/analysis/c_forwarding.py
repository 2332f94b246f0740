"""What the functions of a C/C++ file pass on: the calls that take one of their parameters,
unchanged, as an argument (`forwarded_calls`), as plain data a project index can keep.

A summary of one file, used to compose wrappers across files: a function of `b.c` that hands
its parameters to a wrapper defined in `a.c` is a wrapper too, which neither file shows alone
(`analysis.rdma_registrations` composes them over the project's summaries). A parameter the
function assigns or increments is not passed on unchanged; parentheses and casts around it are
seen through. Plain functions (`plain_function`) by name (`forwarded_calls`); C++ member
functions (`forwarded_method_calls`) as `Class::name`, their calls named by the receiver's
class where the file's declarations show it (`Class::m`), else as written (`obj.m`: a call
through a field).
"""

from __future__ import annotations

import re

from msgspec import Struct

from cursedlint.languages import CPP
from cursedlint.patterns import LazyPattern

from cursedlint.analysis.c_receivers import Receivers
from cursedlint.analysis.c_syntax import (
    ARGUMENT_NAME, callee, file_scope, function_declarator, function_name,
    method_class, parameter_names, plain_function, without_template_arguments,
)


class Forward(Struct, frozen=True, array_like=True):
    """A call of `callee` given parameters of the calling function: `pairs` (argument
    position, parameter position); `line` of its (first) call; `once`: the function calls
    `callee` once; `local`: the file defines `callee` (a call reaches that definition)."""

    callee: str
    pairs: tuple[tuple[int, int], ...]
    line: int
    once: bool
    local: bool


class Forwarder(Struct, frozen=True, array_like=True):
    """A function's forwarded calls; `static`: other files cannot call it."""

    static: bool
    calls: tuple[Forward, ...]


def exported_functions(context) -> list[str]:
    """The names of the plain functions the file defines at file scope that other files can
    call (not `static`)."""
    from cursedlint.analysis.c_memory import has_storage

    return [context.text(function[0]) for item in file_scope(context)
            if item.type == "function_definition" and (function := plain_function(item))
            is not None and not has_storage(context, item, ("static",))]


def forwarded_calls(context, skip=frozenset(), exported: bool = False) -> dict[str, Forwarder]:
    """Function name -> its `Forwarder`, for the file's plain functions not in `skip` that
    pass on a parameter (the last definition of a name, as a call reaches it). `exported`:
    only the functions other files can call and the file's functions they pass parameters
    to (what another file can reach), not every `static` one."""
    from cursedlint.analysis.c_memory import has_storage

    defined = {}
    for item in file_scope(context):
        plain = plain_function(item) if item.type == "function_definition" else None
        if plain is not None:
            defined[context.text(plain[0])] = (item, plain)
    static = {name for name, (definition, _) in defined.items()
              if has_storage(context, definition, ("static",))}
    pending = [name for name in defined if not (exported and name in static)]
    found, seen = {}, set(pending)
    while pending:
        name = pending.pop()
        if name in skip:
            continue
        _, (_, declarator, body) = defined[name]
        calls = _calls_given_parameters(context, name, declarator, body)
        if calls:
            found[name] = Forwarder(name in static, tuple(
                Forward(called, tuple(sorted(pairs)), line, once, called in defined)
                for called, (pairs, line, once) in sorted(calls.items())))
            local = [called for called in calls if called in defined and called not in seen]
            seen.update(local)
            pending.extend(local)
    return dict(sorted(found.items()))


def forwarded_method_calls(context) -> dict[str, Forwarder]:
    """`Class::name` -> its `Forwarder`, for the member functions a C++ file defines (in a
    class body or out of line) that pass on a parameter. A call is named `Class::m` where
    the receiver's class is known (`this->m`, an unqualified `m`: the caller's class), else
    as written (`ops.reg`, `f`)."""
    if context.language != CPP:
        return {}
    receivers = Receivers(context)
    found = {}
    for owner, name, definition in _member_functions(context):
        declarator = function_declarator(definition.child_by_field_name("declarator"))
        body = definition.child_by_field_name("body")
        if declarator is None or body is None or body.type != "compound_statement":
            continue
        key = f"{owner}::{name}"
        calls = _calls_given_parameters(context, key, declarator, body,
                                        lambda call, owner=owner: _member_callee(
                                            context, receivers, call, owner))
        if calls:
            found[key] = Forwarder(False, tuple(
                Forward(called, tuple(sorted(pairs)), line, once, False)
                for called, (pairs, line, once) in sorted(calls.items())))
    return found


def _member_functions(context):
    """(class, name, definition) of the member functions the file defines: out of line
    (`T C::f(...) {...}`) and in the class bodies at file scope."""
    for item in file_scope(context):
        if item.type == "template_declaration":
            item = next((child for child in item.named_children if child.type in (
                "function_definition", "class_specifier", "struct_specifier", "declaration")),
                item)
        if item.type == "function_definition":
            owner = method_class(context, item)
            name = function_name(context, item)
            if owner and name:
                yield owner, name, item
            continue
        specifier = item if item.type in _CLASSES else next(
            (child for child in item.named_children if child.type in _CLASSES), None)
        body = specifier.child_by_field_name("body") if specifier is not None else None
        named = specifier.child_by_field_name("name") if specifier is not None else None
        for member in body.named_children if body is not None and named is not None else ():
            if member.type == "template_declaration":
                member = next((child for child in member.named_children
                               if child.type == "function_definition"), member)
            name = function_name(context, member) if member.type == "function_definition" else ""
            if name:
                yield context.text(named), name, member


_CLASSES = frozenset({"class_specifier", "struct_specifier"})


def _member_callee(context, receivers: Receivers, call, owner: str) -> str:
    """How a member function's summary names a call: `Class::m` on a receiver of a known
    class that may declare a member function `m` (no data member of that name in view), the
    called text of another call through a field, the plain name of an unqualified call (a
    member function of the caller's class or a function, decided where it is composed)."""
    function = call.child_by_field_name("function")
    if function is None:
        return ""
    if function.type == "field_expression":
        field = function.child_by_field_name("field")
        name = context.text(field) if field is not None else ""
        found = receivers.receiver_class(call) if name else None
        found = found and receivers.declaring(found, name)  # (inherited: its base's)
        if found and receivers.declares(found, name):
            return f"{found}::{name}"
        return " ".join(context.text(function).split())
    return callee(context, call)


def _calls_given_parameters(context, name: str, declarator, body, callee_of=None) -> dict:
    """Callee -> (pairs, line of its first call, called once) for the calls in `body` that
    take one of the function's unchanged parameters as an argument (called once: `callee` is
    called nowhere else in `body`). The bytes show where a parameter is written as an
    argument; only those places are looked up in the tree. `callee_of(call)`: how a call is
    named (default: `callee`; otherwise called once where its last name is spelled once)."""
    data, first, last = context.source.data, body.start_byte, body.end_byte
    positions = {parameter.encode(): position for position, parameter
                 in enumerate(parameter_names(context, declarator)) if parameter}
    given: dict[bytes, list] = {}
    for match in ARGUMENT_NAME.finditer(data, first, last) if positions else ():
        spelling = match.group(1)
        if spelling not in positions or _KEYWORD_BEFORE.search(data, max(first, match.start() - 8),
                                                               match.start() + 1):
            continue
        start = match.start(1)
        call = _argument_of(body.descendant_for_byte_range(start, match.end(1)), start)
        if call is not None:
            given.setdefault(spelling, []).append(call)
    found: dict[str, tuple[set, int]] = {}
    for spelling, calls in given.items():
        if _changed(data, spelling, first, last):
            continue
        for call, index in calls:
            called = callee(context, call) if callee_of is None else callee_of(call)
            if called and called != name:
                line = call.start_point[0] + 1
                pairs, earliest = found.get(called, (set(), line))
                pairs.add((index, positions[spelling]))
                found[called] = (pairs, min(earliest, line))
    text = data[first:last]
    if callee_of is not None:
        return {called: (pairs, line, _spelled_once(called, text))
                for called, (pairs, line) in found.items()}
    return {called: (pairs, line, text.count(called.encode()) == 1
                     or len(context.calls((called,), body)) == 1)
            for called, (pairs, line) in found.items()}


_LAST_NAME = LazyPattern(r"\w+$")


def _spelled_once(called: str, text: bytes) -> bool:
    """Whether the last name of a call as written (`obj.put<T>`: `put`) is spelled once in
    `text`."""
    name = _LAST_NAME.search(without_template_arguments(called).rstrip())
    return name is not None and len(re.findall(
        rb"\b%s\b" % re.escape(name.group().encode()), text)) == 1


_KEYWORD_BEFORE = LazyPattern(rb"(?<![\w$])(?:if|while|switch|return|sizeof|for)\s*\($")
"""A `(` that opens a statement's condition or a `sizeof`, not a call's arguments."""


_ASSIGNING = (b"=", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=", b"|=", b"^=", b"<<=", b">>=",
              b"++", b"--")


def _changed(data: bytes, name: bytes, first: int, last: int) -> bool:
    """Whether `name` may be assigned, incremented or handed out by address in bytes
    [first, last): a whole-word spelling, not a member (`.name`, `->name`), followed by an
    assignment operator or `++`/`--`, or after `++`/`--` or `&` (a superset: a declaration
    shadowing it, a bitwise and, or a comment counts)."""
    at = data.find(name, first, last)
    while at != -1:
        end = at + len(name)
        before = data[max(first, at - 2):at]
        whole = not (before[-1:].isalnum() or before[-1:] in (b"_", b"$")
                     or data[end:end + 1].isalnum() or data[end:end + 1] in (b"_", b"$"))
        if whole and not before.endswith((b".", b"->")):
            after = data[end:end + 8].lstrip()
            ahead = data[max(first, at - 8):at].rstrip()
            if (after.startswith(_ASSIGNING) and not after.startswith(b"==")) \
                    or ahead.endswith((b"++", b"--")) \
                    or (ahead.endswith(b"&") and not ahead.endswith(b"&&")):
                return True
        at = data.find(name, end, last)
    return False


def _argument_of(leaf, at: int) -> tuple | None:
    """(call, argument position) where the identifier `leaf` (starting at byte `at`), in
    parentheses or casts or not, is an argument of a call."""
    if leaf is None or leaf.type != "identifier" or leaf.start_byte != at:
        return None
    argument, listed = leaf, leaf.parent
    while listed is not None and listed.type in _WRAPPING:
        argument, listed = listed, listed.parent
    call = listed.parent if listed is not None else None
    if listed is None or listed.type != "argument_list" or call is None \
            or call.type != "call_expression":
        return None
    index, before = 0, argument.prev_named_sibling
    while before is not None:
        index += before.type != "comment"
        before = before.prev_named_sibling
    return call, index


_WRAPPING = frozenset({"parenthesized_expression", "cast_expression"})
