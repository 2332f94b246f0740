"""CUR401 to CUR404 in Python, over the module's capture regions, its CUDA use and threads,
and the facts of the project's other modules."""

from __future__ import annotations

import ast
import os

from cursedlint.analysis.capture_regions import GLOBAL, RELAXED, Region, body_of, capture_analysis
from cursedlint.analysis.concurrent_units import ConcurrentUnits, OffThread, UnitRace
from cursedlint.analysis.cuda_facts import CudaFact
from cursedlint.analysis.cuda_reach import (
    CUDA_REACH, backward_runs, host_sync_of, parameter_read, parameter_read_at, syncing_backwards,
)
from cursedlint.analysis.cuda_tensors import CudaTensors
from cursedlint.analysis.cuda_use import CudaUse, allocates, located, through
from cursedlint.analysis.library_work import LibraryWork
from cursedlint.analysis.framework_loops import FrameworkLoops, HookCapture
from cursedlint.analysis.pinned_loaders import Loader, PinnedLoaders
from cursedlint.analysis.pushed_hooks import capture_query, may_find, pushed_hooks
from cursedlint.analysis.python_project import own_method_called, own_nodes, project_functions
from cursedlint.analysis.task_pairs import EntryRace, entry_races
from cursedlint.analysis.task_races import TaskRace, TaskRaces
from cursedlint.analysis.thread_starts import RunningThread, ThreadStart, ThreadStarts
from cursedlint.findings import Fix, Rewrite, Step
from cursedlint.rules.graph_capture.capture_without_warmup import CaptureWithoutWarmup
from cursedlint.rules.graph_capture.cuda_thread_during_capture import CudaThreadDuringCapture
from cursedlint.rules.graph_capture.pinned_loader_during_capture import PinnedLoaderDuringCapture
from cursedlint.rules.graph_capture.sync_in_capture import SyncInCapture

_TORCH_CAPTURES = frozenset({"torch.cuda.graph", "CUDAGraph.capture_begin()"})
"""Regions begun by a torch call that takes `capture_error_mode=`."""


class PythonCapture:
    """The Python side of every CUR4xx checker: the walk feeds its `with` statements and calls
    to the file's shared `CaptureAnalysis` (once for all the checkers)."""

    walk_feeds = ("analysis",)

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.analysis = capture_analysis(context)
        self.uses = CudaUse(context, self.analysis, project_functions(context, CUDA_REACH))

    def _thread_local_fix(self, region: Region) -> Fix | None:
        """Pass capture_error_mode="thread_local" to the torch call that begins a global-mode
        region of this module (unsafe: another thread's unsafe call no longer invalidates
        the capture, but the capturing thread's own calls are checked as before)."""
        if region.steps or region.mode != GLOBAL or region.what not in _TORCH_CAPTURES:
            return None
        rewrite = Rewrite(self.context.span_of(region.start), "capture_error_mode",
                          '"thread_local"')
        return Fix('pass capture_error_mode="thread_local"', (), safe=False,
                   rewrites=(rewrite,))


class CudaThreadDuringCapturePython(PythonCapture, CudaThreadDuringCapture):
    """CUR401 in Python: threads alive at a region of this module, and threads started and
    captures begun by other modules' functions."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.threads = ThreadStarts(context, self.analysis, self.uses)

    def check(self) -> None:
        calls = self.context.met(ast.Call)  # (the module's calls, as the walk met them)
        for region in (*self.analysis.regions, *self.threads.callee_captures(calls)):
            for start in self.threads.alive_at(region):
                self._check_thread(region, start)
        if self.uses.project is not None:
            for region, running in self.threads.running_at_captures(calls):
                self._check_running(region, running)
        races = TaskRaces(self.threads)
        for race in races.races(calls):
            self._report_race(race)
        for race in races.sibling_races(calls):
            self._report_sibling_race(race)
        for unit_race in ConcurrentUnits(self.threads, OffThread(self.threads)).races(calls):
            self._report_unit_race(unit_race)
        for entry_race in entry_races(self.context.source.path, self.analysis.regions,
                                      self.uses.project):
            self._report_entry_race(entry_race)

    def _check_thread(self, region: Region, start: ThreadStart) -> None:
        device_wide = self.threads.reached(start.code, self.uses.device_wide_use)
        found = device_wide or (self.threads.reached(start.code, self.uses.any_use)
                                if region.mode == GLOBAL else None)
        if found is not None:
            line, where, steps = found
            self._report_thread(region.start, f"{start.label} (started on line "
                                f"{start.call.lineno})", region, f"{line}{where}",
                                bool(device_wide), (*steps, *region.steps),
                                None if device_wide else self._thread_local_fix(region))

    def _report_race(self, race: TaskRace) -> None:
        start = race.start
        self.report(
            start.call,
            f"{race.tasks} may begin captures at once ({race.how})",
            related=race.steps,
            help=f"Its code reaches line {race.line}{race.where}. A capture fails when another "
            "thread synchronizes the device or, in global mode, makes any capture-unsafe CUDA "
            "call while it runs, and torch.cuda.graph begins by synchronizing the device: "
            "tasks that capture at the same time break each other's captures, at random (on "
            "an H200, 4 workers capturing 8 graphs failed within a few rounds, in thread_local "
            "mode too: cudaErrorStreamCaptureInvalidated, or the process aborted). Fix: "
            "capture each graph before the tasks start (call each once, serially), or run "
            "them on one worker; captures begun with capture_begin() in thread_local mode do "
            "not interfere.")

    def _report_sibling_race(self, race: TaskRace) -> None:
        self.report(
            race.start.call,
            f"{race.tasks} may capture while other tasks of the pool run CUDA work",
            related=race.steps,
            help=f"Its code reaches line {race.line}{race.where}; {race.how}. In global mode "
            "any capture-unsafe CUDA call of another thread (a copy to the host, `.item()`, a "
            "synchronization) during the capture fails and invalidates it (on an H200, a "
            "lazy capture in one task beside two tasks calling `.cpu()` or `.item()` failed "
            "from the first round: 'operation not permitted when stream is capturing'). Fix: "
            "capture before the tasks start, or capture with "
            "capture_error_mode=\"thread_local\".")

    def _report_unit_race(self, race: UnitRace) -> None:
        capturer, worker = race.capturer, race.worker
        steps = (*self._unit_steps(race.capture),
                 Step(self.context.source.path, worker.call.lineno, f"{worker.label} starts here"),
                 *self._unit_steps(race.work))
        beside = f"while the {worker.kind} started on line {worker.call.lineno} does CUDA work"
        message = f"{capturer.label} may begin a global-mode capture {beside}"
        if len(message) > 150:  # (a long name: the chain names it)
            message = f"the {capturer.kind} here may begin a global-mode capture {beside}"
        self.report(
            capturer.call,
            message,
            related=steps,
            help=f"Its code reaches line {race.capture.line}{race.capture.where}; "
            f"{worker.label} reaches line {race.work.line}{race.work.where}, on another "
            "thread, and nothing "
            "waits for one before the other starts. In global mode any capture-unsafe CUDA call "
            "of another thread (a copy to the host, `.item()`, an allocation) during the "
            "capture fails and invalidates it, at random. Fix: capture before the concurrent "
            "work starts (a warm-up that captures each graph), serialize the two (one worker, "
            "or a lock both hold), or capture with capture_error_mode=\"thread_local\" at the "
            "capture.")

    def _report_entry_race(self, race: EntryRace) -> None:
        region = race.region
        message = f"global-mode capture reached by {race.capturer} while {race.worker} does CUDA work"
        if len(message) > 150:  # (long names: the chain names them)
            message = "global-mode capture reached by a thread or task of another module while " \
                "another does CUDA work"
        self.report(
            region.start, message, related=race.steps, fix=self._thread_local_fix(region),
            help=f"{race.starter} starts both, and nothing waits for one before the other "
            "starts (the chain names the starts). In global mode any capture-unsafe CUDA call "
            "of another thread (a copy to the host, `.item()`, an allocation) during the "
            "capture fails and invalidates it, at random. Fix: capture with "
            "capture_error_mode=\"thread_local\", capture before the concurrent work starts "
            "(a warm-up), or serialize the two (one worker, or a lock both hold).")

    def _unit_steps(self, found) -> tuple[Step, ...]:
        """The chain to what a unit's code reaches: the line of this module it is reached
        from, then the steps through other modules."""
        if found.where.startswith(" of "):  # the code of another module: its own chain
            return found.steps
        here = self.context.source.path
        through_, _, what = found.where.lstrip(", ").partition("where ")
        if found.steps:
            return (Step(here, found.line, through_.strip(", ") or "reaches it"), *found.steps)
        return (Step(here, found.line, f"{through_.strip(', ')}: {what}" if through_ else what),)

    def _check_running(self, region: Region, running: tuple[RunningThread, ...]) -> None:
        """The first of the threads that other modules' functions left running whose CUDA use
        breaks the capture (any use in global mode, a device-wide synchronization in every
        mode)."""
        for start, kind, steps, fact in running:
            if kind is CudaFact.CUDA and region.mode != GLOBAL:
                continue
            thread = (f"the thread that {ast.unparse(start.func)}() starts on line "
                      f"{start.lineno} ({os.path.basename(steps[-1].path)}:{fact.line})")
            self._report_thread(region.start, thread, region, fact.detail,
                                kind is CudaFact.DEVICE_WIDE,
                                (*steps, *region.steps))
            return


class SyncInCapturePython(PythonCapture, SyncInCapture):
    """CUR402 in Python: the calls of each region that wait for the GPU."""

    def check(self) -> None:
        for region in self.analysis.regions:
            tensors = CudaTensors(self.context, self.analysis, self.uses, region.body)
            for node in own_nodes(region.body):
                self._check_node(region, tensors, node)
            self._check_backward(region)
            self._check_hooks(region, tensors)
        if may_find(self.context.source.data):
            self._check_pushed_hooks()

    def _check_pushed_hooks(self) -> None:
        """The saved-tensors hooks of a module that says its code runs in captures
        (`pushed_hooks`), where they read their saved tensor on the host or wait for the GPU
        whenever they run: reported at the read."""
        query = capture_query(self.context)
        if query is None:
            return
        here = self.context.source.path
        for hook in pushed_hooks(self.context, self.analysis):
            read = parameter_read_at(self.context, hook.code, hook.tensors)
            if read is None:
                found = host_sync_of(self.context, hook.code)
                at = next((node for node in own_nodes(body_of(hook.code))
                           if found and getattr(node, "lineno", None) == found[0]
                           and not found[2]), hook.code)
                read = (at, f"{found[1]}{through(found[2])}") if found else None
            if read is None:
                continue
            node, why = read
            name = getattr(hook.code, "name", "lambda")
            message = f"{why}, in the {hook.what} `{name}`"
            self.report(
                node, message if len(message) <= 150 else f"{why}, in a {hook.what}",
                related=(Step(here, query.lineno, f"`{ast.unparse(query.func)}()`: this "
                              "module's code runs while a stream captures"),
                         Step(here, hook.pushed.lineno, f"the {hook.what} is pushed")),
                help=f"Autograd runs the {hook.what} for every tensor the forward saves "
                "inside its context (an unpack hook in the backward), so it runs in the "
                "captured forward or backward this module checks for on line "
                f"{query.lineno}. A capturing stream records work without running it: copying a "
                "CUDA tensor to the host (formatting it included) fails ('operation not "
                "permitted when stream is capturing') and invalidates the capture. Fix: format "
                "only host values (shape, dtype), or test the debug flag before building the "
                "message.")

    def _check_hooks(self, region: Region, tensors: CudaTensors) -> None:
        """The hooks the region runs (`autograd_hooks`) that wait for the GPU whenever they
        run, reported where the region runs them."""
        from cursedlint.analysis.autograd_hooks import RegionHooks

        runs_backward = backward_runs(self.context)

        def backward_after(statements):
            found = self.uses.first(statements, runs_backward)
            return found[0] if found else None

        seen: set[int] = set()
        for hook in RegionHooks(self.context, self.analysis, tensors.holds).hooks(
                region, backward_after):
            name = getattr(hook.code, "name", None) or ast.unparse(hook.named)
            if name in seen:
                continue
            here = self.context.source.path
            registered = Step(here, hook.registered.lineno, f"{hook.what} `{name}` is registered")
            if hook.code is None:  # another module's function, by the project's facts
                chain = self.uses.reach_of(hook.named, CudaFact.HOST_SYNC)
                if not chain:
                    continue
                steps = (registered, *chain)
            else:
                read = host_sync_of(self.context, hook.code)
                if read is None and hook.tensors:
                    read = parameter_read(self.context, hook.code, hook.tensors)
                if read is None:
                    continue
                line, why, path = read
                steps = (registered, Step(here, line, f"{why}{through(path)}"))
            seen.add(name)
            when = "when the capture runs it" if hook.backward is None else \
                f"in the backward run on line {hook.backward.lineno}"
            self._report(hook.runs, region.what, region.start.lineno,
                         f"{hook.what} `{name}` waits for the GPU {when}", steps=steps)

    def _check_backward(self, region: Region) -> None:
        """The first autograd Function applied in a region that runs the backward, whose
        `backward` (run by the captured backward) waits for the GPU."""
        if self.uses.first(region.body, backward_runs(self.context)) is None:
            return
        check = syncing_backwards(self.context)
        for node in own_nodes(region.body):
            found = self.uses.first([node], check) if isinstance(node, ast.Call) else None
            if found is None:
                continue
            inner, why, path = found
            steps = self.uses.steps_for(inner)
            if steps:  # through another module: its chain ends at the Function's apply
                target, callee = inner, ast.unparse(inner.func)
            else:
                target = inner if not path else node
                callee = ast.unparse(target.func)
                steps = (Step(self.context.source.path, inner.lineno, why),)
            self._report(target, region.what, region.start.lineno,
                         f"{callee}() runs a backward that waits for the GPU when the region's "
                         "backward runs it", steps=steps)
            return

    def _check_node(self, region: Region, tensors: CudaTensors, node: ast.AST) -> None:
        illegal = self.uses.relaxed_sync if region.mode == RELAXED else self.uses.host_sync
        why = illegal(node) or tensors.formatted(node)
        if why:
            self._report(node, region.what, region.start.lineno, why, allocates(node))
            return
        converted = tensors.converted(node) or tensors.uploaded(node)
        if converted:
            self._report(converted[0], region.what, region.start.lineno, converted[1], False)
            return
        callee = self.uses.callee(node)
        if callee is None:
            steps = self.uses.remote(node.func, self.uses.host_sync) if isinstance(
                node, ast.Call) else None
            if steps:
                self._report(node, region.what, region.start.lineno,
                             f"{ast.unparse(node.func)}() reaches it: {located(steps[-1])}",
                             steps=steps)
                return
            method = own_method_called(  # (given CUDA tensors: read below)
                self.context, self.uses.project, node, self.uses.forward_target) \
                if isinstance(node, ast.Call) else None
            passed = tensors.passed(node, method) if method is not None else None
            read = parameter_read(self.context, method, passed) if passed else None
            if read:
                self._report(node, region.what, region.start.lineno,
                             f"{ast.unparse(node.func)}() reaches it at line {read[0]}: "
                             f"{read[1]}", False)
            return
        found = self.uses.first(body_of(callee), illegal)
        if found:
            inner, why, path = found
            self._report(node, region.what, region.start.lineno,
                         f"{callee.name}(){through(path)} reaches it at line {inner.lineno}: "
                         f"{why}", allocates(inner), self.uses.steps_for(inner))
            return
        read = host_sync_of(self.context, callee)  # a CUDA tensor read on the host in it
        if read is None:  # one the region passes it
            passed = tensors.passed(node, callee)
            read = parameter_read(self.context, callee, passed) if passed else None
        if read:
            line, why, path = read
            self._report(node, region.what, region.start.lineno,
                         f"{callee.name}(){through(path)} reaches it at line {line}: {why}",
                         False)


class PinnedLoaderDuringCapturePython(PythonCapture, PinnedLoaderDuringCapture):
    """CUR403 in Python: a pinned loader's iterator alive at a global-mode region."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.loaders = PinnedLoaders(context, self.analysis, self.uses)
        self.loops: list[ast.For | ast.AsyncFor] = []
        self.reported: set[int] = set()

    def visit_For(self, node: ast.For) -> None:
        self.loops.append(node)

    def visit_AsyncFor(self, node: ast.AsyncFor) -> None:
        self.loops.append(node)

    def check(self) -> None:
        for region in self.analysis.regions:
            if region.mode != GLOBAL:
                continue
            found = next(self.loaders.alive_at(region), None)
            if found is not None:
                loader, how = found
                self._report(region.start, region.what, loader, how,
                             fix=self._thread_local_fix(region))
        if self.uses.project is not None:
            for loop in self.loops:
                self._check_loop_calls(loop)
        frameworks = FrameworkLoops(self.context, self.analysis, self.uses, self.loaders)
        for found in frameworks.hook_captures():
            if id(found.node) not in self.reported:
                self._report_hook(found)

    def _report_hook(self, found: HookCapture) -> None:
        """A hook, run by a framework's training loop over a pinned loader, that begins a
        global-mode capture."""
        region = self.analysis.region_at(found.node)
        self.report(
            found.node,
            f"{found.head} begins a global-mode capture in {found.run.framework.in_loop} "
            "over a pinned DataLoader",
            help=f"{found.run.framework.name} runs `{found.hook}` while its "
            f"{found.run.framework.loader} "
            f"DataLoader ({found.run.loader.made}) is iterated; that loader has a pin-memory "
            "thread whose allocator queries CUDA events, and a CUDA call from another thread "
            "invalidates a global-mode capture, at random ('operation not permitted when "
            "stream is capturing'). Fix: capture before training starts "
            f"({found.run.framework.before_loop}, on static inputs), or pass "
            "capture_error_mode=\"thread_local\".",
            related=found.steps,
            fix=self._thread_local_fix(region) if region is not None else None,
        )

    def _check_loop_calls(self, loop: ast.For | ast.AsyncFor) -> None:
        """Calls in a loop over a pinned loader of project functions (of other modules) that
        begin a global-mode capture. (A region, found by names first, is rare and a local
        callee costly to find: asked in that order. In a project where no function begins
        one, none does: what a lint before the facts asks of them, for every loop.)"""
        uses = self.uses
        if not uses.project.reaching(CudaFact.GLOBAL_CAPTURE):
            return  # (no project function begins one)
        calls = [node for node in own_nodes(loop.body) if isinstance(node, ast.Call)]
        regions = [(node, region) for node in calls
                   if (region := uses.remote_region(node)) is not None
                   and uses.callee(node) is None]
        loader = self.loaders.iterated_by(loop) if regions else None  # (rarely any region)
        for node, region in regions if loader is not None else ():
            self._report(node, region.what, loader,
                         f"the for loop on line {loop.lineno} iterates it", region.steps)

    def _report(self, target: ast.AST, what: str, loader: Loader, how: str,
                steps: tuple[Step, ...] = (), fix: Fix | None = None) -> None:
        self.reported.add(id(target))
        self.report(
            target,
            f"{what} begins a global-mode capture with a pinned DataLoader's iterator alive "
            f"({how})",
            help=f"The pinned DataLoader {loader.made} has a pin-memory thread that allocates pinned "
            "memory, whose allocator queries CUDA events, and a CUDA call from another thread "
            "invalidates a global-mode capture, at random ('operation not permitted when stream "
            "is capturing'). Fix: capture before the loader's iterator starts, or pass "
            "capture_error_mode=\"thread_local\".",
            related=(*loader.steps, *steps),
            fix=fix,
        )

class CaptureWithoutWarmupPython(PythonCapture, CaptureWithoutWarmup):
    """CUR404 in Python: cuBLAS/cuDNN work in a `torch.cuda.graph` region with no warm-up."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.library = LibraryWork(context, self.analysis, self.uses)

    def check(self) -> None:
        for region in self.analysis.regions:
            if region.what != "torch.cuda.graph":
                continue
            found = self.uses.first(region.body, self.library.library_work)
            if found is not None and not self.library.warmed_up(region):
                node, what, path = found
                self._report(region, node, what, path)

    def _report(self, region: Region, node: ast.AST, what: str, path: list[str]) -> None:
        self.report(
            region.start,
            f"torch.cuda.graph captures cuBLAS/cuDNN work not run before it: line "
            f"{node.lineno}{through(path)}",
            help=f"There {what}. cuBLAS and cuDNN create their handles on a thread's first "
            "call, which is not permitted while the stream captures: the capture fails "
            "(CUBLAS_STATUS_NOT_INITIALIZED, cuDNN CUDNN_STATUS_INTERNAL_ERROR_DEVICE_"
            "ALLOCATION_FAILED) and is invalidated. Fix: run the captured step a few times on a "
            "side stream (`with torch.cuda.stream(s):`) before capture, or use "
            "torch.cuda.make_graphed_callables, which warms up itself.",
            related=self.uses.steps_for(node) or self.library.steps_for(node),
        )
