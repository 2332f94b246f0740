"""CUR401 and CUR402 in C, C++ and CUDA: threads started before a begin-capture call in its
function and not joined, and prohibited calls between a begin and an end capture (what they
read of the code: `analysis.c_capture`)."""

from __future__ import annotations

import os

from cursedlint.analysis.c_capture import (
    C_BEGINS, C_SYNC_NAMES, CThreads, CThreadStart, capture_mode, captured_statements,
)
from cursedlint.analysis.c_device_syncs import SYNC_FUNCTIONS, reaches_sync, sync_steps
from cursedlint.analysis.capture_regions import GLOBAL, RELAXED, Region
from cursedlint.analysis.cuda_use import C_ALLOCATIONS, through
from cursedlint.rules.graph_capture.cuda_thread_during_capture import CudaThreadDuringCapture
from cursedlint.rules.graph_capture.sync_in_capture import SyncInCapture


class CudaThreadDuringCaptureC(CudaThreadDuringCapture):
    """CUR401 in C/C++."""

    def check(self) -> None:
        """Threads started earlier in the function of a begin-capture call, not joined."""
        threads = CThreads(self.context)
        for name, begin in self.context.calls(C_BEGINS):
            region = Region(begin, (), capture_mode(self.context, begin), f"{name}()")
            for start in threads.alive_at(begin):
                self._check_c_thread(threads, region, start)

    def _check_c_thread(self, threads: CThreads, region: Region, start: CThreadStart) -> None:
        device_wide = threads.cuda_call(start.code, device_wide=True)
        found = device_wide or (threads.cuda_call(start.code, device_wide=False)
                                if region.mode == GLOBAL else None)
        if found is not None:
            call, name, path = found
            self._report_thread(region.start, f"{start.label} (started on line "
                                f"{start.node.start_point[0] + 1})", region,
                                f"{call.start_point[0] + 1}{through(path)}, where it calls "
                                f"{name}()", bool(device_wide))


class SyncInCaptureC(SyncInCapture):
    """CUR402 in C/C++."""

    def check(self) -> None:
        """Prohibited calls between a begin and an end capture of one stream in one block."""
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
                self._check_calls(node, begin_name, line, relaxed)

    def _check_calls(self, node, begin_name: str, line: int, relaxed: bool) -> None:
        """Calls of functions (of the file, or defined in another file of the project) that
        make a prohibited call whenever they run."""
        facts = self.context.project.get(SYNC_FUNCTIONS.name, {})
        for call in self.context.captures(_PLAIN_CALLS, node).get("call", ()):
            name = self.context.text(call.child_by_field_name("function"))
            found = None if name in C_SYNC_NAMES else reaches_sync(self.context, facts, name)
            if found is None:
                continue
            sync, path = found
            allocation = sync.api.removesuffix("_v2") in C_ALLOCATIONS
            if relaxed and allocation:
                continue
            where = f"line {sync.line}" if path == self.context.source.path else \
                f"{os.path.basename(path)}:{sync.line}"
            self._report(call, f"{begin_name}()", line,
                         f"{name}() reaches {sync.api}() ({where})", allocation,
                         sync_steps(path, name, sync))


_PLAIN_CALLS = "(call_expression function: (identifier)) @call"
