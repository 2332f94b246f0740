"""What the project's Python functions do, across modules: facts computed once per module and
composed over the project's calls.

A rule that needs to know what a function of another module does declares a `FunctionIndexer`
(a project-index `Indexer`): the words that mark a module worth reading, and `local_facts`,
what one function does by itself and through the module's own functions (kind -> `Reach`:
the line and what happens there), computed with the module's own analyses. Each indexed
module is summarized once (per content hash, cached across runs) as its imports as written
and, per function and method, those facts and the calls it makes to names the module cannot
see into (imports, and its own functions, so chains through them compose).

`ProjectFunctions` answers over those summaries: which project function a call in any module
runs (imports, relative imports, re-exports through packages' `__init__`, `module.function`,
`Class.method`), and whether a function reaches a kind of fact, directly or through such calls,
with the chain of steps that proves it. Depth and fan-out are bounded; beyond them, and where a
callee is not a project function, the answer is None (rules stay silent).
"""

from __future__ import annotations

import ast
import os
import sys
from msgspec import Struct, field
from typing import Iterable, Iterator, NamedTuple

from cursedlint.analysis.python_modules import (
    ModuleTable, is_package, is_project_module, module_name, resolve, written_imports,
)
from cursedlint.findings import Step
from cursedlint.patterns import LazyPattern
from cursedlint.python.reaching import reaching
from cursedlint.project.index import Indexer
from cursedlint.python.context import STATEMENT_BLOCKS, child_fields

MODULE = "<module>"
"""The qualified name under which a module's own statements are summarized."""
MAX_DEPTH = 6
"""Calls followed from one function to the fact (a longer chain is unknown)."""
MAX_CALLS = 64
"""Calls of one function followed (the rest are unknown)."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCTIONS, ast.Lambda, ast.ClassDef)


class Reach(Struct, frozen=True):
    """A fact at `line` of the function's module: `what` happens there, reached through the
    module's own functions named in `via` (outermost first)."""

    line: int
    what: str
    via: tuple[str, ...] = ()
    detail: str = ""
    """More about the fact, for messages (what a started thread's code reaches)."""


class OutCall(Struct, frozen=True):
    """A call at `line` to `name` (dotted, rooted at a module-level name or `self`); a name
    that begins with `HANDED` is a callable handed to another thread there (a thread's
    target, an executor task), not called on the function's own thread."""

    line: int
    name: str


HANDED = "handed:"
"""The prefix of an `OutCall` name for a callable run on another thread (only the kinds of an
indexer's `FunctionIndexer.handed` follow it)."""
RUNNING = "running:"
"""After `HANDED`: the thread is left running when the function returns."""
REGISTERED = "registered:"
"""The prefix of an `OutCall` name for a callable handed to a library that runs it later, in
the same process (`registrations`): a caller for what runs before it (`ProjectFunctions.callers`),
never a call through which a fact is reached."""


class Handed(NamedTuple):
    """How a kind follows `HANDED` calls: the callable must reach one of `kinds`; with
    `running`, only a callable handed to a thread left running (`RUNNING`) counts."""

    kinds: tuple[str, ...]
    running: bool = False


class FunctionSummary(Struct, frozen=True):
    line: int
    facts: dict[str, Reach]
    calls: tuple[OutCall, ...]
    returns: str = ""
    """The dotted name (as written) of what each of its returns calls (`return Manager(x)`:
    `Manager`), when they all call the same one: a factory of that class."""


class ModuleSummary(Struct, frozen=True):
    """One module: its imports as written (`python_modules.written_imports`), its functions
    and methods (`name`, `Class.name`) that have facts or make calls worth following, and the
    names of its classes."""

    imports: dict[str, str]
    functions: dict[str, FunctionSummary]
    classes: tuple[str, ...] = ()
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Class name -> its bases as written (dotted names)."""
    defined: tuple[str, ...] = ()
    """The qualified names of the functions and methods without facts or calls."""


def module_functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualified name, def) of the module's functions and the methods of its classes
    (top level and one class deep: what other modules can call by name)."""
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS):
            yield statement.name, statement
        elif isinstance(statement, ast.ClassDef):
            for item in statement.body:
                if isinstance(item, _FUNCTIONS):
                    yield f"{statement.name}.{item.name}", item


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for an attribute chain rooted at a name; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


CALL_METHOD = "__call__"
"""The method that calling an instance runs."""
FORWARD = "forward"
"""What calling a `torch.nn.Module` instance runs (its `__call__` is the library's)."""
NN_MODULE = "torch.nn.Module"


def last_name(node: ast.AST) -> str | None:
    """The name a callee ends in: `cuLaunchHostFunc` for `libcuda.cuLaunchHostFunc` and for
    `cuLaunchHostFunc`; None for other expressions."""
    kind = type(node)  # (asked of most calls by several rules: parsed nodes are no subclasses)
    if kind is ast.Attribute:
        return node.attr
    return node.id if kind is ast.Name else None


class FunctionIndexer(Indexer):
    """Per-function facts of the project's Python modules (see the module docstring).
    Subclasses set `name` and implement `words` and `local_facts`."""

    languages = ("python",)
    summary_type = ModuleSummary
    max_rounds = 1  # the modules the first round's call, and no further: chains stay short
    max_files = 64
    max_bytes = 1 << 20
    handed: dict[str, Handed] = {}
    """Kind reached through a callable handed to another thread (`HANDED` calls) -> what
    that callable must reach (the others do not follow such calls)."""
    module_level = False
    """Whether the module's own statements (its import-time code and `if __name__ ==
    "__main__":` block) are summarized too, as the function named `MODULE`."""

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        """What `function` of the parsed module does, by kind (only what the module shows)."""
        raise NotImplementedError

    def summarize(self, context) -> ModuleSummary | None:
        imports = linted_imports(context)
        functions = {}
        local = {getattr(node, "name", "") for node in context.tree.body}
        code = module_functions(context.tree)
        call_nodes: list[tuple[str, ast.Call]] = []
        for qualname, function in [(MODULE, context.tree), *code] if self.module_level else code:
            facts = self.local_facts(context, function)
            calls, nodes = context.derived(  # (the same for each indexer summarizing it)
                (_out_calls, id(function)),
                lambda: _calls_and_nodes(function, scope_nodes(context, function), imports, local))
            call_nodes.extend(nodes)
            if facts or calls:
                functions[qualname] = FunctionSummary(getattr(function, "lineno", 1), facts,
                                                      calls, _returned_call(context, function))
        classes = [node for node in context.tree.body if isinstance(node, ast.ClassDef)]
        bases = {cls.name: tuple(filter(None, map(dotted, cls.bases))) for cls in classes}
        others = tuple(qualname for qualname, _ in module_functions(context.tree)
                       if qualname not in functions)
        return self.extended(context, ModuleSummary(
            dict(imports), functions, tuple(cls.name for cls in classes),
            {name: written for name, written in bases.items() if written},
            others) if functions or imports else None, call_nodes)

    def extended(self, context, summary: ModuleSummary | None,
                 calls: list[tuple[str, ast.Call]]) -> ModuleSummary | None:
        """The summary a subclass keeps, built on the module's (`calls`: the name and node of
        each call it keeps)."""
        return summary

    def lookups(self, context) -> set[str]:
        """The dotted names the file can reach another module's code by: what each of its
        imports binds, and the attributes it reads of each (`pkg.health.loop` for
        `health.loop` with `from pkg import health`). Rules resolve a name to a project
        function only from these (`ProjectFunctions.definition`), or through the file's own
        summary."""
        return context.shared(_LOOKUPS, lambda: _imported_names(context))

    def affects(self, facts: dict[str, ModuleSummary], path: str, lookups: list[str]) -> bool:
        """Whether one of its `lookups` names a function that reaches a fact, or a class or
        factory whose module's code can; or the file is summarized itself and one of its own
        does (a name that leads to nothing that reaches a fact answers as without facts)."""
        reach = Reachable.of(self.name, facts, self.handed)
        path = os.path.abspath(path)
        return (path in facts and reach.holds_any(path)) or \
            any(reach.leads_to_fact(name) for name in lookups)

    adds_triggers = True

    def trigger_words(self, facts: dict[str, ModuleSummary]) -> Iterable[str]:
        """The project's functions that reach a fact (of their own, or through their module's
        functions): a call of one can be a finding in the module that calls it. (An indexer
        whose facts can only clear findings sets `adds_triggers` off.)"""
        return _with_facts(facts)

    def more_words(self, facts: dict[str, ModuleSummary], settings) -> Iterable[str]:
        """The names the summarized functions call in the project (their modules define them,
        or re-export them), and the functions that have a fact, so the chains from the
        first-round files down to the facts are read."""
        names = (call.name.removeprefix(HANDED).removeprefix(RUNNING).removeprefix(REGISTERED)
                 for summary in facts.values()
                 for function in summary.functions.values() for call in function.calls)
        return {part for name in names if not name.startswith("self.")
                for part in _called_words(name)} | _with_facts(facts)


def _called_words(name: str) -> tuple[str, ...]:
    """The words that find the definition a summary call of dotted `name` runs: its last
    name, and the class's for a call of an instance (`Block.__call__`: `Block`)."""
    head, _, last = name.rpartition(".")
    return (last, head.rpartition(".")[2]) if last == CALL_METHOD and head else (last,)


def _with_facts(facts: dict[str, ModuleSummary]) -> set[str]:
    """The names of the summarized functions that have a fact."""
    return {qualname.rpartition(".")[2] for summary in facts.values()
            for qualname, function in summary.functions.items() if function.facts}


_LOOKUPS = "function-indexer-lookups"


def _imported_names(context) -> set[str]:
    """`FunctionIndexer.lookups` of the parsed file."""
    imports = linted_imports(context)
    if not imports:
        return set()
    path = os.path.abspath(context.source.path)
    importer, package = module_name(path), is_package(path)
    reads: dict[str, set[str]] = {}
    name_class = ast.Name
    for node in context.met(ast.Attribute):  # `local.attribute`, `(local) . attribute`
        value = node.value
        if type(value) is name_class and value.id in imports:
            reads.setdefault(value.id, set()).add(node.attr)
    names = set()
    for local, written in imports.items():
        imported = resolve(written, importer, package)
        if imported is not None:
            names.add(imported.dotted)
            names.update(f"{imported.dotted}.{attribute}" for attribute in reads.get(local, ()))
    return names


class Reachable:
    """Which dotted names lead to a fact of the summarized modules (`FunctionIndexer.affects`):
    a function that reaches one; a class or a factory whose module holds a fact or imports
    (also through re-exports) one that does."""

    _last: "dict[str, tuple[dict, Reachable]]" = {}  # indexer name -> its last facts

    @classmethod
    def of(cls, name: str, facts: dict[str, ModuleSummary],
           handed: dict[str, Handed] | None = None) -> "Reachable":
        """The answers for an indexer's facts (built once for the run's final facts)."""
        last = cls._last.get(name)
        if last is None or last[0] is not facts:
            last = cls._last[name] = (facts, cls(facts, handed))
        return last[1]

    def __init__(self, facts: dict[str, ModuleSummary], handed: dict[str, Handed] | None = None):
        self.project = ProjectFunctions(facts, handed)
        self._landings: dict[str, tuple[str, str] | None] = {}
        self._leads: dict[str, bool] = {}
        self.kinds = {kind for summary in facts.values()
                      for function in summary.functions.values() for kind in function.facts}
        names = {path: self.project.module_of(path) for path in facts}
        imported = {path: [found.dotted for found in (
            resolve(written, names[path], is_package(path))
            for written in summary.imports.values()) if found is not None]
            for path, summary in facts.items()}
        modules = {names[path] for path, summary in facts.items()
                   if any(function.facts for function in summary.functions.values())}
        while True:
            within = _module_prefixes(modules)
            more = {names[path] for path in facts if names[path] not in modules and any(
                _names_within(name, modules, within) for name in imported[path])}
            if not more:
                break
            modules |= more
        self.modules = modules

    def landing(self, name: str) -> tuple[str, str] | None:
        """Where dotted `name` lands among the summarized modules, following re-exports as
        rules resolve it (`ProjectFunctions.definition`): (path, qualified name), whether
        the module defines it or not; None where no rule resolves it (a module itself).
        (Memoized: the files of a run look up many of the same names.)"""
        if name not in self._landings:
            self._landings[name] = self.project._defined(name, lambda summary, qualname: True)
        return self._landings[name]

    def leads_to_fact(self, name: str) -> bool:
        if name not in self._leads:
            found = self.landing(name)
            self._leads[name] = found is not None and self.holds(*found)
        return self._leads[name]

    def holds(self, path: str, qualname: str) -> bool:
        """Whether the function, method or class `qualname` of the summarized module `path`
        leads to a fact."""
        summary = self.project.summaries[path]
        in_module = self.project.module_of(path) in self.modules
        function = summary.functions.get(qualname)
        if function is not None:
            return (bool(function.returns) and in_module) or any(
                self.project.reached(path, qualname, kind) is not None for kind in self.kinds)
        return self.project.is_class(path, qualname.partition(".")[0]) and in_module

    def holds_any(self, path: str) -> bool:
        """Whether a function or class of the summarized module `path` leads to a fact."""
        summary = self.project.summaries[path]
        return any(self.holds(path, qualname) for qualname in (*summary.functions,
                                                                 *summary.classes))


def _module_prefixes(modules: Iterable[str]) -> set[str]:
    """The modules and the packages above them (`a`, `a.b` for `a.b`)."""
    return {".".join(parts[:end]) for parts in (name.split(".") for name in modules)
            for end in range(1, len(parts) + 1)}


def _names_within(name: str, modules: set[str], within: set[str]) -> bool:
    """Whether dotted `name` (what an import binds) is one of `modules`, a package holding
    one (`within`), or lies within one (an attribute or submodule of it)."""
    parts = name.split(".")
    return name in within or any(".".join(parts[:end]) in modules for end in range(1, len(parts)))


def _calls_and_nodes(function: ast.AST, own: list[ast.AST], imports: dict[str, str],
                     local: set[str]) -> tuple[tuple[OutCall, ...], list[tuple[str, ast.Call]]]:
    """`_out_calls` of the function (`own`: its `scope_nodes`), and the name and node of
    each."""
    nodes: list[tuple[str, ast.Call]] = []
    return tuple(_out_calls(function, own, imports, local, nodes)), nodes


def _out_calls(function: ast.AST, own: list[ast.AST], imports: dict[str, str], local: set[str],
               nodes: list[tuple[str, ast.Call]]) -> Iterator[OutCall]:
    """The calls `function` makes (not those of nested defs) that may run project code: of
    a name imported from a module not of the standard library, of `self.<method>`, or of the
    module's own functions and classes (`local`), also through a local of a function bound
    once to one of them or to a choice of them (`run = a if c else b; run(...)`), and the
    methods of an instance a local is bound once to (`sim = Simulator(); sim.run()`: a call
    of `Simulator.run`); at most MAX_CALLS. Each call's name and node are added to `nodes`."""
    count = 0
    bound: dict[str, tuple[str, ...] | None] = {}  # local -> the names it may hold
    values: dict[str, ast.AST | None] = {}  # local -> its one assigned value
    loops: list[ast.AST] = []
    through_locals: list[ast.Call] = []
    for node in own:
        if count >= MAX_CALLS:
            break
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name is not None and may_be_project(name, imports, local):
                count += 1
                nodes.append((name, node))
                yield OutCall(node.lineno, name)
            elif isinstance(node.func, ast.Name) or (
                    isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)):
                through_locals.append(node)
        elif isinstance(node, _BINDINGS):
            _note_binding(node, bound, values)
            if isinstance(node, (ast.For, ast.AsyncFor)):
                loops.append(node)
    for loop in loops:  # a loop variable bound only by a loop over a literal collection
        for name, elements in loop_choices(loop, lambda n: values.get(n.id)).items():
            names = tuple(filter(None, map(dotted, elements)))
            if values.get(name) is loop and len(names) == len(elements):
                bound[name] = names
    for node in through_locals:
        if isinstance(function, ast.Module) and isinstance(node.func, ast.Name):
            continue  # a module's names may be rebound by any importer: only its instances
        for name in _through_local(node, bound):
            if count < MAX_CALLS and may_be_project(name, imports, local):
                count += 1
                nodes.append((name, node))
                yield OutCall(node.lineno, name)


def _through_local(call: ast.Call, bound: dict[str, tuple[str, ...] | None]) -> list[str]:
    """What a call through a local runs: `run(...)` the names `run` may hold; `sim.step(...)`
    the method of the class whose instance `sim` holds (`Simulator.step`)."""
    if isinstance(call.func, ast.Name):
        return [name for name in bound.get(call.func.id) or () if not name.endswith(_MADE)]
    made = bound.get(call.func.value.id) or ()
    return [f"{name[:-len(_MADE)]}.{call.func.attr}" for name in made if name.endswith(_MADE)]


_MADE = "()"
"""What `_choices` appends to the class of an instance a local holds."""


_BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With,
             ast.AsyncWith, ast.NamedExpr)


def _note_binding(node: ast.AST, bound: dict[str, tuple[str, ...] | None],
                  values: dict[str, ast.AST | None]) -> None:
    """Record the names a binding statement binds: for a plain assignment of a name, the
    names its value may be (`_choices`), and the value (`values`; for a name bound once by a
    `for`, the loop); None for a name bound more than once or otherwise."""
    plain = isinstance(node, ast.Assign) and len(node.targets) == 1 \
        and isinstance(node.targets[0], ast.Name)
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars]
    else:
        targets = [node.target]
    loop = isinstance(node, (ast.For, ast.AsyncFor))
    for target in targets:
        for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
            once = name not in bound
            bound[name] = _choices(node.value) if plain and once else None
            values[name] = node.value if plain and once else node if loop and once else None


def _choices(value: ast.AST) -> tuple[str, ...] | None:
    """The dotted names an expression may evaluate to: a name, or `a if c else b` of them;
    for `Cls(...)`, `Cls()` (an instance)."""
    if isinstance(value, ast.Call):
        made = dotted(value.func)
        return (made + _MADE,) if made else None
    if isinstance(value, ast.IfExp):
        body, orelse = _choices(value.body), _choices(value.orelse)
        return body + orelse if body and orelse else None
    name = dotted(value)
    return (name,) if name else None


def loop_choices(loop: ast.AST, value_of_name) -> dict[str, tuple[ast.AST, ...]]:
    """Loop variable -> the expressions it is bound to in turn, where the `for` iterates a
    literal collection: a list, tuple or set, or a dict's `.items()`, `.values()`, `.keys()`
    (or the dict itself), written in place or the one value of a local (`value_of_name(name
    node)`); a target that unpacks takes each element's part (`for title, (cls, n) in {"a":
    (A, 1), "b": (B, 2)}.items()`: `cls` is A, then B). A variable some element does not
    show is left out."""
    elements = _elements(loop.iter, value_of_name)
    found: dict[str, list[ast.AST]] = {}
    hidden: set[str] = set()
    for element in elements or ():
        _unpack(loop.target, element, found, hidden)
    return {name: tuple(values) for name, values in found.items() if name not in hidden}


_ITERATED = frozenset({"items", "values", "keys"})


def _elements(node: ast.AST, value_of_name) -> list | None:
    """The elements a loop over `node` takes (a dict's items as (key, value) pairs)."""
    method = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in _ITERATED and not node.args and not node.keywords:
        method, node = node.func.attr, node.func.value
    if isinstance(node, ast.Name):
        node = value_of_name(node)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return list(zip(node.keys, node.values)) if method == "items" else \
            list(node.values) if method == "values" else list(node.keys)
    if method is None and isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(
            isinstance(element, ast.Starred) for element in node.elts):
        return list(node.elts)
    return None


def _unpack(target: ast.AST, element, found: dict[str, list], hidden: set[str]) -> None:
    if isinstance(target, ast.Name):
        found.setdefault(target.id, []).append(element)
        return
    parts = element if isinstance(element, tuple) else element.elts if isinstance(
        element, (ast.Tuple, ast.List)) else None
    if isinstance(target, (ast.Tuple, ast.List)) and parts is not None and \
            len(parts) == len(target.elts) and not any(
                isinstance(part, ast.Starred) for part in (*parts, *target.elts)):
        for inner, part in zip(target.elts, parts):
            _unpack(inner, part, found, hidden)
        return
    hidden.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _returned_call(context, function: ast.AST) -> str:
    """The dotted callee every `return` of the function calls (none for a module, for a bare
    `return` or a function that may end without one, or for two callees)."""
    if isinstance(function, ast.Module) or not function.body or \
            not isinstance(function.body[-1], (ast.Return, ast.Raise)):
        return ""
    callees = {dotted(node.value.func) if isinstance(node.value, ast.Call) else None
               for node in scope_nodes(context, function) if isinstance(node, ast.Return)}
    return callees.pop() or "" if len(callees) == 1 else ""


def may_be_project(name: str, imports: dict[str, str], local: set[str]) -> bool:
    """Whether a call of dotted `name` may run project code (see `_out_calls`); `local`: the
    module's top-level names."""
    base = name.partition(".")[0]
    if base == "self" or base in local:
        return True
    written = imports.get(base)
    if written is None:
        return False
    module = written.partition(":")[0]
    return module.startswith(".") or module.partition(".")[0] not in _LIBRARIES


_CALLED = f".{CALL_METHOD}"
_LIBRARIES = sys.stdlib_module_names | {"torch", "numpy", "cupy", "numba", "cuda", "jax"}


class ProjectFunctions:
    """The project's summarized modules (path -> ModuleSummary) and the calls between them."""

    gathered = True
    """Whether these are the facts gathered (not `UngatheredFacts`)."""

    def __init__(self, summaries: dict[str, ModuleSummary], handed: dict[str, Handed] | None = None):
        self.summaries = summaries
        self.handed = handed or {}
        """`FunctionIndexer.handed` of the indexer whose facts these are."""
        self.table = ModuleTable(summaries)
        self._names: dict[str, str] = {}
        self._memo: dict[tuple[str, str, str], tuple[tuple[Step, ...], Reach] | None] = {}
        self._callers: dict[tuple[str, str], list[tuple[str, str, int]]] | None = None
        self._registrations: set[tuple[str, int]] = set()
        self._callees: dict[tuple[str, str, str | None], tuple[str, str] | None] = {}
        self._reaching: dict[str, frozenset[str]] = {}
        self._members: dict[str, dict[str, set[str]]] = {}  # path -> class -> its methods
        self._name_sets: dict[int, tuple[ModuleSummary, frozenset[str], frozenset[str]]] = {}

    def is_class(self, path: str, name: str) -> bool:
        """Whether the summarized module `path` defines a class of that name."""
        return name in self._sets_of(self.summaries[path])[2]

    def _defines(self, summary: ModuleSummary, qualname: str) -> bool:
        return self._is_function(summary, qualname) or qualname in self._sets_of(summary)[2]

    def _is_function(self, summary: ModuleSummary, qualname: str) -> bool:
        return qualname in summary.functions or qualname in self._sets_of(summary)[1]

    def _sets_of(self, summary: ModuleSummary) -> tuple[ModuleSummary, frozenset, frozenset]:
        """(the summary, its functions without facts, its classes), the names as sets: a module
        of thousands of defs is asked about as many names (a look through a tuple grew with it)."""
        kept = self._name_sets.get(id(summary))
        if kept is None or kept[0] is not summary:
            kept = self._name_sets[id(summary)] = (
                summary, frozenset(summary.defined), frozenset(summary.classes))
        return kept

    def module_of(self, path: str) -> str:
        name = self._names.get(path)
        if name is None:
            name = self._names[path] = module_name(path)
        return name

    # -- which function a call runs --------------------------------------------------------
    def callee(self, path: str, imports: dict[str, str], name: str,
               caller: str | None = None) -> tuple[str, str] | None:
        """The project function (path, qualified name) that a call of dotted `name` in module
        `path` runs, its imports being `imports` (as written); `caller`: the calling
        function's qualified name (for `self.method`). None when not a project function.
        Memoized for the calls of summarized modules (their own imports)."""
        base, _, rest = name.partition(".")
        cls = caller.partition(".")[0] if base == "self" and caller and "." in caller else None
        summary = self.summaries.get(path)
        if summary is None or imports is not summary.imports:
            return self._callee(path, imports, name, cls)
        key = (path, name, cls)
        if key not in self._callees:
            self._callees[key] = self._callee(path, imports, name, cls)
        return self._callees[key]

    def _callee(self, path: str, imports: dict[str, str], name: str,
                cls: str | None) -> tuple[str, str] | None:
        base, _, rest = name.partition(".")
        if base == "self":
            return self._method(path, cls, rest) if cls and rest and "." not in rest else None
        found = self.definition(path, imports, name)
        if found is None:
            return self._instance_call(path, imports, name[:-len(_CALLED)]) \
                if name.endswith(_CALLED) else None
        if self.is_class(*found):  # calling a class runs __init__
            return self._method(found[0], found[1], "__init__")
        return found if self._is_function(self.summaries[found[0]], found[1]) else None

    def _instance_call(self, path: str, imports: dict[str, str],
                       cls: str) -> tuple[str, str] | None:
        """What calling an instance of the project class dotted `cls` runs, where the class
        does not define `__call__` itself: an inherited `__call__`, or for a class deriving
        from `torch.nn.Module`, its `forward` (the module's `__call__` runs it)."""
        found = self.definition(path, imports, cls)
        if found is None or not self.is_class(*found):
            return None
        return self._method(*found, CALL_METHOD) or (
            self._method(*found, FORWARD) if self.subclasses(*found, NN_MODULE) else None)

    def definition(self, path: str, imports: dict[str, str], name: str,
                   defines=None) -> tuple[str, str] | None:
        """The project function, method or class (path, qualified name) that dotted `name`
        refers to in module `path`; None when the project does not define it. `defines(summary,
        qualname)`: what counts as defined instead (a module constant)."""
        defines = defines or self._defines
        base, _, rest = name.partition(".")
        written = imports.get(base)
        if written is None:
            summary = self.summaries.get(path)
            return (path, name) if summary and defines(summary, name) else None
        imported = resolve(written, self.module_of(path), is_package(path))
        if imported is None:
            return None
        return self._defined(".".join(filter(None, [imported.dotted, rest])), defines)

    def method(self, path: str, imports: dict[str, str], cls: str,
               method: str) -> tuple[str, str] | None:
        """The method `method` of the project class dotted `cls` names in module `path`."""
        found = self.definition(path, imports, cls)
        if found is None or not self.is_class(*found):
            return None
        return self._method(found[0], found[1], method)

    def made_by(self, path: str, imports: dict[str, str], factory: str,
                method: str) -> tuple[str, str] | None:
        """The method `method` of the project class whose instance the project function
        dotted `factory` names in module `path` returns (`build_graphs()` returning
        `StepGraphs(...)`)."""
        found = self.callee(path, imports, factory)
        function = self.summaries[found[0]].functions.get(found[1]) if found else None
        if function is None or not function.returns:
            return None
        return self.method(found[0], self.summaries[found[0]].imports, function.returns, method)

    def subclasses(self, path: str, cls: str, qualified: str) -> bool:
        """Whether the project class `cls` of module `path` derives from `qualified` (a
        library class, `threading.Thread`), directly or through project classes."""
        summary = self.summaries[path]
        for base in summary.bases.get(cls, ()):
            head, _, rest = base.partition(".")
            written = summary.imports.get(head)
            imported = resolve(written, self.module_of(path), is_package(path)) if written \
                else None
            if imported is not None and ".".join(filter(None, [imported.dotted, rest])) \
                    == qualified:
                return True
            found = self.definition(path, summary.imports, base)
            if found is not None and self.is_class(*found) and \
                    found != (path, cls) and self.subclasses(*found, qualified):
                return True
        return False

    def _defined(self, target: str, defines=None) -> tuple[str, str] | None:
        """The definition a fully dotted name reaches, following re-exports."""
        defines = defines or self._defines
        for _ in range(MAX_DEPTH):
            found = self.table.split(target)
            if found is None or not found[1]:
                return None
            path, attributes = found
            summary = self.summaries[path]
            written = summary.imports.get(attributes[0])
            if written is None:
                qualname = ".".join(attributes)
                return (path, qualname) if defines(summary, qualname) else None
            imported = resolve(written, self.module_of(path), is_package(path))
            if imported is None:
                return None
            target = ".".join([imported.dotted, *attributes[1:]])
        return None

    def callers(self, path: str, qualname: str) -> list[tuple[str, str, int]]:
        """Every summarized call of the function, and registration of it (`REGISTERED`):
        (path, calling function, line)."""
        if self._callers is None:
            self._callers = {}
            for caller_path, summary in self.summaries.items():
                for caller, function in summary.functions.items():
                    for call in function.calls:
                        name = call.name
                        registers = name.startswith(REGISTERED)
                        callee = self.callee(caller_path, summary.imports,
                                             name.removeprefix(REGISTERED), caller)
                        if callee is not None:
                            self._callers.setdefault(callee, []).append(
                                (caller_path, caller, call.line))
                            if registers:
                                self._registrations.add((caller_path, call.line))
        return self._callers.get((path, qualname), [])

    def registers(self, path: str, line: int) -> bool:
        """Whether the caller `callers` gives at `path`:`line` registers the function (a
        library runs it later) rather than calling it."""
        if self._callers is None:
            self.callers(path, "")  # (they are found with the callers)
        return (path, line) in self._registrations

    def with_fact(self, kind: str) -> list[tuple[str, str, Reach]]:
        """(path, qualified name, the fact) of each summarized function with a fact of `kind`
        of its own."""
        return [(path, qualname, function.facts[kind])
                for path, summary in self.summaries.items()
                for qualname, function in summary.functions.items() if kind in function.facts]

    def fact(self, path: str, qualname: str, kind: str) -> Reach | None:
        """The function's own fact of `kind` (what it does itself, through its module's
        functions: not through calls into other modules)."""
        function = self.summaries[path].functions.get(qualname)
        return None if function is None else function.facts.get(kind)

    def _method(self, path: str, cls: str, method: str,
                depth: int = 0) -> tuple[str, str] | None:
        """The class's method, its own or inherited from the project's classes it derives
        from (in the order of its bases, depth first); None where a base the project does not
        define comes first (a library class may define it)."""
        summary = self.summaries.get(path)
        qualname = f"{cls}.{method}"
        if summary is None or self._is_function(summary, qualname):
            return None if summary is None else (path, qualname)
        for base in summary.bases.get(cls, ()) if depth < MAX_DEPTH else ():
            if base == "object":
                continue
            found = self.definition(path, summary.imports, base)
            if found is None or not self.is_class(*found):
                return None
            inherited = self._method(*found, method, depth + 1)
            if inherited is not None:
                return inherited if self._keeps(path, cls, inherited) else None
        return None

    def _keeps(self, path: str, cls: str, inherited: tuple[str, str]) -> bool:
        """Whether the inherited method's facts hold for an instance of `cls`: the class sets
        up no state of its own (`__init__`) and overrides none of the methods the inherited
        one calls on `self`."""
        own = self._class_members(path).get(cls, set())
        function = self.summaries[inherited[0]].functions.get(inherited[1])
        called = {call.name.partition(".")[2] for call in function.calls
                  if call.name.startswith("self.")} if function else set()
        return "__init__" not in own and not own & called

    def _class_members(self, path: str) -> dict[str, set[str]]:
        """Class -> the names of its summarized functions (`C.f`: `f`; `C.f.g`: `f.g`), read
        once per module (a 10 MB module's 12,000 read for each inherited method asked)."""
        if path not in self._members:
            found: dict[str, set[str]] = {}
            for qualname in _qualnames(self.summaries[path]):
                head, _, rest = qualname.partition(".")
                found.setdefault(head, set()).add(rest)
            self._members[path] = found
        return self._members[path]

    # -- what a function reaches -----------------------------------------------------------
    def reach(self, path: str, qualname: str, kind: str) -> tuple[Step, ...] | None:
        """The chain by which the function reaches a fact of `kind`, from its own first step
        to the fact: each step where a call is made, then the fact itself; None when unknown
        or when it does not."""
        found = self.reached(path, qualname, kind)
        return None if found is None else found[0]

    def may_reach(self, name: str, kind: str) -> bool:
        """Whether a project function, method or class (its `__init__`) named `name` reaches
        a fact of `kind`: a test by name before a call is resolved."""
        return name in self.reaching(kind)

    def reaching(self, kind: str) -> frozenset[str]:
        """The names `may_reach` says reach a fact of `kind`: none, without following a call,
        where no function has a fact of `kind` or of a kind its handed callables must reach
        (a chain ends in a function's own fact; the capture words of a project that captures
        nothing were a tenth of a warm run over Megatron-LM)."""
        names = self._reaching.get(kind)
        if names is None:
            kinds = self._ending(kind)
            names = self._reaching[kind] = frozenset(
                part for path, summary in self.summaries.items()
                for qualname in summary.functions
                if self.reached(path, qualname, kind) is not None
                for part in call_names(qualname)) if any(
                    not kinds.isdisjoint(function.facts) for summary in self.summaries.values()
                    for function in summary.functions.values()) else frozenset()
        return names

    def _ending(self, kind: str) -> set[str]:
        """The kinds of fact a chain reaching `kind` can end in: `kind`, and those its handed
        callables must reach, theirs in turn."""
        kinds, todo = {kind}, [kind]
        while todo:
            handed = self.handed.get(todo.pop())
            for inner in handed.kinds if handed else ():
                if inner not in kinds:
                    kinds.add(inner)
                    todo.append(inner)
        return kinds

    def reached(self, path: str, qualname: str,
                kind: str) -> tuple[tuple[Step, ...], Reach] | None:
        """`reach`'s chain and the fact it ends in."""
        return self._reach(path, qualname, kind, 0, frozenset())

    def _reach(self, path: str, qualname: str, kind: str, depth: int, seen: frozenset):
        key = (path, qualname, kind)
        if key in self._memo:
            return self._memo[key]
        function = self.summaries[path].functions.get(qualname)
        found = None
        if function is not None and depth <= MAX_DEPTH and key not in seen:
            found = self._first(path, qualname, function, kind, depth, seen | {key})
        if depth == 0 or found is not None:  # a miss under a cycle is not final
            self._memo[key] = found
        return found

    def _first(self, path: str, qualname: str, function: FunctionSummary, kind: str,
               depth: int, seen: frozenset):
        """The earliest (by line) way the function reaches `kind`: its own fact or a call."""
        options = []
        local = function.facts.get(kind)
        if local is not None:
            through = f" (through {', '.join(f'{name}()' for name in local.via)})" \
                if local.via else ""
            options.append((local.line, ((Step(path, local.line, local.what + through),),
                                         local)))
        imports = self.summaries[path].imports
        for call in sorted(function.calls, key=lambda call: call.line):
            if local is not None and call.line >= local.line:
                break
            name, hands = call.name, call.name.startswith(HANDED)
            if name.startswith(REGISTERED):
                continue  # (run later: nothing it reaches happens here)
            if hands:  # run on another thread: only for the kinds saying so
                name, handed = name.removeprefix(HANDED), self.handed.get(kind)
                running, name = name.startswith(RUNNING), name.removeprefix(RUNNING)
                if handed is None or (handed.running and not running):
                    continue
            callee = self.callee(path, imports, name, qualname)
            if callee is None or callee == (path, qualname):
                continue
            inner = next((found for inner_kind in handed.kinds if (found := self._reach(
                *callee, inner_kind, depth + 1, seen)) is not None), None) if hands else \
                self._reach(*callee, kind, depth + 1, seen)
            if inner is not None:
                note = f"{'hands' if hands else 'calls'} `{callee[1]}()` " \
                    f"({_short(callee[0])}){' to another thread' if hands else ''}"
                options.append((call.line, ((Step(path, call.line, note), *inner[0]), inner[1])))
                break
        return min(options, key=lambda option: option[0])[1] if options else None


def call_names(qualname: str) -> tuple[str, ...]:
    """The names a call of the function ends in: its own, and its class's for `__init__` and
    `__call__` (`Runner(...)` runs the one, `runner(...)` with `runner = Runner(...)` the
    other)."""
    head, _, last = qualname.rpartition(".")
    return (last, head.rpartition(".")[2]) if last in ("__init__", CALL_METHOD) and head \
        else (last,)


def _qualnames(summary: ModuleSummary) -> Iterator[str]:
    """The qualified names of the module's summarized functions and methods."""
    yield from summary.functions
    yield from summary.defined


def _short(path: str) -> str:
    return os.path.basename(path)


class UngatheredFacts:
    """An indexer's facts in a lint that runs before the run gathers them
    (`FileContext.facts_to_come`): none. Each question asked of them (a public attribute)
    notes the indexer in `FileContext.asked`; a call of one of `QUESTIONS` is recorded with
    its arguments (`recorded_questions`) and answered as without facts, a read of anything
    else records that the facts were read whole. A file that asked nothing has the findings
    it would have with the facts: it needs none; one whose every question the facts answer
    as without them (`answered_otherwise`) has them too: it is not linted again."""

    gathered = False

    def __init__(self, context, name: str, handed: dict[str, Handed] | None = None):
        self._note = lambda: context.asked.add(name)
        self._none = ProjectFunctions({}, handed)
        self._questions = context.shared((_QUESTIONS, name), set)

    def __getattr__(self, attribute: str):
        self._note()
        found = getattr(self._none, attribute)
        if attribute not in QUESTIONS:
            self._questions.add(_WHOLE)
            return found
        questions = self._questions

        def asked(*args, **options):
            import json  # (only a lint that asks of facts to come needs it)

            try:
                questions.add(json.dumps([attribute, *args]) if not options else _WHOLE)
            except TypeError:  # (an argument no lookup carries: a function)
                questions.add(_WHOLE)
            return found(*args, **options)

        return asked

    def __bool__(self) -> bool:
        self._note()
        return True


QUESTIONS = frozenset({"callee", "definition", "method", "made_by", "subclasses", "callers",
                       "registers",
                       "fact", "reach", "reached", "may_reach", "reaching", "with_fact",
                       "module_of", "is_class"})
"""The methods of `ProjectFunctions` whose answers, given the same arguments, depend on
nothing but the summaries: what a lint before the facts asks of them is asked again of the
facts gathered (`answered_otherwise`)."""
_QUESTIONS = "project-functions-questions"
_WHOLE = ANY_QUESTION = "*"
"""(A lookup standing for every question: the facts were read otherwise.)"""


def recorded_questions(context, name: str) -> set[str] | None:
    """The questions (JSON: [method, arguments...]) the file's lint asked of the indexer
    `name`'s facts to come (`UngatheredFacts`); None where it read them otherwise."""
    questions = context.shared((_QUESTIONS, name), set)
    return None if _WHOLE in questions else questions


def answered_otherwise(name: str, facts: dict[str, ModuleSummary], handed: dict[str, str],
                       questions: Iterable[str]) -> bool:
    """Whether one of `questions` (`recorded_questions`) has another answer with the facts of
    the indexer `name` than without any."""
    project = _built(name, facts, handed)
    answers = _ANSWERS.get(name)
    if answers is None or answers[0] is not facts:
        answers = _ANSWERS[name] = (facts, ProjectFunctions({}, handed), {})
    none, known = answers[1], answers[2]
    for question in questions:
        if question not in known:
            import json  # (only a lint with facts needs it)

            attribute, *args = json.loads(question)
            known[question] = getattr(project, attribute)(*args) != \
                getattr(none, attribute)(*args)
        if known[question]:
            return True
    return False


_ANSWERS: dict[str, tuple[dict, ProjectFunctions, dict[str, bool]]] = {}
"""Indexer name -> its last facts, their questions' answers without facts, and whether each
question asked has another answer with them (the files of a run ask many of the same)."""


_BUILT: dict[str, tuple[dict, ProjectFunctions]] = {}  # indexer name -> the run's last


def project_functions(context, indexer: FunctionIndexer) -> ProjectFunctions | None:
    """The run's view of the project's functions for `indexer` (built once per run, shared by
    every file); None when the run gathered no facts for it; `UngatheredFacts` where the run
    gathers them after this lint."""
    summaries = context.project.get(indexer.name)
    if not summaries:
        if context.facts_to_come and indexer.name not in context.project:
            return context.shared((UngatheredFacts, indexer.name),
                                  lambda: UngatheredFacts(context, indexer.name, indexer.handed))
        return None
    return _built(indexer.name, summaries, indexer.handed)


def _built(name: str, summaries: dict[str, ModuleSummary],
           handed: dict[str, str]) -> ProjectFunctions:
    built = _BUILT.get(name)
    if built is None or built[0] is not summaries:
        built = _BUILT[name] = (summaries, ProjectFunctions(summaries, handed))
    return built[1]


def project_names(context) -> tuple[str, ...]:
    """The names a file takes from the project's other modules: those it imports from one
    (`helper` of `from .tools import helper`) and the attributes it reads of one it imports
    whole (`loop` of `health.loop`, read from the text), of a module `is_project_module`
    finds. (Once per file: several indexers' seeds ask.)"""
    return context.shared(_PROJECT_NAMES, lambda: tuple(_project_names(context)))


_PROJECT_NAMES = "project-names-taken"


def _project_names(context) -> Iterator[str]:
    root = context.settings.root or os.getcwd()
    path = os.path.abspath(context.source.path)  # (once, not per import)
    imported = [(local, written.partition(":")[2])
                for local, written in linted_imports(context).items()
                if is_project_module(path, written.partition(":")[0], root)]
    reads = _attribute_reads(context.source.text, {local for local, _ in imported})
    for local, attribute in imported:
        if attribute:
            yield attribute  # (which may be a module: its attributes read count too)
        yield from reads.get(local, ())


_ATTRIBUTE_READ = LazyPattern(r"(?<![\w.])(\w+)\.(\w+)")


def _attribute_reads(text: str, names: set[str]) -> dict[str, set[str]]:
    """Name (of `names`) -> the attributes the text reads of it (`loop` of `health.loop`):
    where the text holds `name.`, matched there as a scan of every `a.b` of the text would
    match it (such a scan, kept whole, cost more than finding the few names asked of)."""
    reads: dict[str, set[str]] = {}
    for name in names:
        start = text.find(name + ".")
        while start >= 0:
            read = _ATTRIBUTE_READ.match(text, start)
            if read is not None:
                reads.setdefault(name, set()).add(read[2])
            start = text.find(name + ".", start + 1)
    return reads


def call_target(context, project: ProjectFunctions, node: ast.AST) -> tuple[str, str] | None:
    """The project function (path, qualified name) that the callable expression `node` of the
    linted file names: `health.loop`, `loop` imported from `.health`, or a method on an
    instance of a project class (`manager.record` with `manager = GraphManager()`,
    `self.graphs.record` with `self.graphs = GraphManager()` in the class, or
    `GraphManager().record` itself: a bound method stored as `self.step_fn`), or the
    `__call__` of such an instance called (`runner` with `runner = LazyGraphRunner(model)`);
    None when it is not one."""
    path = os.path.abspath(context.source.path)
    imports = linted_imports(context)
    name = dotted(node)
    if name is not None:
        found = project.callee(path, imports, name, calling_function(context, node))
        if found is not None:
            return found
    # a method of an instance, or an instance called (its class's `__call__`)
    ways = [(node.value, node.attr)] if isinstance(node, ast.Attribute) else []
    if isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(
            node.value, ast.Name) and node.value.id == "self"):
        ways.append((node, CALL_METHOD))
    for receiver, method in ways:
        constructor = _instance_class(context, receiver)
        found = constructor and (project.method(path, imports, constructor, method) or
                                 project.made_by(path, imports, constructor, method))
        if found:
            return found
    return None


def own_method_called(context, project: ProjectFunctions | None, call: ast.Call,
                      forward=None) -> ast.AST | None:
    """The def of a method of the module's own classes that `call` runs through an instance
    or a stored bound method (`self.clipper.step(g)`, `self.step_fn(g)` with `self.step_fn =
    self.clipper.step`; `call_target`), not an instance called (`__call__`) but a module's
    `forward` (`forward(func)`: the project `forward` calling `func` runs); None else."""
    if project is None or not isinstance(call.func, ast.Attribute):
        return None
    target = call_target(context, project, call.func)
    if target is not None and target[1].endswith(f".{CALL_METHOD}"):
        target = None
    func = call.func
    if target is None and forward is not None and isinstance(func.value, ast.Name) and \
            func.value.id == "self":
        target = forward(func)
    if target is None or target[0] != os.path.abspath(context.source.path):
        return None
    if target[1].count(".") != 1:  # (a method of a class at the module's top level)
        return None
    return next((function for qualname, function in module_functions(context.tree)
                 if qualname == target[1]), None)


def _instance_class(context, receiver: ast.AST, depth: int = 0) -> str | None:
    """The dotted name of what makes the instance `receiver` is: the callee of the call that
    makes it (`GraphManager()`, or a factory), the annotation of the parameter it is
    (`optimizer: NormGatedOptimizer`, also through `self.opt = optimizer`), or for an
    unannotated `__init__` parameter what makes each argument the module's constructions of
    the class pass for it, where they all agree (`Graphed(model, opt)`, `opt = Gated(...)`)."""
    made = receiver if isinstance(receiver, ast.Call) else value_of(context, receiver)
    if isinstance(made, ast.Call):
        return dotted(made.func)
    parameter = made if isinstance(made, ast.Name) else \
        receiver if made is None and isinstance(receiver, ast.Name) else None
    annotation = parameter_annotation(context, parameter) if parameter is not None else None
    if annotation is not None:
        return dotted(annotation)
    if parameter is None or depth >= _GIVEN_DEPTH:
        return None
    given = constructor_arguments(context, parameter)
    made = {_instance_class(context, value, depth + 1) for value in given}
    return made.pop() if len(made) == 1 else None


_GIVEN_DEPTH = 3
"""Constructor parameters followed through one another (`A(b)` passing its own parameter)."""


def constructor_arguments(context, node: ast.Name) -> list[ast.AST]:
    """The expressions the module's calls of a class pass for the `__init__` parameter that
    `node` reads (where `__init__` never rebinds it): each call's argument, or the
    parameter's default where a call passes none; a local of the calling function bound
    only by assignments gives each value it is assigned. [] when `node` is not such a
    parameter. Calls from other modules, and spreads the module does not show, are not read,
    so the list is never all of them."""
    init = context.scope_of(node)
    if not (isinstance(init, _FUNCTIONS) and init.name == "__init__") or \
            context.definition(node) is not None:
        return []
    cls = context.parent_of(init)
    found = _parameter(init, node.id) if isinstance(cls, ast.ClassDef) else None
    if found is None or _own_stores(context, init).get(node.id):
        return []
    index, default = found
    values = []
    for call in _constructions(context).get(id(cls), ()):
        given = context.argument(call, index, node.id)
        given = default if given is None else given
        if isinstance(given, ast.Name) and context.definition(given) is None and \
                _is_local(context, given):
            values.extend(assigned_values(context, given))  # a local bound in branches
        elif isinstance(given, ast.AST):  # not UNKNOWN (a spread the module does not show)
            values.append(given)
    return values


def passed_values(context, node: ast.Name) -> list[ast.AST]:
    """The expressions the module's calls of a module-level function pass for its positional
    parameter that `node` reads (never rebound in it); [] when `node` is no such parameter or
    a call passes none the module shows. Calls from other modules are not read."""
    function = context.scope_of(node)
    if not isinstance(function, _FUNCTIONS) or context.scope_of(function) is not None or \
            _own_stores(context, function).get(node.id):
        return []
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if node.id not in positional:
        return []
    index = positional.index(node.id)
    values = [context.argument(call, index, node.id) for call in calls_of(context, function)]
    return values if all(isinstance(value, ast.AST) for value in values) else []


def _is_local(context, node: ast.Name) -> bool:
    """Whether `node` names a parameter or a variable of its function (not a module's name)."""
    scope = context.scope_of(node)
    return isinstance(scope, _FUNCTIONS) and (
        node.id in (a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)) or
        node.id in _own_stores(context, scope))


def _constructions(context) -> dict[int, list[ast.Call]]:
    """id(class) -> the module's calls of the module's class by its name (once per file)."""
    def find() -> dict[int, list[ast.Call]]:
        classes = {node.name for node in context.nodes(ast.ClassDef)}
        found: dict[int, list[ast.Call]] = {}
        for call in context.nodes(ast.Call):
            if isinstance(call.func, ast.Name) and call.func.id in classes:
                cls = context.definition(call.func)
                if isinstance(cls, ast.ClassDef):
                    found.setdefault(id(cls), []).append(call)
        return found
    return context.derived("class-constructions", find)


def _parameter(init: ast.AST, name: str) -> tuple[int | None, ast.AST | None] | None:
    """(the parameter's position after `self`, None when keyword-only; its default) of
    `__init__`'s parameter `name`, or None when it has none of that name."""
    arguments = init.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for index, argument in enumerate(positional):
        if argument.arg == name:
            return (index - 1 if index else None), defaults[index]
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if argument.arg == name:
            return None, default
    return None


def parameter_annotation(context, node: ast.Name) -> ast.AST | None:
    """The annotation of the parameter `node` reads (`optimizer: NormGatedOptimizer`), where
    its function never binds the name again; None otherwise."""
    scope = context.scope_of(node)
    if not isinstance(scope, _FUNCTIONS):
        return None
    arguments = scope.args
    parameter = next((a for a in (*arguments.posonlyargs, *arguments.args,
                                  *arguments.kwonlyargs) if a.arg == node.id), None)
    if parameter is None or parameter.annotation is None:
        return None
    stores = _own_stores(context, scope)
    return None if stores.get(node.id) else parameter.annotation


def value_of(context, node: ast.AST) -> ast.AST | None:
    """What `node` is bound to in the module: a name's one binding, or the one value (or
    method) the enclosing class gives `self.<attr>`; None when the module does not show one."""
    if isinstance(node, ast.Name):
        return context.definition(node) or _rebound_parameter(context, node)
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self"):
        return None
    cls = next((a for a in context.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    if cls is None:
        return None
    method = own_method(cls, node.attr)
    if method is not None:
        return method
    values = attribute_values(context, cls).get(node.attr, ())
    return values[0] if len(values) == 1 else None


def _rebound_parameter(context, node: ast.Name) -> ast.AST | None:
    """The value of a parameter rebound once, read after that (`ctx = get_context(ctx)`, then
    `ctx.Pool()`): the assignment's, where it is the function's only other binding of the
    name and the only binding that reaches the use (`python.reaching`)."""
    scope = context.scope_of(node)
    if not isinstance(scope, _FUNCTIONS) or node.id not in (
            a.arg for a in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs)):
        return None
    bindings = _own_stores(context, scope).get(node.id, ())
    if len(bindings) != 1:
        return None
    assignment = bindings[0]
    if assignment is None or assignment.end_lineno >= node.lineno:
        return None
    found = reaching(context, node)  # (not where the parameter's own value may reach too)
    return assignment.value if found is not None and found.at[id(node)] == {assignment} \
        else None


def assigned_values(context, node: ast.Name) -> list[ast.AST]:
    """The values of every `name = value` that binds the local `node` names in its function
    (`f = embed` in one branch, `f = caption` in another); [] where the function binds it any
    other way too (a parameter, a loop, an augmented assignment) or it is not a local."""
    scope = context.scope_of(node)
    if not isinstance(scope, _FUNCTIONS) or node.id in (a.arg for a in ast.walk(scope.args)
                                                          if isinstance(a, ast.arg)):
        return []
    bindings = _own_stores(context, scope).get(node.id, ())
    return [] if None in bindings else [assignment.value for assignment in bindings]


def _own_stores(context, function: ast.AST) -> dict[str, list[ast.Assign | None]]:
    """name -> for each time the function's own statements assign it, the `name = value`
    statement whose one target it is, or None (any other binding), from its own nodes
    (the assignment is known without asking the tree for the name's parent); once per tree
    for each function."""
    return context.derived(("own-stores", id(function)), lambda: _stores(context, function))


def _stores(context, function: ast.AST) -> dict[str, list[ast.Assign | None]]:
    stored: list[ast.Name] = []
    assignments: dict[int, ast.Assign] = {}  # id(the one target) -> its assignment
    for node in scope_nodes(context, function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            assignments[id(node.targets[0])] = node
    stores: dict[str, list[ast.Assign | None]] = {}
    for name in stored:
        stores.setdefault(name.id, []).append(assignments.get(id(name)))
    return stores


def attribute_values(context, cls: ast.ClassDef) -> dict[str, list[ast.AST]]:
    """attr -> the values of each `self.attr = value` in the class's methods (once per class
    and file)."""
    return context.derived(("self-attributes", id(cls)), lambda: _self_assignments(cls))


def _self_assignments(cls: ast.ClassDef) -> dict[str, list[ast.AST]]:
    """attr -> the values of each `self.attr = value` in the class's methods (one walk)."""
    found: dict[str, list[ast.AST]] = {}
    for method in cls.body:
        if isinstance(method, _FUNCTIONS):
            for node in _own_statements(method.body):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                and target.value.id == "self"):
                            found.setdefault(target.attr, []).append(node.value)
    return found


def _own_statements(roots: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The statements of `own_nodes(roots)` (and their except handlers and match cases),
    without entering expressions, which hold no statement; in `own_nodes`'s order."""
    pending = [root for root in roots if not isinstance(root, _SCOPES)]
    while pending:
        node = pending.pop()
        yield node
        for name in child_fields(type(node)):
            if name in STATEMENT_BLOCKS:
                pending.extend(child for child in getattr(node, name, ())
                               if not isinstance(child, _SCOPES))


def positional_parameters(function: ast.AST, bound: bool = True) -> list[str]:
    """The names of a def's or lambda's positional parameters, a first `self` or `cls` left
    out where `bound` (the function is called through an instance or its class)."""
    names = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if bound and names and names[0] in ("self", "cls") else names


def own_method(cls: ast.ClassDef, name: str) -> ast.AST | None:
    """The class's own def of `name` (not an inherited one)."""
    return next((item for item in cls.body
                 if isinstance(item, _FUNCTIONS) and item.name == name), None)


def own_nodes(roots: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes under `roots` that run with them (nested defs, lambdas and classes are not
    entered)."""
    pending = [root for root in roots if not isinstance(root, _SCOPES)]
    node_class, scopes, push = ast.AST, _SCOPES, pending.append
    while pending:  # (`child_nodes` inlined: the analyses walk functions this way most)
        node = pending.pop()
        yield node
        for name in child_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, node_class) and not isinstance(child, scopes):
                        push(child)
            elif isinstance(value, node_class) and not isinstance(value, scopes):
                push(value)


_SCOPE_NODES = "scope-nodes"


def scope_nodes(context, scope: ast.AST) -> list[ast.AST]:
    """`own_nodes` of what a module, def or lambda runs, listed once per tree for each scope:
    the index's calls of a function, its returns, its stores and the calls the thread and
    capture analyses read are found in one walk of it, not one each."""
    return context.derived((_SCOPE_NODES, id(scope)), lambda: list(own_nodes(
        [scope.body] if isinstance(scope, ast.Lambda) else scope.body)))


def linted_imports(context) -> dict[str, str]:
    """The linted module's imports as written (shared by every context of its tree)."""
    return context.derived("written-imports",
                           lambda: written_imports(context.tree, context.source.text))


def calling_function(context, node: ast.AST) -> str | None:
    """The qualified name (`f`, `Class.method`) of the module function or method whose body
    holds `node` (None at module level or inside a nested def)."""
    scope = context.scope_of(node)
    if not isinstance(scope, _FUNCTIONS):
        return None
    owner = context.scope_of(scope)
    if owner is None:
        return scope.name
    if isinstance(owner, ast.ClassDef) and context.scope_of(owner) is None:
        return f"{owner.name}.{scope.name}"
    return None


def module_calls_of(context, names: set[str]) -> list[ast.Call]:
    """The module's calls whose callee ends in one of `names` (only those can run a function
    of that name, or the `__init__` of a class of that name: `runs`), in walk order."""
    by_name = context.derived("module-calls-by-name",
                              lambda: _by_last_name(context.nodes(ast.Call)))
    found = [entry for name in names for entry in by_name.get(name, ())]
    return [call for _, call in sorted(found, key=lambda entry: entry[0])]


def _by_last_name(calls: list[ast.Call]) -> dict[str, list[tuple[int, ast.Call]]]:
    """Name -> (walk position, call) of the calls whose callee ends in it."""
    found: dict[str, list[tuple[int, ast.Call]]] = {}
    for position, call in enumerate(calls):
        name = last_name(call.func)
        if name is not None:
            found.setdefault(name, []).append((position, call))
    return found


def runs(context, call: ast.Call, function: ast.AST) -> bool:
    """Whether `call` runs `function`: its name, `self.<method>`, or its class (`__init__`)."""
    if isinstance(call.func, ast.Attribute):
        return value_of(context, call.func) is function
    if not isinstance(call.func, ast.Name):
        return False
    bound = context.definition(call.func)
    if bound is function:
        return True
    return isinstance(bound, ast.ClassDef) and function.name == "__init__" and \
        context.scope_of(function) is bound


def called_as(context, function: ast.AST) -> str:
    """How calls name the function: its class for `__init__`."""
    owner = context.scope_of(function)
    return owner.name if function.name == "__init__" and isinstance(owner, ast.ClassDef) \
        else function.name


def calls_of(context, function: ast.AST) -> list[ast.Call]:
    """The module's calls that run `function` (a def of the module): by its name,
    `self.<name>`, or its class for `__init__`, in walk order; then those through a loop
    variable bound to it by a loop over a literal collection (`loop_choices`)."""
    names = {function.name, called_as(context, function)}
    owner = context.scope_of(function) if function.name == "__init__" else function
    return [call for call in module_calls_of(context, names) if runs(context, call, function)] \
        + loop_calls(context).get(id(owner), [])


def loop_calls(context) -> dict[int, list[ast.Call]]:
    """id(def or class of the module) -> the calls of a loop variable bound to it by a loop
    over a literal collection (`for cls in (A, B): cls()`), in the loop's body (once per
    file)."""
    def find() -> dict[int, list[ast.Call]]:
        found: dict[int, list[ast.Call]] = {}
        for loop in context.nodes(ast.For, ast.AsyncFor):
            choices = loop_choices(loop, lambda name: value_of(context, name))
            calls = [node for node in own_nodes(loop.body) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Name) and node.func.id in choices]
            for call in calls:
                for element in choices[call.func.id]:
                    bound = context.definition(element) if isinstance(element, ast.Name) \
                        else None
                    if isinstance(bound, (*_FUNCTIONS, ast.ClassDef)):
                        found.setdefault(id(bound), []).append(call)
        return found
    return context.derived("loop-calls", find)
