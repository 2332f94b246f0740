"""The project's cross-memory-attach (CMA) facts, as `CmaFailureAborts` and its index keep
them: each file's `CmaFunctions` and what the whole project's summaries give together (wrappers,
error codes handed on across files, fatal handlers, fields every function stored in which
copies)."""

from __future__ import annotations

import os

from msgspec import Struct

from cursedlint.analysis.c_conditions import described, literal
from cursedlint.analysis.c_error_codes import ErrorCode, PassingOn, composed_codes
from cursedlint.analysis.c_fatal import Fatal, Forward, reachable_handlers, resolved
from cursedlint.analysis.c_system_calls import spellings
from cursedlint.analysis.includes import IncludedHeaders, header_constants
from cursedlint.findings import Step
from cursedlint.analysis.c_function_pointers import (
    FieldFlows, built_for, called_text, field_flows, project_graph, wrappers_by_name,
)

CMA_FUNCTIONS = ("process_vm_readv", "process_vm_writev")
CMA_ARITIES = dict.fromkeys(CMA_FUNCTIONS, 6)
"""What each takes (pid, local iovecs and count, remote iovecs and count, flags): a call through
a field holding one passes six arguments."""
CMA_WORDS = (*CMA_FUNCTIONS, *spellings(CMA_FUNCTIONS))
"""What marks a file that may copy: the calls' names and their numbers' spellings (a
`syscall(SYS_process_vm_readv, ...)` is the call, `analysis.c_system_calls`)."""
FACTS_INDEX = "cma-wrappers"  # CUR601's project index (its name)
HEADERS = IncludedHeaders("cma-headers", CMA_WORDS, after=(FACTS_INDEX,),
                          more_words=lambda gathered: failing_names(
                              gathered.get(FACTS_INDEX) or {}))
"""The project headers and `-D` macros of the files holding a copy or a call of a name whose
failure the facts follow (`failing_names`): the error codes and values their checks compare
with may be defined there. Read at lint time only: the files' summaries (`CmaFunctions`,
gathered before these) are made from each file's own text."""


def evaluator(context, headers: bool = True):
    """`CConstants.evaluate` of the file; what its own text leaves unknown, after its project
    headers and `-D` macros (`HEADERS`, which come after the file's definitions: those the file
    gives are the same), unless `headers` is false (a file's summary). The headers' evaluator
    is made at the first unknown (it parses the headers holding the names it is asked)."""
    from cursedlint.analysis.c_constants import CConstants  # only files that need it pay the import
    from cursedlint.python.consteval import UNKNOWN

    own = CConstants(context).evaluate
    if not headers:
        return own
    seen: list = []

    def evaluate(node, **options):
        found = own(node, **options)
        if found is not UNKNOWN:
            return found
        if not seen:
            seen.append(CConstants(context, extra=header_constants(context, HEADERS)).evaluate)
        return seen[0](node, **options)
    return evaluate


class CmaFunctions(Struct, frozen=True):
    """A file's functions that return a CMA result unchanged or with -1 still meaning failure
    (name -> the CMA function), those that return an error code when the copy failed, the
    functions it stores in struct fields or passes on (`flows`), its fatal handlers
    (`analysis.c_fatal`) and the functions it calls where it checks another's result
    (`checked`, `c_fatal.checked_calls`: where a handler of another file may be), those
    that may hand on another file's error code (`passing`, `c_error_codes.passing_on`), and
    the calls its macros make with conditions on their parameters (a handler of another
    file, perhaps: `forwards`, `c_fatal.forwards`), and the functions it defines that throw or
    jump out (`escaping`, `c_noreturn.escaping`: no fatal handler, though declared never to
    return), and its macros standing for a CMA call's number (`aliases`, a header's
    `#define NR_PEEK SYS_process_vm_readv`: `c_system_calls`)."""

    wrappers: dict[str, str] = {}
    codes: dict[str, ErrorCode] = {}
    flows: FieldFlows = FieldFlows()
    fatal: dict[str, Fatal] = {}
    checked: dict[str, tuple[str, ...]] = {}
    passing: dict[str, PassingOn] = {}
    forwards: dict[str, tuple[Forward, ...]] = {}
    escaping: frozenset[str] = frozenset()
    aliases: dict[str, str] = {}


def cma_stored(facts: dict, function: str, path: str, own: dict | None = None) -> str | None:
    """The CMA function whose result `function`, stored in a field at `path`, returns: itself,
    a wrapper of that file (`own`: the linted file's names), else the one project wrapper of
    that name (path -> `CmaFunctions`); None if none."""
    if function in CMA_FUNCTIONS:
        return function
    here = own if own is not None else getattr(facts.get(path), "wrappers", {})
    if function in here:
        return here[function]
    found = built_for(facts, "cma exports", wrappers_by_name).get(function, ())
    return next(iter(found)) if len(found) == 1 else None


def all_wrappers(facts: dict) -> dict[str, str]:
    """Name -> CMA function of every project file's wrappers (later paths win, as in the
    order the facts were gathered)."""
    found: dict[str, str] = {}
    for summary in facts.values():
        found.update(summary.wrappers)
    return found


def all_aliases(facts: dict) -> dict[str, str]:
    """Macro name -> CMA function of every project file's macros standing for its number."""
    return {name: call for summary in facts.values() for name, call in summary.aliases.items()}


def all_codes(facts: dict) -> dict[str, tuple[str, ErrorCode]]:
    """Name -> (path, error code) of every project file's functions that return one, also by
    handing on another file's (`c_error_codes.composed_codes`)."""
    return composed_codes(
        {name: (path, code) for path, summary in facts.items()
         for name, code in summary.codes.items()},
        {name: (path, passing) for path, summary in facts.items()
         for name, passing in summary.passing.items()})


def all_fatal(facts: dict) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of every project file's fatal handlers, and of the macros that
    hand a handler of another file what it ends the process on (`c_fatal.resolved`); a
    function declared never to return that a file defines throwing or jumping out is none,
    and one read from a definition's body is kept rather than its declaration."""
    leaving = {name for summary in facts.values() for name in summary.escaping}
    found = sorted(((fatal.declared, name, path, fatal) for path, summary in facts.items()
                    for name, fatal in summary.fatal.items()),
                   key=lambda each: not each[0])  # (one read from a body wins: its chain)
    return resolved({name: (path, fatal) for declared, name, path, fatal in found
                     if not (declared and name in leaving)},
                    {name: (path, made) for path, summary in facts.items()
                     for name, made in summary.forwards.items()})


def handed_failures(facts: dict, failing: set[str]) -> set[str]:
    """The names a failure of one of `failing` may be handed to, in a check's branch or as
    an argument (`CmaFunctions.checked`), and those these forward it to, as far as the facts
    show: where a fatal handler may be defined."""
    wanted = {name for found in facts.values() for checked, names in found.checked.items()
              if checked in failing for name in names}
    pending = set(wanted)
    while pending:
        pending = {forward.calls for found in facts.values() for name in pending
                   for forward in found.forwards.get(name, ())} - wanted
        wanted |= pending
    return wanted


def fatal_of(context, facts: dict, value=literal) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of the fatal handlers a call of the file may reach (`value`:
    the file's constants, for its handlers' conditions)."""
    return reachable_handlers(context, built_for(facts, "cma fatal", all_fatal), value)


def project_cma_fields(facts: dict) -> set[str]:
    """The fields of the project (path -> `CmaFunctions`) every function of which returns a
    CMA result, worked out once per run."""
    if not facts:
        return set()  # (no field: none agrees; a lint before the facts asks once per file)
    return built_for(facts, "cma fields", lambda found: set(project_graph(found).agreeing(
        copying(found), answering=copying_names(found))))


def field_copies(context, facts: dict, own_names: dict, indexed: bool) -> list[tuple]:
    """(label, call, chain, CMA function) for the file's calls through a field every function
    of which returns a CMA result (`tbl[op].fn`), `own_names` the file's CMA names; `indexed`:
    the project index summarized the file (else its flows are read now)."""
    own = os.path.abspath(context.source.path)  # as the project index keys it
    graph = project_graph(facts)
    if not indexed:
        graph = graph.overlay(own, field_flows(context))
    found = []
    for _, call, _, candidates in graph.resolved_calls(
            context, copying(facts, own, own_names), project_cma_fields(facts),
            answering=copying_names(facts, own_names), arities=CMA_ARITIES):
        label = called_text(context, call)
        copies = {cma_stored(facts, candidate.function, candidate.path,
                             own_names if candidate.path == own else None)
                  for candidate in candidates}
        underlying = "process_vm_readv/writev" if len(copies) > 1 else copies.pop()
        found.append((label, call, tuple(step for candidate in candidates
                                         for step in candidate.steps(label)), underlying))
    return found


def copying(facts: dict, own_path: str | None = None, own: dict | None = None):
    """The question a field's candidates must agree on: "CMA" for a function (stored at
    `path`) that returns a CMA result, else None (the linted file at `own_path` has the
    names `own`)."""
    def copies(function: str, path: str) -> str | None:
        own_names = own if path == own_path else None
        return "CMA" if cma_stored(facts, function, path, own_names) is not None else None
    return copies


def copying_names(facts: dict, own: dict | None = None) -> set[str]:
    """The only functions `copying(facts, ..., own)` may answer for: the CMA functions, the
    linted file's names (`own`) and the project's files' wrappers."""
    return {*CMA_FUNCTIONS, *(own or ()), *built_for(facts, "cma exports", wrappers_by_name)}


def failing_names(facts: dict) -> set[str]:
    """The names whose failure the project's CMA facts (path -> `CmaFunctions`) follow: the
    CMA functions, every file's wrappers, the error codes (composed through `passing`) and
    the fields every function of which copies. Only a file calling one of them can have a
    `checked` entry or a `passing` function that matters (each is keyed by, or hands on, a
    name the file calls)."""
    return {*CMA_FUNCTIONS, *all_wrappers(facts), *built_for(facts, "cma codes", all_codes),
            *project_cma_fields(facts)}


def handler_steps(fatal: dict[str, tuple[str, Fatal]], name: str) -> tuple[Step, ...]:
    """Where the fatal handler `name` is defined and the call by which it ends the process, to
    `abort()` (`fatal`: name -> (path, Fatal), `fatal_of`)."""
    steps = []
    while name in fatal and len(steps) < 8:
        path, handler = fatal[name]
        when = (f"ends the process if ({described(handler.when, handler.parameter)})"
                if handler.conditional else "always ends the process")
        if handler.declared:
            steps.append(Step(path, handler.line, f"{name}() is declared {handler.calls}: "
                                                  "it never returns"))
            break
        steps.append(Step(path, handler.line, f"{name}() {when}: it calls {handler.calls}()"))
        name = handler.calls
    return tuple(steps)
