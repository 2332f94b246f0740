"""C/C++ capture helpers: a project's functions that begin a capture and return with it still
under way (`graph.start_capture(stream)`), and those that end one (`graph.end_capture(stream)`),
and the regions their callers make with them: the statements of a block between a call of an
opening helper and the end of the same capture, a closing helper's call or
`cudaStreamEndCapture` given the same stream (as written) or made on the same object
(`helper_regions`). The helpers are read per file into the project's reach facts
(`c_thread_reach.CThreadFacts.helpers`, searched for by the names of the calls that say capture);
CUR402 reads the regions like those between a begin and an end capture in one block."""

from __future__ import annotations

from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_nodes import arguments, unwrapped
from cursedlint.analysis.c_syntax import (
    block_statement, called_member, function_declarator, function_name, parameter_names,
    scope_of,
)
from cursedlint.patterns import LazyPattern

MEMBER_STREAM = -1
"""`Helper.stream` of a helper whose capture's stream is none of its parameters (a member's:
`stream_view_.value()`): the object it is called on keys the capture."""


class Helper(Struct, frozen=True, array_like=True):
    """A function that begins (`opens`) or ends a capture and not both: its name, line, the
    index of the parameter given the stream (`MEMBER_STREAM`: none) and the begin's mode
    argument as written ("" for a closing helper)."""

    name: str
    line: int
    stream: int
    mode: str
    opens: bool


class HelperRegion(Struct, frozen=True):
    """Statements of a caller's block between the call of an opening helper (`call`) and the
    end of its capture (`end`, a call)."""

    helper: Helper
    path: str
    call: object
    statements: tuple
    end: object


def helpers(context) -> tuple[Helper, ...] | None:
    """The file's capture helpers: each function definition whose own statements (not those of
    a lambda in it) begin a capture and end none, or end one and begin none."""
    from cursedlint.analysis.c_capture import C_BEGINS, C_ENDS

    found = {}
    for names, opens in ((C_BEGINS, True), (C_ENDS, False)):
        for _, call in context.calls(names):
            scope = scope_of(context, call)
            if scope is not None and scope.type == "function_definition":
                found.setdefault(scope.start_byte, [scope, [], []])[1 if opens else 2].append(call)
    made = []
    for definition, begins, ends in found.values():
        if bool(begins) == bool(ends):
            continue
        name = function_name(context, definition)
        declarator = function_declarator(definition.child_by_field_name("declarator"))
        if not name or declarator is None:
            continue
        streams = {_stream_parameter(context, call, parameter_names(context, declarator))
                   for call in begins or ends}
        if len(streams) != 1:
            continue
        mode = ""
        if begins:
            given = arguments(begins[0])
            mode = context.text(given[1]) if len(given) > 1 else ""
        made.append(Helper(name, definition.start_point[0] + 1, streams.pop(), mode,
                           bool(begins)))
    return tuple(made) or None


def _stream_parameter(context, call, parameters: list[str]) -> int:
    """The index of the parameter a begin or end capture is given as its stream (`stream`,
    `stream.value()`, `(cudaStream_t) stream`), else `MEMBER_STREAM`."""
    given = arguments(call)
    stream = unwrapped(given[0]) if given else None
    while stream is not None and stream.type == "call_expression" and not arguments(stream):
        member = called_member(stream)  # `stream.value()`, `stream.get()`
        stream = member.child_by_field_name("argument") if member is not None else None
    text = context.text(stream) if stream is not None and stream.type == "identifier" else ""
    return parameters.index(text) if text and text in parameters else MEMBER_STREAM


def _by_name(facts: dict | None) -> dict[str, tuple[str, Helper]]:
    """Name -> (path, helper) for the names every definition of which in the project's reach
    facts (`c_thread_reach.CThreadFacts.helpers`) is a helper of one kind and stream position
    (others are left out: which one a call runs is unknown)."""
    seen: dict[str, list[tuple[str, Helper]]] = {}
    for path, found in (facts or {}).items():
        for helper in found.helpers if found is not None else ():
            seen.setdefault(helper.name, []).append((path, helper))
    return {name: entries[0] for name, entries in seen.items()
            if len({(helper.opens, helper.stream) for _, helper in entries}) == 1}


def helper_regions(context, facts: dict | None) -> Iterator[HelperRegion]:
    """The regions of the linted file's blocks that the project's capture helpers open and a
    helper or an end capture closes on the same stream or object."""
    from cursedlint.analysis.c_capture import C_ENDS

    known = _by_name(facts)
    openers = {name for name, (_, helper) in known.items() if helper.opens}
    if not openers:
        return
    for name, leaf in context.tokens(openers):
        call, receiver = _call_named(context, leaf)
        path, helper = known[name]
        key = _key(context, call, receiver, helper)
        statement = block_statement(context, call) if key else None
        sibling = statement.next_named_sibling if statement is not None else None
        inside, end = [], None
        while sibling is not None and end is None:
            end = _closing(context, sibling, key, known, C_ENDS)
            if end is None:
                inside.append(sibling)
                sibling = sibling.next_named_sibling
        if end is not None:
            yield HelperRegion(helper, path, call, tuple(inside), end)


_CALLED_CAPTURE = LazyPattern(rb"apture\w*\s*\(")
"""The rest of a call's name that says capture and its parenthesis (led by the word: `re`
tries only the places an "a" is)."""


def _named_for_capture(data: bytes) -> set[str]:
    """The names of calls in `data` that say capture (`start_capture(`, `beginCapture(`),
    CUDA's own left out (`cudaStreamGetCaptureInfo`)."""
    from cursedlint.analysis.c_capture import C_CUDA_CALL

    names = set()
    for match in _CALLED_CAPTURE.finditer(data):
        start = match.start()
        while start > 0 and (data[start - 1] == 95 or 48 <= data[start - 1] <= 57
                             or 65 <= data[start - 1] <= 90 or 97 <= data[start - 1] <= 122):
            start -= 1
        name = data[start:match.end() - 1].rstrip().decode("ascii", "replace")
        if not C_CUDA_CALL.fullmatch(name):
            names.add(name)
    return names


def capture_named_calls(context) -> set[str]:
    """The names of the file's calls that say capture (once per file): the helpers it may call,
    which the project reach searches for (`c_thread_reach`)."""
    return context.of_tree(_named_for_capture, lambda: _named_for_capture(context.source.data))


def region_statements(context) -> Iterator:
    """The statements of the blocks after a call whose name says capture, up to the next such
    call or the block's end: a superset of the file's helper regions, known from the file alone
    (the project reach searches for what they call, `c_thread_reach`)."""
    names = capture_named_calls(context)
    for _, leaf in context.tokens(names) if names else ():
        call, _ = _call_named(context, leaf)
        statement = block_statement(context, call) if call is not None else None
        sibling = statement.next_named_sibling if statement is not None else None
        while sibling is not None and next(iter(context.tokens(names, sibling)), None) is None:
            yield sibling
            sibling = sibling.next_named_sibling


def _call_named(context, leaf) -> tuple:
    """(the call a name token is the function of, the object of a member call or None), or
    (None, None)."""
    parent = context.parent(leaf)
    if parent is not None and parent.type == "field_expression" and leaf.type == "field_identifier":
        call = context.parent(parent)
        if call is not None and call.type == "call_expression" and called_member(call) == parent:
            return call, parent.child_by_field_name("argument")
        return None, None
    call = context.call_of(leaf)
    return call, None


def _key(context, call, receiver, helper: Helper) -> tuple | None:
    """What identifies the capture a helper's call begins or ends: ("stream", text) for a
    stream it is given, ("object", text) for the object of a member call where the stream is
    a member's."""
    if call is None:
        return None
    if helper.stream == MEMBER_STREAM:
        return ("object", context.text(receiver)) if receiver is not None else None
    given = arguments(call)
    return ("stream", context.text(given[helper.stream])) \
        if helper.stream < len(given) else None


def _closing(context, statement, key: tuple, known: dict, ends) -> object | None:
    """The call in `statement` that ends the capture `key` names: a closing helper's, or an end
    capture given the same stream."""
    closers = {name for name, (_, helper) in known.items() if not helper.opens}
    for name, leaf in context.tokens(closers, statement) if closers else ():
        call, receiver = _call_named(context, leaf)
        if _key(context, call, receiver, known[name][1]) == key:
            return call
    if key[0] == "stream":
        for _, call in context.calls(ends, statement):
            given = arguments(call)
            if given and context.text(given[0]) == key[1]:
                return call
    return None
