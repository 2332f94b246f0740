"""What the callers of a C/C++ function hand it for a pointer parameter, across the project's
files (memory facts for `analysis.c_memory`'s provenance).

A registering function often gets its buffer through a parameter (`dev_init(ctx, ...)` then
`ibv_reg_mr(pd, &ctx->results, ...)`): within the function the memory is not known. Its callers
know it: each file's summary (`CallerBlocks`) keeps, for every call of a plain function, what
each argument is in the caller, as the caller's file alone shows it (`Given`): a block of whole
pages of its own, a heap block that shares its pages (its size known and under the mmap
threshold), the caller's own pointer parameter (followed to its callers in turn, up to
`MAX_DEPTH` calls up), or not known. `passed_in` combines them: a block of whole pages where
every call of the function the project shows passes one, a shared heap block where some call
does (that call registers it); nothing (not known) where a call passes memory not known, where
no call is seen, or where the function's name is also used as a value (stored in a field,
passed to another function: callers through a pointer are not seen).

The files read (`rules.rdma_registration.ParameterBlockIndex`) are those naming the functions
asked about: the linted file's registering functions whose memory comes through a parameter,
then the functions whose parameter their callers pass on, bounded in rounds, files and bytes.
"""

from __future__ import annotations

import re
from functools import partial

from msgspec import Struct

from cursedlint.analysis.c_syntax import arguments, unwrapped

INDEX = "c-parameter-blocks"  # the project index's name (`rules.rdma_registration`)
MAX_DEPTH = 3
"""Calls up a parameter is followed through callers that pass their own parameter on."""

_CALLED = re.compile(rb"(?<![\w$.>:])[A-Za-z_]\w*(?=\s*\()")
"""A name called as a plain function (`f(`), not a method or member (`a.f(`, `p->f(`)."""
_VALUE_PARENTS = frozenset({"argument_list", "init_declarator", "initializer_list",
                            "initializer_pair", "assignment_expression", "return_statement"})
"""Where a function's bare name used as a value is stored or passed on."""


class Given(Struct, frozen=True, array_like=True):
    """One argument of one call: `kind` "whole" (a block of whole pages of its own), "heap" (a
    heap block sharing its pages), "parameter" (the caller's own pointer parameter: `function`
    and `position`; `static`: only its file can call it), "" (not known); `what` and `line`
    say what and where, for the chain."""

    kind: str
    what: str = ""
    line: int = 0
    function: str = ""
    position: int = -1
    static: bool = False


class CallerBlocks(Struct, frozen=True):
    """A file's facts: `calls` callee -> one list of `Given` per call (argument by argument);
    `values` the names it uses as values (a function stored or passed on: its calls through a
    pointer are not seen)."""

    calls: dict[str, list[list[Given]]] = {}
    values: list[str] = []


def caller_blocks(context, names: frozenset[str] | None = None) -> CallerBlocks | None:
    """The file's `CallerBlocks`, from its own text (its own page allocators only; a caller's
    own parameter is kept as such, not followed here); `names`: of these functions' calls
    only (None: of every plain function's)."""
    from cursedlint.analysis.c_allocators import file_allocators
    from cursedlint.analysis.c_constants import CConstants
    from cursedlint.analysis.c_memory import MemoryProvenance

    found = context.calls(_CALLED if names is None else names)
    values = sorted({context.text(leaf) for _, leaf in context.tokens(
        _BARE if names is None else names) if leaf.type == "identifier"
        and _as_value(context, leaf)})
    if not (found or values):
        return None
    constants = CConstants(context)
    allocators, rounding, library = file_allocators(context, None)
    provenance = MemoryProvenance(context, partial(constants.evaluate, assignments=True),
                                  context.settings.page_size, allocators, rounding,
                                  constants.assigned, library)
    calls: dict[str, list[list[Given]]] = {}
    for name, call in found:
        given = [_given(context, provenance, argument) for argument in arguments(call)]
        calls.setdefault(name, []).append(given)
    return CallerBlocks(calls, values)


_BARE = re.compile(rb"(?<![\w$.>:&*])[A-Za-z_]\w*(?=\s*[,;})])")
"""A name followed by what ends a value (`f,` `f;` `f)` `f}`): a candidate function value."""


def _as_value(context, leaf) -> bool:
    parent = context.parent(leaf)
    return parent is not None and parent.type in _VALUE_PARENTS and (
        parent.type != "assignment_expression" or parent.child_by_field_name("right") == leaf)


def _given(context, provenance, argument) -> Given:
    node = unwrapped(argument)
    if node is None or node.type not in ("identifier", "pointer_expression", "field_expression",
                                         "binary_expression"):
        return _UNKNOWN
    found = provenance.of(argument)
    line = argument.start_point[0] + 1
    if found.kind == "page-aligned" and found.whole:
        return Given("whole", found.what, line)
    if found.kind == "heap" and not found.offset:
        return Given("heap", found.what, line)
    passed = provenance.passed.get(argument.id) if node.type == "identifier" else None
    if passed is not None:
        return Given("parameter", found.what, line, *passed)
    return _UNKNOWN


_UNKNOWN = Given("")


def passed_in(facts: dict, function: str, position: int, only: str | None = None,
              depth: int = 0, seen: frozenset = frozenset()) -> tuple[Given, str, str] | None:
    """What every call of `function` the project shows passes as argument `position` (`only`:
    the calls of that file, where the function is `static` there): (a `Given` of kind "whole"
    or "heap", the path of the caller's file, the function called there) or None (not
    known)."""
    files = sorted(facts.items()) if only is None else [(only, facts[only])] \
        if only in facts else []
    if depth > MAX_DEPTH or (function, position) in seen or any(
            function in found.values for _, found in files):
        return None
    seen = seen | {(function, position)}
    whole, known = None, True
    for path, found in files:
        for call in found.calls.get(function, ()):
            given = call[position] if position < len(call) else _UNKNOWN
            step = (given, path, function)
            if given.kind == "parameter":
                step = passed_in(facts, given.function, given.position,
                                 path if given.static else None, depth + 1, seen) \
                    or (_UNKNOWN, path, function)
            if step[0].kind == "heap":
                return step
            if step[0].kind == "whole":
                whole = whole or step
            else:
                known = False
    return whole if known else None


def caller_provenance(facts: dict, function: str, position: int, only: str | None = None):
    """`passed_in` as `c_memory.Provenance` (None: not known)."""
    import os

    from cursedlint.analysis.c_memory import Provenance

    found = passed_in(facts, function, position, only)
    if found is None:
        return None
    given, path, called = found
    name = os.path.basename(path)
    what = f"its caller's {given.what} of {name}, passed to {called}() at {name}:{given.line}"
    if given.kind == "whole":
        return Provenance("page-aligned", what, whole=True)
    return Provenance("heap", what, "neighbouring heap blocks and malloc's chunk headers (blocks "
                      "below the 128 KiB mmap threshold share pages)")


def passed_on(facts: dict) -> set[str]:
    """The functions (not `static`: their calls are in their own file) whose parameter a call
    passes on: their callers are read next."""
    return {given.function for found in facts.values() for calls in found.calls.values()
            for call in calls for given in call if given.kind == "parameter" and not given.static}
