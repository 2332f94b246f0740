"""Threads and executor tasks a Python module starts, what their code reaches, and where they
are joined, shut down or waited for: `threading.Thread` (and subclasses with their own `run`,
in this module or another of the project), `threading.Timer`, `ThreadPoolExecutor` tasks; and
the threads that calls of other modules' functions start and leave running when a capture
begins."""

from __future__ import annotations

import ast
import os
from typing import Iterator, NamedTuple

from msgspec import Struct

from cursedlint.analysis.capture_regions import (
    END, GLOBAL, PARTIAL, CaptureAnalysis, Region, body_of, capture_check, enclosing_class,
    is_self_attribute, key, never_rebound, own_calls, position,
)
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.cuda_use import CudaUse, through
from cursedlint.analysis.python_project import (
    CALL_METHOD, Reach, call_target, dotted, last_name, linted_imports, own_nodes,
)
from cursedlint.analysis.registrations import THREAD_TARGETS
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN

THREAD_CLASSES = frozenset({"threading.Thread"})
EXECUTORS = frozenset({"concurrent.futures.ThreadPoolExecutor",
                       "concurrent.futures.thread.ThreadPoolExecutor"})
_WAITS = frozenset({"concurrent.futures.wait"})
_TO_THREAD = frozenset({"asyncio.to_thread", "asyncio.threads.to_thread"})
THREAD_KINDS = {CudaFact.DEVICE_WIDE: CudaFact.THREAD_DEVICE_WIDE,
                CudaFact.CUDA: CudaFact.THREAD_CUDA}
"""Fact kinds of a function that starts a thread (left running) whose code does `kind`."""
_LEFT_RUNNING = {**THREAD_KINDS, CudaFact.GLOBAL_CAPTURE: CudaFact.THREAD_CAPTURE,
                 CudaFact.TASK_CAPTURE: CudaFact.THREAD_CAPTURE,
                 CudaFact.TASK_CUDA: CudaFact.THREAD_CUDA}
"""`THREAD_KINDS`, and the kinds of the other checks `thread_facts` may be given."""
_AT_CAPTURES = (CudaFact.GLOBAL_CAPTURE, CudaFact.JOINS, CudaFact.TASK_CAPTURE,
                *THREAD_KINDS.values())
"""What `running_at_captures` asks of each call's function."""


class ThreadStart(Struct, frozen=True):
    """A thread (or executor task) started at `call` running `code`; `handles` are the
    expressions whose join/shutdown/result ends it; `executor` the executor's, for tasks;
    `workers`, for a task a submitting helper starts (`helper_start`), its pool's workers
    (`executor` is then the helper's name and pool: `run_async:_POOL`)."""

    call: ast.Call
    code: "ast.AST | ProjectFunction"
    label: str
    handles: frozenset[str]
    executor: str | None
    workers: str | None = None


def executor_workers(context, made: ast.Call) -> str | None:
    """The workers of the executor `made` makes when more than one ("4 workers", "default
    workers"), else None (one, or a number the module does not show)."""
    given = context.argument(made, 0, "max_workers")
    if given is None:
        return "default workers"
    value = context.evaluate(given)
    if value is None:
        return "default workers"
    if value is UNKNOWN or not isinstance(value, int) or isinstance(value, bool) or value < 2:
        return None
    return f"{value} workers"


class ProjectFunction(NamedTuple):
    """A thread's code defined in another module of the project."""

    path: str
    qualname: str


class RunningThread(NamedTuple):
    """A thread that a call of another module's function starts and leaves running: `kind`,
    what its code does (a key of `THREAD_KINDS`); the chain to the start and its fact."""

    call: ast.Call
    kind: CudaFact
    steps: tuple[Step, ...]
    fact: Reach


def _receiver(call: ast.Call) -> str | None:
    """The text of the object a method is called on (`hb` for `hb.start()`)."""
    return key(call.func.value) if isinstance(call.func, ast.Attribute) else None


def code_label(context, code: ast.AST | ProjectFunction) -> str:
    """How messages name a thread's or task's code (an instance's `__call__` with its class)."""
    if isinstance(code, ProjectFunction):
        return f"{code.qualname}() ({os.path.basename(code.path)})"
    if isinstance(code, ast.Lambda):
        return f"the lambda on line {code.lineno}"
    owner = context.scope_of(code) if code.name == CALL_METHOD else None
    return f"{owner.name}.{code.name}()" if isinstance(owner, ast.ClassDef) else f"{code.name}()"


class ThreadStarts:
    """The threads and executor tasks a module starts, what their code reaches, and where
    they are joined."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse):
        self.context = context
        self.analysis = analysis
        self.uses = uses
        self._starting: dict[ast.AST, bool] = {}  # (keyed by the node, like the walk's parents)
        self._left: dict[ast.Call, bool] = {}  # a start call -> whether left running
        self._helpers: frozenset[str] | None = None  # (`_submitting_names`)
        self._submitted: dict[ast.AST, tuple | None] = {}  # a def -> `submitted_parameter`

    def reached(self, code, check) -> tuple[int, str, tuple[Step, ...]] | None:
        """Where a thread's code (a def or lambda of the module, or a project function of
        another module) first does what `check` finds: (line, how, chain)."""
        if isinstance(code, ProjectFunction):
            steps = self.uses.project.reach(code.path, code.qualname, check.remote_kind)
            if steps is None:
                return None
            return steps[-1].line, f" of {os.path.basename(steps[-1].path)}, where " \
                f"{steps[-1].note}", steps
        found = self.uses.first(body_of(code), check)
        if found is None:
            return None
        node, what, path = found
        return node.lineno, f"{through(path)}, where {what}", self.uses.steps_for(node)

    def left_running(self, call: ast.Call, function: ast.AST) -> bool:
        """Whether `call` starts a thread (`.start()`) that `function` does not join before
        it returns."""
        if call in self._left:  # (as `thread_facts` found it)
            return self._left[call]
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "start"):
            return False
        start = self._thread_start(call) if not call.args else None
        return start is not None and not self._ended(
            start, [(function, position(call), END)], None)

    # -- threads started and captures begun by other modules' functions ---------------------
    def thread_facts(self, function: ast.AST, more=()) -> dict[str, Reach]:
        """The facts of a function (for the project index) about the threads it starts and
        leaves running, whose code uses CUDA (or synchronizes the device), or does what the
        checks `more` find (a global-mode capture begun, CUDA work or a capture in a task it
        starts in turn: `_LEFT_RUNNING` names the facts), and the threads it joins."""
        facts = {}
        for start in self._starts(function):
            ended = self._ended(start, [(function, position(start.call), END)], None)
            self._left[start.call] = not ended and last_name(start.call.func) == "start"
            if ended:
                continue
            for check in (self.uses.device_wide_use, self.uses.any_use, *more):
                kind = _LEFT_RUNNING[check.remote_kind]
                found = None if kind in facts else self.reached(start.code, check)
                if found is not None:
                    facts[kind] = Reach(
                        start.call.lineno, f"starts {start.label}",
                        detail=f"{found[0]} of {os.path.basename(self.context.source.path)}"
                               f"{found[1]}")
        for node in own_calls(self.context, function):
            if (isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("join", "shutdown") and is_self_attribute(
                        node.func.value)):
                facts[CudaFact.JOINS] = Reach(node.lineno, f"joins `{key(node.func.value)}`")
                break
        return facts

    def running_at_captures(
            self, calls: list[ast.Call]) -> Iterator[tuple[Region, tuple[RunningThread, ...]]]:
        """In each function of the file (`calls`: the file's calls), in order: the captures,
        begun here or by a call of another module's function, that begin while threads that
        calls of other modules' functions started run, with those threads (a call between
        that joins threads through the same object ends them)."""
        regions = {id(region.start): region for region in self.analysis.regions}
        scopes: dict[int, list[ast.Call]] = {}
        if not self.uses.may_capture():
            return
        for call in calls:  # (a call no project function may be reached by does nothing here)
            if id(call) in regions or self.uses.may_be_reached(call.func, _AT_CAPTURES):
                scopes.setdefault(id(self.context.scope_of(call)), []).append(call)
        for scope_calls in scopes.values():
            running: list[RunningThread] = []
            capturing: list[Region] = []  # threads left running that capture when they will
            for call in sorted(scope_calls, key=position):
                region = regions.get(id(call)) or self.uses.remote_region(call)
                if region is not None and running:
                    yield region, tuple(running)
                threaded = self._thread_region(call)
                if threaded is not None and running:
                    yield threaded, tuple(running)
                for kind, thread_kind in THREAD_KINDS.items():
                    found = self.uses.reached(call.func, thread_kind)
                    if found:
                        thread = RunningThread(call, kind, *found)
                        for earlier in capturing:
                            yield earlier, (thread,)
                        running.append(thread)
                        break
                if threaded is not None:
                    capturing.append(threaded)
                if self.uses.reach_of(call.func, CudaFact.JOINS):
                    receiver = _receiver(call)
                    running = [r for r in running if _receiver(r.call) != receiver]
                    capturing = [r for r in capturing if _receiver(r.start) != receiver]

    def _thread_region(self, call: ast.Call) -> Region | None:
        """The global-mode capture that a thread a call of another module's function starts
        and leaves running begins, as a region begun at the call (its time unknown: a lazy
        capture on the thread's first request), or None."""
        project = self.uses.project  # (a `THREAD_CAPTURE` is a `TASK_CAPTURE`: asked first)
        if not self.uses.may_be_reached(call.func, (CudaFact.TASK_CAPTURE,)):
            return None
        target = call_target(self.context, project, call.func)
        found = project.reached(*target, CudaFact.THREAD_CAPTURE) if target else None
        if not found:
            return None
        steps, fact = found
        where = f"{os.path.basename(steps[0].path)}:{steps[0].line}"
        reached = (Step(steps[-1].path, fact.line, f"its code reaches line {fact.detail}"),) \
            if fact.detail else ()
        return Region(call, (), GLOBAL, f"the thread {ast.unparse(call.func)}() starts ({where})",
                      (*steps, *reached))

    def callee_captures(self, calls: list[ast.Call]) -> Iterator[Region]:
        """Of the file's `calls`, those in a function (or at module level) where threads or
        tasks start, of a function that begins a global-mode capture: of this module (itself
        or through the module's functions it calls) or another's; each as a region begun at
        the call, its chain to the capture in `steps` (for `alive_at`: `do_capture(model, x)`
        while a thread started before it runs). (Whether a call captures is asked first,
        by names: few calls do, and threads are looked for only around those.)"""
        starts = {id(region.start): region for region in self.analysis.regions}
        check = capture_check(starts, frozenset())
        local = any(check(region.start) for region in self.analysis.regions)
        remote = (CudaFact.GLOBAL_CAPTURE,)
        project = self.uses.project
        if not local and (project is None or not project.reaching(CudaFact.GLOBAL_CAPTURE)):
            return  # (no function here or in the project begins one)
        here = self.context.source.path
        for call in calls:
            if id(call) in starts or local and not self._starting_around(call):
                continue  # (asked first where each call's callee would be looked up)
            callee = self.uses.callee(call) if local else None
            if callee is not None:
                found = self.uses.first(body_of(callee), check)
                if found is None:
                    continue
                node, what, path = found
                steps = self.uses.steps_for(node) or (
                    Step(here, node.lineno, f"{what}{through(path)}"),)
                yield Region(call, (), GLOBAL,
                             f"{callee.name}(){through(path)} (line {node.lineno})",
                             (Step(here, callee.lineno, f"{callee.name}() is called on line "
                                   f"{call.lineno}"), *steps))
            elif self.uses.may_be_reached(call.func, remote) and \
                    self._starting_around(call):
                region = self.uses.remote_region(call)
                if region is not None:
                    yield region

    def _starting_around(self, call: ast.Call) -> bool:
        """Whether threads or tasks start in the call's function (or module), at module
        level or in its class's `__init__` (where `alive_at` looks)."""
        scope = self.context.scope_of(call) or self.context.tree
        return any(self._starts_in(root) for root in self._earlier_scopes(scope))

    def _starts_in(self, root: ast.AST) -> bool:
        """Whether `root`'s own code starts a thread or task (once per root)."""
        memo = self._starting
        if root not in memo:
            memo[root] = next(self._starts(root), None) is not None
        return memo[root]

    # -- threads alive at a region --------------------------------------------------------
    def alive_at(self, region: Region) -> Iterator[ThreadStart]:
        scope = self.context.scope_of(region.start)
        before = position(region.start)
        root = scope or self.context.tree
        for start_root in self._earlier_scopes(root):
            for start in self._starts(start_root):
                begun = position(start.call)
                if start_root is root:
                    if begun >= before:
                        continue
                    windows = [(root, begun, before)]
                else:  # ended in its own scope, or in the region's before the region
                    windows = [(start_root, begun, END), (root, (0, 0), before)]
                if start.code is not scope and not self._ended(start, windows, region):
                    yield start  # (a thread's own code capturing: no other thread is beside)

    def _earlier_scopes(self, root: ast.AST) -> list[ast.AST]:
        """Where a thread alive at a region in `root` (a function or the module) may have
        started: there, at module level, and in the class's `__init__`."""
        tree = self.context.tree
        cls = enclosing_class(self.context, root) if root is not tree else None
        init = CaptureAnalysis.own_method(cls, "__init__") if cls else None
        scopes = [root, tree, init]
        return [s for i, s in enumerate(scopes) if s is not None and s not in scopes[:i]]

    def _starts(self, scope: ast.AST) -> Iterator[ThreadStart]:
        for node in own_calls(self.context, scope):
            if isinstance(node.func, ast.Attribute):
                if node.func.attr == "start" and not node.args:
                    start = self._thread_start(node)
                elif node.func.attr in ("submit", "map") and node.args:
                    start = self.task_start(node)
                else:
                    continue
                if start is not None:
                    yield start

    def _thread_start(self, call: ast.Call) -> ThreadStart | None:
        """`Thread(target=f).start()`, `t.start()`, `self.t.start()`, `Timer(5, f).start()`,
        `Subclass().start()` with the subclass's `run`."""
        handle = call.func.value
        made = handle if isinstance(handle, ast.Call) else self.analysis.value_of(handle)
        if not isinstance(made, ast.Call):
            return None
        thread = self.context.qualified_name(made.func, among=THREAD_TARGETS)
        if thread is not None:
            target = self.context.argument(made, *THREAD_TARGETS[thread])
        else:
            target = self._run_method(made.func) or self._project_run(made.func)
        code = self.code_of(target)
        if code is None:
            return None
        if handle is made:
            handles, label = frozenset(), f"the thread running {code_label(self.context, code)}"
        else:
            handles = frozenset({key(handle)})
            label = f"thread `{key(handle)}` running {code_label(self.context, code)}"
        return ThreadStart(call, code, label, handles, None)

    def _project_function(self, target) -> "ProjectFunction | None":
        """The function of another project module that a thread target names (also through
        `functools.partial`)."""
        if isinstance(target, ProjectFunction):
            return target
        if isinstance(target, ast.Call) and self.analysis.named(target.func, PARTIAL) and \
                target.args:
            target = target.args[0]
        project = self.uses.project
        found = call_target(self.context, project, target) if project and target else None
        return None if found is None else ProjectFunction(*found)

    def _project_run(self, func: ast.AST) -> "ProjectFunction | None":
        """The `run` of another project module's class that subclasses threading.Thread."""
        project = self.uses.project
        name = dotted(func) if project else None
        path = os.path.abspath(self.context.source.path)
        found = project.definition(path, linted_imports(self.context), name) if name else None
        if found is None or not project.is_class(*found) or \
                not project.subclasses(*found, "threading.Thread"):
            return None
        run = project.method(path, linted_imports(self.context), name, "run")
        return None if run is None else ProjectFunction(*run)

    def _run_method(self, func: ast.AST) -> ast.AST | None:
        """The `run` of a module class that subclasses threading.Thread."""
        cls = self.context.definition(func) if isinstance(func, ast.Name) else None
        if not isinstance(cls, ast.ClassDef) or not any(
                self.analysis.named(base, THREAD_CLASSES) for base in cls.bases):
            return None
        return CaptureAnalysis.own_method(cls, "run")

    def code_of(self, target: ast.AST) -> "ast.AST | ProjectFunction | None":
        """The code a thread or task target runs: of this module, or another's function or
        method (`runner.run`, `runner` made by another module's class), or the `__call__` of
        an instance of a class of the project (`pool.submit(runner, batch)` with `runner =
        LazyGraphRunner(model)`, or `self.runner` so bound)."""
        code = self.analysis.code_of(target) or self._project_function(target)
        if code is None and isinstance(target, ast.Attribute):
            code = self.method_of(self.analysis.constructor_of(target.value), target.attr)
        if code is None and (isinstance(target, ast.Name) or is_self_attribute(target)):
            code = self.method_of(self.analysis.constructor_of(target), CALL_METHOD)
        return code

    def method_of(self, made: ast.Call | None,
                  name: str) -> "ast.AST | ProjectFunction | None":
        """The method `name` of the object `made` constructs: a class of this module's, or of
        another module of the project."""
        cls = self.analysis.module_class(made)
        if cls is not None:
            return CaptureAnalysis.own_method(cls, name)
        project = self.uses.project
        constructor = dotted(made.func) if made is not None and project else None
        found = project.method(os.path.abspath(self.context.source.path),
                               linted_imports(self.context), constructor, name) \
            if constructor else None
        return None if found is None else ProjectFunction(*found)

    def executor_of(self, call: ast.Call) -> ast.Call | None:
        """The `ThreadPoolExecutor(...)` call that made the executor of `pool.submit(...)` or
        `pool.map(...)`, or None."""
        return self.executor_made(call.func.value)

    def executor_made(self, executor: ast.AST) -> ast.Call | None:
        """The `ThreadPoolExecutor(...)` call that made the executor `executor` names."""
        made = self.analysis.value_of(executor)
        if made is None and isinstance(executor, ast.Name):
            made = self._with_target(executor)
        return made if isinstance(made, ast.Call) and self.analysis.named(
            made.func, EXECUTORS) else None

    def task_start(self, call: ast.Call, consumed: bool = False) -> ThreadStart | None:
        """The task `pool.submit(f, ...)` or `pool.map(f, ...)` starts; a `map` whose results
        are consumed on the spot (`list(pool.map(...))`, which waits for its tasks) only with
        `consumed`."""
        executor = call.func.value
        if self.executor_of(call) is None:
            return None
        if call.func.attr == "map" and not consumed and not isinstance(
                self.context.parent_of(call), (ast.Expr, ast.Assign)):
            return None  # consumed on the spot: list(pool.map(...)) waits for the tasks
        code = self.code_of(call.args[0])
        if code is None:
            return None
        handles = {key(executor)}
        parent = self.context.parent_of(call)
        if isinstance(parent, ast.Assign):
            handles.update(key(target) for target in parent.targets)
        label = f"the {ast.unparse(executor)} task running {code_label(self.context, code)}"
        return ThreadStart(call, code, label, frozenset(handles), key(executor))

    def submitted_parameter(self, function: ast.AST) -> tuple[int, str, str, str] | None:
        """(index, name, pool, workers) where a module-level function's own code submits its
        positional parameter `name`, never rebound, to a ThreadPoolExecutor of more than one
        worker (`pool.submit(fn, ...)`, `pool.map(fn, ...)`): a submitting helper, whose
        callers start the task (`run_async(step, batch)`)."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                self.context.scope_of(function) is not None:
            return None
        positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        for node in own_calls(self.context, function):
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr in ("submit", "map")
                    and node.args and isinstance(node.args[0], ast.Name)
                    and node.args[0].id in positional):
                continue
            name = node.args[0].id
            made = self.executor_of(node)
            workers = executor_workers(self.context, made) if made is not None else None
            if workers and never_rebound(function, {name}):
                return positional.index(name), name, key(func.value), workers
        return None

    def helper_start(self, call: ast.Call) -> ThreadStart | None:
        """The task a call of a submitting helper (`submitted_parameter`) starts: of this
        module, or of another by the project's `SUBMITS_PARAMETER` fact."""
        found = self._submitting(call.func)
        if found is None:
            return None
        helper, index, name, pool, workers = found
        target = self.context.argument(call, index, name)
        code = self.code_of(target) if isinstance(target, ast.AST) else None
        if code is None:
            return None
        parent = self.context.parent_of(call)
        handles = {key(target) for target in parent.targets} if isinstance(
            parent, ast.Assign) else set()
        label = f"the `{pool}` task ({helper}()) running {code_label(self.context, code)}"
        return ThreadStart(call, code, label, frozenset(handles), f"{helper}:{pool}", workers)

    def _submitting(self, func: ast.AST) -> tuple[str, int, str, str, str] | None:
        """(helper, index, name, pool, workers) for a callee that is a submitting helper."""
        if isinstance(func, ast.Name):
            defined = self.context.definition(func)
            if isinstance(defined, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if defined not in self._submitted:
                    self._submitted[defined] = self.submitted_parameter(defined)
                found = self._submitted[defined]
                return None if found is None else (defined.name, *found)
        project = self.uses.project
        name = last_name(func)
        if project is None or name is None or name not in self._submitting_names():
            return None
        target = call_target(self.context, project, func)
        fact = project.fact(*target, CudaFact.SUBMITS_PARAMETER) if target else None
        if fact is None:
            return None
        index, name, pool, workers = fact.detail.split(":", 3)
        return target[1], int(index), name, pool, workers

    def _submitting_names(self) -> frozenset[str]:
        """The last names of the project's submitting helpers (a test before a lookup)."""
        names = self._helpers
        if names is None:
            names = self._helpers = frozenset(
                qualname.rpartition(".")[2] for _, qualname, _ in
                self.uses.project.with_fact(CudaFact.SUBMITS_PARAMETER))
        return names

    def executor_call(self, call: ast.Call) -> ThreadStart | None:
        """The task `loop.run_in_executor(executor, f, ...)` or `asyncio.to_thread(f, ...)`
        starts (`executor`: the executor's text, None for the loop's default one)."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "run_in_executor" and \
                len(call.args) > 1:
            target, label = call.args[1], "the event loop's executor tasks"
            executor = call.args[0]
            pool = None if isinstance(executor, ast.Constant) and executor.value is None \
                else key(executor)
        elif call.args and (not isinstance(func, ast.Attribute) or func.attr == "to_thread") \
                and self.analysis.named(func, _TO_THREAD):  # (`x.y` is `?.y`)
            target, label, pool = call.args[0], "`asyncio.to_thread` tasks", None
        else:
            return None
        code = self.code_of(target)
        return None if code is None else ThreadStart(call, code, label, frozenset(), pool)

    def unit_start(self, call: ast.Call) -> ThreadStart | None:
        """The thread or task `call` starts: `.start()` of a thread, `submit`/`map` of a
        ThreadPoolExecutor, `run_in_executor`, `asyncio.to_thread`."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "start" and not call.args:
            return self._thread_start(call)
        if isinstance(func, ast.Attribute) and func.attr in ("submit", "map") and call.args:
            return self.task_start(call)
        return self.executor_call(call) or self.helper_start(call)

    def _with_target(self, name: ast.Name) -> ast.AST | None:
        """The executor of `with ThreadPoolExecutor() as name:` enclosing `name`."""
        for ancestor in self.context.ancestors(name):
            if isinstance(ancestor, (ast.With, ast.AsyncWith)):
                for item in ancestor.items:
                    bound = item.optional_vars
                    if isinstance(bound, ast.Name) and bound.id == name.id:
                        return item.context_expr
        return None

    def _ended(self, start: ThreadStart, windows: list, region: Region | None) -> bool:
        """Whether the thread is joined, shut down or waited for in one of the windows
        (scope, after, before), or the executor's `with` block ends before the region (None:
        before the function's end)."""
        for node in (n for root, after, until in windows for n in own_nodes(body_of(root))
                     if isinstance(n, ast.Call) and after < position(n) < until):
            if self.analysis.named(node.func, _WAITS) and start.executor:
                return True
            if (isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("join", "shutdown", "result")
                    and key(node.func.value) in start.handles):
                return True
        return start.executor is not None and any(
            isinstance(ancestor, (ast.With, ast.AsyncWith))
            and any(item.optional_vars is not None and key(item.optional_vars) ==
                    start.executor for item in ancestor.items)
            and (region is None
                 or not any(a is ancestor for a in self.context.ancestors(region.start)))
            for ancestor in self.context.ancestors(start.call))
