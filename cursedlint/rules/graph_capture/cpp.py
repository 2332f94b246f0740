"""CUR401 and CUR402 in C, C++ and CUDA: threads started before a begin-capture call in its
function and not joined, and prohibited calls between a begin and an end capture (what they
read of the code: `analysis.c_capture`)."""

from __future__ import annotations

import os
from functools import cached_property

from cursedlint.analysis.c_capture import (
    C_BEGINS, C_MODE_EXCHANGES, C_SYNC_NAMES, CThreads, CThreadStart, capture_mode,
    captured_statements,
)
from cursedlint.analysis.c_capture_guards import Begin, Guard, guards, wrong_stream_guards
from cursedlint.analysis.c_capture_streams import CAPTURE_STREAMS
from cursedlint.analysis.c_framework_waits import host_waits
from cursedlint.analysis.c_openmp import team_of
from cursedlint.analysis.c_thread_reach import (
    C_THREAD_REACH, CallStep, ThreadReach, project_reach,
)
from cursedlint.analysis.c_syntax import callee, function_name
from cursedlint.analysis.capture_regions import GLOBAL, RELAXED, Region
from cursedlint.analysis.cuda_use import C_ALLOCATIONS, through
from cursedlint.findings import Step
from cursedlint.rules.graph_capture.cuda_thread_during_capture import CudaThreadDuringCapture
from cursedlint.rules.graph_capture.sync_in_capture import SyncInCapture


class _ProjectReach:
    """The project's reach as the linted file sees it, built once per file."""

    @cached_property
    def _reach(self) -> ThreadReach:
        return project_reach(self.context, self.context.project.get(C_THREAD_REACH.name))


class CudaThreadDuringCaptureC(_ProjectReach, CudaThreadDuringCapture):
    """CUR401 in C/C++."""

    def check(self) -> None:
        """Threads started earlier in the function of a begin-capture call, not joined."""
        threads = CThreads(self.context)
        for name, begin in self.context.calls(C_BEGINS):
            region = Region(begin, (), capture_mode(self.context, begin), f"{name}()")
            reported = False
            for start in threads.alive_at(begin):
                reported = self._check_c_thread(threads, region, start) or reported
            if not reported:
                reported = self._check_team(threads, begin, region)
            if region.mode == GLOBAL and not reported:
                reported = self._check_started_earlier(begin, region)
            if region.mode == GLOBAL and not reported:
                self._check_sibling_threads(begin, region)

    def _check_c_thread(self, threads: CThreads, region: Region, start: CThreadStart) -> bool:
        device_wide = threads.cuda_call(start.code, device_wide=True)
        found = device_wide or (threads.cuda_call(start.code, device_wide=False)
                                if region.mode == GLOBAL else None)
        label = f"{start.label} (started on line {start.node.start_point[0] + 1})"
        if found is not None:
            call, name, path = found
            self._report_thread(region.start, label, region,
                                f"{call.start_point[0] + 1}{through(path)}, where it calls "
                                f"{name}()", bool(device_wide))
            return True
        if region.mode != GLOBAL:
            return False
        reach = self._reach
        names = [callee(self.context, called, members=True) for called in self.context.descendants(
            start.code) if called.type == "call_expression"]
        for name in () if C_MODE_EXCHANGES.intersection(names) else names:
            steps = reach.path_to(name, lambda at, function: reach.cuda_call(function)
                                  is not None) if name else None
            if steps:
                api, line = reach.cuda_call(reach.defined(steps[-1].name)[1])
                self._report_thread(
                    region.start, label, region, f"{line} of {os.path.basename(steps[-1].path)}"
                    f"{through([step.name for step in steps])}, where it calls {api}()", False,
                    (*_chain(steps), Step(steps[-1].path, line,
                                          f"{steps[-1].name}() calls {api}()")))
                return True
        return False

    def _check_team(self, threads: CThreads, begin, region: Region) -> bool:
        """A capture inside an OpenMP parallel region: the other threads of its team run the
        same block (or the other sections) meanwhile; their first device-wide
        synchronization (any mode), or in global mode their first CUDA call."""
        team = team_of(self.context, begin)
        if team is None:
            return False
        parallel, code = team
        device_wide = next(filter(None, (threads.cuda_call(node, device_wide=True)
                                         for node in code)), None)
        found = device_wide or (next(filter(None, (threads.cuda_call(node, device_wide=False)
                                                   for node in code)), None)
                                if region.mode == GLOBAL else None)
        if found is None:
            return False
        call, name, path = found
        line = parallel.pragma.start_point[0] + 1
        self._report_thread(
            region.start, f"another thread of the OpenMP region (`{parallel.written}`, line "
            f"{line})", region, f"{call.start_point[0] + 1}{through(path)}, where it calls "
            f"{name}()", bool(device_wide),
            (Step(self.context.source.path, line, f"`#pragma {parallel.written}` runs the "
                  f"block on a team of threads at once"),
             Step(self.context.source.path, call.start_point[0] + 1,
                  f"another thread of the team calls {name}() here")))
        return True

    def _check_started_earlier(self, begin, region: Region) -> bool:
        """Threads doing CUDA work started before a global-mode capture through calls (a
        function called before the begin, or before the call that leads to the capturing
        function in one of its callers), still running."""
        function = _enclosing_function(self.context, begin)
        reach = self._reach if function else None
        defined = reach.defined(function) if reach else None
        if defined is None or defined[0] != _own_path(self.context):
            return False
        for running in reach.running_at(function, begin.start_point[0] + 1):
            start, (to_cuda, cuda_path, api, line) = running.start, running.cuda
            entry = to_cuda[0].name if to_cuda else api
            leads = [step.name for step in running.to_capture[1:]] + [function]
            starter = f"{start.starter}::{start.starter}" if running.instance else \
                running.to_capture[0].name if running.to_capture and not running.to_start \
                else start.starter  # (`C::f` where the project names several `f`)
            member = running.to_capture[0] if running.to_capture else CallStep(
                function, defined[0], defined[1].line)
            steps = (*_chain(running.to_start),
                     Step(running.started_in, start.line,
                          f"{starter}() starts a thread running {entry}()"
                          + (" and leaves it running" if start.left else "")),
                     *_chain(to_cuda), Step(cuda_path, line, f"{api}() is called here"),
                     *((Step(member.path, member.line, f"{member.name}() is a member function "
                                                       f"of {running.instance}: it runs on an "
                                                       f"object whose constructor has run"),)
                       if running.instance else ()),
                     *(Step(step.path, step.line, f"{step.name}() then calls {following}()")
                       for step, following in zip(running.to_capture, leads)))
            self._report_thread(
                region.start, f"a thread started by {starter}() "
                f"({os.path.basename(running.started_in)}:{start.line})", region,
                f"{line} of {os.path.basename(cuda_path)}"
                f"{through([step.name for step in to_cuda])}, where it calls {api}()",
                False, steps)
            return True
        return False

    def _check_sibling_threads(self, begin, region: Region) -> bool:
        """A global-mode capture in a function that runs on one of several threads the
        project starts on one entry: the sibling threads run the same code, whose CUDA calls
        (the first on the path to the capture) may come while this one captures."""
        function = _enclosing_function(self.context, begin)
        if not function:
            return False
        reach = self._reach
        own = _own_path(self.context)
        for path, start, several in reach.starts():
            for entry in start.entries:
                to_capture = reach.path_to(entry, lambda at, defined: at == own
                                           and defined.name == function)
                calling = next((step for step in to_capture or () if reach.cuda_call(
                    reach.defined(step.name)[1])), None)
                if calling is not None:
                    called, line = reach.cuda_call(reach.defined(calling.name)[1])
                    before = to_capture[:to_capture.index(calling)]
                    steps = (Step(path, start.line, f"threads running {entry}() start here "
                                  f"({several})"), *_chain(to_capture),
                             Step(calling.path, line, f"{calling.name}() calls {called}()"))
                    self._report_thread(
                        region.start, f"a sibling thread running {entry}()", region,
                        f"{line} of {os.path.basename(calling.path)}"
                        f"{through([step.name for step in before])}, where it calls {called}()",
                        False, steps)
                    return True
        return False


class SyncInCaptureC(_ProjectReach, SyncInCapture):
    """CUR402 in C/C++."""

    def check(self) -> None:
        """Prohibited calls between a begin and an end capture of one stream in one block, and
        device-wide synchronizations guarded by another stream's capture status."""
        if guards(self.context):  # (only then are the project's capture streams asked for)
            for guard, begin in wrong_stream_guards(
                    self.context, self.context.project.get(CAPTURE_STREAMS.name)):
                self._report_guard(guard, begin)
        for wait in host_waits(self.context):
            self.report(
                wait.call,
                f"{_clipped(wait.owner, 32)}::wait() waits on the host "
                f"({_clipped(wait.label, 32)}), on the capturing thread of a captured collective",
                help="PyTorch's collectives call `work.wait()` on the thread that issued them "
                "(`dist.all_reduce(t)`, `dist.barrier()`: no timeout unless `async_op`), so "
                "where the application captures the collective in a CUDA graph, this `wait()` "
                "runs on the capturing thread, where a host synchronization fails and "
                "invalidates the capture, whatever its mode. Fix: when "
                "`at::cuda::currentStreamCaptureStatus()` is not None, only make the current "
                "stream wait on the work's event (`event.block(stream)`) and return, as "
                "ProcessGroupNCCL's `wait` does.")
        for begin_name, begin in self.context.calls(C_BEGINS):
            inside = captured_statements(self.context, begin)
            if inside is None:
                continue
            line = begin.start_point[0] + 1
            relaxed = capture_mode(self.context, begin) == RELAXED
            for node in inside:
                for name, call in self.context.calls(C_SYNC_NAMES, node):
                    allocation = name.removesuffix("_v2") in C_ALLOCATIONS
                    if not (relaxed and allocation):
                        self._report(call, f"{begin_name}()", line,
                                     f"{name}() is prohibited while a stream captures",
                                     allocation)
                self._check_reached(node, begin_name, line, relaxed)

    def _check_reached(self, statement, begin_name: str, line: int, relaxed: bool) -> None:
        """Calls of project functions in the region that reach a prohibited call."""
        for call in self.context.descendants(statement):
            if call.type != "call_expression":
                continue
            name = callee(self.context, call, members=True)
            if not name or name in C_SYNC_NAMES:
                continue
            reach = self._reach
            if name not in reach.prohibiting:
                continue
            steps = reach.path_to(name, lambda at, defined: defined.prohibited is not None,
                                  sure=True)
            if not steps:
                continue
            called, at = reach.defined(steps[-1].name)[1].prohibited
            allocation = called.removesuffix("_v2") in C_ALLOCATIONS
            if relaxed and allocation:
                continue
            self._report(call, f"{begin_name}()", line,
                         f"{name}() reaches {called}(), prohibited while a stream captures",
                         allocation, (*_chain(steps), Step(steps[-1].path, at,
                                                         f"{steps[-1].name}() calls {called}()")))

    def _report_guard(self, guard: Guard, begin: Begin) -> None:
        here = _own_path(self.context)
        where = f"{os.path.basename(begin.path)}:{begin.line}"
        self.report(
            guard.sync,
            f"{guard.name}() syncs the device, but its guard checks only "
            f"{_short(guard.stream)}; the project captures on {_short(begin.stream)}",
            help=f"CUDA makes synchronizing a device or context invalid while any of its "
            f"streams captures (in every capture mode): the call fails and invalidates that "
            f"capture. The guard checks one stream, and {where} begins a capture on another "
            f"stream of the project. Fix: skip the synchronization while any capture the "
            f"project began is active on the device, or synchronize only the checked stream.",
            related=(Step(here, guard.query.start_point[0] + 1,
                          f"the guard asks whether `{_clipped(guard.stream, 60)}` captures"),
                     Step(begin.path, begin.line,
                          f"a capture begins on `{_clipped(begin.stream, 60)}`")))


def _short(text: str) -> str:
    """A stream's expression as written, quoted, in one line (`_clipped` to 20 characters)."""
    return f"`{_clipped(text, 20)}`"


def _clipped(text: str, most: int) -> str:
    """`text` in one line of at most `most` characters (a finding's first line stays short)."""
    text = " ".join(text.split())
    return text if len(text) <= most else f"{text[:most - 3]}..."


def _own_path(context) -> str:
    return os.path.abspath(context.source.path)


def _enclosing_function(context, node) -> str:
    """The name of the function definition holding `node` ("" in a lambda or at file scope)."""
    for parent in context.ancestors(node):
        if parent.type == "lambda_expression":
            return ""
        if parent.type == "function_definition":
            return function_name(context, parent)
    return ""


def _chain(steps: list[CallStep]) -> list[Step]:
    """Chain notes of a path of calls: where each function calls the next."""
    return [Step(step.path, step.line, f"{step.name}() calls {following.name}()")
            for step, following in zip(steps, steps[1:])]
