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
from dataclasses import dataclass
from typing import Iterable, Iterator

from cursedlint.analysis.python_modules import (
    ModuleTable, is_package, module_name, resolve, written_imports,
)
from cursedlint.findings import Step
from cursedlint.project_index import Indexer

MAX_DEPTH = 6
"""Calls followed from one function to the fact (a longer chain is unknown)."""
MAX_CALLS = 64
"""Calls of one function followed (the rest are unknown)."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Reach:
    """A fact at `line` of the function's module: `what` happens there, reached through the
    module's own functions named in `via` (outermost first)."""

    line: int
    what: str
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutCall:
    """A call at `line` to `name` (dotted, rooted at a module-level name or `self`)."""

    line: int
    name: str


@dataclass(frozen=True)
class FunctionSummary:
    line: int
    facts: dict[str, Reach]
    calls: tuple[OutCall, ...]


@dataclass(frozen=True)
class ModuleSummary:
    """One module: its imports as written (`python_modules.written_imports`) and its functions
    and methods (`name`, `Class.name`) that have facts or make calls worth following."""

    imports: dict[str, str]
    functions: dict[str, FunctionSummary]


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


class FunctionIndexer(Indexer):
    """Per-function facts of the project's Python modules (see the module docstring).
    Subclasses set `name` and implement `words` and `local_facts`."""

    languages = ("python",)
    summary_type = ModuleSummary

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        """What `function` of the parsed module does, by kind (only what the module shows)."""
        raise NotImplementedError

    def summarize(self, context) -> ModuleSummary | None:
        imports = written_imports(context.tree)
        functions = {}
        for qualname, function in module_functions(context.tree):
            facts = self.local_facts(context, function)
            calls = tuple(_out_calls(function, imports))
            if facts or calls:
                functions[qualname] = FunctionSummary(function.lineno, facts, calls)
        return ModuleSummary(imports, functions) if functions or imports else None

    def more_words(self, facts: dict[str, ModuleSummary], settings) -> Iterable[str]:
        """The names of functions that reach a fact: modules that name one may call it, or
        re-export it."""
        reaching = {qualname.rpartition(".")[2] for summary in facts.values()
                    for qualname, function in summary.functions.items() if function.facts}
        grew = True
        while grew:  # callers of reaching names reach too (resolved exactly later)
            grew = False
            for summary in facts.values():
                for qualname, function in summary.functions.items():
                    last = qualname.rpartition(".")[2]
                    if last not in reaching and any(
                            call.name.rpartition(".")[2] in reaching for call in function.calls):
                        reaching.add(last)
                        grew = True
        return reaching


def _out_calls(function: ast.AST, imports: dict[str, str]) -> Iterator[OutCall]:
    """The calls `function` makes (not those of nested defs) to dotted names: through an
    import, to `self.<method>`, or to a module-level name; at most MAX_CALLS."""
    count = 0
    pending = list(function.body)
    while pending and count < MAX_CALLS:
        node = pending.pop()
        if isinstance(node, (*_FUNCTIONS, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name is not None:
                count += 1
                yield OutCall(node.lineno, name)
        pending.extend(ast.iter_child_nodes(node))


class ProjectFunctions:
    """The project's summarized modules (path -> ModuleSummary) and the calls between them."""

    def __init__(self, summaries: dict[str, ModuleSummary]):
        self.summaries = summaries
        self.table = ModuleTable(summaries)
        self._names: dict[str, str] = {}
        self._memo: dict[tuple[str, str, str], tuple[Step, ...] | None] = {}

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
        function's qualified name (for `self.method`). None when not a project function."""
        base, _, rest = name.partition(".")
        if base == "self":
            cls = caller.partition(".")[0] if caller and "." in caller else None
            return self._method(path, cls, rest) if cls and rest and "." not in rest else None
        written = imports.get(base)
        if written is None:
            summary = self.summaries.get(path)
            return (path, name) if summary and name in summary.functions else None
        imported = resolve(written, self.module_of(path), is_package(path))
        if imported is None:
            return None
        return self._defined(".".join(filter(None, [imported.dotted, rest])))

    def _defined(self, target: str) -> tuple[str, str] | None:
        """The function a fully dotted name reaches, following re-exports."""
        for _ in range(MAX_DEPTH):
            found = self.table.split(target)
            if found is None or not found[1]:
                return None
            path, attributes = found
            summary = self.summaries[path]
            written = summary.imports.get(attributes[0])
            if written is None:
                qualname = ".".join(attributes)
                if qualname in summary.functions:
                    return path, qualname
                if len(attributes) == 1:  # a class: calling it runs __init__
                    init = f"{qualname}.__init__"
                    return (path, init) if init in summary.functions else None
                return None
            imported = resolve(written, self.module_of(path), is_package(path))
            if imported is None:
                return None
            target = ".".join([imported.dotted, *attributes[1:]])
        return None

    def _method(self, path: str, cls: str, method: str) -> tuple[str, str] | None:
        summary = self.summaries.get(path)
        qualname = f"{cls}.{method}"
        return (path, qualname) if summary and qualname in summary.functions else None

    # -- what a function reaches -----------------------------------------------------------
    def reach(self, path: str, qualname: str, kind: str) -> tuple[Step, ...] | None:
        """The chain by which the function reaches a fact of `kind`, from its own first step
        to the fact: each step where a call is made, then the fact itself; None when unknown
        or when it does not."""
        return self._reach(path, qualname, kind, 0, frozenset())

    def _reach(self, path: str, qualname: str, kind: str, depth: int,
               seen: frozenset) -> tuple[Step, ...] | None:
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
               depth: int, seen: frozenset) -> tuple[Step, ...] | None:
        """The earliest (by line) way the function reaches `kind`: its own fact or a call."""
        options = []
        local = function.facts.get(kind)
        if local is not None:
            through = f" (through {', '.join(f'{name}()' for name in local.via)})" if local.via else ""
            options.append((local.line, (Step(path, local.line, local.what + through),)))
        imports = self.summaries[path].imports
        for call in sorted(function.calls, key=lambda call: call.line):
            if local is not None and call.line >= local.line:
                break
            callee = self.callee(path, imports, call.name, qualname)
            if callee is None or callee == (path, qualname):
                continue
            inner = self._reach(*callee, kind, depth + 1, seen)
            if inner is not None:
                note = f"calls `{callee[1]}()` ({_short(callee[0])})"
                options.append((call.line, (Step(path, call.line, note), *inner)))
                break
        return min(options, key=lambda option: option[0])[1] if options else None


def _short(path: str) -> str:
    return os.path.basename(path)


_BUILT: dict[str, tuple[dict, ProjectFunctions]] = {}  # indexer name -> the run's last


def project_functions(context, indexer: FunctionIndexer) -> ProjectFunctions | None:
    """The run's view of the project's functions for `indexer` (built once per run, shared by
    every file); None when the run gathered no facts for it."""
    summaries = context.project.get(indexer.name)
    if not summaries:
        return None
    built = _BUILT.get(indexer.name)
    if built is None or built[0] is not summaries:
        built = _BUILT[indexer.name] = (summaries, ProjectFunctions(summaries))
    return built[1]


def call_target(context, project: ProjectFunctions, node: ast.AST) -> tuple[str, str] | None:
    """The project function (path, qualified name) that the callable expression `node` of the
    linted file names (`health.loop`, `loop` imported from `.health`); None when it is not
    one."""
    name = dotted(node)
    if name is None:
        return None
    path = os.path.abspath(context.source.path)
    return project.callee(path, linted_imports(context), name, calling_function(context, node))


def linted_imports(context) -> dict[str, str]:
    """The linted module's imports as written (shared by the rules of one file)."""
    return context.shared("written-imports",
                          lambda: written_imports(context.tree))


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
