"""The project's cross-memory-attach (CMA) facts, as `CmaFailureAborts` and its index keep
them: each file's `CmaFunctions` and what the whole project's summaries give together (wrappers,
error codes handed on across files, fatal handlers, fields every function stored in which
copies)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from msgspec import Struct

from cursedlint.analysis.c_error_codes import ErrorCode, PassingOn, composed_codes
from cursedlint.analysis.c_fatal import Fatal, reachable_handlers
from cursedlint.analysis.c_function_pointers import (
    FieldFlows, built_for, project_graph, wrappers_by_name,
)
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer

CMA_FUNCTIONS = ("process_vm_readv", "process_vm_writev")


class CmaFunctions(Struct, frozen=True):
    """A file's functions that return a CMA result unchanged or with -1 still meaning failure
    (name -> the CMA function), those that return an error code when the copy failed, the
    functions it stores in struct fields or passes on (`flows`), its fatal handlers
    (`analysis.c_fatal`) and the functions it calls where it checks another's result
    (`checked`, `c_fatal.checked_calls`: where a handler of another file may be), and those
    that may hand on another file's error code (`passing`, `c_error_codes.passing_on`)."""

    wrappers: dict[str, str] = {}
    codes: dict[str, ErrorCode] = {}
    flows: FieldFlows = FieldFlows()
    fatal: dict[str, Fatal] = {}
    checked: dict[str, tuple[str, ...]] = {}
    passing: dict[str, PassingOn] = {}


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


def all_codes(facts: dict) -> dict[str, tuple[str, ErrorCode]]:
    """Name -> (path, error code) of every project file's functions that return one, also by
    handing on another file's (`c_error_codes.composed_codes`)."""
    return composed_codes(
        {name: (path, code) for path, summary in facts.items()
         for name, code in summary.codes.items()},
        {name: (path, passing) for path, summary in facts.items()
         for name, passing in summary.passing.items()})


def all_fatal(facts: dict) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of every project file's fatal handlers."""
    return {name: (path, fatal) for path, summary in facts.items()
            for name, fatal in summary.fatal.items()}


def fatal_of(context, facts: dict) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of the fatal handlers a call of the file may reach."""
    return reachable_handlers(context, built_for(facts, "cma fatal", all_fatal))


def project_cma_fields(facts: dict) -> set[str]:
    """The fields of the project (path -> `CmaFunctions`) every function of which returns a
    CMA result, worked out once per run."""
    return built_for(facts, "cma fields",
                     lambda found: set(project_graph(found).agreeing(copying(found))))


def copying(facts: dict, own_path: str | None = None, own: dict | None = None):
    """The question a field's candidates must agree on: "CMA" for a function (stored at
    `path`) that returns a CMA result, else None (the linted file at `own_path` has the
    names `own`)."""
    def copies(function: str, path: str) -> str | None:
        own_names = own if path == own_path else None
        return "CMA" if cma_stored(facts, function, path, own_names) is not None else None
    return copies


class CmaCallers(Struct, frozen=True):
    """What a file's calls of other files' functions give `CmaFunctions`, made only for the
    files that may call a name those pieces can matter for (`with_callers`): `checked` and
    `passing`, as there."""

    checked: dict[str, tuple[str, ...]] = {}
    passing: dict[str, PassingOn] = {}


def failing_names(facts: dict) -> set[str]:
    """The names whose failure the project's CMA facts (path -> `CmaFunctions`) follow: the
    CMA functions, every file's wrappers, the error codes (composed through `passing`) and
    the fields every function of which copies. Only a file calling one of them can have a
    `checked` entry or a `passing` function that matters (each is keyed by, or hands on, a
    name the file calls)."""
    return {*CMA_FUNCTIONS, *all_wrappers(facts), *built_for(facts, "cma codes", all_codes),
            *project_cma_fields(facts)}


def with_callers(facts: dict, callers: dict, calls: Callable[[str, set[str]], bool],
                 made: Callable[[str], CmaCallers | None]) -> dict:
    """The facts (path -> `CmaFunctions` without `checked` and `passing`) with those pieces of
    each file that may call a failing name (`calls(path, names)`), made by `made(path)` and
    kept in `callers` (path -> `CmaCallers` or None) for the gathering's next rounds; again
    until no other file may call one (a `passing` function may make a new error code)."""
    while True:
        merged = {path: _merged(summary, callers.get(path)) for path, summary in facts.items()}
        failing = failing_names(merged)
        fetch = [path for path in facts if path not in callers and calls(path, failing)]
        if not fetch:
            return merged
        for path in fetch:
            callers[path] = made(path)


def _merged(summary: CmaFunctions, callers: CmaCallers | None) -> CmaFunctions:
    if callers is None:
        return summary
    return CmaFunctions(summary.wrappers, summary.codes, summary.flows, summary.fatal,
                        callers.checked, callers.passing)


class CmaSummaries(Indexer):
    """Per C/C++ file holding a CMA function's name: its `CmaFunctions` but `checked` and
    `passing` (`summarize`), also where it has none (a file whose only pieces are those may
    be asked for them). `gathered` makes a copy for one gathering: each round's words are then
    `CmaWrapperIndex.more_words` (`facts`) of the facts with those pieces added (`callers`:
    the indexer that makes them)."""

    name = "cma-wrappers"
    languages = (C, CPP)
    summary_type = CmaFunctions

    def __init__(self, summarize: Callable, callers: Indexer, facts: Indexer | None = None,
                 index=None):
        self._summarize, self._callers_index = summarize, callers
        self.facts, self.index = facts, index
        self._callers: dict[str, CmaCallers | None] = {}  # path -> the file's other pieces
        self._searched: dict[str, set[str]] = {}  # path -> the names it does not call
        self._languages: dict[str, str] | None = None

    def gathered(self, facts: Indexer, index) -> dict[str, CmaFunctions]:
        """The project's `CmaFunctions` (path -> summary, files with none left out)."""
        gathering = CmaSummaries(self._summarize, self._callers_index, facts, index)
        found = gathering.with_callers(index.facts(gathering))
        return {path: summary for path, summary in found.items() if summary != _NOTHING}

    def words(self, settings):
        return CMA_FUNCTIONS

    def summarize(self, context):
        return self._summarize(context)

    def more_words(self, facts, settings):
        return self.facts.more_words(self.with_callers(facts), settings)

    def with_callers(self, facts: dict[str, CmaFunctions]) -> dict[str, CmaFunctions]:
        return with_callers(facts, self._callers, self._calls, self._made)

    def _calls(self, path: str, names: set[str]) -> bool:
        """Whether the file may call one of `names` (as `_calls_of` finds them; each name
        looked for once per file)."""
        searched = self._searched.setdefault(path, set())
        names = frozenset(names - searched)
        if not names:
            return False
        data = self.index.source_bytes(path)
        if data is None or _calls_of(names).search(data) is not None:
            return True
        searched.update(names)
        return False

    def _made(self, path: str) -> CmaCallers | None:
        if self._languages is None:
            self._languages = dict(self.index.files)
        return self.index.summary(self._callers_index, path, self._languages[path])


_NOTHING = CmaFunctions()


class CmaCallersIndex(Indexer):
    """Per C/C++ file: its `CmaCallers` (`summarize`), asked for by `CmaSummaries` in a
    gathering, never made from the lint's parse."""

    name = "cma-callers"
    languages = (C, CPP)
    summary_type = CmaCallers

    def __init__(self, summarize: Callable):
        self._summarize = summarize

    def words(self, settings):
        return CMA_FUNCTIONS

    def worth_summarizing(self, source, settings) -> bool:
        return False

    def summarize(self, context):
        return self._summarize(context)


@lru_cache(maxsize=8)
def _calls_of(names: frozenset[str]) -> re.Pattern[bytes]:
    """A pattern finding any of `names` as a whole identifier before a `(` (spaces, comments
    and continued lines between): where a file may call one (more places, never fewer)."""
    return re.compile(b"(?:" + Indexer().pattern(names, first_round=False).pattern + rb")"
                      rb"(?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*|\\\n)*\(")
