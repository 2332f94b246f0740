"""Start methods across the project: the `start-methods` project index, and the start method
a call is given, followed through the code (`StartMethodValues`).

The index records where the project's modules set a start method other than fork for the
whole process, and what runs after it (CUR102 clears a helper every caller of which runs only
after such a setting); and what other modules give a start method: their string constants
(`START_METHOD = "fork"`, a config class's `start_method: str = "fork"`) and the string
arguments of their calls (`launch(start_method="fork")`), so a parameter's value is known from
the project's calls of its function.

For a call that starts processes: the start method it is given (`StartMethodValues.given`),
whether it surely takes the default one (`uses_default_context`), the calls that make
processes from a context (`made_from`), and whether every call of its function runs after an
entry point set 'spawn' or 'forkserver' (`started_after_spawn`).
"""

from __future__ import annotations

import ast
import os
from typing import Any, Iterator

from msgspec import Struct, field

from cursedlint.analysis.arguments import Arguments
from cursedlint.analysis.dataset_maps import MULTIPROCESS_SETTER
from cursedlint.analysis.process_state import (
    CONTEXT_MAKERS, CUDA_INIT, DEFAULT_CONTEXT_USERS, FORKS, first_initialization,
    multiprocessing_name, only_after_setting, starting_defs, starting_functions,
    torch_spellings,
)
from cursedlint.analysis.python_modules import is_project_module
from cursedlint.analysis.python_project import (
    MAX_DEPTH, MODULE, REGISTERED, FunctionIndexer, FunctionSummary, ModuleSummary,
    ProjectFunctions, Reach, Reachable, attribute_values, call_names, calling_function, called_as, calls_of, dotted,
    linted_imports, module_functions, project_functions, project_names, value_of,
)
from cursedlint.analysis.registrations import registration_calls
from cursedlint.findings import Step
from cursedlint.patterns import LazyPattern
from cursedlint.python.consteval import UNKNOWN

START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method"})

# function -> (positional index, keyword) of its start method argument
START_METHOD_ARGUMENTS = {
    "multiprocessing.get_context": (0, "method"),
    "multiprocessing.set_start_method": (0, "method"),
    "torch.multiprocessing.start_processes": (5, "start_method"),
}


SPAWN_SET = "spawn_set"
MULTIPROCESS_SPAWN_SET = "multiprocess_spawn_set"
"""The same setting for `multiprocess` (the fork of multiprocessing that datasets uses),
whose start method is its own."""


class Passed(Struct, frozen=True):
    """A call of another module as its summary keeps it: the string constants it passes by
    position and keyword (None: any other value), and whether a spread may pass more."""

    line: int
    name: str
    positional: tuple[str | None, ...] = ()
    keywords: dict[str, str | None] = field(default_factory=dict)
    more_positional: bool = False
    more_keywords: bool = False

    def argument(self, index: int | None, keyword: str) -> Any:
        """What the call passes for a parameter (`Arguments.get`): a string, UNKNOWN, or None
        when it passes none."""
        known = Arguments(tuple(_unknown(value) for value in self.positional),
                          {name: _unknown(value) for name, value in self.keywords.items()},
                          self.more_positional, self.more_keywords)
        return known.get(index, keyword)


def _unknown(value: str | None) -> Any:
    return UNKNOWN if value is None else value


class StartMethodSummary(ModuleSummary, frozen=True):
    """A module's functions and calls (`ModuleSummary`), its string constants (module names
    and class attributes, `Class.attr`, bound once) and what its calls pass."""

    constants: dict[str, Reach] = field(default_factory=dict)
    """Name -> (line, the string)."""
    passed: tuple[Passed, ...] = ()


class StartMethods(FunctionIndexer):
    """Where the project's modules set a start method other than fork for the whole process
    (at module level, or under `if __name__ == "__main__":`), and every summarized function's
    calls: CUR102 clears a helper's default start when each of its callers in the project runs
    only after such a setting. Also the modules a linted file's start method may come from:
    those that define the names it takes from the project's modules, and those that call its
    functions whose parameter gives the start method."""

    name = "start-methods"
    module_level = True
    summary_type = StartMethodSummary
    max_rounds = MAX_DEPTH  # (the callers of a start, up, one module a round)

    def words(self, settings):
        return ("set_start_method",)

    def seed_words(self, context):
        """The names the file's start methods come from in other modules: an imported
        constant, a config object's class, or the function (or class) whose parameter it is
        (its callers)."""
        return context.shared(_SEEDS, lambda: _seed_names(context))

    adds_triggers = False  # a start method set elsewhere only clears a finding

    def extended(self, context, summary: ModuleSummary | None,
                 calls: list[tuple[str, ast.Call]]) -> StartMethodSummary | None:
        """The module's summary with its string constants and what its calls pass."""
        constants = _string_constants(context)
        summary = _with_registrations(context, summary)
        if summary is None and not constants:
            return None
        fields = {name: getattr(summary, name) for name in summary.__struct_fields__} \
            if summary else {"imports": {}, "functions": {}}
        return StartMethodSummary(**fields, constants=constants, passed=tuple(
            _passed(context, name, node) for name, node in calls))

    def affects(self, facts, path, lookups) -> bool:
        """Whether the file is summarized itself (the project's calls of its functions, or
        a setting before them), or one of its `lookups` leads to a string constant of a
        summarized module (or to a class holding one: `Config.start_method`)."""
        if os.path.abspath(path) in facts:
            return True
        reach = Reachable.of(self.name, facts)
        for name in lookups:
            found = reach.landing(name)
            constants = getattr(facts[found[0]], "constants", {}) if found else {}
            if any(constant == found[1] or constant.startswith(found[1] + ".")
                   for constant in constants):
                return True
        return False

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        """A setting at the top level of the module (its `__main__` block included) or of a
        function (`def main(): set_start_method("spawn"); ...`): what runs after it in that
        body runs after the setting. And the first statement that initializes CUDA."""
        from cursedlint.python.scan import may_name  # (a run without triggers imports none)

        statements = list(entry_statements(function)) if isinstance(function, ast.Module) \
            else function.body
        facts = _settings(context, statements, 0) if context.derived(
            _SETTER_NAMES, lambda: may_name(context.source.data, _SETTER_NAMES)) else {}
        initialized = first_initialization(context, statements)
        if initialized is not None:
            facts[CUDA_INIT] = initialized
        if id(function) in starting_defs(context):
            facts[FORKS] = Reach(function.lineno, "starts processes by fork")
        return facts

    def more_words(self, facts, settings):
        """The project names called after such a setting, and (by name) by the functions
        those reach: any module that names one may call it too. And the callers of the
        functions that start processes by fork, up (`_climbing_names`): what runs before
        them may hand those a process holding CUDA."""
        names: set[str] = set()
        for summary in facts.values():
            for function in summary.functions.values():
                for key in (SPAWN_SET, MULTIPROCESS_SPAWN_SET):
                    setting = function.facts.get(key)
                    if setting is not None:
                        names.update(call.name.rpartition(".")[2] for call in function.calls
                                     if call.line > setting.line)
        names |= _climbing_names(facts, settings)
        grew = True
        while grew:  # what the reached functions call
            grew = False
            for summary in facts.values():
                for qualname, function in summary.functions.items():
                    if qualname.rpartition(".")[2] in names:
                        more = {call.name.rpartition(".")[2] for call in function.calls}
                        grew = grew or not more <= names
                        names |= more
        return names


def _settings(context, statements: list[ast.stmt], depth: int) -> dict[str, Reach]:
    """The first setting of each kind (`SPAWN_SET`, `MULTIPROCESS_SPAWN_SET`) among the
    statements, each a call: of a setter, or of a module function whose own statements make
    one (`def main(): set_start_method("spawn")`, called first in the `__main__` block)."""
    facts: dict[str, Reach] = {}
    for statement in statements:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call):
            continue
        written = context.qualified_name(call.func, among=_ALL_SETTERS)
        method = context.evaluate(context.argument(call, 0, "method")) if written else None
        key = MULTIPROCESS_SPAWN_SET if written == MULTIPROCESS_SETTER else SPAWN_SET
        if method in ("spawn", "forkserver") and key not in facts:
            facts[key] = Reach(call.lineno, f"set_start_method({method!r})")
        called = context.definition(call.func) if isinstance(call.func, ast.Name) and \
            not written and depth < MAX_DEPTH else None
        if isinstance(called, ast.FunctionDef) and context.scope_of(called) is None:
            for key, inner in _settings(context, called.body, depth + 1).items():
                facts.setdefault(key, Reach(call.lineno, inner.what, (called.name, *inner.via)))
    return facts


def _with_registrations(context, summary: ModuleSummary | None) -> ModuleSummary | None:
    """The summary with the registrations of its functions added to their calls (a
    registered callable runs after its registration: `registrations`)."""
    imports = linted_imports(context)
    local = {getattr(node, "name", "") for node in context.tree.body}
    functions = dict(summary.functions) if summary else {}
    added = False
    for qualname, function in [(MODULE, context.tree), *module_functions(context.tree)]:
        calls = registration_calls(context, function, imports, local)
        if calls:
            added = True
            kept = functions.get(qualname)
            functions[qualname] = FunctionSummary(
                kept.line, kept.facts, kept.calls + tuple(calls), kept.returns) if kept \
                else FunctionSummary(getattr(function, "lineno", 1), {}, tuple(calls))
    if not added:
        return summary
    if summary is None:
        return ModuleSummary(dict(imports), functions)
    return ModuleSummary(summary.imports, functions, summary.classes, summary.bases, tuple(
        name for name in summary.defined if name not in functions))


def _climbing_names(facts, settings) -> set[str]:
    """The names by which the project calls the summarized functions that start processes
    by fork (`FORKS`), their classes (constructions) and their callers, up, as summarized so
    far: the next round reads the modules that call those; and the project names those
    callers call (what they run before the call may initialize CUDA)."""
    project = ProjectFunctions(facts)
    root = settings.root or os.getcwd()
    wanted = {(path, qualname) for path, summary in facts.items()
              for qualname, function in summary.functions.items() if FORKS in function.facts}
    frontier = set(wanted)
    for _ in range(MAX_DEPTH):
        found = set()
        for path, qualname in frontier:
            cls, _, name = qualname.rpartition(".")
            for asked in {qualname, f"{cls}.__init__"} if cls and not name.startswith("__") \
                    else {qualname}:
                found.update((caller_path, caller) for caller_path, caller, _ in
                             project.callers(path, asked) if caller != MODULE)
        frontier = found - wanted
        if not frontier:
            break
        wanted |= frontier
    names = set()
    for path, qualname in wanted:
        names.update(name for name in call_names(qualname) if not name.startswith("__"))
        names.add(qualname.partition(".")[0])
    frontier, reached = set(wanted), set(wanted)
    for _ in range(MAX_DEPTH):  # what those run, down, may initialize CUDA
        found = set()
        for path, qualname in frontier:
            summary = facts[path]
            for call in summary.functions[qualname].calls if qualname in summary.functions \
                    else ():
                written = summary.imports.get(call.name.partition(".")[0], "")
                module, _, attribute = written.partition(":")
                if module and is_project_module(path, module, root):
                    names.add(attribute.rpartition(".")[2] or call.name.rpartition(".")[2])
                callee = None if call.name.startswith(REGISTERED) else project.callee(
                    path, summary.imports, call.name, qualname)
                if callee is not None:
                    found.add(callee)
        frontier = found - reached
        reached |= frontier
    return names


def started_after_spawn(context, node: ast.AST, setting: str = SPAWN_SET) -> bool:
    """Whether the function holding `node` is called in the project, and every call of
    it runs only after an entry point set 'spawn' or 'forkserver' for the process
    (`setting`: multiprocessing's, or multiprocess's `MULTIPROCESS_SPAWN_SET`); for a method,
    or every construction of its class does (the instance was made before it ran)."""
    project = project_functions(context, START_METHODS)
    caller = calling_function(context, node)
    if project is None or caller is None:
        return False
    path = os.path.abspath(context.source.path)
    if only_after_setting(project, path, caller, setting):
        return True
    method = context.scope_of(node)  # (or every construction of its instance's class does)
    cls, _, name = caller.rpartition(".")
    return bool(cls) and not name.startswith("__") and not any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
        for d in method.decorator_list) and only_after_setting(
        project, path, f"{cls}.__init__", setting)


def uses_default_context(context, call: ast.Call, name: str) -> bool:
    """Whether a call of `name` (one of DEFAULT_CONTEXT_USERS) surely passes no context (and,
    for ProcessPoolExecutor on 3.11+, no max_tasks_per_child, which makes it use 'spawn')."""
    arguments = [DEFAULT_CONTEXT_USERS[name]]
    if name.endswith("ProcessPoolExecutor") and context.settings.target_python >= (3, 11):
        arguments.append((None, "max_tasks_per_child"))
    for position in filter(None, arguments):
        argument = context.argument(call, *position)
        if argument is UNKNOWN:
            return False
        if argument is not None and context.evaluate(argument) is not None:
            return False
    return True


def made_from(context, context_call: ast.Call) -> list[ast.Call]:
    """The calls that make processes from a context (`ctx.Process(...)`, `ctx.Pool()`,
    `ProcessPoolExecutor(mp_context=ctx)`, also given the context inline,
    `self.ctx.Process(...)` with `self.ctx` set to it): a context used for a Queue starts
    none."""
    parent = context.parent_of(context_call)
    if isinstance(parent, ast.Attribute) and parent.attr in CONTEXT_MAKERS or \
            isinstance(parent, ast.keyword) and parent.arg in _CONTEXT_KEYWORDS:
        made = context.parent_of(parent)
        return [made] if isinstance(made, ast.Call) else []
    return [call for call in context.nodes(ast.Call) if (
        isinstance(call.func, ast.Attribute) and call.func.attr in CONTEXT_MAKERS
        and value_of(context, call.func.value) is context_call
    ) or any(keyword.arg in _CONTEXT_KEYWORDS
             and value_of(context, keyword.value) is context_call
             for keyword in call.keywords)]


_CONTEXT_KEYWORDS = frozenset(slot[1] for slot in DEFAULT_CONTEXT_USERS.values() if slot)
"""The keywords that hand a constructor a context (`mp_context=`, `context=`)."""
_SEEDS = "start-method-seeds"


def _string_constants(context) -> dict[str, Reach]:
    """The module's names, and its classes' attributes, bound once to a string literal."""
    found = {}
    for statement in context.tree.body:
        if isinstance(statement, ast.ClassDef):
            found.update((f"{statement.name}.{name}", value)
                         for name, value in class_strings(context, statement).items())
            continue
        target = _assigned_name(statement)
        value = _literal(statement.value) if target is not None else None
        if value is not None and context.definition(target) is statement.value:
            found[target.id] = Reach(statement.lineno, value)
    return found


def class_strings(context, cls: ast.ClassDef) -> dict[str, Reach]:
    """The class body's names bound once to a string literal (`start_method: str = "fork"`)
    that no method sets through `self`."""
    found: dict[str, Reach | None] = {}
    for statement in cls.body:
        target = _assigned_name(statement)
        if target is not None:
            value = _literal(statement.value)
            found[target.id] = None if target.id in found or value is None \
                else Reach(statement.lineno, value)
    if not any(found.values()):
        return {}
    assigned = attribute_values(context, cls)
    return {name: value for name, value in found.items()
            if value is not None and name not in assigned}


def _assigned_name(statement: ast.stmt) -> ast.Name | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target = statement.target
    else:
        return None
    return target if isinstance(target, ast.Name) else None


def _passed(context, name: str, call: ast.Call) -> Passed:
    arguments = context.arguments(call)
    return Passed(call.lineno, name,
                  tuple(_string(context, node) for node in arguments.positional),
                  {name: _string(context, node) for name, node in arguments.keywords.items()},
                  arguments.more_positional, arguments.more_keywords)


def _string(context, node: ast.AST) -> str | None:
    """The string a call passes: written, or a name of the module bound once to one."""
    value = context.evaluate(node) if isinstance(node, ast.Name) else _literal(node)
    return value if isinstance(value, str) else None


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        else None


Way = tuple[Any, tuple[Step, ...]]
"""A value an expression may have, with the steps that give it."""


class StartMethodValues:
    """The start method an expression of the linted file gives, followed through locals bound
    once (either side of a conditional expression), `self` attributes, parameters (their
    default, or what the project's calls of their function pass), constants of the project's
    modules, and the defaults of a config object's class."""

    def __init__(self, context):
        self.context = context
        self.path = os.path.abspath(context.source.path)
        self.project = project_functions(context, START_METHODS)
        self._memo: dict[int, list[Way]] = {}
        self.asked: set[str] = set()
        """The words of the functions whose callers, and of the project names whose values,
        the following asked for (the index's seeds for this file)."""

    def of(self, node: ast.AST) -> Way:
        """("fork", its steps) when some way gives fork; else the one value all ways give, or
        UNKNOWN (no steps)."""
        ways = self._ways(node, 0)
        fork = next((way for way in ways if way[0] == "fork"), None)
        if fork is not None:
            return fork
        values = [value for value, _ in ways]
        return (values[0], ()) if values and all(v is not UNKNOWN and v == values[0]
                                                 for v in values) else (UNKNOWN, ())

    def given(self, call: ast.Call, name: str | None) -> Way:
        """The start method a call of `name` is given, with the steps that give it; None when
        it takes none, UNKNOWN when the code does not show it."""
        position = START_METHOD_ARGUMENTS.get(name)
        if position is None:
            return None, ()
        argument = self.context.argument(call, *position)
        if argument is None or argument is UNKNOWN:
            return argument, ()
        return self.of(argument)

    def _ways(self, node: ast.AST, depth: int) -> list[Way]:
        """Each way the expression gets a value (each expression followed once: a cycle, or
        a path longer than MAX_DEPTH, is unknown)."""
        key = id(node)
        if key not in self._memo:
            self._memo[key] = [(UNKNOWN, ())]  # while it is followed
            self._memo[key] = list(self._follow(node, depth))
        return self._memo[key]

    def _follow(self, node: ast.AST, depth: int) -> Iterator[Way]:
        value = self.context.evaluate(node)
        if value is not UNKNOWN or depth > MAX_DEPTH:
            yield value, ()
        elif isinstance(node, ast.IfExp):
            yield from self._ways(node.body, depth + 1)
            yield from self._ways(node.orelse, depth + 1)
        elif isinstance(node, ast.Name):
            yield from self._name_ways(node, depth)
        elif isinstance(node, ast.Attribute):
            yield from self._attribute_ways(node, depth)
        else:
            yield UNKNOWN, ()

    def _name_ways(self, node: ast.Name, depth: int) -> Iterator[Way]:
        parameter = _parameter(self.context, node)
        if parameter is not None:
            yield from self._parameter_ways(*parameter, depth)
            return
        bound = self.context.definition(node)
        if isinstance(bound, ast.expr):
            yield from self._ways(bound, depth + 1)
            return
        yield self._constant(node.id)

    def _attribute_ways(self, node: ast.Attribute, depth: int) -> Iterator[Way]:
        """`self.method` set once in the class, or an attribute of a config object whose
        class the module shows (`cfg: TrainConfig`, `cfg = TrainConfig(...)`)."""
        bound = value_of(self.context, node)
        if isinstance(bound, ast.expr):
            for value, steps in self._ways(bound, depth + 1):
                note = f"`{ast.unparse(node)}` is set to {_shown(value, bound)}"
                yield value, (Step(self.path, bound.lineno, note), *steps)
            return
        made = self._made_by(node.value)
        if isinstance(made, ast.Call):
            argument = self.context.argument(made, None, node.attr)
            if argument is UNKNOWN:
                yield UNKNOWN, ()
                return
            if argument is not None:
                yield from self._ways(argument, depth + 1)
                return
            cls = dotted(made.func)
        else:
            cls = made
        yield self._constant(f"{cls}.{node.attr}") if cls else (UNKNOWN, ())

    def _made_by(self, node: ast.AST) -> ast.Call | str | None:
        """The constructor call that made the object (`cfg = TrainConfig(...)`), or the
        class its parameter is annotated with (`cfg: TrainConfig`)."""
        bound = value_of(self.context, node)
        if isinstance(bound, ast.Call):
            return bound
        if isinstance(node, ast.Name):
            scope = self.context.evaluator.binding_scope(node.id, node)
            arguments = getattr(scope, "args", None)
            arg = next((a for a in _all_arguments(arguments) if a.arg == node.id), None) \
                if arguments else None
            return dotted(arg.annotation) if arg is not None and arg.annotation else None
        return None

    def _constant(self, name: str) -> Way:
        """A string constant of this module's classes, or of another project module that
        `name` (dotted) refers to."""
        cls, _, attribute = name.partition(".")
        local = next((node for node in self.context.tree.body if isinstance(node, ast.ClassDef)
                      and node.name == cls), None) if attribute else None
        if local is None:  # what of it this file takes from the project's modules
            self.asked.update(set(name.split(".")) & self._project_names())
        if local is not None:
            found = class_strings(self.context, local).get(attribute)
            where = self.path
        elif self.project is not None:
            defined = self.project.definition(self.path, linted_imports(self.context), name,
                                              defines=_has_constant)
            where = defined[0] if defined else None
            found = self.project.summaries[where].constants[defined[1]] if defined else None
        else:
            found = None
        if found is None:
            return UNKNOWN, ()
        note = f"`{name}` is {found.what!r}"
        return found.what, (Step(where, found.line, note),)

    def _project_names(self) -> set[str]:
        return self.context.shared("project-names", lambda: set(project_names(self.context)))

    def _parameter_ways(self, function: ast.AST, name: str, index: int | None,
                        default: ast.AST | None, depth: int) -> Iterator[Way]:
        """The default where no call of the function in the project passes the parameter,
        or each call's argument (the default where it passes none)."""
        called = called_as(self.context, function)
        self.asked.add(called)
        calls = [*self._local_calls(function, name, index), *self._remote_calls(function,
                                                                               name, index)]
        if not calls:
            calls = [(self.path, function.lineno, None)]
        for path, line, argument in calls:
            if argument is None and default is None:
                yield UNKNOWN, ()
            elif argument is None:
                for value, steps in self._ways(default, depth + 1):
                    note = f"`{name}` defaults to {_shown(value, default)}"
                    yield value, (Step(self.path, default.lineno, note), *steps)
            elif argument is UNKNOWN or isinstance(argument, str):
                note = f"a call of {called}() passes {name}={argument!r}"
                yield argument, (() if argument is UNKNOWN else (Step(path, line, note),))
            else:
                for value, steps in self._ways(argument, depth + 1):
                    note = f"a call of {called}() passes {name}={_shown(value, argument)}"
                    yield value, (Step(path, line, note), *steps)

    def _local_calls(self, function, name: str, index: int | None):
        """(path, line, argument) of each call of `function` in this module."""
        for call in calls_of(self.context, function):
            yield self.path, call.lineno, self.context.argument(call, index, name)

    def _remote_calls(self, function, name: str, index: int | None):
        """(path, line, argument) of each call of `function` in the project's other modules,
        as their summaries keep them."""
        qualname = calling_function(self.context, function.body[0])  # the def's own name
        if self.project is None or qualname is None:
            return
        for path, caller, line in self.project.callers(self.path, qualname):
            if path == self.path:
                continue
            summary = self.project.summaries[path]
            for passed in getattr(summary, "passed", ()):
                if passed.line == line and self.project.callee(
                        path, summary.imports, passed.name, caller) == (self.path, qualname):
                    yield path, line, passed.argument(index, name)
                    break
            else:
                yield path, line, UNKNOWN


def _has_constant(summary, qualname: str) -> bool:
    return qualname in getattr(summary, "constants", ())


def _shown(value: Any, node: ast.AST) -> str:
    """A string written as such, or the expression that gives it."""
    return repr(value) if isinstance(node, ast.Constant) else f"`{ast.unparse(node)}`"


def _all_arguments(arguments: ast.arguments) -> list[ast.arg]:
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _parameter(context, node: ast.Name) -> tuple[ast.AST, str, int | None, Any] | None:
    """(function, name, position at its calls, default) where `node` names a parameter of
    the module function or method it is used in (a method's position leaves out `self`)."""
    scope = context.evaluator.binding_scope(node.id, node)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = scope.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]],
                        arguments.defaults))
    defaults.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults))
    names = [a.arg for a in positional]
    if node.id in names:
        index = names.index(node.id)
        if isinstance(context.scope_of(scope), ast.ClassDef) and index:
            index -= 1  # called on an instance or the class: `self` is not passed
        return scope, node.id, index, defaults.get(node.id)
    if node.id in (a.arg for a in arguments.kwonlyargs):
        return scope, node.id, None, defaults.get(node.id)
    return None


def _seed_names(context) -> list[str]:
    """The words that lead to the modules a start method of this file may come from, as
    following each one within the file finds them (`StartMethodValues.asked`): the functions
    whose parameters give it (their callers) and the names of the project's modules it reads
    (constants, config classes). And the names of the functions that start processes: their
    callers may hand them a process holding CUDA (`CUDA_INIT`)."""
    starting = starting_functions(context)
    if not _VARIABLE_START_METHOD.search(context.source.text):
        return sorted(starting)
    values = StartMethodValues(context)
    for call in context.nodes(ast.Call):
        written = context.qualified_name(call.func, among=_START_METHOD_CALLS)
        values.given(call, multiprocessing_name(written))
    return sorted(values.asked | starting)


_VARIABLE_START_METHOD = LazyPattern(
    r"""(?:get_context|set_start_method)\(\s*[^\s'")]|start_method\s*=\s*[^\s'"=]""")
"""Text a file must hold to name a start method by a variable (a first, cheap look)."""


def _imported_parts(root: ast.AST, imports: dict[str, str]) -> Iterator[str]:
    """The names an expression reads from imports, and the attributes it reads of them
    (`Settings` of `config.Settings`: a module is found by what it defines)."""
    for node in ast.walk(root):
        name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name and name.partition(".")[0] in imports:
            yield from name.split(".")


def entry_statements(module: ast.Module) -> Iterator[ast.stmt]:
    """The module's top-level statements, and those of its `if __name__ == "__main__":`
    block in place of it."""
    for statement in module.body:
        if isinstance(statement, ast.If) and is_main_guard(statement.test):
            yield from statement.body
        else:
            yield statement


def in_main_block(context, node: ast.AST) -> bool:
    """Whether `node` is under the module's `if __name__ == "__main__":`."""
    return any(isinstance(a, ast.If) and context.parent_of(a) is context.tree
               and is_main_guard(a.test) for a in context.ancestors(node))


def is_main_guard(test: ast.AST) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.comparators) == 1
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


_ALL_SETTERS = torch_spellings(START_METHOD_SETTERS) | {MULTIPROCESS_SETTER}
_SETTER_NAMES = frozenset(name.rpartition(".")[2].encode() for name in _ALL_SETTERS)
"""What a module that calls a setter names (`_settings` finds none in one that names none)."""
_START_METHOD_CALLS = torch_spellings(START_METHOD_ARGUMENTS)
START_METHODS = StartMethods()
