"""C/C++ functions that make a call a capture prohibits (a synchronization, a query, a
synchronous allocation or copy: `c_capture.C_SYNC_NAMES`), by themselves or through the file's
own functions: what CUR402 follows from a call between a begin and an end capture, into the
linted file's functions and those other files of the project define (`SyncFunctionIndex`).

Only calls that run whenever the function runs count: one under an `if`, `switch`, `?:`,
`&&`/`||` or a preprocessor conditional (`#ifdef DEBUG cudaDeviceSynchronize(); #endif`) does
not; a loop's body does. A function of another file is followed one call deep (the file
summarizes its own functions through its own calls), and only where every file of the project
that defines a function of that name agrees."""

from __future__ import annotations

from msgspec import Struct

from cursedlint.analysis.c_capture import C_BEGINS, C_SYNC_NAMES
from cursedlint.analysis.c_syntax import plain_function, scope_of
from cursedlint.analysis.capture_regions import LOCAL_DEPTH
from cursedlint.analysis.c_function_pointers import built_for
from cursedlint.findings import Step
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer

_CONDITIONAL = frozenset({"if_statement", "switch_statement", "conditional_expression",
                          "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                          "preproc_elifdef", "case_statement"})
"""Nodes under which a call may not run when its function does (with `&&`/`||`)."""


class SyncCall(Struct, frozen=True):
    """Where a function of a file makes a prohibited call: `line` of the call of `api`
    (directly, or in the last of `through`, the file's functions it calls on the way)."""

    line: int
    api: str
    through: tuple[str, ...] = ()


class SyncFunctions(Struct, frozen=True):
    """A file's functions that make a prohibited call whenever they run: name -> `SyncCall`."""

    functions: dict[str, SyncCall] = {}


def sync_functions(context) -> SyncFunctions:
    """The file's `SyncFunctions` (computed once per file)."""
    return context.shared(SyncFunctions, lambda: _summary(context))


def _summary(context) -> SyncFunctions:
    found: dict[str, SyncCall] = {}
    for name, call in context.calls(C_SYNC_NAMES):
        function = _unconditional_in(context, call)
        if function is not None and function not in found:
            found[function] = SyncCall(call.start_point[0] + 1, name)
    new = dict(found)
    for _ in range(LOCAL_DEPTH):  # the file's functions calling those found, and so on
        added: dict[str, SyncCall] = {}
        for name, call in context.calls(set(new)):
            function = _unconditional_in(context, call)
            if function is not None and function not in found and function not in added:
                inner = new[name]
                added[function] = SyncCall(inner.line, inner.api, (name, *inner.through))
        found.update(added)
        new = added
        if not new:
            break
    return SyncFunctions(found)


def _unconditional_in(context, call) -> str | None:
    """The plain function whose every run makes `call`, or None."""
    scope = scope_of(context, call)
    plain = plain_function(scope) if scope is not None and \
        scope.type == "function_definition" else None
    if plain is None:
        return None
    for ancestor in context.ancestors(call):
        if ancestor == scope:
            return context.text(plain[0])
        if ancestor.type in _CONDITIONAL or (
                ancestor.type == "binary_expression"
                and ancestor.child_by_field_name("operator").type in ("&&", "||")):
            return None
    return None


class SyncFunctionIndex(Indexer):
    """The `SyncFunctions` of the project's C/C++ files."""

    name = "c-device-syncs"
    languages = (C, CPP)
    summary_type = SyncFunctions
    max_rounds = 0

    def words(self, settings):
        return C_SYNC_NAMES

    def needed_by(self, context) -> bool:
        """Only a file that begins a capture calls functions inside one."""
        return bool(context.calls(C_BEGINS))

    def summarize(self, context):
        found = sync_functions(context)
        return found if found.functions else None


SYNC_FUNCTIONS = SyncFunctionIndex()


def reaches_sync(context, facts: dict, name: str) -> tuple[SyncCall, str] | None:
    """How a call of the function `name` from the linted file makes a prohibited call:
    (where, the path of the file defining it): the file's own function first, else the one
    function of that name every file of the project (`facts`: path -> SyncFunctions) that
    has one agrees on; None when none does or they disagree."""
    own = sync_functions(context).functions.get(name)
    if own is not None:
        return own, context.source.path
    found = built_for(facts, "sync functions", _by_name).get(name)
    return found if found is not None and found is not _AMBIGUOUS else None


_AMBIGUOUS = (SyncCall(0, ""), "")


def _by_name(facts: dict) -> dict:
    """Name -> (SyncCall, path) of the project's sync functions, `_AMBIGUOUS` for a name two
    files define (two static functions, or two builds' versions: which one is called is not
    known)."""
    found: dict = {}
    for path, summary in sorted(facts.items()):
        for name, call in summary.functions.items():
            found[name] = (call, path) if name not in found else _AMBIGUOUS
    return found


def sync_steps(path: str, name: str, call: SyncCall) -> tuple[Step, ...]:
    """The chain from a call of `name` to its prohibited call, for a finding."""
    functions = (name, *call.through)
    note = " -> ".join(f"{function}()" for function in functions)
    return (Step(path, call.line, f"{note} calls {call.api}(), prohibited while a stream "
                                  "captures"),)
