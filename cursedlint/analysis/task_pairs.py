"""Work the project runs at the same time on several threads, read where it is started and
used at a global-mode capture of another module that some of it reaches.

Summarized for the `cuda-reach` index (`pairs_fact`, the `TASKS_BESIDE` fact of the function
that starts them): the pairs of units (`concurrent_units.Unit`: threads, executor tasks,
coroutines run together) one function starts that nothing keeps apart (a wait between the
starts, one lock both hold, one single-worker executor), and a task started several times at
once on a pool of more than one worker (a loop or comprehension, `map`), paired with itself;
each unit by the name of the project callable the function hands or calls.

Read at a module's global-mode captures (`entry_races`): a pair of another module one of
whose units reaches the capture (through the project's calls, on its own thread or on one it
starts) while the other does CUDA work on another thread (two coroutines share the event
loop's thread), unless the function ran the capturing code itself before starting it (a
serial warm-up). The capture's module does not show these threads: the finding is at the
capture, where its mode is chosen, the chain naming both starts. A pair in the capture's own
module is `concurrent_units`' (reported where it starts).
"""

from __future__ import annotations

import ast
import os
from typing import Iterator, NamedTuple

from cursedlint.analysis.capture_regions import GLOBAL, Region, body_of, key, own_calls, position
from cursedlint.analysis.concurrent_units import (
    COROUTINE, START_NAMES, ConcurrentUnits, OffThread, Unit, single_worker,
)
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.python_project import ProjectFunctions, Reach, last_name, own_nodes
from cursedlint.analysis.task_races import pool
from cursedlint.analysis.thread_starts import ProjectFunction, ThreadStart
from cursedlint.findings import Step

_STARTING = START_NAMES | {"gather", "create_task", "ensure_future"}
MAX_UNITS = 16
"""Units of one function paired (past them, unknown: no pair)."""


class Named(NamedTuple):
    """A unit as the index keeps it: where it starts, its kind, the callable's dotted name,
    and whether the function ran that callable itself before (a warm-up)."""

    line: int
    kind: str
    name: str
    warm: bool

    def text(self) -> str:
        return f"{self.line}:{self.kind}:{int(self.warm)}:{self.name}"

    @classmethod
    def read(cls, text: str) -> "Named":
        line, kind, warm, name = text.split(":", 3)
        return cls(int(line), kind, name, warm == "1")


def pairs_fact(off: OffThread, units: ConcurrentUnits, function) -> dict[str, Reach]:
    """The function's `TASKS_BESIDE` fact: its pairs of units that may run at the same time,
    each as `"one|other"` of `Named.text` (in `via`). Summaries are read without the
    project's facts: a unit is named, its code not looked up."""
    listed = [found for call in own_calls(off.threads.context, function)
              for found in _units(off, units, call)][:MAX_UNITS]
    pairs = []
    for index, (unit, named) in enumerate(listed):
        if unit.kind == "task" and units.tasks.at_once(unit.start):
            pairs.append(f"{named.text()}|{named.text()}")
        for other, other_named in listed[index + 1:]:
            if _beside(units, unit, other):
                pairs.append(f"{named.text()}|{other_named.text()}")
    if not pairs:
        return {}
    return {CudaFact.TASKS_BESIDE: Reach(listed[0][0].call.lineno,
                                         "starts work that runs at the same time",
                                         tuple(pairs))}


def _units(off: OffThread, units: ConcurrentUnits,
           call: ast.Call) -> Iterator[tuple[Unit, Named]]:
    """The units `call` starts that a summary can name, with their names (a call read only
    where its last name may start one: a summary is made of every function of a module)."""
    if last_name(call.func) not in _STARTING:
        return
    threads = off.threads
    for target, kind, group in units.started(call):
        handed = target.func if kind == COROUTINE else off.handed_target(call)
        name = off.callable_name(handed)
        if name is None:
            continue
        code = threads.analysis.code_of(handed) or ProjectFunction("", name)
        start = None if kind == COROUTINE else ThreadStart(call, code, "", frozenset(), None)
        warm = start is not None and _warmed_up(threads, call, handed)
        unit = Unit(target, code, "", kind, call, kind == COROUTINE, group, start)
        yield unit, Named(unit.call.lineno, kind, name, warm)


def _warmed_up(threads, call: ast.Call, handed: ast.AST) -> bool:
    """Whether the function called what it hands to a task before the start (a warm-up)."""
    scope = threads.context.scope_of(call)
    written = key(handed)
    return any(isinstance(node, ast.Call) and position(node) < position(call)
               and key(node.func) == written
               for node in own_nodes(body_of(scope or threads.context.tree)))


def _beside(units: ConcurrentUnits, one: Unit, other: Unit) -> bool:
    """Whether two units of one function may run at the same time on different threads (or
    hand work to them)."""
    if units.kept_apart(one, other):
        return False
    if one.start is None or other.start is None:
        return True
    serial = single_worker(units.threads, one.start)
    if serial is not None and serial == single_worker(units.threads, other.start):
        return False
    if one.kind == other.kind == "task" and pool(one.start.call) == pool(other.start.call):
        return units.tasks.workers(one.start.call) is not None
    return True


class EntryRace(NamedTuple):
    """A global-mode capture of the module (`region`) that a unit another module's function
    starts reaches, while another unit of that function does CUDA work; `starter` names the
    function, `steps` the chain (the capturing unit's start to the capture, then the other
    unit's start to its work)."""

    region: Region
    starter: str
    capturer: str
    worker: str
    steps: tuple[Step, ...]


def entry_races(path: str, regions, project: ProjectFunctions | None) -> Iterator[EntryRace]:
    """The module's global-mode captures (`regions`, of the module at `path`) that another
    module's units reach while others do CUDA work: one race per capture."""
    here = os.path.abspath(path)
    by_line = {region.start.lineno: region for region in regions
               if region.mode == GLOBAL and not region.steps}
    if not by_line or project is None:
        return  # (the facts asked for below: a first lint before they are gathered is redone)
    done: set[int] = set()
    for where, qualname, one, other in _pairs(project):
        if where == here:
            continue
        for capturer, worker in ((one, other), (other, one)) if one != other else ((one, one),):
            race = _race(project, here, by_line, where, qualname, capturer, worker)
            if race is not None and id(race.region) not in done:
                done.add(id(race.region))
                yield race


def _pairs(project: ProjectFunctions) -> Iterator[tuple[str, str, Named, Named]]:
    for where, qualname, fact in project.with_fact(CudaFact.TASKS_BESIDE):
        for pair in fact.via:
            one, _, other = pair.partition("|")
            yield where, qualname, Named.read(one), Named.read(other)


def _race(project: ProjectFunctions, here: str, by_line: dict[int, Region], where: str,
          qualname: str, capturer: Named, worker: Named) -> EntryRace | None:
    if capturer.warm:
        return None
    imports = project.summaries[where].imports
    code = project.callee(where, imports, capturer.name, qualname)
    if code is None:
        return None
    on_loop = capturer.kind == COROUTINE
    region = capture = None
    for kind in (CudaFact.GLOBAL_CAPTURE, CudaFact.TASK_CAPTURE):
        capture = project.reach(*code, kind)
        last = capture[-1] if capture else None
        region = by_line.get(last.line) if last is not None and last.path == here else None
        if region is not None:
            on_loop = on_loop and kind is CudaFact.GLOBAL_CAPTURE
            break
    if region is None:
        return None
    other = project.callee(where, imports, worker.name, qualname)
    if other is None:
        return None
    kinds = (CudaFact.TASK_CUDA,) if on_loop and worker.kind == COROUTINE else \
        (CudaFact.CUDA, CudaFact.TASK_CUDA)
    work = next(filter(None, (project.reach(*other, kind) for kind in kinds)), None)
    if work is None:
        return None
    starter = f"`{qualname}()` ({os.path.basename(where)})"
    capturing = f"the {capturer.kind} running {code[1]}()"
    working = f"the {worker.kind} running {other[1]}()" if worker is not capturer else \
        f"another {worker.kind} running {other[1]}() at the same time"
    steps = (Step(where, capturer.line, f"{starter} starts {capturing} here"), *capture,
             Step(where, worker.line, f"{starter} starts {working} here"), *work)
    return EntryRace(region, starter, capturing, working, steps)
