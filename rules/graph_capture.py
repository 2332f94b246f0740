"""CUR4xx: CUDA work that breaks CUDA graph capture (Python).

`CaptureAnalysis` finds a module's capture regions: the body of `with torch.cuda.graph(...)`,
the statements between `g.capture_begin()` and `g.capture_end()`, CuPy's
`stream.begin_capture()` ... `end_capture()` and cuda-python's `cudaStreamBeginCapture` /
`cuStreamBeginCapture` ... `End` in one block, and calls of `make_graphed_callables` (which
capture inside), each with its capture mode. `CudaUse` says which calls reach the GPU or wait
for it, following calls into the module's own functions and methods, and into the project's
other modules through the `CUDA_REACH` index (`analysis.python_project`). CUR401 looks for threads
alive when a region starts, CUR402 for synchronizing calls inside a region, CUR403 for the
incident's pinned DataLoader iterator, CUR404 for cuBLAS/cuDNN work captured with no warm-up
before it. A mode, a thread target or a loader setting that the
module does not show is not a finding.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from typing import Iterable, Iterator, NamedTuple

from msgspec import Struct

from cursedlint.analysis.c_syntax import arguments, block_statement
from cursedlint.analysis.python_project import (
    FunctionIndexer, ProjectFunctions, Reach, call_target, dotted, linted_imports, own_method,
    own_nodes, project_functions, project_names, value_of,
)
from cursedlint.findings import Severity, Step
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rule import Example, LazyPattern, Rule
from cursedlint.second_look import AnyOf, Call, Text

GLOBAL, THREAD_LOCAL, RELAXED = "global", "thread_local", "relaxed"
_MODE_NUMBERS = {0: GLOBAL, 1: THREAD_LOCAL, 2: RELAXED}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_MAX_DEPTH = 4

GRAPH_CONTEXTS = frozenset({"torch.cuda.graph", "torch.cuda.graphs.graph"})
GRAPHED_CALLABLES = frozenset({"torch.cuda.make_graphed_callables",
                               "torch.cuda.graphs.make_graphed_callables"})
REGION_TRIGGERS = ("capture_begin", "begin_capture", "BeginCapture", ("cuda", "graph("),
                   ("cuda", "graph as"), "make_graphed_callables")
"""`torch.cuda.graph(` however imported: `graph(`, `cuda_graph(`, or an alias (`graph as g`)."""
_REGION_WORDS = frozenset(word.encode() for word in REGION_TRIGGERS if isinstance(word, str))
_GRAPH_NAMES = frozenset(name.rpartition(".")[2].encode() for name in GRAPH_CONTEXTS)


class Pairing(Struct, frozen=True):
    """A call that begins capture and the calls that end it. `on_receiver`: the capture is
    named by the method's object (`g.capture_begin()`), else by the first argument."""

    ends: frozenset[str]
    what: str
    mode_slot: tuple[int, str]
    default: str | None
    on_receiver: bool


PAIRINGS = {
    "capture_begin": Pairing(frozenset({"capture_end"}), "CUDAGraph.capture_begin()",
                             (1, "capture_error_mode"), GLOBAL, True),
    # CuPy defaults to relaxed: "Default is cupy.cuda.runtime.streamCaptureModeRelaxed"
    "begin_capture": Pairing(frozenset({"end_capture"}), "Stream.begin_capture()",
                             (0, "mode"), RELAXED, True),
    **{name: Pairing(frozenset({end}), f"{name}()", (1, "mode"), None, False)
       for name, end in (("cudaStreamBeginCapture", "cudaStreamEndCapture"),
                         ("cuStreamBeginCapture", "cuStreamEndCapture"),
                         ("cuStreamBeginCapture_v2", "cuStreamEndCapture"))},
}
"""Last name of the begin call -> how its region ends and where its mode is."""


class Region(Struct, frozen=True):
    """A capture region: `start` is the call that begins capture (where findings go), `body`
    the statements captured (none for make_graphed_callables), `mode` None when unknown."""

    start: ast.Call
    body: tuple[ast.stmt, ...]
    mode: str | None
    what: str
    steps: tuple[Step, ...] = ()  # where another module's function begins it

    @property
    def mode_words(self) -> str:
        return self.mode or "an unknown"


# -- small helpers -----------------------------------------------------------------------------


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _key(node: ast.AST) -> str:
    """An expression's text, the same wherever it is loaded or stored."""
    return ast.unparse(node)


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _body(scope: ast.AST) -> list[ast.AST]:
    """What a module, class, def or lambda runs: its statements, or a lambda's expression
    (read every scope's body through this: a lambda's is one node, not a list)."""
    return [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)


def _statement_call(statement: ast.stmt) -> ast.Call | None:
    """The call a statement makes: `f(...)`, `x = f(...)`, `check(f(...))`."""
    value = getattr(statement, "value", None) if isinstance(
        statement, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    if not isinstance(value, ast.Call):
        return None
    if (_last_name(value.func) not in _PAIR_NAMES and len(value.args) == 1
            and isinstance(value.args[0], ast.Call)):
        return value.args[0]
    return value


_PAIR_NAMES = frozenset(PAIRINGS).union(*(p.ends for p in PAIRINGS.values()))


def _enclosing_class(context, node: ast.AST) -> ast.ClassDef | None:
    return next((a for a in context.ancestors(node) if isinstance(a, ast.ClassDef)), None)


def _is_self_attribute(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self")


# -- capture regions -------------------------------------------------------------------------


class CaptureAnalysis:
    """The capture regions of one module and what the module binds to names and attributes
    (shared by the CUR4xx rules of a file). The rules feed it the engine walk's `with`
    statements and calls, so it walks nothing itself; a region is kept once."""

    def __init__(self, context):
        self.context = context
        self.regions: list[Region] = []
        self._starts: set[int] = set()
        self._by_start: dict[int, Region] = {}
        self._done: ast.AST | None = None  # the last node read: every CUR4xx rule feeds it

    def visit_with(self, node: ast.With | ast.AsyncWith) -> None:
        if node is not self._done:
            self._read_with(node)
            self._done = node

    def visit_call(self, node: ast.Call) -> None:
        if node is not self._done:
            self._read_call(node)
            self._done = node

    def _read_with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and self.named(call.func, GRAPH_CONTEXTS):
                mode = self.mode(self.context.argument(call, 3, "capture_error_mode"), GLOBAL)
                self._add(Region(call, tuple(node.body), mode, "torch.cuda.graph"))

    def _read_call(self, node: ast.Call) -> None:
        pairing = PAIRINGS.get(_last_name(node.func))
        if pairing is not None:
            region = self._paired(node, pairing)
            if region is not None:
                self._add(region)
        elif self.named(node.func, GRAPHED_CALLABLES):
            self._add(Region(node, (), GLOBAL, "torch.cuda.make_graphed_callables"))

    def _add(self, region: Region) -> None:
        if id(region.start) not in self._starts:
            self._starts.add(id(region.start))
            self.regions.append(region)
            self._by_start[id(region.start)] = region

    def begins(self, node: ast.AST) -> str | None:
        """How `node` begins a global-mode capture, or None (a `CudaUse.first` check)."""
        region = self._by_start.get(id(node))
        if region is None or region.mode != GLOBAL:
            return None
        return f"{region.what}{_BEGINS}"

    def _paired(self, call: ast.Call, pairing: Pairing) -> Region | None:
        """The region from a begin call to its end call in the same block."""
        if pairing.on_receiver and not isinstance(call.func, ast.Attribute):
            return None
        statement = self.context.parent_of(call)
        if isinstance(statement, ast.Call):  # check(cudaStreamBeginCapture(...))
            statement = self.context.parent_of(statement)
        block = self._block_of(statement)
        if block is None or _statement_call(statement) is not call:
            return None
        key = self._pair_key(call, pairing)
        index = next(i for i, s in enumerate(block) if s is statement)
        for end_index in range(index + 1, len(block)):
            end = _statement_call(block[end_index])
            if (end is not None and _last_name(end.func) in pairing.ends
                    and self._pair_key(end, pairing) == key):
                mode = self.mode(self.context.argument(call, *pairing.mode_slot), pairing.default)
                return Region(call, tuple(block[index + 1:end_index]), mode, pairing.what)
        return None

    def _block_of(self, statement: ast.AST | None) -> list[ast.stmt] | None:
        """The statement list that holds `statement`."""
        parent = self.context.parent_of(statement) if isinstance(statement, ast.stmt) else None
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is statement for s in block):
                return block
        return None

    @staticmethod
    def _pair_key(call: ast.Call, pairing: Pairing) -> str | None:
        if pairing.on_receiver:
            return _key(call.func.value) if isinstance(call.func, ast.Attribute) else None
        return _key(call.args[0]) if call.args else None

    def named(self, func: ast.AST, names: frozenset[str]) -> bool:
        return self.context.qualified_name(func, among=names) is not None

    def mode(self, node: ast.AST | None, default: str | None) -> str | None:
        """The capture mode an argument names: "global", "thread_local", "relaxed", 0/1/2, or
        a constant such as `cudaStreamCaptureModeThreadLocal` / `CU_STREAM_CAPTURE_MODE_GLOBAL`;
        `default` when absent, None when unknown."""
        if node is None:
            return default
        if node is UNKNOWN:
            return None
        value = self.context.evaluate(node)
        if isinstance(value, str):
            return value if value in (GLOBAL, THREAD_LOCAL, RELAXED) else None
        if isinstance(value, int) and not isinstance(value, bool):
            return _MODE_NUMBERS.get(value)
        word = (_last_name(node) or "").lower().replace("_", "")
        for suffix, mode in (("threadlocal", THREAD_LOCAL), ("relaxed", RELAXED),
                             ("global", GLOBAL)):
            if word.endswith(suffix):
                return mode
        return None

    # -- what names and attributes hold ----------------------------------------------------
    def value_of(self, node: ast.AST) -> ast.AST | None:
        """What `node` is bound to (`python_project.value_of`) for a name or `self.attr`;
        any other expression is itself."""
        if isinstance(node, ast.Name) or _is_self_attribute(node):
            return value_of(self.context, node)
        return node

    own_method = staticmethod(own_method)

    def code_of(self, target: ast.AST | None, depth: int = 0) -> ast.AST | None:
        """The def or lambda a callable value runs: a module function, `self.method`, a
        lambda, `functools.partial(f, ...)`; None when the module does not show it."""
        if target is None or depth > _MAX_DEPTH:
            return None
        if isinstance(target, (ast.Lambda, *_FUNCTIONS)):
            return target
        if isinstance(target, ast.Call) and self.named(target.func, _PARTIAL) and target.args:
            return self.code_of(target.args[0], depth + 1)
        if isinstance(target, (ast.Name, ast.Attribute)):
            bound = self.value_of(target)
            return None if bound is target else self.code_of(bound, depth + 1)
        return None


_PARTIAL = frozenset({"functools.partial"})
_END = (float("inf"), 0)


def capture_analysis(context) -> CaptureAnalysis:
    """The file's analysis, built once for all CUR4xx rules."""
    return context.shared(CaptureAnalysis, lambda: CaptureAnalysis(context))


# -- what a call does to the GPU -------------------------------------------------------------


class Use(Struct, frozen=True):
    """A call that reaches CUDA: `what` says how, `device_wide` when it synchronizes the whole
    device (illegal during any capture, whatever the mode)."""

    what: str
    device_wide: bool = False


DEVICE_SYNCS = frozenset({"torch.cuda.synchronize", "cupy.cuda.runtime.deviceSynchronize"})
C_DEVICE_SYNCS = frozenset({"cudaDeviceSynchronize", "cuCtxSynchronize"})
C_PROHIBITED = C_DEVICE_SYNCS | frozenset({
    "cudaStreamSynchronize", "cudaEventSynchronize", "cudaEventQuery", "cudaStreamQuery",
    "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemset", "cuStreamSynchronize",
    "cuEventSynchronize", "cuEventQuery", "cuStreamQuery", "cuMemAlloc", "cuMemFree",
    "cuMemcpy", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemsetD8", "cuMemsetD32",
})
"""cuda-python functions (last name, `_v2` removed) that a capture prohibits."""
C_ALLOCATIONS = frozenset({"cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemFree"})
"""Of these, the "potentially unsafe" calls a relaxed capture allows (cudaStreamCaptureMode;
verified on an H100: they return 0 and the capture ends with 0); synchronizations stay
illegal in every mode."""

HOST_SYNCS = {
    "item": "`.item()` copies a value to the host",
    "cpu": "`.cpu()` copies the tensor to the host",
    "tolist": "`.tolist()` copies the tensor to the host",
    "numpy": "`.numpy()` copies the array to the host",
    "nonzero": "`.nonzero()` needs the count of nonzero elements on the host",
    "synchronize": "`.synchronize()` waits for the GPU",
    "query": "`.query()` asks the GPU whether work is done (cudaEventQuery/cudaStreamQuery)",
}
"""Zero-argument methods that wait for the GPU (CUR402, and CUDA work in another thread)."""

QUALIFIED_SYNCS = {
    "torch.cuda.synchronize": "torch.cuda.synchronize() waits for the whole device",
    "torch.cuda.empty_cache": "torch.cuda.empty_cache() frees cached blocks with cudaFree",
    "torch.nonzero": "torch.nonzero() needs the count of nonzero elements on the host",
    "cupy.asnumpy": "cupy.asnumpy() copies the array to the host",
    "cupy.cuda.runtime.deviceSynchronize": "deviceSynchronize() waits for the whole device",
}
THREAD_METHODS = {
    "cuda": "`.cuda()` allocates and copies on the GPU",
    "pin_memory": "`.pin_memory()` allocates pinned memory (the caching host allocator queries "
                  "CUDA events)",
    **{name: HOST_SYNCS[name] for name in ("item", "cpu", "tolist", "synchronize", "query")},
}
_TENSOR_METHOD_USES = frozenset(
    text for name, text in THREAD_METHODS.items() if name not in ("cuda", "pin_memory"))
"""What `thread_use` says of a method that touches CUDA only when its tensor is on the GPU."""
HOST_ONLY_TORCH_CUDA = frozenset({
    "is_available", "device_count", "current_device", "get_device_name",
    "get_device_properties", "get_device_capability", "is_initialized", "set_device",
    "memory_allocated",
    "memory_reserved", "max_memory_allocated", "nvtx",
})
"""torch.cuda functions that ask the host-side runtime only."""
_CUDA_MODULES = ("torch.cuda.", "cupy.", "cuda.", "numba.cuda.")
_TORCH_DEVICE = frozenset({"torch.device"})


def _c_name(func: ast.AST) -> str | None:
    name = _last_name(func)
    return name[:-3] if name and name.endswith("_v2") else name


def _allocates(node: ast.AST) -> bool:
    """Whether a Python node is a cuda-python allocation or free (prohibited but not in
    relaxed captures)."""
    return isinstance(node, ast.Call) and _c_name(node.func) in C_ALLOCATIONS


class CudaUse:
    """Which calls of a module reach CUDA, directly, through its own functions, or through
    the project's other modules (`project`: their summaries; None in a summary's own run).
    The chain of a call that reaches into another module is kept for the finding
    (`steps_for`)."""

    def __init__(self, context, analysis: CaptureAnalysis,
                 project: ProjectFunctions | None = None):
        self.context = context
        self.analysis = analysis
        self.project = project
        self._memo: dict[tuple[int, str], tuple[ast.AST, str, list[str]] | None] = {}
        self._steps: dict[int, tuple[Step, ...]] = {}

    def device_wide_use(self, node: ast.AST) -> str | None:
        """Why `node` synchronizes the whole device, or None."""
        use = self.thread_use(node)
        return use.what if use and use.device_wide else None

    def any_use(self, node: ast.AST) -> str | None:
        """How `node` uses CUDA (made by another thread), or None."""
        use = self.thread_use(node)
        return use.what if use else None

    def sure_use(self, node: ast.AST) -> str | None:
        """How `node` surely uses CUDA: not a method such as `.item()` or `.cpu()`, which waits
        for the GPU only on a CUDA tensor."""
        use = self.thread_use(node)
        if use is None or use.what in _TENSOR_METHOD_USES:
            return None
        return use.what

    def host_sync(self, node: ast.AST) -> str | None:
        """Why `node` cannot run inside a capture region, or None."""
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Compare)):
            return "boolean-mask indexing needs the count of selected elements on the host"
        if not isinstance(node, ast.Call):
            return None
        name = self.context.qualified_name(node.func, among=QUALIFIED_SYNCS)
        if name:
            return QUALIFIED_SYNCS[name]
        c_name = _c_name(node.func)
        if c_name in C_PROHIBITED:
            return f"{c_name}() is prohibited while a stream captures"
        if isinstance(node.func, ast.Attribute) and not node.args:
            return HOST_SYNCS.get(node.func.attr)
        return None

    def relaxed_sync(self, node: ast.AST) -> str | None:
        """`host_sync` for a relaxed-mode capture, which allows allocating and freeing."""
        return None if _allocates(node) else self.host_sync(node)

    def thread_use(self, node: ast.AST) -> Use | None:
        """Whether a call, made by another thread, is CUDA work (and whether device-wide)."""
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        name = self.context.qualified_name(func)
        if name in DEVICE_SYNCS or _c_name(func) in C_DEVICE_SYNCS:
            return Use(f"`{ast.unparse(func)}()` waits for the whole device", device_wide=True)
        if isinstance(func, ast.Attribute) and func.attr == "synchronize" and isinstance(
                func.value, ast.Call) and self.context.qualified_name(
                func.value.func) == "cupy.cuda.Device":
            return Use("`cupy.cuda.Device().synchronize()` waits for the whole device",
                       device_wide=True)
        if name and name.startswith(_CUDA_MODULES) and not any(
                part in HOST_ONLY_TORCH_CUDA for part in name.split(".")):
            return Use(f"`{name}()` calls CUDA")
        if isinstance(func, ast.Attribute):
            if func.attr in THREAD_METHODS and not node.args:
                return Use(THREAD_METHODS[func.attr])
            if self._moved_to_cuda(node):
                return Use("`.to(\"cuda\")` allocates and copies on the GPU")
        if self._made_on_cuda(node, name):
            return Use(f"`{name}(device=\"cuda\")` allocates a CUDA tensor")
        return None

    def makes_cuda_tensor(self, call: ast.Call) -> bool:
        """`t.cuda()`, `t.to("cuda")`, `torch.zeros(..., device="cuda")`."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and not call.args:
            return True
        return self._moved_to_cuda(call) or self._made_on_cuda(
            call, self.context.qualified_name(func))

    def _moved_to_cuda(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Attribute) and call.func.attr == "to" and any(
            self._is_cuda_device(a) for a in self._to_targets(call))

    def _made_on_cuda(self, call: ast.Call, name: str | None) -> bool:
        device = next((k.value for k in call.keywords if k.arg == "device"), None)
        return bool(name) and name.startswith("torch.") and self._is_cuda_device(device)

    @staticmethod
    def _to_targets(call: ast.Call) -> list[ast.AST]:
        return [*call.args[:1], *(k.value for k in call.keywords if k.arg == "device")]

    def _is_cuda_device(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Call) and self.context.qualified_name(
                node.func, among=_TORCH_DEVICE) and node.args:
            node = node.args[0]
        value = self.context.evaluate(node)
        return isinstance(value, str) and value.startswith("cuda")

    def first(self, code: Iterable[ast.AST], check, depth: int = 0,
              seen: frozenset[int] = frozenset()) -> tuple[ast.AST, str, list[str]] | None:
        """The first node under `code` (by position) for which `check(node)` says something,
        looking into the module's functions it calls: (node, what, [callee names])."""
        nodes = sorted((n for n in own_nodes(code) if hasattr(n, "lineno")), key=_position)
        for node in nodes:
            what = check(node)
            if what:
                return node, what, []
            callee = self.callee(node) if depth < _MAX_DEPTH else None
            if callee is not None and id(callee) not in seen:
                inner = self._first_in(callee, check, depth + 1, seen | {id(callee)})
                if inner:
                    return inner[0], inner[1], [callee.name, *inner[2]]
            elif callee is None and isinstance(node, ast.Call):
                remote = self.remote(node.func, check)
                if remote is not None:
                    self._steps[id(node)] = remote
                    return node, _located(remote[-1]), [ast.unparse(node.func)]
        return None

    def remote(self, func: ast.AST, check) -> tuple[Step, ...] | None:
        """The chain by which the project function that `func` names (in another module)
        reaches what `check` looks for; None when unknown or it does not."""
        kind = _REMOTE_KINDS.get(check.__name__)
        return self.reach_of(func, kind) if kind else None

    def reach_of(self, func: ast.AST, kind: str) -> tuple[Step, ...] | None:
        """The chain by which the project function that `func` names (in another module)
        reaches a fact of `kind` (see `CudaReach`); None when unknown or it does not."""
        found = self.reached(func, kind)
        return None if found is None else found[0]

    def reached(self, func: ast.AST, kind: str):
        """`reach_of`'s chain and the fact it ends in."""
        target = call_target(self.context, self.project, func) if self.project else None
        return None if target is None else self.project.reached(*target, kind)

    def steps_for(self, node: ast.AST) -> tuple[Step, ...]:
        """The chain through other modules behind a node `first` returned (none if local)."""
        return self._steps.get(id(node), ())

    def _first_in(self, callee: ast.AST, check, depth: int, seen: frozenset[int]):
        """`first` over a callee's body, remembered per callee and check."""
        key = (id(callee), check.__name__)
        if key not in self._memo:
            self._memo[key] = self.first(_body(callee), check, depth, seen)
        return self._memo[key]

    def callee(self, node: ast.AST) -> ast.AST | None:
        """The module's def that a call runs: `helper(...)`, `self.method(...)`."""
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Name) or _is_self_attribute(node.func):
            code = self.analysis.value_of(node.func)
            return code if isinstance(code, _FUNCTIONS) else None
        return None


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
        return (f"{how} formats the CUDA tensor `{ast.unparse(tensor)}`, which copies it to "
                "the host (a synchronizing `.cpu()` underneath)")

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
        if depth > _MAX_DEPTH:
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


C_BEGINS = frozenset({"cudaStreamBeginCapture", "cuStreamBeginCapture",
                      "cuStreamBeginCapture_v2"})
C_ENDS = frozenset({"cudaStreamEndCapture", "cuStreamEndCapture"})
C_SYNC_NAMES = C_PROHIBITED | {f"{name}_v2" for name in C_PROHIBITED if name.startswith("cu")
                               and not name.startswith("cuda")}
"""C/C++ calls prohibited in a capture region, with the driver's `_v2` spellings."""


C_THREAD_TYPES = frozenset({"std::thread", "std::jthread", "thread", "jthread"})
_C_CUDA_CALL = LazyPattern(r"cu(da)?[A-Z]\w*")
_C_NAME = LazyPattern(r"[\w$]+")


def _c_called(context, call) -> str | None:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "qualified_identifier":
        function = function.child_by_field_name("name")
    return context.text(function) if function is not None else None


def _c_first_argument(context, call) -> str | None:
    given = arguments(call)
    return context.text(given[0]) if given else None


def _c_mode(context, begin) -> str | None:
    """The mode argument of a begin-capture call: named by its constant, else unknown."""
    given = arguments(begin)
    word = context.text(given[1]).lower().replace("_", "") if len(given) > 1 else ""
    for suffix, mode in (("threadlocal", THREAD_LOCAL), ("relaxed", RELAXED),
                         ("global", GLOBAL)):
        if word.endswith(suffix):
            return mode
    return None


class CThreadStart(Struct, frozen=True):
    """A C/C++ thread started at `node` (handle: its variable) running `code` (a body)."""

    node: object
    handle: str | None
    code: object
    label: str


class CThreads:
    """Threads of a C/C++ file (`std::thread`/`std::jthread` declarations, `pthread_create`)
    and the CUDA calls their code makes, through the file's own functions."""

    def __init__(self, context):
        self.context = context
        self._functions: dict[str, object] = {}
        self._starts: dict[int, list[CThreadStart]] = {}
        self._joins: dict[int, list[tuple[int, str]]] = {}
        self._cuda: dict[tuple, tuple | None] = {}

    def function(self, name: str):
        """The file's last definition of a function (or method) `name`, or None."""
        self._look_up({name})
        return self._functions[name]

    def _look_up(self, names: set[str]) -> None:
        """Find the last definitions of `names` (one search for all of them)."""
        names = {name for name in names if name not in self._functions}
        self._functions.update(dict.fromkeys(names))
        searched = {name for name in names if _C_NAME.fullmatch(name)}
        for name, leaf in self.context.tokens(searched) if searched else ():
            if leaf.type in ("identifier", "field_identifier"):
                self._functions[name] = self._defined_by(leaf) or self._functions[name]

    def _defined_by(self, name):
        """The function definition whose declarator, followed down its `declarator` fields,
        ends at the name node `name`, or None."""
        node = self.context.parent(name)
        while node is not None and node.child_by_field_name("declarator") == name:
            if node.type == "function_definition":
                return node
            name, node = node, self.context.parent(node)
        return None

    def starts(self, body) -> list[CThreadStart]:
        """The threads started in `body`, read once."""
        if body.id not in self._starts:
            self._starts[body.id] = list(self._read_starts(body))
        return self._starts[body.id]

    def _read_starts(self, body) -> Iterator[CThreadStart]:
        for node in self.context.descendants(body):
            if node.type == "init_declarator":
                start = self._declared_thread(node)
            elif node.type == "function_declarator" and node.parent.type == "declaration":
                start = self._vexing_thread(node)
            elif node.type == "call_expression" and _c_called(self.context, node) == \
                    "pthread_create":
                start = self._pthread(node)
            else:
                continue
            if start is not None:
                yield start

    def _declared_thread(self, node) -> CThreadStart | None:
        """`std::thread t(f, ...)`, `std::jthread t{[&] {...}}`, `auto t = std::thread(f)`."""
        declaration, value = node.parent, node.child_by_field_name("value")
        type_node = declaration.child_by_field_name("type") if declaration else None
        if value is not None and value.type == "call_expression":
            type_text, value = self.context.text(value.child_by_field_name("function")), \
                value.child_by_field_name("arguments")
        else:
            type_text = self.context.text(type_node) if type_node is not None else ""
        if type_text not in C_THREAD_TYPES or value is None or not value.named_children:
            return None
        handle = self.context.text(node.child_by_field_name("declarator"))
        return self._start(node, handle, value.named_children[0])

    def _vexing_thread(self, node) -> CThreadStart | None:
        """`std::thread t(worker);`, which parses as a declaration of a function `t` taking a
        `worker`."""
        type_node = node.parent.child_by_field_name("type")
        parameters = node.child_by_field_name("parameters")
        first = parameters.named_children[0] if parameters and parameters.named_children \
            else None
        if (type_node is None or self.context.text(type_node) not in C_THREAD_TYPES
                or first is None or first.type != "parameter_declaration"):
            return None
        return self._start(node, self.context.text(node.child_by_field_name("declarator")),
                           first.child_by_field_name("type"))

    def _pthread(self, call) -> CThreadStart | None:
        given = arguments(call)
        if len(given) < 3:
            return None
        return self._start(call, self.context.text(given[0]).lstrip("&"), given[2])

    def _start(self, node, handle: str, callable_node) -> CThreadStart | None:
        if callable_node.type == "pointer_expression":
            callable_node = callable_node.child_by_field_name("argument")
        if callable_node.type == "lambda_expression":
            return CThreadStart(node, handle, callable_node.child_by_field_name("body"),
                                f"thread `{handle}` (a lambda)")
        function = self.function(self.context.text(callable_node))
        if function is None:
            return None
        return CThreadStart(node, handle, function.child_by_field_name("body"),
                            f"thread `{handle}` running {self.context.text(callable_node)}()")

    def joined(self, body, handle: str, after: int, before: int) -> bool:
        """`handle.join()` or `pthread_join(handle, ...)` between the two byte offsets."""
        return any(after < start < before and joined == handle
                   for start, joined in self._joined_in(body))

    def _joined_in(self, body) -> list[tuple[int, str]]:
        """(start, handle) of the joins in `body`, read once."""
        if body.id not in self._joins:
            found = []
            for node in self.context.descendants(body):
                if node.type != "call_expression":
                    continue
                function = node.child_by_field_name("function")
                if function.type == "field_expression" and self.context.text(
                        function.child_by_field_name("field")) == "join":
                    found.append((node.start_byte,
                                  self.context.text(function.child_by_field_name("argument"))))
                elif _c_called(self.context, node) == "pthread_join":
                    found.append((node.start_byte, _c_first_argument(self.context, node)))
            self._joins[body.id] = found
        return self._joins[body.id]

    def cuda_call(self, code, device_wide: bool, seen: frozenset = frozenset()):
        """(call, name, [callees]) of the first CUDA call under `code` (only device-wide
        synchronizations with `device_wide`), following the file's own functions; a function
        called many times is read once for each path to it."""
        key = (code.id, device_wide, seen)
        if key not in self._cuda:
            self._cuda[key] = self._first_cuda_call(code, device_wide, seen)
        return self._cuda[key]

    def _first_cuda_call(self, code, device_wide: bool, seen: frozenset):
        calls = [(node, _c_called(self.context, node) or "")
                 for node in self.context.descendants(code) if node.type == "call_expression"]
        self._look_up({name for _, name in calls})
        for node, name in calls:
            if _C_CUDA_CALL.fullmatch(name) and (not device_wide or name in C_DEVICE_SYNCS):
                return node, name, []
            function = self.function(name) if name not in seen and len(seen) < _MAX_DEPTH \
                else None
            if function is not None:
                inner = self.cuda_call(function.child_by_field_name("body"), device_wide,
                                       seen | {name})
                if inner:
                    return inner[0], inner[1], [name, *inner[2]]
        return None


def _through(path: list[str]) -> str:
    return "".join(f" through {name}()" for name in path)


def _located(step: Step) -> str:
    """A fact found in another module, with its place."""
    return f"{step.note} (at {os.path.basename(step.path)}:{step.line})"


def _project_module(statement: ast.Import | ast.ImportFrom) -> bool:
    """Whether an import may name a module of the project (relative, or not the standard
    library's nor a CUDA library's)."""
    if isinstance(statement, ast.ImportFrom):
        if statement.level:
            return True
        names = [statement.module or ""]
    else:
        names = [alias.name for alias in statement.names]
    return any(name.partition(".")[0] not in _NOT_PROJECT for name in names)


_NOT_PROJECT = sys.stdlib_module_names | {"torch", "cupy", "numba", "cuda", "numpy"}
THREAD_KINDS = {"device_wide": "thread_device_wide", "cuda": "thread_cuda"}
"""Fact kinds of a function that starts a thread (left running) whose code does `kind`."""
JOINS = "joins"
_REMOTE_KINDS = {"device_wide_use": "device_wide", "any_use": "cuda", "sure_use": "sure_cuda",
                 "host_sync": "host_sync",
                 "begins": "global_capture"}
PINNED_LOADER = "pinned_loader"
_BEGINS = " begins a global-mode capture"
_CAPTURE_WORDS = ("capture_begin", "begin_capture", "cudaStreamBeginCapture",
                  "cuStreamBeginCapture", "cuStreamBeginCapture_v2", "graph",
                  "make_graphed_callables")
"""`CudaUse` checks whose facts are summarized for the project (`CudaReach`)."""


class CudaReach(FunctionIndexer):
    """Per function of the project's modules: whether it synchronizes the device, uses CUDA,
    waits for the GPU, or begins a global-mode capture, by itself or through the module's own
    functions; and whether it returns a pinned DataLoader (a factory)."""

    name = "cuda-reach"

    def words(self, settings):
        """Modules that begin a capture, start threads (their names become trigger words) or
        make a DataLoader (a factory a loop of another module iterates); the rest is read
        from the names the files that need facts use (`seed_words`)."""
        return (*_CAPTURE_WORDS, "DataLoader", "Thread", "Timer", "ThreadPoolExecutor")

    def seed_words(self, context):
        """What a file that needs the facts uses from the project's modules."""
        return project_names(context)

    def needed_by(self, context) -> bool:
        """Only a module that imports another one of the project can call into it."""
        return any(_project_module(statement) for statement in ast.walk(context.tree)
                   if isinstance(statement, (ast.Import, ast.ImportFrom)))

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        facts = context.shared(_ModuleCudaFacts, lambda: _ModuleCudaFacts(context)).of(function)
        facts = {kind: Reach(line, what, tuple(via)) for kind, (line, what, via) in facts.items()}
        loader = _returned_loader(capture_analysis(context), function)
        if loader is not None:
            facts[PINNED_LOADER] = Reach(loader.lineno, "a pinned DataLoader is made")
        if context.shared(_THREAD_WORDS, lambda: bool(_THREAD_WORDS.search(context.source.text))):
            threads = context.shared(CudaThreadDuringCapture,
                                     lambda: CudaThreadDuringCapture(context))
            facts.update(threads.thread_facts(function))
        return facts


_THREAD_WORDS = re.compile(r"Thread|Timer|Executor")


class _ModuleCudaFacts:
    """The CUDA facts of each function of a module parsed for the index, in one walk per
    function for all kinds, following the module's own functions (memoized, cycles cut):
    kind -> (line, what, [functions through which])."""

    def __init__(self, context):
        self.context = context
        self.analysis = _fed(capture_analysis(context))
        self.uses = CudaUse(context, self.analysis)
        self.checks = {"device_wide": self.uses.device_wide_use, "cuda": self.uses.any_use,
                       "sure_cuda": self.uses.sure_use,
                       "host_sync": self._unconditional_sync,
                       "global_capture": self.analysis.begins}
        self._memo: dict[int, dict] = {}
        self._conditional: set[int] = set()

    def of(self, function: ast.AST) -> dict[str, tuple[int, str, list[str]]]:
        key = id(function)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = {}  # a call back into a function being read adds nothing
        found: dict[str, tuple[int, str, list[str]]] = {}
        for node in self._ordered(function):
            for kind, check in self.checks.items():
                if kind not in found:
                    what = check(node)
                    if what:
                        found[kind] = (node.lineno, what, [])
            callee = self.uses.callee(node)
            if callee is not None:
                for kind, (line, what, via) in self.of(callee).items():
                    if kind != "host_sync" or id(node) not in self._conditional:
                        found.setdefault(kind, (line, what, [callee.name, *via]))
            if len(found) == len(self.checks):
                break
        self._memo[key] = found
        return found

    def _ordered(self, function: ast.AST) -> list[ast.AST]:
        """The function's own nodes by position, noting those under an `if`."""
        nodes, pending = [], [(node, False) for node in _body(function)]
        while pending:
            node, conditional = pending.pop()
            if isinstance(node, _FUNCTIONS + (ast.Lambda, ast.ClassDef)) and node is not function:
                continue
            if conditional:
                self._conditional.add(id(node))
            if hasattr(node, "lineno"):
                nodes.append(node)
            inner = conditional or isinstance(node, (ast.If, ast.IfExp))
            pending.extend((child, inner) for child in ast.iter_child_nodes(node))
        return sorted(nodes, key=_position)

    def _unconditional_sync(self, node: ast.AST) -> str | None:
        """A wait for the GPU that runs whenever the function does: one under an `if`
        depends on values another module's caller cannot be seen to give."""
        return None if id(node) in self._conditional else self.uses.host_sync(node)


def capturing_names(facts: dict) -> tuple[str, ...]:
    """Names of the project's functions (path -> ModuleSummary of `CUDA_REACH`) that begin a
    global-mode capture themselves (through their module's own functions)."""
    names = {qualname.rpartition(".")[2] for summary in facts.values()
             for qualname, function in summary.functions.items()
             if "global_capture" in function.facts}
    return tuple(sorted(names))


def _fed(analysis: CaptureAnalysis) -> CaptureAnalysis:
    """The analysis of a module parsed for the index (no walk fed it): its regions (only the
    calls named like a region's start are read)."""
    for node in ast.walk(analysis.context.tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            analysis.visit_with(node)
        elif isinstance(node, ast.Call) and _last_name(node.func) in _REGION_STARTS:
            analysis.visit_call(node)
    return analysis


_REGION_STARTS = frozenset(PAIRINGS) | {name.rpartition(".")[2] for name in GRAPHED_CALLABLES}


def _returned_loader(analysis: CaptureAnalysis, function: ast.AST) -> ast.Call | None:
    """The pinned DataLoader a factory returns (directly or through a name)."""
    for node in own_nodes(_body(function)):
        if isinstance(node, ast.Return) and node.value is not None:
            loader = pinned_loader(analysis, node.value)
            if loader is not None:
                return loader
    return None


CUDA_REACH = CudaReach()


class CaptureRule(Rule):
    """Base of the CUR4xx rules: feeds the walk's `with` statements and calls to the file's
    shared `CaptureAnalysis`, and runs `check()` on the regions found."""

    @classmethod
    def look(cls, options, target_python, language):
        """In Python every finding needs a capture region: one of the words that begin one,
        or torch.cuda.graph called by its own name (`torch.cuda.graph(`, not
        `allow_in_graph(`) or by a name it is imported `as`."""
        if language != "python":
            return None
        return AnyOf((Text(_REGION_WORDS), Call(_GRAPH_NAMES)))

    indexer = CUDA_REACH

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


# -- CUR401 ----------------------------------------------------------------------------------

THREAD_CLASSES = frozenset({"threading.Thread"})
TIMERS = frozenset({"threading.Timer"})
EXECUTORS = frozenset({"concurrent.futures.ThreadPoolExecutor",
                       "concurrent.futures.thread.ThreadPoolExecutor"})
_WAITS = frozenset({"concurrent.futures.wait"})


class ThreadStart(Struct, frozen=True):
    """A thread (or executor task) started at `call` running `code`; `handles` are the
    expressions whose join/shutdown/result ends it; `executor` the executor's, for tasks."""

    call: ast.Call
    code: "ast.AST | ProjectFunction"
    label: str
    handles: frozenset[str]
    executor: str | None


class CudaThreadDuringCapture(CaptureRule):
    """## What it does
    Finds a capture region (`with torch.cuda.graph(...)`, `capture_begin()`, CuPy
    `begin_capture()`, `cudaStreamBeginCapture`, `make_graphed_callables`) that starts while a
    thread started earlier may make CUDA calls: a `threading.Thread` (or a `Thread` subclass
    with its own `run`), a `threading.Timer`, or a `ThreadPoolExecutor.submit`/`map` task,
    started before the region in the same function (or at module level, or in the class's
    `__init__`) and not joined, shut down or waited for before it. The thread's code is
    followed through the module's functions and methods, and into the project's other modules
    (a target imported from one, and what its functions call). Across modules, a call of
    another module's function that starts such a thread and leaves it running (a monitor whose
    `start()` starts the thread its `__init__` made), followed in the same function by a
    capture begun there or by another module's function, is reported at the call that begins
    the capture, unless a call between joins the thread through the same object; CUDA work is a `torch.cuda`, CuPy or
    cuda-python call, `.cuda()`, `.to("cuda")`, a tensor created with `device="cuda"`,
    `.pin_memory()`, `.cpu()`, `.item()`, `.tolist()`, and event or stream `.query()` /
    `.synchronize()`. Under `capture_error_mode="thread_local"` or `"relaxed"` only a
    device-wide synchronization in the thread (`torch.cuda.synchronize()`,
    `cupy.cuda.Device().synchronize()`, `cudaDeviceSynchronize`) is a finding. A thread whose
    code the module does not show is not a finding. In C/C++ (CUDA sources included), the
    threads are `std::thread`/`std::jthread` declarations and `pthread_create` calls before a
    `cudaStreamBeginCapture`/`cuStreamBeginCapture` in the same function, not joined
    (`t.join()`, `pthread_join`) before it, whose lambda or same-file function reaches a
    `cuda*`/`cu*` call; the mode is read from the mode constant.

    ## Why it is cursed
    In the default `"global"` mode, a capture-unsafe CUDA call from *any* thread while the
    capture runs (an event query, an allocation, a synchronization) invalidates it: capture
    fails with "operation failed due to a previous error during capture", only when the
    thread happens to call at that moment. Incident 001: a thread queried CUDA events during
    a full-iteration capture; it failed 1 run in 3 on 512 GPUs and took three days to find.
    A device-wide synchronization waits for the capturing stream, which is illegal in every
    mode. Verified on an H100 (PyTorch 2.11): a thread polling `Event.query()`, allocating
    CUDA tensors or calling `.cpu()` breaks a global-mode capture; `thread_local` fixes the
    query and allocation cases, not a thread's `torch.cuda.synchronize()`; a thread joined
    before capture, or doing CPU work only, is harmless.

    ## Example
    ```python
    threading.Thread(target=poll_events, daemon=True).start()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_input)
    ```

    ## Fix
    Join or stop the thread before capture (or start it after), or capture with
    `torch.cuda.graph(g, capture_error_mode="thread_local")` so that other threads' calls no
    longer count; a thread that synchronizes the whole device must be stopped, or synchronize
    only its own stream or event. In C/C++, join the thread before `cudaStreamBeginCapture`, or
    begin with `cudaStreamCaptureModeThreadLocal`.

    ## References
    - `torch.cuda.graph` (`capture_error_mode`: "global" errors on actions in other threads):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.graphs.graph.html
    - `cudaStreamBeginCapture` and `cudaThreadExchangeStreamCaptureMode` (capture modes):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - NVIDIA, CUDA graph quick checklist ("No background thread queries"):
      https://docs.nvidia.com/dl-cuda-graph/torch-cuda-graph/quick-checklist.html
    - Incident 001 (graph capture failing at random; the other thread's `cudaEventQuery`):
      `shared/incidents/001_ff36e9c9a06e2c8a.txt`
    """

    code = "CUR401"
    name = "cuda-thread-during-capture"
    languages = ("python", "c", "cpp")
    triggers = REGION_TRIGGERS
    summary = "a thread that makes CUDA calls is alive when a CUDA graph capture starts"

    valid = (
        """
        import threading
        import torch

        def warm_cache(x):
            torch.cuda.current_stream().synchronize()
            return x.cpu()

        def capture(model, x):
            worker = threading.Thread(target=warm_cache, args=(x,))
            worker.start()
            worker.join()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y = model(x)
            return g, y
        """,
        """
        import threading
        import time
        import torch

        def heartbeat():
            while True:
                time.sleep(5)
                print("alive")

        def capture(model, x):
            threading.Thread(target=heartbeat, daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y = model(x)
            return g, y
        """,
        """
        import threading
        import torch

        def poll(event, stop):
            while not stop.is_set():
                event.query()

        def capture(model, x, event, stop):
            threading.Thread(target=poll, args=(event, stop), daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, capture_error_mode="thread_local"):
                y = model(x)
            return g, y
        """,        Example(
            """
            #include <thread>
            #include <cuda_runtime.h>

            void poll_copies(cudaEvent_t done) {
                while (cudaEventQuery(done) == cudaErrorNotReady) {
                }
            }

            cudaGraph_t capture(cudaStream_t stream, cudaEvent_t done) {
                cudaGraph_t graph;
                std::thread poller(poll_copies, done);
                poller.join();
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
                cudaStreamEndCapture(stream, &graph);
                return graph;
            }
            """,
            language="cpp",
        ),
    )
    invalid = (
        """
        import threading
        import torch

        def poll(event, stop):
            while not stop.is_set():
                event.query()

        def capture(model, x, event, stop):
            threading.Thread(target=poll, args=(event, stop), daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # error: CUR401
                y = model(x)
            return g, y
        """,
        """
        from concurrent.futures import ThreadPoolExecutor
        import torch

        def flush():
            torch.cuda.synchronize()

        def capture(model, x):
            pool = ThreadPoolExecutor(max_workers=1)
            pool.submit(flush)
            g = torch.cuda.CUDAGraph()
            g.capture_begin(capture_error_mode="thread_local")  # error: CUR401
            y = model(x)
            g.capture_end()
            return g, y
        """,
        """
        import threading
        import torch

        class MetricsLogger(threading.Thread):
            def __init__(self, queue):
                super().__init__(daemon=True)
                self.queue = queue

            def run(self):
                while True:
                    self.write(self.queue.get())

            def write(self, loss):
                print(float(loss.cpu()))

        def capture(model, x, queue):
            MetricsLogger(queue).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # error: CUR401
                y = model(x)
            return g, y
        """,        Example(
            """
            #include <thread>
            #include <cuda_runtime.h>

            void poll_copies(cudaEvent_t done) {
                while (cudaEventQuery(done) == cudaErrorNotReady) {
                }
            }

            cudaGraph_t capture(cudaStream_t stream, cudaEvent_t done) {
                cudaGraph_t graph;
                std::thread poller(poll_copies, done);
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401
                cudaStreamEndCapture(stream, &graph);
                poller.join();
                return graph;
            }
            """,
            language="cpp",
        ),
    )

    @classmethod
    def project_trigger_words(cls, facts) -> tuple[str, ...]:
        """Names of the project's functions that begin a global-mode capture (a finding
        across modules needs one, and they are few)."""
        return capturing_names(facts)

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.calls: list[ast.Call] = []

    def visit_Call(self, node: ast.Call) -> None:
        super().visit_Call(node)
        self.calls.append(node)

    def check(self) -> None:
        if self.context.source.language != "python":
            self._check_c()
            return
        for region in self.analysis.regions:
            for start in self._alive_at(region):
                self._check_thread(region, start)
        if self.uses.project is not None:
            self._check_project_threads()

    def _check_c(self) -> None:
        """Threads started earlier in the function of a begin-capture call, not joined."""
        threads = CThreads(self.context)
        for name, begin in self.context.calls(C_BEGINS):
            function = next((a for a in self.context.ancestors(begin)
                             if a.type == "function_definition"), None)
            body = function.child_by_field_name("body") if function is not None else None
            if body is None:
                continue
            region = Region(begin, (), _c_mode(self.context, begin), f"{name}()")
            for start in threads.starts(body):
                if start.node.start_byte < begin.start_byte and not threads.joined(
                        body, start.handle, start.node.end_byte, begin.start_byte):
                    self._check_c_thread(threads, region, start)

    def _check_c_thread(self, threads: CThreads, region: Region, start: CThreadStart) -> None:
        device_wide = threads.cuda_call(start.code, device_wide=True)
        found = device_wide or (threads.cuda_call(start.code, device_wide=False)
                                if region.mode == GLOBAL else None)
        if found is not None:
            call, name, path = found
            self._report_thread(region.start, f"{start.label} (started on line "
                                f"{start.node.start_point[0] + 1})", region,
                                f"{call.start_point[0] + 1}{_through(path)}, where it calls "
                                f"{name}()", bool(device_wide))

    def _check_thread(self, region: Region, start: ThreadStart) -> None:
        device_wide = self._reached(start.code, self.uses.device_wide_use)
        found = device_wide or (self._reached(start.code, self.uses.any_use)
                                if region.mode == GLOBAL else None)
        if found is not None:
            line, where, steps = found
            self._report_thread(region.start, f"{start.label} (started on line "
                                f"{start.call.lineno})", region, f"{line}{where}",
                                bool(device_wide), steps)

    def _reached(self, code, check) -> tuple[int, str, tuple[Step, ...]] | None:
        """Where a thread's code (a def or lambda of the module, or a project function of
        another module) first does what `check` finds: (line, how, chain)."""
        if isinstance(code, ProjectFunction):
            steps = self.uses.project.reach(code.path, code.qualname, _REMOTE_KINDS[check.__name__])
            if steps is None:
                return None
            return steps[-1].line, f" of {os.path.basename(steps[-1].path)}, where " \
                f"{steps[-1].note}", steps
        found = self.uses.first(_body(code), check)
        if found is None:
            return None
        node, what, path = found
        return node.lineno, f"{_through(path)}, where {what}", self.uses.steps_for(node)

    # -- threads started and captures begun by other modules' functions ---------------------
    def thread_facts(self, function: ast.AST) -> dict[str, Reach]:
        """The facts of a function (for the project index) about the threads it starts and
        leaves running, whose code uses CUDA (or synchronizes the device), and the threads
        it joins."""
        facts = {}
        for start in self._starts(function):
            if self._ended(start, [(function, _position(start.call), _END)], None):
                continue
            for check, kind in ((self.uses.device_wide_use, "device_wide"),
                                (self.uses.any_use, "cuda")):
                found = self._reached(start.code, check)
                if found is not None and THREAD_KINDS[kind] not in facts:
                    facts[THREAD_KINDS[kind]] = Reach(
                        start.call.lineno, f"starts {start.label}",
                        detail=f"{found[0]} of {os.path.basename(self.context.source.path)}"
                               f"{found[1]}")
        for node in own_nodes(_body(function)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("join", "shutdown") and _is_self_attribute(
                        node.func.value)):
                facts[JOINS] = Reach(node.lineno, f"joins `{_key(node.func.value)}`")
                break
        return facts

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
            for call in sorted(calls, key=_position):
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
        begun = steps[-1].note.removesuffix(_BEGINS)
        return Region(call, (), GLOBAL, f"{ast.unparse(call.func)}(), through {begun} at "
                      f"{os.path.basename(steps[-1].path)}:{steps[-1].line},", steps)

    def _check_running(self, region: Region, running) -> None:
        for start, kind, steps, fact in running:
            if kind == "cuda" and region.mode != GLOBAL:
                continue
            thread = (f"the thread that {ast.unparse(start.func)}() starts on line "
                      f"{start.lineno} ({os.path.basename(steps[-1].path)}:{fact.line})")
            self._report_thread(region.start, thread, region, fact.detail, kind == "device_wide",
                                (*steps, *region.steps))
            return

    def _report_thread(self, target, thread: str, region: Region, reached: str,
                       device_wide: bool, steps: tuple[Step, ...] = ()) -> None:
        where = (f"{thread} may still run when {region.what} begins a capture in "
                 f"{region.mode_words} mode here; its code reaches line {reached}")
        if device_wide:
            message = (f"{where}. A device-wide synchronization waits for the capturing "
                       "stream, which invalidates the capture in every mode, thread_local "
                       "included. Fix: join or stop the thread before capture, or have it "
                       "synchronize only its own stream or event")
        else:
            message = (f"{where}. In global mode a capture-unsafe CUDA call from any thread "
                       "invalidates the capture ('operation failed due to a previous error "
                       "during capture'), at random, when the thread happens to call "
                       "(incident 001). Fix: join or stop the thread before capture, or pass "
                       "capture_error_mode=\"thread_local\" (cudaStreamCaptureModeThreadLocal)")
        self.report(target, message, related=steps)

    # -- threads alive at a region --------------------------------------------------------
    def _alive_at(self, region: Region) -> Iterator[ThreadStart]:
        scope = self.context.scope_of(region.start)
        before = _position(region.start)
        root = scope or self.context.tree
        for start_root in self._earlier_scopes(root):
            for start in self._starts(start_root):
                begun = _position(start.call)
                if start_root is root:
                    if begun >= before:
                        continue
                    windows = [(root, begun, before)]
                else:  # ended in its own scope, or in the region's before the region
                    windows = [(start_root, begun, _END), (root, (0, 0), before)]
                if not self._ended(start, windows, region):
                    yield start

    def _earlier_scopes(self, root: ast.AST) -> list[ast.AST]:
        """Where a thread alive at a region in `root` (a function or the module) may have
        started: there, at module level, and in the class's `__init__`."""
        tree = self.context.tree
        cls = _enclosing_class(self.context, root) if root is not tree else None
        init = CaptureAnalysis.own_method(cls, "__init__") if cls else None
        scopes = [root, tree, init]
        return [s for i, s in enumerate(scopes) if s is not None and s not in scopes[:i]]

    def _starts(self, scope: ast.AST) -> Iterator[ThreadStart]:
        for node in own_nodes(_body(scope)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "start" and not node.args:
                    start = self._thread_start(node)
                elif node.func.attr in ("submit", "map") and node.args:
                    start = self._task_start(node)
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
        if self.analysis.named(made.func, THREAD_CLASSES):
            target = self.context.argument(made, 1, "target")
        elif self.analysis.named(made.func, TIMERS):
            target = self.context.argument(made, 1, "function")
        else:
            target = self._run_method(made.func) or self._project_run(made.func)
        code = self.analysis.code_of(target) or self._project_function(target)
        if code is None:
            return None
        if handle is made:
            handles, label = frozenset(), f"the thread running {_code_label(code)}"
        else:
            handles = frozenset({_key(handle)})
            label = f"thread `{_key(handle)}` running {_code_label(code)}"
        return ThreadStart(call, code, label, handles, None)

    def _project_function(self, target) -> "ProjectFunction | None":
        """The function of another project module that a thread target names (also through
        `functools.partial`)."""
        if isinstance(target, ProjectFunction):
            return target
        if isinstance(target, ast.Call) and self.analysis.named(target.func, _PARTIAL) and \
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
        if found is None or found[1] not in project.summaries[found[0]].classes or \
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

    def _task_start(self, call: ast.Call) -> ThreadStart | None:
        executor = call.func.value
        made = self.analysis.value_of(executor)
        if made is None and isinstance(executor, ast.Name):
            made = self._with_target(executor)
        if not (isinstance(made, ast.Call) and self.analysis.named(made.func, EXECUTORS)):
            return None
        if call.func.attr == "map" and not isinstance(self.context.parent_of(call),
                                                      (ast.Expr, ast.Assign)):
            return None  # consumed on the spot: list(pool.map(...)) waits for the tasks
        code = self.analysis.code_of(call.args[0])
        if code is None:
            return None
        handles = {_key(executor)}
        parent = self.context.parent_of(call)
        if isinstance(parent, ast.Assign):
            handles.update(_key(target) for target in parent.targets)
        label = f"the {ast.unparse(executor)} task running {_code_label(code)}"
        return ThreadStart(call, code, label, frozenset(handles), _key(executor))

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
        for node in (n for root, after, until in windows for n in own_nodes(_body(root))
                     if isinstance(n, ast.Call) and after < _position(n) < until):
            if self.analysis.named(node.func, _WAITS) and start.executor:
                return True
            if (isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("join", "shutdown", "result")
                    and _key(node.func.value) in start.handles):
                return True
        return start.executor is not None and any(
            isinstance(ancestor, (ast.With, ast.AsyncWith))
            and any(item.optional_vars is not None and _key(item.optional_vars) ==
                    start.executor for item in ancestor.items)
            and (region is None
                 or not any(a is ancestor for a in self.context.ancestors(region.start)))
            for ancestor in self.context.ancestors(start.call))


def _receiver(call: ast.Call) -> str | None:
    """The text of the object a method is called on (`hb` for `hb.start()`)."""
    return _key(call.func.value) if isinstance(call.func, ast.Attribute) else None


class ProjectFunction(NamedTuple):
    """A thread's code defined in another module of the project."""

    path: str
    qualname: str


def _code_label(code: ast.AST | ProjectFunction) -> str:
    if isinstance(code, ProjectFunction):
        return f"{code.qualname}() ({os.path.basename(code.path)})"
    if isinstance(code, ast.Lambda):
        return f"the lambda on line {code.lineno}"
    return f"{code.name}()"


# -- CUR402 ----------------------------------------------------------------------------------


class SyncInCapture(CaptureRule):
    """## What it does
    Finds a call inside a capture region (the body of `with torch.cuda.graph(...)`, the
    statements between `capture_begin()` and `capture_end()`, CuPy `begin_capture()` ...
    `end_capture()`, cuda-python `cudaStreamBeginCapture` ... `cudaStreamEndCapture`) that
    waits for the GPU or is prohibited while a stream captures: `.item()`, `.cpu()`,
    `.tolist()`, `.numpy()`, `.nonzero()` and `torch.nonzero`, boolean-mask indexing
    (`x[x > 0]`), event or stream `.synchronize()` / `.query()`, `torch.cuda.synchronize()`,
    `torch.cuda.empty_cache()`, `cupy.asnumpy`, and cuda-python's synchronizations, queries,
    `cudaMalloc`/`cudaFree` and synchronous `cudaMemcpy`/`cudaMemset` (and driver forms), and
    printing or formatting a CUDA tensor: `print(t)`, `str(t)`, `repr(t)`, `format(t)`,
    `f"{t}"`, `"%s" % t`, `"{}".format(t)`, and `logging` calls (module functions or a
    `logging.getLogger(...)` logger's methods) with `t` as an argument. A formatted value
    counts only when it is known to be a CUDA tensor: made on the GPU (`.cuda()`,
    `.to("cuda")`, `device="cuda"`), the result of a torch op or `@`, a tensor method,
    arithmetic or indexing on such a tensor, or a name bound once, inside the region, to one
    of these; a parameter, a name bound outside the region, a model's output, `t.shape`,
    `t.dtype` and `len(t)` are not. Calls into the module's own functions and methods are
    followed for the synchronizing calls; the finding is the call in the region. In C/C++
    (CUDA sources included), the region is the statements of one block
    between `cudaStreamBeginCapture`/`cuStreamBeginCapture` and the
    `cudaStreamEndCapture`/`cuStreamEndCapture` of the same stream, and the calls are
    `cudaDeviceSynchronize`, `cudaStreamSynchronize`, `cudaEventSynchronize`,
    `cudaEventQuery`, `cudaStreamQuery`, `cudaMalloc` (not `cudaMallocAsync`), `cudaFree`,
    synchronous `cudaMemcpy`/`cudaMemset`, and their driver forms. `cudaMalloc`, `cudaFree`,
    `cuMemAlloc` and `cuMemFree` are reported only when the capture mode is not relaxed
    (`cudaStreamCaptureModeRelaxed`, `CU_STREAM_CAPTURE_MODE_RELAXED`, `"relaxed"`).

    ## Why it is cursed
    Capture records GPU work without running it, so nothing can wait for a result, copy it to
    the host, or ask whether work finished: the call fails with "operation not permitted when
    stream is capturing" and invalidates the capture, in every capture mode. Verified on an
    H100 (PyTorch 2.11): `.item()` inside `torch.cuda.graph`, and `torch.cuda.synchronize()`
    between `capture_begin()` and `capture_end()`, both fail. Allocating and freeing
    (`cudaMalloc`, `cudaFree`, `cuMemAlloc`, `cuMemFree`) are "potentially unsafe" calls that
    global and thread-local captures prohibit and a relaxed capture allows. Verified on an
    H100 (driver 580, CUDA 13 runtime, `tests/test_capture_alloc_gpu.py`): in global and
    thread-local captures they return `cudaErrorStreamCaptureUnsupported` (900) and ending
    the capture returns `cudaErrorStreamCaptureInvalidated` (901); in a relaxed capture they
    return 0 and the capture ends with 0, while `cudaStreamSynchronize`/`cuStreamSynchronize`
    of the capturing stream fail with 900 and 901 in all three modes. Formatting a CUDA tensor copies
    its values to the host first (the same synchronizing copy as `.cpu()`), so a debugging
    `print(t)` or a log line in the captured step breaks the capture too. Where it does not
    raise, a host value read during capture would be frozen into the graph and never refreshed
    on replay.

    ## Example
    ```python
    with torch.cuda.graph(g):
        loss = criterion(model(static_input), static_target)
        print(loss.item())
    ```

    ## Fix
    Move the call out of the region: read values after `g.replay()` (or after
    `capture_end()`), keep data-dependent decisions on the GPU (`torch.where`, masks
    multiplied in), synchronize before the capture, and allocate before it.

    ## References
    - NVIDIA, CUDA graph constraints (no host-device synchronization during capture):
      https://docs.nvidia.com/dl-cuda-graph/cuda-graph-basics/constraints.html
    - NVIDIA, CUDA graph capture failures (`.item()`, `.cpu()` during capture):
      https://docs.nvidia.com/dl-cuda-graph/troubleshooting/capture-failures.html
    - `cudaStreamBeginCapture` (prohibited calls, capture modes):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    """

    code = "CUR402"
    name = "sync-in-capture"
    languages = ("python", "c", "cpp")
    triggers = REGION_TRIGGERS
    summary = "a call that waits for the GPU inside a CUDA graph capture region"

    valid = (
        """
        import torch

        def capture(model, criterion, x, target):
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    criterion(model(x), target).backward()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                loss = criterion(model(x), target)
                loss.backward()
            g.replay()
            print(loss.item())
            return g
        """,
        """
        import torch

        def capture(model, x):
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            g.capture_begin()
            y = model(x)
            g.capture_end()
            return g, y.sum()
        """,
        """
        import logging
        import torch

        log = logging.getLogger(__name__)

        def capture(model, x, steps):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for step in range(steps):
                    x = torch.tanh(model(x))
                    log.info("captured step %d, output %s %s", step, x.shape, x.dtype)
                print(f"captured {steps} steps of {type(model).__name__}")
            return g, x
        """,
        Example(
            """
            #include <cuda_runtime.h>

            __global__ void scale(const float *in, float *out) { out[threadIdx.x] = 2 * in[threadIdx.x]; }

            // relaxed mode allows allocating while the stream captures
            cudaGraph_t capture_step(cudaStream_t stream, const float *input, size_t bytes) {
                cudaGraph_t graph;
                float *scratch;
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
                cudaMalloc((void **)&scratch, bytes);
                scale<<<1, 256, 0, stream>>>(input, scratch);
                cudaStreamEndCapture(stream, &graph);
                return graph;
            }
            """,
            language="cpp",
        ),
    )
    invalid = (
        """
        import torch

        def capture(model, criterion, x, target):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                loss = criterion(model(x), target)
                print(loss.item())  # error: CUR402
            return g
        """,
        """
        import torch

        def capture(model, x):
            g = torch.cuda.CUDAGraph()
            g.capture_begin()
            y = model(x)
            torch.cuda.synchronize()  # error: CUR402
            g.capture_end()
            return g, y
        """,
        """
        import torch

        def capture(model, x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                probs = torch.softmax(model(x), dim=-1)
                print(f"probs: {probs}")  # error: CUR402
            return g, probs
        """,
        """
        import cupy as cp

        class Step:
            def capture(self, x):
                stream = cp.cuda.Stream(non_blocking=True)
                with stream:
                    stream.begin_capture()
                    y = self.normalize(x)  # error: CUR402
                    graph = stream.end_capture()
                return graph, y

            def normalize(self, x):
                return x / float(x.max().item())
        """,
        Example(
            """
            #include <cuda_runtime.h>

            cudaGraph_t capture_step(cudaStream_t stream, float *input, size_t bytes) {
                cudaGraph_t graph;
                float *scratch;
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
                cudaMalloc((void **)&scratch, bytes);  // error: CUR402
                scale<<<64, 256, 0, stream>>>(input, scratch);
                cudaStreamSynchronize(stream);  // error: CUR402
                cudaStreamEndCapture(stream, &graph);
                cudaStreamSynchronize(stream);
                return graph;
            }
            """,
            language="cpp",
        ),
    )

    def check(self) -> None:
        if self.context.source.language != "python":
            self._check_c()
            return
        for region in self.analysis.regions:
            tensors = CudaTensors(self.context, self.analysis, self.uses, region)
            for node in own_nodes(region.body):
                self._check_node(region, tensors, node)

    def _check_node(self, region: Region, tensors: CudaTensors, node: ast.AST) -> None:
        illegal = self.uses.relaxed_sync if region.mode == RELAXED else self.uses.host_sync
        why = illegal(node) or tensors.formatted(node)
        if why:
            self._report(node, region.what, region.start.lineno, why, _allocates(node))
            return
        callee = self.uses.callee(node)
        if callee is None:
            steps = self.uses.remote(node.func, self.uses.host_sync) if isinstance(
                node, ast.Call) else None
            if steps:
                self._report(node, region.what, region.start.lineno,
                             f"{ast.unparse(node.func)}() reaches it: {_located(steps[-1])}",
                             steps=steps)
            return
        found = self.uses.first(_body(callee), illegal)
        if found:
            inner, why, path = found
            self._report(node, region.what, region.start.lineno,
                         f"{callee.name}(){_through(path)} reaches it at line {inner.lineno}: "
                         f"{why}", _allocates(inner), self.uses.steps_for(inner))

    def _check_c(self) -> None:
        """Prohibited calls between a begin and an end capture of one stream in one block."""
        for begin_name, begin in self.context.calls(C_BEGINS):
            statement = block_statement(self.context, begin)
            stream = _c_first_argument(self.context, begin)
            sibling = statement.next_named_sibling if statement else None
            inside = []
            while sibling is not None and not any(
                    _c_first_argument(self.context, end) == stream
                    for _, end in self.context.calls(C_ENDS, sibling)):
                inside.append(sibling)
                sibling = sibling.next_named_sibling
            if sibling is None:
                continue  # no end in this block: not a region this rule can see
            line = begin.start_point[0] + 1
            relaxed = _c_mode(self.context, begin) == RELAXED
            for node in inside:
                for name, call in self.context.calls(C_SYNC_NAMES, node):
                    allocation = name.removesuffix("_v2") in C_ALLOCATIONS
                    if not (relaxed and allocation):
                        self._report(call, f"{begin_name}()", line,
                                     f"{name}() is prohibited while a stream captures",
                                     allocation)

    def _report(self, node, begun_by: str, line: int, why: str, allocation: bool = False,
                steps: tuple[Step, ...] = ()) -> None:
        """`allocation`: the call is prohibited in global and thread-local captures only;
        `steps`: the chain through other modules."""
        modes = ("in a global or thread-local capture (a relaxed one allows it)" if allocation
                 else "whatever the capture mode")
        self.report(
            node,
            f"inside the capture that {begun_by} begins on line {line}, "
            f"{why}. A capturing stream records work without running it, so the call fails "
            "('operation not permitted when stream is capturing') and invalidates the "
            f"capture, {modes}. Fix: move it out of the region (read results after replay, "
            "synchronize or allocate before capture)",
            related=steps,
        )


# -- CUR403 ----------------------------------------------------------------------------------

DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
_ITER = frozenset({"builtins.iter"})
_WRAPPERS = frozenset({"builtins.enumerate", "builtins.zip"})


class PinnedLoaderDuringCapture(CaptureRule):
    """## What it does
    Finds a global-mode capture region (`torch.cuda.graph` and `capture_begin()` without
    `capture_error_mode`, `make_graphed_callables`) that starts while the iterator of a
    `torch.utils.data.DataLoader` with `pin_memory=True` and worker processes
    (`num_workers > 0`, or a value the module does not show) exists: the region sits inside a
    `for` loop over the loader (also through `enumerate`/`zip`), or an `iter(loader)` was bound
    before it in the same function, or in an attribute by the class's `__init__`. The loader
    is found through its name, the `self` attribute the class assigns it to, or a factory of
    another module of the project that returns it; a call in the loop of another module's
    function that begins a global-mode capture is reported at that call, with the chain.

    ## Why it is cursed
    Such an iterator runs a pin-memory thread that copies each batch into pinned host memory;
    PyTorch's caching host allocator queries CUDA events to recycle pinned blocks. In the
    default global capture mode, that query from another thread invalidates the capture of the
    main thread, but only when it lands inside the capture: the exact shape of incident 001
    ("operation failed due to a previous error during capture", 1 run in 3 on 512 GPUs, three
    days to find). Verified on an H100 (PyTorch 2.11): iterating such a loader before and
    during capture fails every run, the pin-memory thread raising "operation not permitted
    when stream is capturing"; with `capture_error_mode="thread_local"`, or with the graph
    captured before the loader is created and iterated, capture succeeds.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for step, (x, y) in enumerate(loader):
        if step == 0:
            with torch.cuda.graph(g):
                loss = train_step(static_x, static_y)
    ```

    ## Fix
    Capture before the loader's iterator starts (capture once on static inputs, then loop over
    the loader and copy each batch into them), or pass
    `capture_error_mode="thread_local"` so that the pin-memory thread's calls no longer count.

    ## References
    - `torch.cuda.graph` (`capture_error_mode`):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.graphs.graph.html
    - `torch.utils.data` memory pinning (the pin-memory thread):
      https://docs.pytorch.org/docs/stable/data.html#memory-pinning
    - `cudaStreamBeginCapture` / `cudaThreadExchangeStreamCaptureMode` (global mode
      prohibits unsafe calls from every thread):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - NVIDIA, CUDA graph quick checklist ("DataLoader with pin_memory=True: use thread_local
      mode or disable pin_memory"):
      https://docs.nvidia.com/dl-cuda-graph/torch-cuda-graph/quick-checklist.html
    - Incident 001: `shared/incidents/001_ff36e9c9a06e2c8a.txt`
    """

    code = "CUR403"
    name = "pinned-loader-during-capture"
    languages = ("python",)
    triggers = REGION_TRIGGERS  # the loader may come from another module's factory
    summary = "a pinned-memory DataLoader iterator is alive when a global-mode capture starts"

    valid = (
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_loss = model(static_x).sum()
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            for x in loader:
                static_x.copy_(x, non_blocking=True)
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            g = torch.cuda.CUDAGraph()
            for step, x in enumerate(loader):
                static_x.copy_(x, non_blocking=True)
                if step == 0:
                    with torch.cuda.graph(g, capture_error_mode="thread_local"):
                        static_loss = model(static_x).sum()
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, pin_memory=True)
            batches = iter(loader)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_loss = model(static_x).sum()
        """,
    )
    invalid = (
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            g = torch.cuda.CUDAGraph()
            for step, x in enumerate(loader):
                static_x.copy_(x, non_blocking=True)
                if step == 0:
                    with torch.cuda.graph(g):  # error: CUR403
                        static_loss = model(static_x).sum()
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        class Trainer:
            def __init__(self, dataset, workers):
                self.loader = DataLoader(dataset, num_workers=workers, pin_memory=True)
                self.batches = iter(self.loader)

            def capture(self, model, static_x):
                self.graph = torch.cuda.CUDAGraph()
                self.graph.capture_begin()  # error: CUR403
                self.out = model(static_x)
                self.graph.capture_end()
        """,
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.loops: list[ast.For | ast.AsyncFor] = []

    @classmethod
    def project_trigger_words(cls, facts) -> tuple[str, ...]:
        """Names of the project's functions that begin a global-mode capture: a loop over a
        pinned loader that calls one is a finding."""
        return capturing_names(facts)

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
                self._report(region.start, region.what, loader, how)
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
                    begun = steps[-1].note.removesuffix(_BEGINS)
                    what = (f"{ast.unparse(node.func)}(), through {begun} at "
                            f"{os.path.basename(steps[-1].path)}:{steps[-1].line},")
                    self._report(node, what, loader, f"the for loop on line {loop.lineno} "
                                 "iterates it", steps)

    def _report(self, target: ast.AST, what: str, loader: "Loader", how: str,
                steps: tuple[Step, ...] = ()) -> None:
        self.report(
            target,
            f"{what} begins a global-mode capture while the iterator of the pinned "
            f"DataLoader {loader.made} is alive ({how}): its pin-memory "
            "thread allocates pinned memory, whose allocator queries CUDA events, and a CUDA "
            "call from another thread invalidates a global-mode capture, at random ('operation "
            "not permitted when stream is capturing'; incident 001). Fix: capture before the "
            "loader's iterator starts, or pass capture_error_mode=\"thread_local\"",
            related=(*loader.steps, *steps),
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
        cls = _enclosing_class(self.context, scope) if scope is not self.context.tree else None
        init = CaptureAnalysis.own_method(cls, "__init__") if cls else None
        for root in (scope, init) if init not in (None, scope) else (scope,):
            for node in own_nodes(_body(root)):
                if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                        and self.analysis.named(node.value.func, _ITER) and node.value.args):
                    continue
                if root is scope and _position(node) >= _position(region.start):
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


class Loader(NamedTuple):
    """A pinned DataLoader: how it is made, and the chain when another module makes it."""

    made: str
    steps: tuple[Step, ...]


def pinned_loader(analysis: CaptureAnalysis, node: ast.AST) -> ast.Call | None:
    """The DataLoader call of the module `node` refers to, when it pins memory in a background
    thread (pin_memory=True and worker processes)."""
    context = analysis.context
    made = node if isinstance(node, ast.Call) else analysis.value_of(node)
    if not (isinstance(made, ast.Call) and analysis.named(made.func, DATA_LOADERS)):
        return None
    if context.evaluate(context.argument(made, 7, "pin_memory")) is not True:
        return None
    workers_node = context.argument(made, 5, "num_workers")
    workers = context.evaluate(workers_node) if workers_node is not None else 0
    if workers is UNKNOWN or (isinstance(workers, int) and workers > 0):
        return made
    return None


# -- CUR404 ----------------------------------------------------------------------------------

_NN = "torch.nn."
LIBRARY_FUNCTIONS = frozenset({
    *(f"torch.{name}" for name in ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm",
                                   "einsum")),
    *(f"torch.nn.functional.{name}" for name in ("linear", "bilinear", "conv1d", "conv2d",
                                                 "conv3d", "conv_transpose1d",
                                                 "conv_transpose2d", "conv_transpose3d")),
})
"""Functions that run cuBLAS (matrix products) or cuDNN (convolutions) on CUDA tensors."""
LIBRARY_METHODS = frozenset({"matmul", "mm", "bmm", "addmm", "baddbmm"})
LIBRARY_MODULES = frozenset(f"{_NN}{name}" for name in (
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LSTM", "GRU", "RNN", "MultiheadAttention"))
"""`torch.nn` layers whose forward pass is a cuBLAS or cuDNN call."""
CONTAINERS = frozenset({f"{_NN}Sequential"})
MODULE_MOVES = frozenset({"cuda", "to", "half", "bfloat16", "float", "double", "train", "eval",
                          "requires_grad_"})
"""Methods of an nn.Module that return the module itself (`nn.Linear(8, 8).cuda()`)."""
_STREAM_CONTEXTS = frozenset({"torch.cuda.stream"})
_GRAPH_WORDS = tuple(w for w in REGION_TRIGGERS if isinstance(w, tuple))


class CaptureWithoutWarmup(CaptureRule):
    """## What it does
    Finds a `with torch.cuda.graph(...)` region that captures cuBLAS or cuDNN work while the
    function (or the module-level script) that holds it runs none before it. Library work is
    `@`, `torch.matmul`/`mm`/`bmm`/`addmm`/`baddbmm`/`addbmm`/`einsum`, the tensor methods
    `.matmul()`/`.mm()`/`.bmm()`, `torch.nn.functional.linear`/`bilinear`/`conv*`, and a call of
    a `torch.nn` layer the module creates (`Linear`, `Conv*d`, `ConvTranspose*d`, `LSTM`,
    `GRU`, `RNN`, `MultiheadAttention`, also inside `Sequential`, also moved with
    `.cuda()`/`.to(...)`), of a module class whose `forward` reaches one, or of a module
    function or method that reaches one. A warm-up is anything before the region in the same
    function that initializes the libraries or may do so: a call of a callable the region
    calls (`model(x)` before `with torch.cuda.graph(g): model(x)`), a call that is passed such
    a callable (`warm_up(model)`, `torch.cuda.make_graphed_callables(model, ...)`), library
    work of its own or through the module's functions, or a `with torch.cuda.stream(...)` block
    that calls anything (PyTorch's documented warm-up loop). A model or function the module
    does not show (a parameter, an import) is not library work, and regions of
    `make_graphed_callables`, which warms up itself, are not checked.

    ## Why it is cursed
    cuBLAS and cuDNN create their handles and workspaces lazily, on a thread's first call.
    That set-up is not permitted while the stream captures: inside the region, the first
    matrix product fails with `CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate(handle)`
    and the capture is invalidated ("operation failed due to a previous error during
    capture"). PyTorch's CUDA graph examples run the captured work a few times on a side
    stream before capturing it, `make_graphed_callables` does the same, and warm-up is the
    answer PyTorch's forum gives to this error. Verified on an H100 (PyTorch 2.11, CUDA 13.0,
    cuDNN 9.19): a `torch.matmul` or an `nn.Linear` captured in a fresh process fails, and so
    does an `nn.Conv2d` (`CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED`); the
    `nn.Linear` capture after three warm-up calls on a side stream, and a matrix product
    captured after one run on the current stream, succeed. The failure appears only where
    nothing ran a matrix product earlier, so code that captures fine inside a long script can
    fail when the capture moves into a fresh process, test or server.

    ## Example
    ```python
    layer = torch.nn.Linear(1024, 1024).cuda()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = layer(static_in)
    ```

    ## Fix
    Warm up before capture, as PyTorch's CUDA graph examples do: on a side stream
    (`s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())`, then
    `with torch.cuda.stream(s):` run the captured step three times, then
    `torch.cuda.current_stream().wait_stream(s)`), or graph the callable with
    `torch.cuda.make_graphed_callables`, which runs the warm-up itself.

    ## References
    - PyTorch, CUDA semantics, "Whole-network capture" (warm-up on a side stream before
      capture): https://docs.pytorch.org/docs/stable/notes/cuda.html#whole-network-capture
    - `torch.cuda.make_graphed_callables` (`num_warmup_iters`, warms up before capturing):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.make_graphed_callables.html
    - PyTorch forums, "CUBLAS_STATUS_NOT_INITIALIZED when running CUDAGraph" (fixed by warm-up
      iterations):
      https://discuss.pytorch.org/t/cublas-status-not-initialized-when-running-cudagraph/170490
    - ROCm/pytorch#3354 (lazy hipBLASLt handle creation during capture fails; warm up first):
      https://github.com/ROCm/pytorch/pull/3354
    """

    code = "CUR404"
    name = "capture-without-warmup"
    languages = ("python",)
    triggers = _GRAPH_WORDS
    severity = Severity.WARNING
    summary = "cuBLAS or cuDNN work captured in a CUDA graph with no warm-up before it"

    valid = (
        """
        import torch

        def capture(static_x):
            layer = torch.nn.Linear(1024, 1024).cuda()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    layer(static_x)
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_y = layer(static_x)
            return g, static_y
        """,
        """
        import torch

        def capture(model, static_x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_y = model(static_x)
            return g, static_y
        """,
        """
        import torch

        def capture(static_x, weight):
            graphed = torch.cuda.make_graphed_callables(torch.nn.Linear(64, 64).cuda(),
                                                        (static_x,))
            return graphed(static_x) @ weight
        """,
    )
    invalid = (
        """
        import torch

        def capture(static_x):
            layer = torch.nn.Linear(1024, 1024).cuda()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # warning: CUR404
                static_y = layer(static_x)
            return g, static_y
        """,
        """
        import torch
        from torch import nn

        class Attention(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.qkv = nn.Linear(width, 3 * width)

            def forward(self, x):
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v

        def capture(static_x):
            block = Attention(512).cuda()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # warning: CUR404
                static_y = block(static_x)
            return g, static_y
        """,
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self._expanding: set[int] = set()  # forward() bodies being searched (recursion guard)

    def check(self) -> None:
        for region in self.analysis.regions:
            if region.what != "torch.cuda.graph":
                continue
            found = self.uses.first(region.body, self._library_work)
            if found is not None and not self._warmed_up(region):
                node, what, path = found
                self._report(region, node, what, path)

    def _report(self, region: Region, node: ast.AST, what: str, path: list[str]) -> None:
        self.report(
            region.start,
            "torch.cuda.graph captures library work that nothing ran before it in this "
            f"function: line {node.lineno}{_through(path)}, where {what}. cuBLAS and cuDNN "
            "create their handles on a thread's first call, which is not permitted while the "
            "stream captures: the capture fails (CUBLAS_STATUS_NOT_INITIALIZED, cuDNN "
            "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) and is invalidated. Fix: "
            "run the captured step a few times on a side stream "
            "(`with torch.cuda.stream(s):`) before capture, or use "
            "torch.cuda.make_graphed_callables, which warms up itself",
        )

    # -- what counts as library work --------------------------------------------------------
    def _library_work(self, node: ast.AST) -> str | None:
        """Why `node` runs cuBLAS or cuDNN, or None."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return "`@` is a cuBLAS matrix product"
        if not isinstance(node, ast.Call):
            return None
        name = self.context.qualified_name(node.func, among=LIBRARY_FUNCTIONS)
        if name:
            return f"`{name}()` calls cuBLAS or cuDNN"
        if isinstance(node.func, ast.Attribute) and node.func.attr in LIBRARY_METHODS \
                and node.args and not _is_self_attribute(node.func):
            return f"`.{node.func.attr}()` is a cuBLAS matrix product"
        if isinstance(node.func, ast.Name) or _is_self_attribute(node.func):
            return self._module_work(node.func)
        return None

    def _module_work(self, func: ast.AST) -> str | None:
        """Why calling the nn.Module that `func` holds runs cuBLAS or cuDNN, or None."""
        made = self._constructed(self.analysis.value_of(func))
        if made is None:
            return None
        label = f"`{ast.unparse(func)}` (created on line {made.lineno})"
        layer = self._layer(made)
        if layer:
            return f"{label} runs a {layer}, which calls cuBLAS or cuDNN"
        forward = self._forward(made.func)
        if forward is None or id(forward) in self._expanding:
            return None
        self._expanding.add(id(forward))
        found = self.uses.first(_body(forward), self._library_work)
        self._expanding.discard(id(forward))
        if found is None:
            return None
        node, what, path = found
        return f"{label} runs forward(){_through(path)}, which reaches line {node.lineno}: {what}"

    @staticmethod
    def _constructed(value: ast.AST | None) -> ast.Call | None:
        """The constructor call under `Layer(...).cuda().eval()`."""
        while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
               and value.func.attr in MODULE_MOVES):
            value = value.func.value
        return value if isinstance(value, ast.Call) else None

    def _layer(self, made: ast.Call) -> str | None:
        """The torch.nn layer (or a Sequential's first library layer) a call constructs."""
        name = self.context.qualified_name(made.func, among=LIBRARY_MODULES | CONTAINERS)
        if name in LIBRARY_MODULES:
            return f"`{name[len(_NN):]}`"
        if name in CONTAINERS:
            elements = [e for a in made.args
                        for e in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])]
            return next((f"{layer} inside `{name[len(_NN):]}`" for layer in (
                self._layer(c) for c in map(self._constructed, elements) if c) if layer), None)
        return None

    def _forward(self, func: ast.AST) -> ast.AST | None:
        """The `forward` of a class of this module that `func` names."""
        cls = self.context.definition(func) if isinstance(func, ast.Name) else None
        return CaptureAnalysis.own_method(cls, "forward") if isinstance(cls, ast.ClassDef) \
            else None

    # -- what counts as a warm-up -----------------------------------------------------------
    def _warmed_up(self, region: Region) -> bool:
        """Whether anything before the region, in its function or module-level script, runs
        or may run its work (see the docstring)."""
        scope = self.context.scope_of(region.start) or self.context.tree
        start = _position(region.start)
        captured = {_key(n.func) for n in own_nodes(region.body) if isinstance(n, ast.Call)}
        earlier = [n for n in own_nodes(_body(scope)) if isinstance(n, (ast.Call, ast.BinOp))
                   and _position(n) < start]
        return any(self._runs_or_passes(node, captured) or self._stream_block_call(node)
                   for node in earlier) or self.uses.first(earlier, self._library_work) \
            is not None

    @staticmethod
    def _runs_or_passes(node: ast.AST, captured: set[str]) -> bool:
        """`model(x)` or `warm_up(model)` for a callable `model` the region calls."""
        if not isinstance(node, ast.Call):
            return False
        arguments = [*node.args, *(k.value for k in node.keywords)]
        return _key(node.func) in captured or any(
            isinstance(a, (ast.Name, ast.Attribute)) and _key(a) in captured
            for a in arguments)

    def _stream_block_call(self, node: ast.AST) -> bool:
        """A call inside `with torch.cuda.stream(...)`: the documented warm-up loop."""
        return any(isinstance(a, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call)
            and self.analysis.named(item.context_expr.func, _STREAM_CONTEXTS)
            for item in a.items) for a in self.context.ancestors(node))
