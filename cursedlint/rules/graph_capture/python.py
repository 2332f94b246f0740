"""CUR401 to CUR404 in Python, over the module's capture regions, its CUDA use and threads,
and the facts of the project's other modules."""

from __future__ import annotations

import ast
import os
from typing import Iterator, NamedTuple

from cursedlint.analysis.capture_regions import (
    GLOBAL, LOCAL_DEPTH, RELAXED, CaptureAnalysis, Region, body_of,
    capture_analysis, enclosing_class, key, pinned_loader, position,
)
from cursedlint.analysis.cuda_reach import CUDA_REACH, PINNED_LOADER
from cursedlint.analysis.cuda_use import CudaUse, allocates, located, through
from cursedlint.analysis.library_work import LibraryWork
from cursedlint.analysis.python_project import call_target, own_nodes, project_functions
from cursedlint.analysis.thread_starts import JOINS, THREAD_KINDS, ThreadStart, ThreadStarts
from cursedlint.findings import Fix, Rewrite, Step
from cursedlint.rules.graph_capture.capture_without_warmup import CaptureWithoutWarmup
from cursedlint.rules.graph_capture.cuda_thread_during_capture import CudaThreadDuringCapture
from cursedlint.rules.graph_capture.pinned_loader_during_capture import PinnedLoaderDuringCapture
from cursedlint.rules.graph_capture.sync_in_capture import SyncInCapture

FORMATTERS = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.format"})
LOG_LEVELS = ("debug", "info", "warning", "error", "critical", "exception", "log")
LOGGING_CALLS = frozenset(f"logging.{level}" for level in LOG_LEVELS)
_GET_LOGGER = frozenset({"logging.getLogger"})
TORCH_OP_NAMESPACES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft",
                                 "torch.special"})
HOST_VALUE_FUNCTIONS = frozenset({
    "is_tensor", "is_storage", "is_floating_point", "is_complex", "is_nonzero", "numel",
    "typename", "equal", "allclose", "result_type", "can_cast", "promote_types",
    "get_default_dtype", "is_grad_enabled", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "no_grad", "enable_grad", "inference_mode",
})
"""torch functions that return a host value, not a CUDA tensor."""
TORCH_FACTORIES = frozenset({
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange", "range",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "empty_strided",
    "scalar_tensor",
})
"""torch functions that make a CPU tensor unless given a CUDA `device=`."""
HOST_VALUE_METHODS = frozenset({
    "item", "tolist", "cpu", "numpy", "size", "dim", "ndimension", "numel", "nelement",
    "stride", "data_ptr", "element_size", "get_device", "storage_offset", "type", "equal",
    "allclose", "pin_memory", "to",
})
"""Tensor methods whose result is not known to be a CUDA tensor (`.to` is, with a CUDA
target)."""


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, str))


class CudaTensors:
    """Which expressions of one capture region are known to hold a CUDA tensor, and which
    nodes of it format one. Known: a tensor made on the GPU (`.cuda()`, `.to("cuda")`,
    `device="cuda"`), the result of a torch op (not a factory without a CUDA device) or of
    `@`, a tensor method's result, arithmetic or indexing on a known CUDA tensor, and a name
    whose one binding is such a value inside the region. Anything else (a parameter, a name
    bound outside the region or twice, a model's output, `t.shape`, `len(t)`) is unknown."""

    def __init__(self, context, analysis: CaptureAnalysis, uses: CudaUse, region: Region):
        self.context = context
        self.analysis = analysis
        self.uses = uses
        self._inside = {id(node) for node in own_nodes(region.body)}

    def formatted(self, node: ast.AST) -> str | None:
        """Why `node` copies a CUDA tensor to the host to format it, or None."""
        found = self._formatting(node)
        if found is None:
            return None
        how, values = found
        tensor = next((value for value in values if self.holds(value)), None)
        if tensor is None:
            return None
        return (f"{how} formats the CUDA tensor `{ast.unparse(tensor)}` (a synchronizing copy "
                "to the host)")

    def _formatting(self, node: ast.AST) -> tuple[str, list[ast.AST]] | None:
        """How `node` formats values and which: print/str/repr/format, logging calls,
        f-strings, `"..." % values`, `"...".format(...)`."""
        if isinstance(node, ast.FormattedValue):
            return "the f-string", [node.value]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            right = node.right
            return "`%` on a string", list(right.elts) if isinstance(right, ast.Tuple) else \
                [right]
        if not isinstance(node, ast.Call):
            return None
        values = [*node.args, *(k.value for k in node.keywords)]
        name = self.context.qualified_name(node.func, among=FORMATTERS | LOGGING_CALLS)
        if name:
            return f"`{name.removeprefix('builtins.')}()`", values
        func = node.func
        if isinstance(func, ast.Attribute) and (
                (func.attr == "format" and _is_text(func.value))
                or (func.attr in LOG_LEVELS and self._is_logger(func.value))):
            return f"`.{func.attr}()`", values
        return None

    def _is_logger(self, node: ast.AST) -> bool:
        made = self.analysis.value_of(node)
        return isinstance(made, ast.Call) and self.analysis.named(made.func, _GET_LOGGER)

    def holds(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether `node` is known to hold a CUDA tensor (see the class docstring)."""
        if depth > LOCAL_DEPTH:
            return False
        if isinstance(node, ast.Name):
            bound = self.context.definition(node)
            return id(bound) in self._inside and self.holds(bound, depth + 1)
        if isinstance(node, ast.BinOp):
            if _is_text(node.left) or _is_text(node.right):
                return False
            return isinstance(node.op, ast.MatMult) or self.holds(node.left, depth + 1) or \
                self.holds(node.right, depth + 1)
        if isinstance(node, ast.Subscript):
            return self.holds(node.value, depth + 1)
        return isinstance(node, ast.Call) and self._makes(node, depth)

    def _makes(self, call: ast.Call, depth: int) -> bool:
        if self.uses.makes_cuda_tensor(call):
            return True
        name = self.context.qualified_name(call.func)
        if name:
            namespace, _, function = name.rpartition(".")
            return (namespace in TORCH_OP_NAMESPACES and function.islower()
                    and function not in HOST_VALUE_FUNCTIONS | TORCH_FACTORIES)
        func = call.func
        return (isinstance(func, ast.Attribute) and func.attr not in HOST_VALUE_METHODS
                and not func.attr.startswith("is_") and self.holds(func.value, depth + 1))


def _receiver(call: ast.Call) -> str | None:
    """The text of the object a method is called on (`hb` for `hb.start()`)."""
    return key(call.func.value) if isinstance(call.func, ast.Attribute) else None


_ITER = frozenset({"builtins.iter"})
_WRAPPERS = frozenset({"builtins.enumerate", "builtins.zip"})


class Loader(NamedTuple):
    """A pinned DataLoader: how it is made, and the chain when another module makes it."""

    made: str
    steps: tuple[Step, ...]


_STREAM_CONTEXTS = frozenset({"torch.cuda.stream"})
_TORCH_CAPTURES = frozenset({"torch.cuda.graph", "CUDAGraph.capture_begin()"})
"""Regions begun by a torch call that takes `capture_error_mode=`."""


class PythonCapture:
    """The Python side of every CUR4xx checker: feeds the walk's `with` statements and calls
    to the file's shared `CaptureAnalysis`."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.analysis = capture_analysis(context)
        self.uses = CudaUse(context, self.analysis, project_functions(context, CUDA_REACH))

    def visit_With(self, node: ast.With) -> None:
        self.analysis.visit_with(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        self.analysis.visit_with(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.analysis.visit_call(node)

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
        self.calls: list[ast.Call] = []

    def visit_Call(self, node: ast.Call) -> None:
        super().visit_Call(node)
        self.calls.append(node)

    def check(self) -> None:
        for region in self.analysis.regions:
            for start in self.threads.alive_at(region):
                self._check_thread(region, start)
        if self.uses.project is not None:
            self._check_project_threads()

    def _check_thread(self, region: Region, start: ThreadStart) -> None:
        device_wide = self.threads.reached(start.code, self.uses.device_wide_use)
        found = device_wide or (self.threads.reached(start.code, self.uses.any_use)
                                if region.mode == GLOBAL else None)
        if found is not None:
            line, where, steps = found
            self._report_thread(region.start, f"{start.label} (started on line "
                                f"{start.call.lineno})", region, f"{line}{where}",
                                bool(device_wide), steps,
                                None if device_wide else self._thread_local_fix(region))

    def _check_project_threads(self) -> None:
        """In each function of the file, in order: a call of another module's function that
        starts a CUDA thread and leaves it running, then (with no call that joins it on the
        same object between) a capture begun here or by another module's function."""
        scopes: dict[int, list[ast.Call]] = {}
        for call in self.calls:
            scopes.setdefault(id(self.context.scope_of(call)), []).append(call)
        regions = {id(region.start): region for region in self.analysis.regions}
        for calls in scopes.values():
            running: list[tuple[ast.Call, str, tuple[Step, ...]]] = []
            for call in sorted(calls, key=position):
                region = regions.get(id(call)) or self._remote_region(call)
                if region is not None and running:
                    self._check_running(region, running)
                for kind in ("device_wide", "cuda"):
                    found = self.uses.reached(call.func, THREAD_KINDS[kind])
                    if found:
                        running.append((call, kind, *found))
                        break
                if self.uses.reach_of(call.func, JOINS):
                    receiver = _receiver(call)
                    running = [r for r in running if _receiver(r[0]) != receiver]

    def _remote_region(self, call: ast.Call) -> Region | None:
        """A global-mode capture that a call of another module's function begins."""
        steps = self.uses.reach_of(call.func, "global_capture")
        if not steps:
            return None
        return Region(call, (), GLOBAL, _remote_capture(call, steps), steps)

    def _check_running(self, region: Region, running) -> None:
        for start, kind, steps, fact in running:
            if kind == "cuda" and region.mode != GLOBAL:
                continue
            thread = (f"the thread that {ast.unparse(start.func)}() starts on line "
                      f"{start.lineno} ({os.path.basename(steps[-1].path)}:{fact.line})")
            self._report_thread(region.start, thread, region, fact.detail, kind == "device_wide",
                                (*steps, *region.steps))
            return


class SyncInCapturePython(PythonCapture, SyncInCapture):
    """CUR402 in Python: the calls of each region that wait for the GPU."""

    def check(self) -> None:
        for region in self.analysis.regions:
            tensors = CudaTensors(self.context, self.analysis, self.uses, region)
            for node in own_nodes(region.body):
                self._check_node(region, tensors, node)

    def _check_node(self, region: Region, tensors: CudaTensors, node: ast.AST) -> None:
        illegal = self.uses.relaxed_sync if region.mode == RELAXED else self.uses.host_sync
        why = illegal(node) or tensors.formatted(node)
        if why:
            self._report(node, region.what, region.start.lineno, why, allocates(node))
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
        found = self.uses.first(body_of(callee), illegal)
        if found:
            inner, why, path = found
            self._report(node, region.what, region.start.lineno,
                         f"{callee.name}(){through(path)} reaches it at line {inner.lineno}: "
                         f"{why}", allocates(inner), self.uses.steps_for(inner))


class PinnedLoaderDuringCapturePython(PythonCapture, PinnedLoaderDuringCapture):
    """CUR403 in Python: a pinned loader's iterator alive at a global-mode region."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.loops: list[ast.For | ast.AsyncFor] = []

    def visit_For(self, node: ast.For) -> None:
        self.loops.append(node)

    def visit_AsyncFor(self, node: ast.AsyncFor) -> None:
        self.loops.append(node)

    def check(self) -> None:
        for region in self.analysis.regions:
            if region.mode != GLOBAL:
                continue
            found = next(self._live_iterators(region), None)
            if found is not None:
                loader, how = found
                self._report(region.start, region.what, loader, how,
                             fix=self._thread_local_fix(region))
        if self.uses.project is not None:
            for loop in self.loops:
                self._check_loop_calls(loop)

    def _check_loop_calls(self, loop: ast.For | ast.AsyncFor) -> None:
        """Calls in a loop over a pinned loader of project functions (of other modules) that
        begin a global-mode capture."""
        loader = self._pinned_loader(self._unwrapped(loop.iter))
        if loader is None:
            return
        for node in own_nodes(loop.body):
            if isinstance(node, ast.Call) and self.uses.callee(node) is None:
                steps = self.uses.remote(node.func, self.analysis.begins)
                if steps:
                    self._report(node, _remote_capture(node, steps), loader,
                                 f"the for loop on line {loop.lineno} iterates it", steps)

    def _report(self, target: ast.AST, what: str, loader: "Loader", how: str,
                steps: tuple[Step, ...] = (), fix: Fix | None = None) -> None:
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

    def _live_iterators(self, region: Region) -> Iterator[tuple[ast.Call, str]]:
        scope = self.context.scope_of(region.start)
        for ancestor in self.context.ancestors(region.start):
            if ancestor is scope:
                break
            if isinstance(ancestor, (ast.For, ast.AsyncFor)):
                loader = self._pinned_loader(self._unwrapped(ancestor.iter))
                if loader is not None:
                    yield loader, f"the for loop on line {ancestor.lineno} iterates it"
        yield from self._bound_iterators(scope or self.context.tree, region)

    def _bound_iterators(self, scope: ast.AST, region: Region) -> Iterator[tuple[ast.Call, str]]:
        """`it = iter(loader)` before the region in its scope (a function or the module),
        `self.it = iter(loader)` in the class's `__init__`."""
        cls = enclosing_class(self.context, scope) if scope is not self.context.tree else None
        init = CaptureAnalysis.own_method(cls, "__init__") if cls else None
        for root in (scope, init) if init not in (None, scope) else (scope,):
            for node in own_nodes(body_of(root)):
                if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                        and self.analysis.named(node.value.func, _ITER) and node.value.args):
                    continue
                if root is scope and position(node) >= position(region.start):
                    continue
                loader = self._pinned_loader(node.value.args[0])
                if loader is not None:
                    yield loader, f"iter() on line {node.lineno} holds it"

    def _unwrapped(self, node: ast.AST) -> ast.AST:
        """`loader` for `enumerate(loader)` (and the first argument of `zip`)."""
        if isinstance(node, ast.Call) and self.analysis.named(node.func, _WRAPPERS) and \
                node.args:
            return node.args[0]
        return node

    def _pinned_loader(self, node: ast.AST) -> "Loader | None":
        """The pinned DataLoader `node` refers to: made in the module, or returned by a
        project factory of another module."""
        made = pinned_loader(self.analysis, node)
        if made is not None:
            return Loader(f"created on line {made.lineno}", ())
        call = node if isinstance(node, ast.Call) else self.analysis.value_of(node)
        project = self.uses.project
        if not isinstance(call, ast.Call) or project is None:
            return None
        target = call_target(self.context, project, call.func)
        reach = project.fact(*target, PINNED_LOADER) if target else None
        if reach is None:
            return None
        return Loader(f"made by {target[1]}() on line {call.lineno} "
                      f"({os.path.basename(target[0])}:{reach.line})",
                      (Step(target[0], reach.line, f"`{target[1]}()` returns a pinned "
                            "DataLoader with worker processes"),))


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
            if found is not None and not self._warmed_up(region):
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

    # -- what counts as a warm-up -----------------------------------------------------------
    def _warmed_up(self, region: Region) -> bool:
        """Whether anything before the region, in its function or module-level script, runs
        or may run its work (see the docstring)."""
        scope = self.context.scope_of(region.start) or self.context.tree
        start = position(region.start)
        captured = {key(n.func) for n in own_nodes(region.body) if isinstance(n, ast.Call)}
        earlier = [n for n in own_nodes(body_of(scope)) if isinstance(n, (ast.Call, ast.BinOp))
                   and position(n) < start]
        return any(self._runs_or_passes(node, captured) or self._stream_block_call(node)
                   for node in earlier) or self.uses.first(earlier, self.library.library_work) \
            is not None

    @staticmethod
    def _runs_or_passes(node: ast.AST, captured: set[str]) -> bool:
        """`model(x)` or `warm_up(model)` for a callable `model` the region calls."""
        if not isinstance(node, ast.Call):
            return False
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return key(node.func) in captured or any(
            isinstance(a, (ast.Name, ast.Attribute)) and key(a) in captured
            for a in arguments)

    def _stream_block_call(self, node: ast.AST) -> bool:
        """A call inside `with torch.cuda.stream(...)`: the documented warm-up loop."""
        return any(isinstance(a, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call)
            and self.analysis.named(item.context_expr.func, _STREAM_CONTEXTS)
            for item in a.items) for a in self.context.ancestors(node))


def _remote_capture(call: ast.Call, steps: tuple[Step, ...]) -> str:
    """A call of another module's function that begins a capture, as a message names it: the
    call and where the capture begins (`graphs.record() (graphs.py:11)`); the chain shows how."""
    return f"{ast.unparse(call.func)}() ({os.path.basename(steps[-1].path)}:{steps[-1].line})"
