"""Calls that run `ibv_fork_init()` through a function pointer (CUR103 in C/C++), over the
project's function-pointer graph (`c_function_pointers`).

A library that loads libibverbs at run time keeps its functions in a table of pointers
(`LOAD_SYM(handle, "ibv_fork_init", ftable->fork_init)`, `tbl->fork_init = (T)dlsym(handle,
"ibv_fork_init")`, `.fork_init = &ibv_fork_init`) and calls `ftable.fork_init()` in another
file, or hands the call to a checking macro whose body makes it through the table
(`IBV_CHECK(syms, fork_init(), -1)` with `#define IBV_CHECK(t, call, bad) ... t.call`), or
keeps it in a pointer the file declares (`int (*fork_init_fn)(void);`, a field of the graph
by its name) and calls `fork_init_fn()`. A
call through a field every function of which is `ibv_fork_init` is a call of it (a field
that also holds another function, or any value that is not a function, is not followed:
`FunctionPointerGraph.agreeing`). Registrations (CUR301/CUR302) and CMA calls (CUR601) do not
follow calls handed to such macros or such pointers yet (`indirect_calls`'
`through_macros`).

`FORK_INIT_CALLERS` is the project index: each C/C++ file holding `ibv_fork_init` (or, in later
rounds, a loader macro it is loaded with, or a field holding it) gives its `FieldFlows`; the
fields holding `ibv_fork_init` are trigger words, so a file calling through one is linted for
CUR103 though it never names `ibv_fork_init`.
"""

from __future__ import annotations

import os

from msgspec import Struct

from cursedlint.analysis.c_function_pointers import (
    FieldFlows, built_for, called_text, field_flows, project_graph,
)
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer

FORK_INIT = "ibv_fork_init"


def _is_fork_init(function: str, path: str) -> bool | None:
    """What a function stored in a field does for CUR103: True for `ibv_fork_init`."""
    return function == FORK_INIT or None


def fork_init_fields(facts: dict) -> set[str]:
    """The fields of the project (path -> `ForkInitFlows`) every function of which is
    `ibv_fork_init` (worked out once per run)."""
    return built_for(facts, "fork-init fields",
                     lambda found: set(project_graph(found).agreeing(
                         _is_fork_init, answering=(FORK_INIT,))))


def fork_init_calls(context, facts: dict | None) -> list[tuple[object, str, tuple]]:
    """(call, how it names its callee, chain) for the file's calls through a field every
    function of which is `ibv_fork_init` (`facts`: the index's, None where it was not
    gathered: then the file's own flows are read now)."""
    graph = project_graph(facts or {})
    if facts is None:
        graph = graph.overlay(os.path.abspath(context.source.path), field_flows(context))
    found = []
    for _, call, _, candidates in graph.resolved_calls(
            context, _is_fork_init, fork_init_fields(facts or {}), through_macros=True,
            answering=(FORK_INIT,)):
        label = called_text(context, call)
        found.append((call, label, tuple(step for candidate in candidates
                                         for step in candidate.steps(label))))
    return found


class ForkInitFlows(Struct, frozen=True):
    """A file's summary in the index: its function-pointer flows."""

    flows: FieldFlows


class ForkInitCallers(Indexer):
    """The `FieldFlows` of the project's C/C++ files that load, store or call through a field
    `ibv_fork_init`."""

    name = "fork-init-callers"
    languages = (C, CPP)
    summary_type = ForkInitFlows

    def words(self, settings):
        return (FORK_INIT,)

    def summarize(self, context):
        flows = field_flows(context)
        return ForkInitFlows(flows) if flows else None

    adds_triggers = True

    def more_words(self, facts, settings):
        """The macros `ibv_fork_init` is loaded with (where they are defined: loaders?) and
        the fields holding it (where else they are stored, and called)."""
        graph = project_graph(facts)
        return {*graph.loader_macros({FORK_INIT}), *graph.holding({FORK_INIT})}

    def trigger_words(self, facts):
        """The fields every function stored in which is `ibv_fork_init`."""
        return fork_init_fields(facts)


FORK_INIT_CALLERS = ForkInitCallers()
