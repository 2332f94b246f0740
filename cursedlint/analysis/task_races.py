"""Thread-pool tasks that may begin CUDA graph captures at the same time: several tasks of one
`ThreadPoolExecutor` with more than one worker (`map`, or `submit` in a loop or comprehension;
asyncio's `run_in_executor` and `to_thread` in a comprehension, or in a loop not awaiting each)
whose code begins a capture.

What breaks, observed on an H200 (PyTorch 2.11, `tests/test_capture_task_race_gpu.py`): a
`torch.cuda.graph` region begins by synchronizing the device, which fails while another
task's capture is under way, in every capture mode (four workers capturing eight graphs
aborted the process in one round of five or six); a `capture_begin()` region fails that way
in global mode only (with `thread_local` the captures of distinct graphs did not interfere);
tasks sharing one lazily captured graph failed every round.
"""

from __future__ import annotations

import ast
from typing import Iterator, NamedTuple

from msgspec.structs import replace

from cursedlint.analysis.capture_regions import body_of, capture_check, key, position
from cursedlint.analysis.python_project import own_nodes
from cursedlint.analysis.thread_starts import (
    ProjectFunction, ThreadStart, ThreadStarts, code_label, executor_workers,
)
from cursedlint.findings import Step

SYNCING_ENTRIES = frozenset({"torch.cuda.graph"})
"""Regions (`Region.what`) whose entry synchronizes the device: they break another task's
capture in every mode."""
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp,
          ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class TaskRace(NamedTuple):
    """Tasks started at `start` (`tasks`: named as messages name them; `how`: why several
    run at once) whose code begins a capture: `line` and `where` say where, `steps` the chain
    through other modules."""

    start: ThreadStart
    tasks: str
    how: str
    line: int
    where: str
    steps: tuple[Step, ...]


class TaskRaces:
    """The task starts of a module whose tasks may begin captures at the same time."""

    def __init__(self, threads: ThreadStarts):
        self.threads = threads
        self.context = threads.context
        starts = {id(region.start): region for region in threads.analysis.regions}
        self._begins_capture = capture_check(starts, SYNCING_ENTRIES)
        self._begins_global_capture = capture_check(starts, frozenset())
        self._starts: dict[int, ThreadStart | None] = {}  # id(call) -> `_start`

    def races(self, calls: list[ast.Call]) -> Iterator[TaskRace]:
        """Of the module's `calls`, the task starts whose tasks may capture at once."""
        for call in calls if self.threads.uses.may_capture() else ():
            start = self._start(call)
            how = start and self.at_once(start)
            if not how:
                continue
            code = self._item_method(start) or start.code
            found = self.threads.reached(code, self._begins_capture)
            if found is not None and not self.warmed_up(start):
                yield TaskRace(start, f"{start.label} running {code_label(self.context, code)}", how, *found)

    def sibling_races(self, calls: list[ast.Call]) -> Iterator[TaskRace]:
        """Of the module's `calls`, the task starts whose code begins a global-mode capture
        while tasks of the same pool (of more than one worker) that one function started next
        to it, none waited for in between, run CUDA work (any CUDA call of another thread
        breaks a global-mode capture)."""
        pools: dict[tuple[int, str], list[ThreadStart]] = {}
        for call in calls if self.threads.uses.may_capture() else ():
            start = self._start(call)
            if start is not None:
                scope = self.context.scope_of(call)
                pools.setdefault((id(scope), start_pool(start)), []).append(start)
        for starts in pools.values():
            if len(starts) < 2 or self.start_workers(starts[0]) is None:
                continue
            for start in starts:
                capture = self.threads.reached(start.code, self._begins_global_capture)
                if capture is None or self.warmed_up(start):
                    continue
                sibling = self._sibling_work(start, starts)
                if sibling is not None:
                    yield TaskRace(start, f"{start.label} running {code_label(self.context, start.code)}",
                                   sibling, *capture)
                    break

    def _sibling_work(self, start: ThreadStart, starts: list[ThreadStart]) -> str | None:
        """How another of `starts`, running at the same time as `start`, does CUDA work."""
        for other in starts:
            if other is start or self._waited_between(start.call, other.call):
                continue
            work = self.threads.reached(other.code, self.threads.uses.any_use)
            if work is not None:
                line, where, _ = work
                return (f"{code_label(self.context, other.code)}, started on line {other.call.lineno}, "
                        f"reaches line {line}{where}")
        return None

    def _waited_between(self, one: ast.Call, other: ast.Call) -> bool:
        """Whether the function waits for a task (`await`, `.result()`, `wait()`, `join()`,
        `gather()`, `as_completed()`) from the earlier of two starts to the later, itself
        included."""
        first, last = sorted((one, other), key=position)
        scope = self.context.scope_of(first)
        return any(isinstance(node, (ast.Await, ast.Call)) and
                   position(first) <= position(node) <= position(last) and waits(node)
                   for node in own_nodes(body_of(scope or self.context.tree)))

    def _start(self, call: ast.Call) -> ThreadStart | None:
        """The tasks `pool.submit/map(f, ...)`, `loop.run_in_executor(pool, f, ...)` or
        `asyncio.to_thread(f, ...)` starts (`label`: whose tasks they are); once per call
        (`races` and `sibling_races` both ask of every call of the module)."""
        key = id(call)
        if key not in self._starts:
            self._starts[key] = self._read_start(call)
        return self._starts[key]

    def _read_start(self, call: ast.Call) -> ThreadStart | None:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("submit", "map") and call.args:
            start = self.threads.task_start(call, consumed=True)
            return start and replace(start, label=f"`{key(func.value)}` tasks")
        start = self.threads.executor_call(call)
        if start is None:
            start = self.threads.helper_start(call)
            return start and replace(start, label=f"`{start.executor.partition(':')[2]}` tasks")
        return start and replace(start, executor=None)

    def _item_method(self, start: ThreadStart) -> "ast.AST | ProjectFunction | None":
        """For `pool.map(lambda runner: runner.run(...), runners)`: the method of the class
        (of the module or another) the items are instances of."""
        code, call = start.code, start.call
        if not (_method(call) == "map" and len(call.args) > 1 and isinstance(code, ast.Lambda)
                and len(code.args.args) == 1 and isinstance(code.body, ast.Call)):
            return None
        func = code.body.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == code.args.args[0].arg):
            return None
        return self.threads.method_of(self.threads.analysis.item_constructor(call.args[1]),
                                      func.attr)

    def warmed_up(self, start: ThreadStart) -> bool:
        """Whether the function starting the tasks ran their code itself before (a serial
        warm-up that captures each graph once: the tasks may then only replay it)."""
        scope = self.context.scope_of(start.call)
        before = position(start.call)
        return any(isinstance(node, ast.Call) and position(node) < before
                   and self.threads.code_of(node.func) == start.code
                   for node in own_nodes(body_of(scope or self.context.tree)))

    def start_workers(self, start: ThreadStart) -> str | None:
        """`workers` of the start's call, or of the pool its submitting helper submits to."""
        return start.workers or self.workers(start.call)

    def at_once(self, start: ThreadStart) -> str | None:
        """Why several of the tasks run at the same time (None: they may not)."""
        workers = self.start_workers(start)
        if workers is None:
            return None
        call = start.call
        if _method(call) == "map":
            items = call.args[1] if len(call.args) > 1 else None
            if isinstance(items, (ast.List, ast.Tuple, ast.Set)) and len(items.elts) < 2:
                return None
            return f"one per item of `{ast.unparse(call.func)}`, {workers}"
        parent = self.context.parent_of(call)
        if isinstance(parent, ast.Await) or (isinstance(parent, ast.Attribute)
                                             and parent.attr == "result"):
            return None  # each waited for before the next starts
        for ancestor in self.context.ancestors(call):
            if isinstance(ancestor, _SCOPES):
                return None
            if isinstance(ancestor, _LOOPS):
                loop = "loop" if isinstance(ancestor, ast.stmt) else "comprehension"
                return f"{loop} on line {ancestor.lineno}, {workers}"
        return None

    def workers(self, call: ast.Call) -> str | None:
        """The executor's workers when more than one ("4 workers", "default workers"),
        else None (one, or a number the module does not show)."""
        if _method(call) == "run_in_executor":
            executor = call.args[0]
            if isinstance(executor, ast.Constant) and executor.value is None:
                return "default workers"
            made = self.threads.executor_made(executor)
        elif _method(call) in ("submit", "map"):
            made = self.threads.executor_of(call)
        else:  # asyncio.to_thread: the loop's default executor
            return "default workers"
        return None if made is None else executor_workers(self.context, made)


_WAITS = frozenset({"result", "wait", "join", "gather", "as_completed", "shutdown"})


def waits(node: ast.AST) -> bool:
    """Whether `node` waits for tasks: an `await`, or a call of a method or function named
    `result`, `wait`, `join`, `gather`, `as_completed`, `shutdown`."""
    if isinstance(node, ast.Await):
        return True
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _WAITS


def start_pool(start: ThreadStart) -> str:
    """`pool` of a task start; for a submitting helper's, the helper and its pool."""
    return start.executor if start.workers else pool(start.call)


def pool(call: ast.Call) -> str:
    """The pool a task start (not a thread's) uses: the executor's text, or the event loop's
    default one (`asyncio.to_thread`'s too)."""
    if _method(call) in ("submit", "map"):
        return key(call.func.value)
    if _method(call) == "run_in_executor" and not (
            isinstance(call.args[0], ast.Constant) and call.args[0].value is None):
        return key(call.args[0])
    return "the event loop's default executor"


def _method(call: ast.Call) -> str | None:
    """The name of the method a call calls (`map` for `pool.map(...)`), or None."""
    return call.func.attr if isinstance(call.func, ast.Attribute) else None
