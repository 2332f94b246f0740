"""The `callback-helpers` project index: per function of the project's modules, the parameters
it hands to a CUDA API that calls back (`ReachesApi`, found by `CallbackHandovers`' reading of
the module) or as they are to a function its module imports (`HandedOn`), which may hand them
on. A function's facts are keyed by the parameter's name. `callback_chain` follows a parameter
from module to module down to the API; CUR201 reports the callers that pass a callable.
"""

from __future__ import annotations

import ast
from typing import Union

import msgspec

from cursedlint.analysis.callback_apis import Callback, callback_words
from cursedlint.analysis.callbacks import CallbackHandovers, Helper, parameters
from cursedlint.analysis.python_project import (
    MAX_DEPTH, FunctionIndexer, FunctionSummary, ModuleSummary, ProjectFunctions, Reach, dotted,
    linted_imports, project_names, scope_nodes,
)
from cursedlint.findings import Step


class ParameterFact(Reach, frozen=True, kw_only=True):
    """What a function does with its parameter at `position` (the fact's key is its name)."""

    position: int


class ReachesApi(ParameterFact, frozen=True, kw_only=True, tag="api"):
    """The parameter reaches `api`, which calls it as `callback` says."""

    api: str
    callback: Callback


class HandedOn(ParameterFact, frozen=True, kw_only=True, tag="on"):
    """The parameter is handed as it is to `callee` (dotted, as written: a function the module
    imports), as the call's argument at `argument`, or by `keyword`."""

    callee: str
    argument: int | None = None
    keyword: str | None = None


class HelperFunction(FunctionSummary, frozen=True):
    """A function's summary (`FunctionSummary`) whose facts are `ParameterFact`s."""

    facts: dict[str, Union[ReachesApi, HandedOn]]


class HelperModule(ModuleSummary, frozen=True):
    """A module's summary (`ModuleSummary`) whose functions' facts are `ParameterFact`s."""

    functions: dict[str, HelperFunction]


class CallbackHelpers(FunctionIndexer):
    """Per function of the project's modules: which of its parameters it hands to a CUDA API
    that calls back, or on to another module's function, with the APIs `CALLBACK_APIS` and
    those the option `extra-apis` of rule `code` adds."""

    name = "callback-helpers"
    summary_type = HelperModule

    def __init__(self, code: str):
        self.code = code

    def extra_apis(self, settings) -> tuple[str, ...]:
        """The API names the rule's `extra-apis` option adds (none by default)."""
        return tuple(settings.rule_options.get(self.code, {}).get("extra-apis", ()))

    def words(self, settings):
        return callback_words(self.extra_apis(settings))

    def seed_words(self, context):
        """The helpers a file that needs the facts may call: what it takes from the project."""
        return project_names(context)

    def trigger_words(self, facts):
        """The project's helpers that hand a parameter to a callback API, or on to another
        helper: a callable passed to one is a callback."""
        return helper_names(facts)

    def affects(self, facts, path, lookups) -> bool:
        """Only where some function of the project hands a parameter down to a callback API
        (`helper_names`): CUR201 asks the facts for those helpers alone, so facts of
        parameters handed on to functions that reach no API change no finding."""
        return bool(helper_names(facts)) and super().affects(facts, path, lookups)

    def more_words(self, facts, settings):
        """The helpers found so far: a module that calls one may hand a parameter on to it.
        (`facts` still grows: not `helper_names`, which keeps its answer.)"""
        return _helper_names(facts)

    def local_facts(self, context, function: ast.AST) -> dict[str, ParameterFact]:
        helpers = context.shared(CallbackHelpers, lambda: self._module_helpers(context))
        facts: dict[str, ParameterFact] = {
            helper.parameter: ReachesApi(
                helper.site.lineno, f"`{helper.parameter}` reaches {helper.api}, which calls "
                f"it {helper.callback.when}", position=helper.position, api=helper.api,
                callback=helper.callback)
            for helper in helpers if helper.function is function
        }
        facts.update(_handed_on(context, function, facts))
        return facts

    def extended(self, context, summary, calls) -> HelperModule | None:
        """The summary as its type says (`HelperModule`, as the index store decodes it)."""
        return None if summary is None else \
            msgspec.convert(summary, HelperModule, from_attributes=True)

    def _module_helpers(self, context) -> list[Helper]:
        """The module's functions that hand a parameter to a callback API (an error in the
        walk is the summary's, reported as CUR000)."""
        handovers = CallbackHandovers(context, self.extra_apis(context.settings))
        context.walk([handovers], _raise)
        return handovers.helpers


def _raise(visitor, error: BaseException):
    raise error


def _handed_on(context, function: ast.AST, facts: dict) -> dict[str, HandedOn]:
    """The function's parameters (not already facts) handed as they are to a function the
    module imports: the first call of each."""
    names = parameters(function)
    imported = linted_imports(context) if names else None
    found: dict[str, HandedOn] = {}
    if not imported:
        return found  # (no parameter, or no import to hand one to)
    for node in scope_nodes(context, function):  # (listed once per tree for each function)
        callee = dotted(node.func) if isinstance(node, ast.Call) else None
        if callee is None or callee.partition(".")[0] not in imported:
            continue
        passed = [(i, None, a) for i, a in enumerate(node.args)] + \
            [(None, k.arg, k.value) for k in node.keywords if k.arg]
        for position, keyword, argument in passed:
            name = argument.id if isinstance(argument, ast.Name) else None
            if name in names and name not in found and name not in facts:
                found[name] = HandedOn(node.lineno, f"passes `{name}` to {callee}()",
                                       position=names.index(name), callee=callee,
                                       argument=position, keyword=keyword)
    return found


def helper_names(facts: dict) -> frozenset[str]:
    """The names of the functions (path -> summary of `callback-helpers`) that hand a
    parameter to a callback API, themselves or through the helpers they hand it on to
    (computed once for the run's final facts)."""
    if _HELPER_NAMES[0] is not facts:
        _HELPER_NAMES[:] = [facts, _helper_names(facts)]
    return _HELPER_NAMES[1]


_HELPER_NAMES: list = [None, frozenset()]  # the last facts asked about, and their names


def _helper_names(facts: dict) -> frozenset[str]:
    project = ProjectFunctions(facts)
    return frozenset(
        qualname.rpartition(".")[2] for path, summary in facts.items()
        for qualname, function in summary.functions.items()
        if any(isinstance(fact, ReachesApi) or callback_chain(project, path, qualname, parameter)
               for parameter, fact in function.facts.items()))


def callback_chain(project: ProjectFunctions, path: str, qualname: str, parameter: str,
                   depth: int = 0) -> tuple[tuple[Step, ...], ReachesApi] | None:
    """How `parameter` of the project function reaches a callback API: the steps (the
    function's definition, each hand-over, the API call) and the final fact; None when it
    does not, or the chain is longer than the project model follows."""
    function = project.summaries[path].functions[qualname]
    fact = function.facts.get(parameter)
    head = Step(path, function.line, f"`{qualname}()` is defined here") if depth == 0 else None
    if fact is None or depth > MAX_DEPTH:
        return None
    here = (*filter(None, [head]), Step(path, fact.line, fact.what))
    if isinstance(fact, ReachesApi):
        return here, fact
    callee = project.callee(path, project.summaries[path].imports, fact.callee, qualname)
    inner = project.summaries[callee[0]].functions.get(callee[1]) if callee else None
    if inner is None or "." in callee[1]:
        return None
    for name, handed in inner.facts.items():
        if (fact.argument is not None and handed.position == fact.argument) or \
                (fact.keyword is not None and name == fact.keyword):
            found = callback_chain(project, *callee, name, depth + 1)
            if found is not None:
                return (*here, *found[0]), found[1]
    return None
