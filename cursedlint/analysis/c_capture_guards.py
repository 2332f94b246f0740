"""Device-wide synchronizations in C, C++ and CUDA guarded by the capture status of one
stream: `if (status == cudaStreamCaptureStatusNone) cudaDeviceSynchronize();` after
`cudaStreamIsCapturing(s, &status)`. CUDA makes synchronizing the device (or context) invalid
while any of its streams captures, so the guard covers the project's captures only where each
begins on that stream: `wrong_stream_guards` gives the guards where the project (`CAPTURE_STREAMS`:
the streams its begin-capture calls name, in every file: `c_capture_streams`) begins one on another. CUR402 reads
them."""

from __future__ import annotations

import os
import re
from typing import Iterator, NamedTuple

from cursedlint.analysis.c_capture import C_BEGINS, first_argument
from cursedlint.analysis.c_syntax import arguments, conditions_of, unwrapped
from cursedlint.analysis.cuda_use import C_DEVICE_SYNCS

_QUERY = re.compile(rb"(?<!\w)\w*[Ss]treamIsCapturing\w*")  # (a word's start: see c_calling_macros)
"""A stream's capture status query: `cudaStreamIsCapturing`, `cuStreamIsCapturing`, a
project's `api->streamIsCapturing` wrapper. (`cudaStreamGetCaptureInfo` is not read: one more
search of every file for a rarer spelling.)"""
_NONE = ("StatusNone", "STATUS_NONE")
"""How the "not capturing" status is spelt (`cudaStreamCaptureStatusNone`,
`CU_STREAM_CAPTURE_STATUS_NONE`)."""
_RETURNS = frozenset({"return_statement", "throw_statement", "break_statement",
                      "continue_statement", "goto_statement"})


class Begin(NamedTuple):
    """A begin-capture call of the project: its stream as written, file and line."""

    stream: str
    path: str
    line: int


class Guard(NamedTuple):
    """A device-wide synchronization (`sync`, named `name`) run only when the status `query`
    says the stream written `stream` does not capture."""

    sync: object
    name: str
    stream: str
    query: object


def begins(context) -> tuple[tuple[str, int], ...]:
    """(stream as written, line) of the file's begin-capture calls."""
    return tuple((first_argument(context, call) or "", call.start_point[0] + 1)
                 for _, call in context.calls(C_BEGINS))


def guards(context) -> tuple[Guard, ...]:
    """The file's device-wide synchronizations guarded only by one stream's capture status
    (`Guard`): each condition around the call (or an earlier `if` of its blocks that leaves
    them) asks that status, or nothing about captures. A guard that asks anything else about
    captures (`is_context_capturing(ctx)`) may cover the others: none is given there. Read
    once per file."""
    return context.of_tree(Guard, lambda: tuple(_read_guards(context)))


def _read_guards(context) -> Iterator[Guard]:
    if b"IsCapturing" not in context.source.data:
        return  # (no status query: `_QUERY` finds none)
    for name, sync in context.calls(C_DEVICE_SYNCS):
        found = _guard(context, sync)
        if found is not None:
            yield Guard(sync, name, *found)


def wrong_stream_guards(context, facts: dict | None) -> Iterator[tuple[Guard, Begin]]:
    """The `guards` whose stream is not the one a begin-capture call of the project (the
    linted file's, and `facts`: path -> `begins`) names: (guard, that begin)."""
    guarded = guards(context)
    if not guarded:
        return
    own = os.path.abspath(context.source.path)
    known = {path: found for path, found in sorted((facts or {}).items()) if path != own}
    started = [Begin(stream, path, line) for path, found in ((own, begins(context)),
                                                            *known.items())
               for stream, line in found]
    for guard in guarded if started else ():
        other = next((begin for begin in started if begin.stream != guard.stream), None)
        if other is not None:
            yield guard, other


def _guard(context, sync) -> tuple[str, object] | None:
    """(stream, query) of the one status check that guards `sync`, or None: every `if` around
    it (and earlier `if` of its blocks that leaves them) tests a status as not capturing
    where the call runs (noted in `statuses`) or asks nothing about captures, and nothing
    else around it asks about captures."""
    statuses: list[str] = []
    found, scope = conditions_of(context, sync, _leaves_block,
                                 ("function_definition", "lambda_expression"))
    for condition in found if scope is not None else ():
        if condition.exits:
            status = _not_capturing(context, condition.condition, False)
            if status is not None:
                statuses.append(status)
            elif _asks_about_capture(context, condition.condition):
                return None
        elif condition.node.type == "if_statement":
            if not _reads(context, condition.condition, condition.taken, statuses):
                return None
        elif condition.node.type in ("conditional_expression", "binary_expression") and \
                _asks_about_capture(context, condition.node):
            return None
    return _queried(context, scope, statuses) if scope is not None else None


def _reads(context, condition, taken: bool, statuses: list[str]) -> bool:
    """Whether a condition under which the call runs (`taken`: as written, else negated) is
    a "not capturing" test of a status (noted in `statuses`) or asks nothing about captures;
    operands of `&&` (as written) are read alone."""
    if condition is None:
        return True
    if taken and condition.type == "binary_expression" and \
            condition.child_by_field_name("operator").type == "&&":
        return all(_reads(context, unwrapped(operand), True, statuses) for operand in (
            condition.child_by_field_name("left"), condition.child_by_field_name("right")))
    status = _not_capturing(context, condition, taken)
    if status is not None:
        statuses.append(status)
        return True
    return not _asks_about_capture(context, condition)


def _leaves_block(statement) -> bool:
    """An `if` with no `else` whose consequence ends by leaving the block."""
    return statement.child_by_field_name("alternative") is None and \
        _leaves(statement.child_by_field_name("consequence"))


def _leaves(statement) -> bool:
    if statement is not None and statement.type == "compound_statement":
        statement = statement.named_children[-1] if statement.named_children else None
    return statement is not None and statement.type in _RETURNS


def _not_capturing(context, condition, taken: bool) -> str | None:
    """The status variable `condition` tests as "not capturing" where it holds (`taken`) or
    fails: `s == ...StatusNone`, `s != ...StatusNone`, `!s`."""
    if condition is None:
        return None
    if condition.type == "unary_expression" and context.text(
            condition.child_by_field_name("operator")) == "!":
        operand = unwrapped(condition.child_by_field_name("argument"))
        return context.text(operand) if taken and operand is not None and \
            operand.type == "identifier" else None
    if condition.type != "binary_expression":
        return None
    operator = condition.child_by_field_name("operator").type
    if operator not in ("==", "!=") or (operator == "==") != taken:
        return None
    left, right = (unwrapped(condition.child_by_field_name(side)) for side in ("left", "right"))
    for status, constant in ((left, right), (right, left)):
        if status is not None and constant is not None and status.type == "identifier" and \
                context.text(constant).endswith(_NONE):
            return context.text(status)
    return None


def _asks_about_capture(context, node) -> bool:
    return node is not None and "captur" in context.text(node).lower()


def _queried(context, function, statuses: list[str]) -> tuple[str, object] | None:
    """(stream, query) where the function fills the one status its guard tests by a status
    query (`cudaStreamIsCapturing(stream, &status)`), or None."""
    if len(set(statuses)) != 1:
        return None
    found = None
    for _, leaf in context.tokens(_QUERY, function):
        call = context.parent(leaf)
        if call is not None and call.type == "field_expression":
            call = context.parent(call)
        if call is None or call.type != "call_expression":
            continue
        given = arguments(call)
        if len(given) > 1 and given[1].type == "pointer_expression" and context.text(
                given[1].child_by_field_name("argument")) == statuses[0]:
            if found is not None:
                return None  # (two queries fill it: which stream is not known)
            found = (context.text(given[0]), call)
    return found
