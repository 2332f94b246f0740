"""What a process holds when it forks, and what the children of a fork-based start run.

A forked child breaks where the parent initialized CUDA before the fork and the child uses
CUDA ("Cannot re-initialize CUDA in forked subprocess"; pinned memory: "CUDA error:
initialization error"); a parent that only imported torch, a child doing CPU work, a
`Manager`'s server all work (observed on an H200: tests/gpu_fork_cases.py). A child of a
process that turned RDMA fork protection on loses every page a registration shares (incident
000).

`ProcessState.held_before(start)`: the first thing shown, on a way to `start`, that leaves the
process holding such state: CUDA initialized (`CudaUse.initializes`: CUDA work, a query that
initializes the runtime, an NCCL process group) or fork protection turned on
(`EnvironmentSettings.in_process`). Looked for in what runs before the start in its function
(the earlier statements of each enclosing block, the tests of enclosing `if`s, a loop's whole
body: an earlier iteration), following the module's functions and the project's
(`cuda-reach`); the module's import-time code before the function; then before each call of
the function, in the module and (through the `start-methods` index's `cuda_init` facts) in
the project's other modules, up to MAX_DEPTH callers up; for a method, in its instance's
constructor, which ran before it (`__init__`, inherited or through `super().__init__()`).
`refused_when_initialized(start)`: a
check on the way refuses the start when CUDA is initialized.

`ForkChildren`: the code a start's children run (`Process(target=f)`, `start_processes(f)`,
the tasks given to a pool or executor and its `initializer`, a DataLoader's dataset and
hooks, the function a `datasets` map given `num_proc` runs (`dataset_maps`), the branch
after `os.fork()` that tests its result) and whether that is all of it; the first use of
CUDA in that code (`CudaUse.needs_cuda`: CUDA work, pinned memory, `set_device()`, an NCCL
group); where a start forks later than it is made (an executor's first task, a loader's
iteration).

For the `start-methods` index: `first_initialization` (a function's `CUDA_INIT` fact) and
`starting_functions` (the names whose callers it summarizes, and the classes of its methods,
whose constructions it summarizes); and the names of the calls that
start processes by fork (`ALWAYS_FORK`, `DEFAULT_CONTEXT_USERS`).
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from msgspec import Struct

from cursedlint.analysis.capture_regions import (
    DATA_LOADERS, FUNCTIONS, body_of, capture_analysis,
)
from cursedlint.analysis.constructor_parameters import given_values
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.analysis.dataset_maps import (
    MAP_METHODS, NUM_PROC, dataset_workers, map_function,
)
from cursedlint.analysis.fork_protection import EnvironmentSettings
from cursedlint.analysis.registrations import registrations_of
from cursedlint.analysis.python_project import (
    MAX_DEPTH, MODULE, ProjectFunctions, Reach, call_target, called_as, calling_function,
    calls_of, dotted, last_name, linted_imports, own_method, own_nodes, project_functions,
)
from cursedlint.findings import Step
from cursedlint.patterns import LazyPattern
from cursedlint.python.consteval import UNKNOWN, is_known

if TYPE_CHECKING:
    from cursedlint.analysis.cuda_use import CudaUse

ALWAYS_FORK = frozenset({"os.fork", "os.forkpty", "pty.fork"})
DEFAULT_CONTEXT_USERS = {
    "multiprocessing.Process": None,
    "multiprocessing.Pool": None,
    "multiprocessing.Manager": None,
    "multiprocessing.pool.Pool": (4, "context"),
    "concurrent.futures.ProcessPoolExecutor": (1, "mp_context"),
    "concurrent.futures.process.ProcessPoolExecutor": (1, "mp_context"),
}
"""Constructors that use the default start method, and the argument that can pass a context."""
FORKS = "forks"
"""A function that starts processes by fork whose children may use CUDA (`starting_defs`):
its callers, up, are what the index reads next (`start_methods._climbing_names`)."""
CUDA_INIT = "cuda_init"
"""The first statement of a function (of the module's code) that initializes CUDA
(`CudaUse.initializes`): a caller that runs it before calling a function that forks hands
the fork a process holding CUDA."""
TASK_METHODS = frozenset({"map", "imap", "imap_unordered", "map_async", "starmap",
                          "starmap_async", "apply", "apply_async", "submit"})
"""Pool and executor methods whose first argument runs in a child."""
_INITIALIZER_POSITIONS = {"Pool": 1, "ProcessPoolExecutor": 2}
_TARGETS = {"Process": (1, "target"), "start_processes": (0, "fn")}
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_DEFINITIONS = (*FUNCTIONS, ast.ClassDef, ast.Import, ast.ImportFrom)
_IS_INITIALIZED = frozenset({"torch.cuda.is_initialized"})


def torch_spellings(names) -> frozenset[str]:
    """`names` with the torch.multiprocessing spelling of each multiprocessing name added."""
    return frozenset(names) | {
        "torch." + name for name in names if name.startswith("multiprocessing.")
    }


PROCESS_BASES = torch_spellings({"multiprocessing.Process", "multiprocessing.process.BaseProcess"})
"""The bases that make a module's class one whose instances start processes (`process_class`)."""


def process_class(context, call: ast.Call) -> ast.ClassDef | None:
    """The module's class that `call` makes where it derives from multiprocessing's `Process`
    (`class Worker(mp.Process)`, torch.multiprocessing's too) and defines `run()`: its
    children run that method. A class the module defines twice, or a base of a context
    (`ctx.Process`), is not one."""
    if not isinstance(call.func, ast.Name):
        return None
    return process_classes(context).get(call.func.id)


def process_classes(context) -> dict[str, ast.ClassDef]:
    """Name -> the module's class of that name that `process_class` finds (once per file)."""
    return context.shared("process-classes", lambda: _process_classes(context))


def _process_classes(context) -> dict[str, ast.ClassDef]:
    counts: dict[str, int] = {}
    found = {}
    for statement in context.tree.body:
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            counts[statement.name] = counts.get(statement.name, 0) + 1
        if isinstance(statement, ast.ClassDef) and any(  # (`run` first: no scope analysis)
                isinstance(item, FUNCTIONS) and item.name == "run" for item in statement.body
        ) and any(context.qualified_name(base, PROCESS_BASES) for base in statement.bases):
            found[statement.name] = statement
    return {name: node for name, node in found.items() if counts[name] == 1}


def multiprocessing_name(name: str | None) -> str | None:
    """torch.multiprocessing re-exports multiprocessing: map its names onto the originals."""
    prefix = "torch.multiprocessing."
    if name and name.startswith(prefix) and name != prefix + "start_processes":
        return "multiprocessing." + name[len(prefix):]
    return name


class Shown(Struct, frozen=True):
    """State the process is shown to hold: `what` (for the message: how CUDA was initialized,
    or the variable that turned fork protection on), where it is (`path`, `line`) and the
    chain from it to the start's function."""

    what: str
    path: str
    line: int
    steps: tuple[Step, ...]
    protection: bool = False
    """RDMA fork protection, not CUDA."""


class ProcessState:
    """What the linted module's process holds before a fork-based start (`context`: its
    PythonContext; `uses`: its CudaUse)."""

    def __init__(self, context, uses: CudaUse, project: ProjectFunctions | None):
        self.context = context
        self.uses = uses
        self.path = os.path.abspath(context.source.path)
        self.environment = EnvironmentSettings(context)
        self.project = project
        """The `start-methods` facts (their `cuda_init`; None in the index's own run)."""
        self._import_time: list[ast.stmt] | None = None
        self._import_time_hits: dict[str, tuple[int, tuple[ast.stmt, Shown] | None]] = {}

    def held_before(self, node: ast.AST, depth: int = 0, seen: frozenset[int] = frozenset(),
                    cleared: str | None = None) -> Shown | None:
        """The first state shown held before `node` runs (see the module docstring).
        `cleared`: the `start-methods` fact of a process-wide start method other than fork
        (for a start that takes the process's default): a caller in another module that
        calls after it is no way to a fork."""
        scope = self._function(node)
        earlier = self._preceding_in(node, scope)
        top = self._top(scope)  # (what runs at import before it comes before all of those)
        shown = self._at_import(top, self._protection) or self._protection(earlier) or \
            self._at_import(top, self._cuda) or self._cuda(earlier)
        if shown is not None or scope is None or depth >= MAX_DEPTH or id(scope) in seen:
            return shown
        for call in calls_of(self.context, scope):
            shown = self.held_before(call, depth + 1, seen | {id(scope)}, cleared)
            if shown is not None:
                return _called(shown, self.context.source.path, call.lineno, scope.name)
        for call in registrations_of(self.context, scope):  # (it runs later)
            shown = self.held_before(call, depth + 1, seen | {id(scope)}, cleared)
            if shown is not None:
                return _called(shown, self.context.source.path, call.lineno, scope.name,
                               registers=True)
        qualname = calling_function(self.context, body_of(scope)[0])
        shown = self._held_by_callers(self.path, qualname, depth + 1, frozenset(), cleared) \
            if qualname else None
        return shown or self._held_by_construction(scope, depth, seen, cleared)

    def _held_by_construction(self, method: ast.AST, depth: int, seen: frozenset[int],
                              cleared: str | None) -> Shown | None:
        """What the process held when the method's instance was made, which was before any
        of its methods ran: CUDA initialized by the constructor (the class's own `__init__`,
        and the one it inherits or calls through `super().__init__()`, of the module or of
        the project through the `cuda-reach` facts), or before a construction of the class
        (`Worker(...)`, where it defines `__init__`: in the module, and in the project through
        the `start-methods` facts). Not for `__init__` itself, nor a static or class method."""
        cls = self.context.scope_of(method)
        if not isinstance(cls, ast.ClassDef) or method.name in _CONSTRUCTION or any(
                isinstance(d, ast.Name) and d.id in _NOT_ON_INSTANCES
                for d in method.decorator_list):
            return None
        path = self.context.source.path
        shown = self._constructor_initializes(cls, 0)
        if shown is not None:
            note = f"then {method.name}() runs on the {cls.name} instance that constructor made"
            return Shown(shown.what, shown.path, shown.line,
                         (*shown.steps, Step(path, method.lineno, note)))
        init = own_method(cls, "__init__")
        if init is None or id(init) in seen:
            return None
        note = f"then {method.name}() runs on that {cls.name} instance"
        for call in calls_of(self.context, init):
            shown = self.held_before(call, depth + 1, seen | {id(method), id(init)}, cleared)
            if shown is not None:
                shown = _called(shown, path, call.lineno, cls.name)
                return Shown(shown.what, shown.path, shown.line,
                             (*shown.steps, Step(path, method.lineno, note)))
        shown = self._held_by_callers(self.path, f"{cls.name}.__init__", depth + 1, frozenset(),
                                      cleared)
        return None if shown is None else Shown(
            shown.what, shown.path, shown.line, (*shown.steps, Step(path, method.lineno, note)))

    def _constructor_initializes(self, cls: ast.ClassDef, depth: int) -> Shown | None:
        """The first CUDA initialization in what `cls(...)` runs of its `__init__`s: its
        own, then its first base's where it has none or calls `super().__init__()`."""
        init = own_method(cls, "__init__")
        if init is not None:
            shown = self._cuda(body_of(init))
            if shown is not None or not any(_calls_super_init(node) for node in own_nodes(
                    body_of(init))):
                return shown
        base = cls.bases[0] if cls.bases and depth < MAX_DEPTH else None
        name = dotted(base) if base is not None else None
        if name is None:
            return None
        local = self.context.shared("process-state-classes", lambda: {
            s.name: s for s in self.context.tree.body if isinstance(s, ast.ClassDef)})
        if name in local:
            return self._constructor_initializes(local[name], depth + 1)
        project = self.uses.project
        found = project.method(self.path, linted_imports(self.context), name, "__init__") \
            if project is not None else None
        steps = project.reach(*found, CudaFact.CUDA_INIT) if found else None
        if not steps:
            return None
        return Shown(steps[-1].note, steps[-1].path, steps[-1].line, steps)

    def refused_when_initialized(self, start: ast.AST) -> bool:
        """Whether a check on the way to `start` refuses it when CUDA is initialized: an
        earlier `if ... torch.cuda.is_initialized(): raise ...` (or return) in its function,
        or the start under `if not torch.cuda.is_initialized():`."""
        scope = self._function(start)
        for node in self.preceding(start, scope):
            if isinstance(node, ast.If) and self._asks_initialized(node.test) is True \
                    and node.body and isinstance(node.body[-1], (ast.Raise, ast.Return)):
                return True
        child = start
        for parent in self.context.ancestors(start):
            if parent is scope:
                break
            if isinstance(parent, ast.If) and child is not parent.test:
                asked = self._asks_initialized(parent.test)
                if asked is not None and asked == (child in parent.orelse):
                    return True
            child = parent
        return False

    def preceding(self, node: ast.AST, scope: ast.AST | None) -> list[ast.AST]:
        """What runs before `node` on the way to it in `scope` (a def; None: the module):
        the earlier statements of each enclosing block, the tests of enclosing `if`s and
        loops, a loop's whole body, a `try` body before its handlers; and, for a def, the
        module's import-time statements before it."""
        top = self._top(scope)
        return self._preceding_in(node, scope) + ([] if top is None else [
            s for s in self._import_time_statements() if s.end_lineno < top.lineno])

    def _preceding_in(self, node: ast.AST, scope: ast.AST | None) -> list[ast.AST]:
        """`preceding` within `scope` (without the module's import-time statements)."""
        found: list[ast.AST] = []
        child = node
        for parent in self.context.ancestors(node):
            for name, value in ast.iter_fields(parent):
                if isinstance(value, list) and any(item is child for item in value):
                    index = next(i for i, item in enumerate(value) if item is child)
                    found.extend(value[:index])
                    if isinstance(parent, _LOOPS) and name == "body":
                        found.extend(value[index + 1:])
                    if isinstance(parent, ast.Try) and name != "body":
                        found.extend(parent.body)
            if isinstance(parent, (ast.If, ast.While)) and child is not parent.test:
                found.append(parent.test)
            elif isinstance(parent, (ast.For, ast.AsyncFor)) and child is not parent.iter:
                found.append(parent.iter)
            if parent is scope:
                break
            child = parent
        return [n for n in found if not isinstance(n, (*FUNCTIONS, ast.ClassDef, ast.Lambda))]

    def _top(self, scope: ast.AST | None) -> ast.AST | None:
        """The module's statement that holds `scope` (None for the module)."""
        if scope is None:
            return None
        return next((a for a in self.context.ancestors(scope)
                     if self.context.parent_of(a) is self.context.tree), scope)

    def _import_time_statements(self) -> list[ast.stmt]:
        """The module's statements that run at import, other than definitions and imports."""
        if self._import_time is None:
            self._import_time = [s for s in self.context.tree.body
                                 if not isinstance(s, _DEFINITIONS)]
        return self._import_time

    def _at_import(self, top: ast.AST | None, shown_in) -> Shown | None:
        """What `shown_in` finds first in the module's import-time statements before `top`
        (its part of `preceding`, whose nodes all come before the others'). The statements
        are read once for all the starts, from the first, as far as asked (a start near the
        end of a module of 12,000 functions read them all again)."""
        if top is None:
            return None
        statements = self._import_time_statements()
        read, hit = self._import_time_hits.get(shown_in.__name__, (0, None))
        while hit is None and read < len(statements) and statements[read].end_lineno < top.lineno:
            shown = shown_in([statements[read]])
            if shown is not None:
                hit = statements[read], shown
            read += 1
        self._import_time_hits[shown_in.__name__] = read, hit
        return hit[1] if hit is not None and hit[0].end_lineno < top.lineno else None

    # -- what is shown -----------------------------------------------------------------------
    def _protection(self, earlier: list[ast.AST]) -> Shown | None:
        for node in sorted(own_nodes(earlier), key=_position):
            for setting, variable in self.environment.in_process(node):
                note = f"{variable} is set (fork protection on)"
                return Shown(variable, self.context.source.path, setting.lineno,
                             (Step(self.context.source.path, setting.lineno, note),),
                             protection=True)
        return None

    def _cuda(self, earlier: list[ast.AST]) -> Shown | None:
        from cursedlint.analysis.cuda_use import through

        found = self.uses.first(earlier, self.uses.initializes)
        if found is None:
            return None
        node, what, via = found
        steps = self.uses.steps_for(node) or (
            Step(self.context.source.path, node.lineno, what + through(via)),)
        return Shown(what, steps[-1].path, steps[-1].line, steps)

    def _held_by_callers(self, path: str, qualname: str, depth: int, seen: frozenset,
                         cleared: str | None) -> Shown | None:
        """CUDA initialized, in another module, before a call of the function (or of a
        function that calls it, or registers it), as the `start-methods` facts show, through
        what that caller calls before (in its module or another)."""
        project = self.project
        if project is None or depth > MAX_DEPTH or (path, qualname) in seen:
            return None
        owner, _, name = qualname.rpartition(".")
        name = owner.rpartition(".")[2] if name == "__init__" and owner else name
        for caller_path, caller, line in project.callers(path, qualname):
            if caller_path == self.path:
                continue  # the module's own calls are read in its tree
            setting = project.fact(caller_path, caller, cleared) if cleared else None
            if setting is not None and setting.line < line:
                continue  # (no fork on this way)
            registers = project.registers(caller_path, line)
            found = project.reached(caller_path, caller, CUDA_INIT)
            if found is not None and found[0][0].line < line and not (
                    cleared and only_after_setting(project, caller_path, caller, cleared)):
                steps, fact = found
                return _called(Shown(fact.what, steps[-1].path, steps[-1].line, steps),
                               caller_path, line, name, registers)
            if caller != MODULE:
                shown = self._held_by_callers(caller_path, caller, depth + 1,
                                              seen | {(path, qualname)}, cleared)
                if shown is not None:
                    return _called(shown, caller_path, line, name, registers)
        return None

    def _function(self, node: ast.AST) -> ast.AST | None:
        scope = self.context.scope_of(node)
        while isinstance(scope, (ast.Lambda, ast.ClassDef)):
            scope = self.context.scope_of(scope)
        return scope

    def _asks_initialized(self, test: ast.AST) -> bool | None:
        """True where `test` holds only when CUDA is initialized (`torch.cuda.is_initialized()`,
        alone or in an `and`), False where only when it is not (`not ...`); else None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._asks_initialized(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return True if any(self._asks_initialized(v) is True for v in test.values) else None
        if isinstance(test, ast.Call) and self.context.qualified_name(
                test.func, among=_IS_INITIALIZED):
            return True
        return None


class ForkChildren:
    """The code the children of a start run, and whether it uses CUDA (`context`: the linted
    module's PythonContext)."""

    def __init__(self, context, uses: CudaUse):
        self.context = context
        self.uses = uses
        self.analysis = capture_analysis(context)
        self.given_at: dict[int, Step] = {}
        """id(code) -> where the module passes it for a `self.<attr>` target (`_given_codes`)."""

    def of(self, start: ast.Call) -> tuple[list[tuple[ast.AST, str]], bool]:
        """The code the start's children run, labelled, and whether that is all of it:
        `Process(target=f)`, `start_processes(f, ...)`, the `run()` of a `Process` subclass
        the module defines (`process_class`); the tasks given to a pool or executor
        made here (`pool.map(f, ...)`, `executor.submit(f, ...)`, also through `self.pool` in
        the class's methods) and its `initializer`; a DataLoader's (`_loader_code`); a
        dataset map's function (`dataset_workers`); the branch of `os.fork()`'s child; a
        `Manager()`'s server runs multiprocessing's own code only."""
        name = last_name(start.func)
        if name == "Manager":
            return [], True
        if self.loader_workers(start):
            return self._loader_code(start)
        if dataset_workers(self.context, start):
            function = map_function(self.context, start)
            code = self._code(function) if isinstance(function, ast.AST) else None
            return ([code] if code else []), function is None or code is not None
        made = process_class(self.context, start)
        if made is not None:
            run = next(item for item in made.body if isinstance(item, FUNCTIONS)
                       and item.name == "run")
            return [(run, f"{made.name}.run()")], True
        if name in ("Process", "start_processes"):
            target = self.context.argument(start, *_TARGETS[name])
            code = self._code(target) if target is not UNKNOWN else None  # `*args` hides it
            if code is None and isinstance(target, ast.AST):
                return self._given_codes(target), False
            return ([code] if code else []), code is not None
        if name in ("fork", "forkpty"):
            branch = self._child_branch(start)
            return ([(branch, f"the child's branch on line {branch.lineno}")] if branch
                    else []), False
        handle = self._handle(start)
        if handle is None:
            return [], False
        tasks = [call.args[0] for call in self._task_calls(start, handle) if call.args]
        initializer = self.context.argument(start, _INITIALIZER_POSITIONS.get(name), "initializer")
        if isinstance(initializer, ast.AST) and not (
                isinstance(initializer, ast.Constant) and initializer.value is None):
            tasks.append(initializer)
        codes = [self._code(task) for task in tasks]
        return [code for code in codes if code], bool(tasks) and None not in codes

    def _given_codes(self, target: ast.AST) -> list[tuple[ast.AST, str]]:
        """The code of each callable the module's calls of the class pass for the `__init__`
        parameter a `self.<attr>` target is set to (`given_values`), each call's place kept in
        `given_at`; never all of the target's code (other modules may construct the class too)."""
        codes = []
        for given in given_values(self.context, target):
            code = self._code(given)
            if code is not None:
                codes.append(code)
                self.given_at[id(code[0])] = Step(
                    self.context.source.path, given.lineno,
                    f"{code[1]} is given for {ast.unparse(target)}, the process's target")
        return codes

    def _child_branch(self, start: ast.Call) -> ChildBranch | None:
        """The statements only the child of `os.fork()` runs: the branch of an `if` that
        tests the result (or the name it is bound to, the first of `pid, fd = pty.fork()`)
        against 0 (`if pid == 0:`, `if not pid:`, the `else` of `if pid:` or `if pid > 0:`)."""
        parent = self.context.parent_of(start)
        name = None
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            target = parent.targets[0]
            if isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[0]
            name = target.id if isinstance(target, ast.Name) else None
        scope = self.context.scope_of(start)
        for node in own_nodes(body_of(scope) if scope is not None else self.context.tree.body):
            if isinstance(node, ast.If) and node.lineno >= start.lineno:
                child = _child_side(node.test, start, name)
                if child is not None:
                    body = node.body if child else node.orelse
                    return ChildBranch(body, body[0].lineno) if body else None
        return None

    def lazy_starts(self, start: ast.Call) -> list[ast.AST]:
        """Where a ProcessPoolExecutor forks its workers: at its first task, not when made;
        a DataLoader's: where it is iterated (`for batch in loader`, `iter(loader)`). What
        the process holds there counts too."""
        handle = self._handle(start)
        if handle is None:
            return []
        if last_name(start.func) == "ProcessPoolExecutor":
            return self._task_calls(start, handle)
        if not self.loader_workers(start):
            return []
        return [node.iter if isinstance(node, (ast.For, ast.comprehension)) else node
                for node in self._nodes_with(start, handle) if (
                    isinstance(node, (ast.For, ast.comprehension)) and _names(node.iter, handle)
                ) or (isinstance(node, ast.Call) and last_name(node.func) in _ITERATING
                      and any(_names(argument, handle) for argument in node.args))]

    def loader_workers(self, start: ast.Call) -> bool:
        """Whether the call is a DataLoader whose workers are forked: `num_workers` given and
        not 0, no `multiprocessing_context` (the default is fork before Python 3.14)."""
        if last_name(start.func) != "DataLoader" or \
                not self.analysis.named(start.func, DATA_LOADERS) or \
                self.context.settings.target_python >= (3, 14):
            return False
        workers = self.context.argument(start, 5, "num_workers")
        if workers is None or workers is UNKNOWN or self.context.argument(
                start, 11, "multiprocessing_context") is not None:
            return False  # no workers, or a spread that may give any, or a context given
        count = self.context.evaluate(workers)
        return not is_known(count) or (isinstance(count, int) and count > 0)

    def _loader_code(self, start: ast.Call) -> tuple[list[tuple[ast.AST, str]], bool]:
        """What a DataLoader's workers run: its dataset's `__getitem__` (or `__iter__`), its
        `collate_fn` and `worker_init_fn`."""
        codes = [self._dataset_method(self.context.argument(start, 0, "dataset"))]
        for position, keyword in ((6, "collate_fn"), (10, "worker_init_fn")):
            given = self.context.argument(start, position, keyword)
            if isinstance(given, ast.AST):
                codes.append(self._code(given))
        return [code for code in codes if code], None not in codes

    def _dataset_method(self, dataset) -> tuple[ast.AST, str] | None:
        """The dataset's `__getitem__` (else `__iter__`), of a class of the module or the
        project, where the dataset is made by calling it."""
        made = self.analysis.value_of(dataset) if isinstance(dataset, ast.AST) else None
        if not isinstance(made, ast.Call):
            return None
        cls = self.analysis.value_of(made.func)
        for method in ("__getitem__", "__iter__"):
            if isinstance(cls, ast.ClassDef):
                code = own_method(cls, method)
                if code is not None:
                    return code, f"{cls.name}.{method}()"
                continue
            constructor = dotted(made.func)
            project = self.uses.project
            found = project.method(os.path.abspath(self.context.source.path),
                                   linted_imports(self.context), constructor, method) \
                if project and constructor else None
            if found is not None:
                return found, f"{found[1]}() ({os.path.basename(found[0])})"
        return None

    def may_use_cuda(self, start: ast.Call) -> bool:
        """Whether the children may use CUDA as far as the module shows: not where all of
        their code is shown and none uses it (a CPU-only pool, a Manager)."""
        loader = self.analysis.named(start.func, DATA_LOADERS)
        if loader and not self.loader_workers(start):
            return False
        codes, complete = self.of(start)
        if any(self._uses_cuda(code) for code, _ in codes):
            return True
        if complete or loader:
            return False  # a loader whose dataset is not shown is not reported
        return CUDA_REACH.needed_by(self.context)  # unknown code may be another module's

    def use(self, start: ast.Call) -> tuple[str, tuple[Step, ...]] | None:
        """The first use of CUDA in the code the children run: (the child's label, the chain
        to the use)."""
        for code, label in self.of(start)[0]:
            found = self._uses_cuda(code)
            if found is not None:
                given = self.given_at.get(id(code))
                return label, (given, *found) if given else found
        return None

    def _code(self, target: ast.AST | None):
        """(code, label) of a callable the module shows: a def, lambda, partial or method of
        the module, or a function of another project module."""
        code = self.analysis.code_of(target)
        if code is not None:
            label = f"the lambda on line {code.lineno}" if isinstance(code, ast.Lambda) \
                else f"{code.name}()"
            return code, label
        project = self.uses.project
        if (project is None or not project.gathered) and target is not None:
            # a project function that does no CUDA work would make the child's code known
            self.context.asks_any_fact.add(CUDA_REACH.name)
        found = call_target(self.context, project, target) if project and target else None
        return (found, f"{found[1]}() ({os.path.basename(found[0])})") if found else None

    def _uses_cuda(self, code) -> tuple[Step, ...] | None:
        from cursedlint.analysis.cuda_use import through

        path = self.context.source.path
        if isinstance(code, tuple):  # another module's function
            return self.uses.project.reach(*code, self.uses.needs_cuda.remote_kind)
        found = self.uses.first(body_of(code), self.uses.needs_cuda)
        if found is None:
            return None
        node, what, via = found
        return self.uses.steps_for(node) or (Step(path, node.lineno, what + through(via)),)

    def _handle(self, start: ast.Call) -> str | None:
        """The name a pool or executor is kept in: `with Pool() as pool`, `pool = Pool()`,
        `self.pool = Pool()`."""
        parent = self.context.parent_of(start)
        if isinstance(parent, ast.withitem) and parent.optional_vars is not None:
            return ast.unparse(parent.optional_vars)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            return ast.unparse(parent.targets[0])
        return None

    def _task_calls(self, start: ast.Call, handle: str) -> list[ast.Call]:
        """The calls that hand the pool or executor kept in `handle` a task (`pool.map(f,
        ...)`, `executor.submit(f, ...)`)."""
        return [call for call in self._calls_with(start, handle)
                if isinstance(call.func, ast.Attribute) and call.func.attr in TASK_METHODS
                and ast.unparse(call.func.value) == handle]

    def _calls_with(self, start: ast.Call, handle: str) -> list[ast.Call]:
        """The calls where the handle may be used: its function's (the whole class's for
        `self.<name>`)."""
        return [node for node in self._nodes_with(start, handle) if isinstance(node, ast.Call)]

    def _nodes_with(self, start: ast.Call, handle: str) -> list[ast.AST]:
        """The nodes where the handle may be used (`_calls_with`)."""
        scope = self.context.scope_of(start)
        if handle.startswith("self."):
            scope = next((a for a in self.context.ancestors(start)
                          if isinstance(a, ast.ClassDef)), scope)
            roots = [body for method in getattr(scope, "body", []) if isinstance(method, FUNCTIONS)
                     for body in method.body]
        else:
            roots = self.context.tree.body if scope is None else body_of(scope)
        return list(own_nodes(roots))


_CUDA_WORDS = LazyPattern(rb"cuda|nccl|cupy")


def first_initialization(context, statements: list[ast.stmt]) -> Reach | None:
    """The first of `statements` that initializes CUDA, through the module's functions."""
    from cursedlint.analysis.cuda_use import module_cuda_use

    if not context.shared(_CUDA_WORDS, lambda: _CUDA_WORDS.search(context.source.data)):
        return None  # every call that initializes CUDA names one of these
    uses = module_cuda_use(context)
    if uses.first(statements, uses.initializes) is None:
        return None  # one look for most functions; the statement only where there is one
    for statement in statements:
        found = uses.first([statement], uses.initializes)
        if found is not None:
            return Reach(statement.lineno, found[1], tuple(found[2]))
    return None


def starting_functions(context) -> set[str]:
    """The names calls give the module's functions that start processes by fork
    (`starting_defs`), and the module's functions that call or register them, up (their
    callers in other modules may hand them a process holding CUDA: `CUDA_INIT`); and the
    classes of those that are methods, whose constructions may."""
    starting = list(starting_defs(context).values())
    climbed = {id(function) for function in starting}
    frontier = starting
    for _ in range(MAX_DEPTH):
        callers = []
        for function in frontier:
            for call in (*calls_of(context, function), *registrations_of(context, function)):
                caller = context.scope_of(call)
                if isinstance(caller, FUNCTIONS) and id(caller) not in climbed:
                    climbed.add(id(caller))
                    callers.append(caller)
            owner = context.scope_of(function)
            init = own_method(owner, "__init__") if isinstance(owner, ast.ClassDef) else None
            if init is not None and id(init) not in climbed:
                climbed.add(id(init))
                callers.append(init)
        if not callers:
            break
        frontier = callers
        starting = [*starting, *callers]
    return {called_as(context, function) for function in starting} | {
        owner.name for function in starting  # (its constructions: `_held_by_construction`)
        if isinstance(owner := context.scope_of(function), ast.ClassDef)}


def starting_defs(context) -> dict[int, ast.AST]:
    """id -> def of the module's functions that start processes by fork (a dataset map given
    `num_proc` too) and whose children may use CUDA (not a CPU-only pool of the module's own
    code, a Manager, a DataLoader whose dataset is not shown; not a test, which no code calls,
    nor the entry point of a script). Once per file."""
    return context.shared("starting-defs", lambda: _starting_defs(context))


def _starting_defs(context) -> dict[int, ast.AST]:
    from cursedlint.analysis.cuda_use import module_cuda_use

    names = _STARTING_NAMES | (MAP_METHODS if NUM_PROC.encode() in context.source.data
                               else frozenset())
    if not any(name.encode() in context.source.data for name in names):
        return {}
    starts = [(call, function) for call in context.met(ast.Call)  # (after the walk: no index)
              if last_name(call.func) in names
              and isinstance(function := context.scope_of(call), FUNCTIONS)
              and not function.name.startswith("test") and _starts(context, call)]
    if not starts:
        return {}
    children = ForkChildren(context, module_cuda_use(context))
    return {id(function): function for call, function in starts
            if not _entry_point(context, function) and children.may_use_cuda(call)}


def _starts(context, call: ast.Call) -> bool:
    """Whether a call may start processes by fork: a default-context constructor, a fork,
    `start_processes`, a context's `Process`/`Pool`/`Manager` (`ctx.Pool()`), a DataLoader,
    a dataset's `map` given `num_proc`."""
    if context.qualified_name(call.func, among=_FORK_STARTS) is not None:
        return True
    if dataset_workers(context, call):
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in CONTEXT_MAKERS and \
        context.imports.qualified_name(call.func) is None


_FORK_STARTS = torch_spellings({*ALWAYS_FORK, *DEFAULT_CONTEXT_USERS,
                                "multiprocessing.start_processes", *DATA_LOADERS})
CONTEXT_MAKERS = frozenset({"Process", "Pool", "Manager"})
"""Context methods that start processes (a Queue or a Lock starts none)."""
_STARTING_NAMES = frozenset(name.rpartition(".")[2] for name in _FORK_STARTS)
"""The last names of the calls that may start processes by fork (a first, cheap look)."""


def _entry_point(context, function: ast.AST) -> bool:
    """Whether the module's own top-level code calls the function (`main()` under `if
    __name__ == "__main__":`): a script's entry point, which other modules do not call."""
    return any(context.scope_of(call) is None for call in calls_of(context, function))


def only_after_setting(project, path: str, qualname: str, key: str, depth: int = 0,
                       seen: frozenset = frozenset()) -> bool:
    """Whether the function has callers in the project and each runs after a process-wide
    setting: module code after the setting, or a function all of whose calls do (bounded)."""
    callers = project.callers(path, qualname)
    if not callers or depth > MAX_DEPTH or (path, qualname) in seen:
        return False
    for caller_path, caller, line in callers:
        setting = project.fact(caller_path, caller, key)
        if setting is not None and setting.line < line:
            continue
        if caller == MODULE or not only_after_setting(project, caller_path, caller, key,
                                                      depth + 1, seen | {(path, qualname)}):
            return False
    return True


def never_runs(context, node: ast.AST) -> bool:
    """Whether `node` sits in a branch the module's constants rule out: the body of an `if`
    or `while` whose test is false (`workers = None` then `if workers is not None and
    workers > 1:`), the `else` of one whose test is true."""
    child = node
    for parent in context.ancestors(node):
        if isinstance(parent, (ast.If, ast.While)) and child is not parent.test:
            value = context.evaluate(parent.test)
            if is_known(value) and isinstance(value, (bool, int, str, bytes, type(None))) and \
                    bool(value) == (child in parent.orelse):
                return True
        child = parent
    return False


def fork_analysis(context, start_methods) -> tuple[ProcessState, ForkChildren]:
    """The module's process state and children, built once per file (`start_methods`: the
    index whose `cuda_init` facts tell what callers hold)."""
    from cursedlint.analysis.cuda_use import CudaUse

    def build():
        uses = CudaUse(context, capture_analysis(context), project_functions(context, CUDA_REACH))
        return (ProcessState(context, uses, project_functions(context, start_methods)),
                ForkChildren(context, uses))
    return context.shared("fork-analysis", build)


_CONSTRUCTION = frozenset({"__init__", "__new__", "__init_subclass__", "__del__"})
_NOT_ON_INSTANCES = frozenset({"staticmethod", "classmethod"})


def _calls_super_init(node: ast.AST) -> bool:
    """`super().__init__(...)` (or `super(C, self).__init__(...)`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "__init__" and isinstance(node.func.value, ast.Call) and \
        isinstance(node.func.value.func, ast.Name) and node.func.value.func.id == "super"


def _called(shown: Shown, path: str, line: int, name: str, registers: bool = False) -> Shown:
    """`shown`, reached before a call of `name` at `path`:`line` (or a registration of it,
    which runs it later: `registrations`)."""
    note = f"then registers {name}() to run later" if registers else f"then calls {name}()"
    return Shown(shown.what, shown.path, shown.line, (*shown.steps, Step(path, line, note)),
                 shown.protection)


class ChildBranch:
    """Statements a forked child runs (its branch after `os.fork()`), read as a body."""

    def __init__(self, body: list[ast.stmt], lineno: int):
        self.body = body
        self.lineno = lineno


def _child_side(test: ast.AST, start: ast.Call, name: str | None) -> bool | None:
    """True where `test` holds in the child of the fork (`pid == 0`, `not pid`), False where
    it holds in the parent (`pid`, `pid > 0`, `pid != 0`); None when it tests something else."""
    def is_pid(node):
        return node is start or (name is not None and isinstance(node, ast.Name)
                                 and node.id == name)
    if is_pid(test):
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and is_pid(test.operand):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and is_pid(test.left) and \
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0:
        op = test.ops[0]
        return True if isinstance(op, ast.Eq) else False if isinstance(
            op, (ast.NotEq, ast.Gt)) else None
    return None


def _names(node: ast.AST, handle: str) -> bool:
    """Whether the expression is the handle (`loader`, `self.loader`), or wraps it in a call
    (`enumerate(loader)`, `tqdm(loader)`)."""
    if isinstance(node, ast.Call):
        return any(_names(argument, handle) for argument in node.args)
    return isinstance(node, (ast.Name, ast.Attribute)) and ast.unparse(node) == handle


_ITERATING = frozenset({"iter", "next", "list", "enumerate", "zip"})


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
