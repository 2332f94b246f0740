"""What the functions of a C/C++ file pass on: the calls that take one of their parameters,
unchanged, as an argument (`forwarded_calls`), as plain data a project index can keep.

A summary of one file, used to compose wrappers across files: a function of `b.c` that hands
its parameters to a wrapper defined in `a.c` is a wrapper too, which neither file shows alone
(`analysis.rdma_registrations` composes them over the project's summaries). A parameter the
function assigns or increments is not passed on unchanged; parentheses and casts around it are
seen through. Only plain functions (`plain_function`) are read: methods are called through
objects.
"""

from __future__ import annotations

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    arguments, assigns, callee, file_scope_items, parameter_names, plain_function, wrappers,
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


def forwarded_calls(context, skip=frozenset()) -> dict[str, Forwarder]:
    """Function name -> its `Forwarder`, for the file's plain functions not in `skip` that
    pass on a parameter (the last definition of a name, as a call reaches it)."""
    from cursedlint.analysis.c_memory import has_storage

    defined = {}
    for item in file_scope_items(context.root):
        plain = plain_function(item) if item.type == "function_definition" else None
        if plain is not None:
            defined[context.text(plain[0])] = (item, plain)
    found = {}
    for name, (definition, (_, declarator, body)) in defined.items():
        if name in skip:
            continue
        calls = _calls_given_parameters(context, name, declarator, body)
        if calls:
            found[name] = Forwarder(has_storage(context, definition, ("static",)), tuple(
                Forward(called, tuple(sorted(pairs)), line, once, called in defined)
                for called, (pairs, line, once) in sorted(calls.items())))
    return found


def _calls_given_parameters(context, name: str, declarator, body) -> dict:
    """Callee -> (pairs, line of its first call, called once) for the calls in `body` that
    take one of the function's unchanged parameters as an argument (called once: `callee` is
    called nowhere else in `body`)."""
    found: dict[str, tuple[set, int]] = {}
    for position, parameter in enumerate(parameter_names(context, declarator)):
        if not parameter or assigns(context, body, parameter):
            continue
        for _, leaf in context.tokens((parameter,), body):
            if leaf.type != "identifier":
                continue
            argument = leaf
            for argument in wrappers(context, leaf):
                pass
            listed = context.parent(argument)
            call = context.parent(listed) if listed is not None else None
            if listed is None or listed.type != "argument_list" or call is None \
                    or call.type != "call_expression":
                continue
            called = callee(context, call)
            index = next((i for i, given in enumerate(arguments(call))
                          if given.start_byte == argument.start_byte
                          and given.end_byte == argument.end_byte), None)
            if not called or called == name or index is None:
                continue
            pairs, line = found.setdefault(called, (set(), call.start_point[0] + 1))
            pairs.add((index, position))
            found[called] = (pairs, min(line, call.start_point[0] + 1))
    return {called: (pairs, line, len(context.calls((called,), body)) == 1)
            for called, (pairs, line) in found.items()}
