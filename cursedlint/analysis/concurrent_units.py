"""What a function runs at the same time, and which of it races with a global-mode capture.

A function's units are the threads and executor tasks it starts (`Thread(...).start()`,
`pool.submit/map`, `loop.run_in_executor`, `asyncio.to_thread`), the coroutines it runs
together (`asyncio.gather(a(), b())`, `create_task(a())`, `ensure_future(a())`), their code
being of this module or of another of the project, and its calls of functions that run work on
other threads themselves (paired only with a unit started before the call: the call's own
threads may be waited for before it returns). Each unit may begin a global-mode capture or
do CUDA work on its own thread (a coroutine: the event loop's) or on another thread, through an
executor task or thread its code starts (`OffThread`; the `TASK_CAPTURE` and `TASK_CUDA` facts
of the project's functions, which follow callables handed to threads across modules).

Two units race when one begins a global-mode capture while the other, on another thread, does
CUDA work (any CUDA call of another thread invalidates a global-mode capture). They do not:
when one was waited for (`await`, `.result()`, `join()`, `gather()`) before the other started,
when both run on the event loop's thread, when both are tasks of one pool (`TaskRaces` reads
those: one worker runs them one after the other), when both run on the same single-worker
executor, when the code of both holds the same lock throughout, or when the function ran the
capturing code itself before (a serial warm-up).
"""

from __future__ import annotations

import ast
import functools
import os
from typing import Iterator, NamedTuple

from cursedlint.analysis.capture_regions import (
    body_of, capture_check, is_self_attribute, key, own_calls, position,
)
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.python_project import (
    CALL_METHOD, HANDED, RUNNING, OutCall, dotted, last_name, own_nodes,
)
from cursedlint.analysis.task_races import TaskRaces, start_pool, waits
from cursedlint.analysis.thread_starts import (
    ProjectFunction, ThreadStart, ThreadStarts, code_label,
)
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN

_GATHER = frozenset({"asyncio.gather", "asyncio.tasks.gather"})
_ENSURE_FUTURE = frozenset({"asyncio.ensure_future", "asyncio.tasks.ensure_future"})
_LOCKS = frozenset({"threading.Lock", "threading.RLock", "threading.Semaphore",
                    "threading.BoundedSemaphore", "asyncio.Lock", "asyncio.Semaphore"})
CALL = "call"
"""The kind of a unit that is a call of a function that runs work on other threads."""
COROUTINE = "coroutine"
START_NAMES = frozenset({"start", "submit", "map", "run_in_executor", "to_thread"})
"""The last names of the calls that start a thread or an executor task."""


class Found(NamedTuple):
    """Where a unit's code does something: `line` and `where` as `ThreadStarts.reached`
    says, the chain through other modules, and the single-worker executor it runs on (as
    `"path:executor"`; None when another or unknown)."""

    line: int
    where: str
    steps: tuple[Step, ...]
    serial: str | None


class OffThread:
    """Checks (for `CudaUse.first`) for a call that starts a thread or executor task whose code
    begins a global-mode capture (`captures`) or uses CUDA (`cuda`); the project's facts of
    those kinds answer them for other modules' functions."""

    def __init__(self, threads: ThreadStarts):
        self.threads = threads
        starts = {id(region.start): region for region in threads.analysis.regions}
        self.capture = capture_check(starts, frozenset())
        self.serial: dict[int, str] = {}  # a start's id -> its single-worker executor
        self.captures = self._check(self.capture, CudaFact.TASK_CAPTURE, "captures")
        self.cuda = self._check(threads.uses.any_use, CudaFact.TASK_CUDA, "cuda")

    def _check(self, inner, kind: CudaFact, name: str):
        # (a partial, not a closure over self: the cycle would keep the tree for the collector)
        check = functools.partial(_runs_on_another_thread, self.threads, inner, self.serial)
        check.__name__ = f"off_thread_{name}"
        check.remote_kind = kind
        return check

    def facts(self, function: ast.AST) -> dict:
        """The function's `TASK_CAPTURE` and `TASK_CUDA` facts (through the module's own
        functions): kind -> (line, what, [functions through which], serial executor)."""
        found = {}
        for kind, check in ((CudaFact.TASK_CAPTURE, self.captures),
                            (CudaFact.TASK_CUDA, self.cuda)):
            hit = self.threads.uses.first(body_of(function), check)
            if hit is not None:
                node, what, path = hit
                found[kind] = (node.lineno, what, path, self.serial.get(id(node), ""))
        return found

    def handed(self, function: ast.AST) -> list[OutCall]:
        """The callables of the project the function hands to threads and executor tasks, as
        summary calls (`HANDED` names; `RUNNING` after it for a thread it leaves running): a name, `self.method`, or the method of an instance
        made by a call (`self.runner.step` with `self.runner = GraphRunner(...)`:
        `GraphRunner.step`)."""
        calls = []
        for node in own_calls(self.threads.context, function):
            if last_name(node.func) in START_NAMES:
                name = self._handed_name(node)
                if name is not None:
                    left = RUNNING if self.threads.left_running(node, function) else ""
                    calls.append(OutCall(node.lineno, HANDED + left + name))
        return calls

    def instance_calls(self, function: ast.AST) -> list[OutCall]:
        """The function's calls through a `self` attribute that holds an instance made by a
        call (`self.runner(x)` or `self.runner.step(x)` with `self.runner = GraphRunner(...)`),
        as summary calls of the maker's method (`GraphRunner.__call__`, `GraphRunner.step`):
        how the code of a thread this module starts reaches another module's class."""
        calls = []
        for node in own_calls(self.threads.context, function):
            func = node.func
            held, method = (func, CALL_METHOD) if is_self_attribute(func) else \
                (func.value, func.attr) if isinstance(func, ast.Attribute) and \
                is_self_attribute(func.value) else (None, None)
            made = held is not None and self.threads.analysis.constructor_of(held)
            maker = dotted(made.func) if made else None
            if maker:  # (what no project class makes resolves to nothing)
                calls.append(OutCall(node.lineno, f"{maker}.{method}"))
        return calls

    def _handed_name(self, call: ast.Call) -> str | None:
        return self.callable_name(self.handed_target(call))

    def handed_target(self, call: ast.Call) -> ast.AST | None:
        """The callable a thread or task start hands to another thread, as written."""
        return _target(self.threads, call)

    def callable_name(self, target: ast.AST | None) -> str | None:
        """The dotted name a summary calls the callable `target` by: as written, or for the
        method of an instance made by a call, the maker's (`GraphRunner.step`; for a `self`
        attribute holding one, its `GraphRunner.__call__`)."""
        made, method = (target, CALL_METHOD) if is_self_attribute(target) else \
            (target.value, target.attr) if isinstance(target, ast.Attribute) else (None, None)
        made = made is not None and self.threads.analysis.constructor_of(made)
        maker = dotted(made.func) if made else None
        if maker:
            return f"{maker}.{method}"
        return None if target is None else dotted(target)


def _runs_on_another_thread(threads: ThreadStarts, inner, serial: dict[int, str],
                            node: ast.AST) -> str | None:
    """`OffThread`'s check: how `node` starts a thread or task whose code does what `inner`
    finds (noting a single-worker executor in `serial`), or None."""
    if not (isinstance(node, ast.Call) and last_name(node.func) in START_NAMES):
        return None
    start = threads.unit_start(node)
    found = None if start is None else threads.reached(start.code, inner)
    if found is None:
        return None
    single = single_worker(threads, start)
    if single is not None:
        serial[id(node)] = single
    return f"{start_label(threads, start)} reaches line {found[0]}{found[1]}"


def _target(threads: ThreadStarts, call: ast.Call) -> ast.AST | None:
    """The callable a start call hands to another thread, as written."""
    func, context = call.func, threads.context
    if isinstance(func, ast.Attribute) and func.attr == "start":
        handle = func.value
        made = handle if isinstance(handle, ast.Call) else threads.analysis.value_of(handle)
        if isinstance(made, ast.Call):
            return context.argument(made, 1, "target")
        return None
    if isinstance(func, ast.Attribute) and func.attr in ("submit", "map"):
        return call.args[0] if call.args else None
    if isinstance(func, ast.Attribute) and func.attr == "run_in_executor":
        return call.args[1] if len(call.args) > 1 else None
    return call.args[0] if call.args else None


def single_worker(threads: ThreadStarts, start: ThreadStart) -> str | None:
    """`"path:executor"` for a task of an executor made with one worker, else None."""
    call = start.call
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in (
            "submit", "map", "run_in_executor"):
        return None
    executor = call.func.value if call.func.attr != "run_in_executor" else call.args[0]
    made = threads.executor_made(executor)
    given = made and threads.context.argument(made, 0, "max_workers")
    value = threads.context.evaluate(given) if given is not None else None
    if value is UNKNOWN or value != 1 or isinstance(value, bool):
        return None
    return f"{os.path.abspath(threads.context.source.path)}:{key(executor)}"


def start_label(threads: ThreadStarts, start: ThreadStart) -> str:
    """How messages name a thread or task start and its code."""
    code = code_label(threads.context, start.code)
    func = start.call.func
    if isinstance(func, ast.Attribute) and func.attr == "run_in_executor":
        pool = "event loop's default executor" if start.executor is None else \
            f"`{start.executor}`"
        return f"the {pool} task running {code}"
    if isinstance(func, ast.Attribute) and func.attr == "start":
        return start.label
    if isinstance(func, ast.Attribute) and func.attr in ("submit", "map"):
        return f"the `{key(func.value)}` task running {code}"
    return f"the `asyncio.to_thread` task running {code}"


class Unit(NamedTuple):
    """Code a function runs beside itself: started at `call` (a coroutine: the coroutine's
    call); `spot` what waiting for it on the spot awaits (or takes `.result()` of); `loop`:
    a coroutine on the event loop's thread; `group`: the gather call it is one argument of;
    `kind`: "thread", "task", "coroutine" or `CALL` (only what its code runs on other threads
    counts)."""

    call: ast.Call
    code: "ast.AST | ProjectFunction"
    label: str
    kind: str
    spot: ast.AST
    loop: bool
    group: int | None
    start: ThreadStart | None


class UnitRace(NamedTuple):
    """`capturer` may begin a global-mode capture while `worker` does CUDA work."""

    capturer: Unit
    capture: Found
    worker: Unit
    work: Found


class ConcurrentUnits:
    """The units each function of a module runs at the same time, and the races among
    them."""

    def __init__(self, threads: ThreadStarts, off: OffThread):
        self.threads = threads
        self.context = threads.context
        self.off = off
        self.tasks = TaskRaces(threads)

    def races(self, calls: list[ast.Call]) -> Iterator[UnitRace]:
        """Of the module's `calls`, per function, the first unit that may capture while
        another does CUDA work (one race per capturing unit)."""
        scopes: dict[int, list[Unit]] = {}
        starting: set[int] = set()  # the calls that start units, and their coroutines
        if not self.threads.uses.may_capture(CudaFact.GLOBAL_CAPTURE, CudaFact.TASK_CAPTURE):
            return  # (no unit's code can begin one)
        for call in calls:
            for unit in self.units(call):
                scope = self.context.scope_of(unit.spot)
                scopes.setdefault(id(scope), []).append(unit)
                starting.update((id(unit.call), id(unit.spot)))
        for call in calls if scopes else ():
            if id(call) not in starting:
                unit = self._call_unit(call, scopes)
                if unit is not None:
                    scopes[id(self.context.scope_of(call))].append(unit)
        for units in scopes.values():
            if len(units) < 2:
                continue
            for unit in units:
                race = self._race(unit, units)
                if race is not None:
                    yield race

    def _race(self, unit: Unit, units: list[Unit]) -> UnitRace | None:
        own = self._reached(unit.code, self.off.capture) if unit.kind != CALL else None
        captures = [(own._replace(serial=_serial_of(self.threads, unit)), unit.loop)] \
            if own else []
        off = self._reached(unit.code, self.off.captures)
        captures += [(off, False)] if off else []
        if not captures or (unit.start is not None and self.tasks.warmed_up(unit.start)):
            return None
        for other in units:
            if other is unit or not self._called_after(unit, other) or \
                    self._apart(unit, other) or self._same_pool(unit, other) or \
                    self._locked(unit, other):
                continue
            for capture, on_loop in captures:
                work = self._reached(other.code, self.threads.uses.any_use) \
                    if other.kind != CALL else None
                if work is not None and not (on_loop and other.loop) and not (
                        capture.serial and capture.serial == _serial_of(self.threads, other)):
                    return UnitRace(unit, capture, other, work)
                work = self._reached(other.code, self.off.cuda)
                if work is not None and not (capture.serial and capture.serial == work.serial):
                    return UnitRace(unit, capture, other, work)
        return None

    def _reached(self, code, check) -> Found | None:
        found = self.threads.reached(code, check)
        if found is None:
            return None
        line, where, steps = found
        serial = None
        if isinstance(code, ProjectFunction):
            project = self.threads.uses.project
            fact = project.reached(code.path, code.qualname, check.remote_kind)
            serial = fact[1].detail or None if fact else None
        else:
            hit = self.threads.uses.first(body_of(code), check)
            serial = self.off.serial.get(id(hit[0])) if hit else None
        return Found(line, where, steps, serial)

    # -- the units -------------------------------------------------------------------------
    def _call_unit(self, call: ast.Call, scopes: dict[int, list[Unit]]) -> Unit | None:
        """A call, in a function that starts units, of a function (of this module or another)
        that runs a capture or CUDA work on another thread (waited for or not: only a unit
        started before it and still running is beside it)."""
        func = call.func
        if self.threads.uses.callee(call) is None and not self.threads.uses.may_be_reached(
                func, (CudaFact.TASK_CAPTURE, CudaFact.TASK_CUDA)):
            return None
        if id(self.context.scope_of(call)) not in scopes:
            return None
        code = self.threads.code_of(func)
        if code is None:
            return None
        return Unit(call, code, f"the call {ast.unparse(func)}()", CALL, call, False, None,
                    None)

    def units(self, call: ast.Call) -> Iterator[Unit]:
        """The units `call` starts (a thread or task; the coroutines it gathers or makes a
        task of)."""
        func = call.func
        if last_name(func) in START_NAMES:
            start = self.threads.unit_start(call)
            if start is not None:
                kind = "thread" if last_name(func) == "start" else "task"
                yield Unit(call, start.code, start_label(self.threads, start), kind, call,
                           False, None, start)
            return
        coroutines = self._coroutines(call)
        for coroutine, group in coroutines:
            code = self.threads.code_of(coroutine.func)
            if code is not None:
                yield Unit(coroutine, code, f"the coroutine {code_label(self.context, code)}",
                           COROUTINE, call, True, group, None)
        start = None if coroutines else self.threads.helper_start(call)
        if start is not None:  # (a submitting helper's task)
            yield Unit(call, start.code, start.label, "task", call, False, None, start)

    def started(self, call: ast.Call) -> Iterator[tuple[ast.Call, str, int | None]]:
        """What `call` starts, its code not looked up: (`call` itself for a thread or task,
        or a coroutine's call; the unit's kind; the id of the gather call it is an argument
        of)."""
        func = call.func
        if last_name(func) in START_NAMES:
            yield call, "thread" if last_name(func) == "start" else "task", None
            return
        for coroutine, group in self._coroutines(call):
            yield coroutine, COROUTINE, group

    def _coroutines(self, call: ast.Call) -> tuple[tuple[ast.Call, int | None], ...]:
        """The coroutines `call` gathers or makes a task of, each with the id of the gather
        call (None for a task)."""
        func = call.func
        gathered = self.threads.analysis.named(func, _GATHER)
        if gathered:
            coroutines = call.args
        elif (isinstance(func, ast.Attribute) and func.attr == "create_task") or \
                self.threads.analysis.named(func, _ENSURE_FUTURE):
            coroutines = call.args[:1]
        else:
            return ()
        group = id(call) if gathered else None
        return tuple((coroutine, group) for coroutine in coroutines
                     if isinstance(coroutine, ast.Call))

    # -- what keeps two apart --------------------------------------------------------------
    @staticmethod
    def _called_after(one: Unit, other: Unit) -> bool:
        """Whether a pair with a call in it has the call second, after a unit started (and
        still running): a call's own threads and tasks may be waited for before it returns."""
        calls = [unit for unit in (one, other) if unit.kind == CALL]
        if not calls:
            return True
        started = other if calls[0] is one else one
        return len(calls) == 1 and position(started.spot) < position(calls[0].spot)

    def kept_apart(self, one: Unit, other: Unit) -> bool:
        """Whether two units of one function cannot run at the same time: one was waited
        for before the other started, or the code of both holds the same lock."""
        return self._apart(one, other) or self._locked(one, other)

    def _apart(self, one: Unit, other: Unit) -> bool:
        """Whether the earlier of two units was waited for before the later one started:
        on the spot (`await`, `.result()`), or by a wait between (`join()`, `await`, ...)."""
        if one.group is not None and one.group == other.group:
            return False
        first, last = sorted((one, other), key=lambda unit: position(unit.spot))
        parent = self.context.parent_of(first.spot)
        if isinstance(parent, ast.Await) or (isinstance(parent, ast.Attribute)
                                             and parent.attr == "result"):
            return True
        around = {id(node) for node in self.context.ancestors(last.spot)}
        scope = self.context.scope_of(first.spot)
        low, high = position(first.spot), position(last.spot)
        return any(isinstance(node, (ast.Await, ast.Call)) and id(node) not in around
                   and low < position(node) < high and waits(node)
                   for node in own_nodes(body_of(scope or self.context.tree)))

    def _same_pool(self, one: Unit, other: Unit) -> bool:
        """Tasks of one pool: `TaskRaces.sibling_races` reads them (one worker: serial)."""
        tasks = [unit.start for unit in (one, other) if unit.kind == "task"]
        return len(tasks) == 2 and start_pool(tasks[0]) == start_pool(tasks[1])

    def _locked(self, one: Unit, other: Unit) -> bool:
        """Whether the code of both (of this module) holds the same lock throughout."""
        held = [self._lock_held(unit.code) for unit in (one, other)]
        return held[0] is not None and held[0] == held[1]

    def _lock_held(self, code) -> str | None:
        if isinstance(code, (ProjectFunction, ast.Lambda)):
            return None
        body = [statement for statement in code.body if not (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], (ast.With, ast.AsyncWith)):
            return None
        for item in body[0].items:
            lock = item.context_expr
            made = self.threads.analysis.value_of(lock)
            if (isinstance(made, ast.Call) and self.threads.analysis.named(made.func, _LOCKS)) \
                    or "lock" in (last_name(lock) or "").lower():
                return key(lock)
        return None


def _serial_of(threads: ThreadStarts, unit: Unit) -> str | None:
    return None if unit.start is None else single_worker(threads, unit.start)
