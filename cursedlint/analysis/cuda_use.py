"""Which calls of a Python module reach the GPU or wait for it.

`CudaUse` answers per node: a device-wide synchronization, any CUDA use, a sure one (not a
tensor method that touches CUDA only on a GPU tensor), a wait for the GPU; following calls into
the module's own functions and methods (depth `LOCAL_DEPTH`), and into the project's other
modules through the `cuda-reach` index (`analysis.cuda_reach`), with the chain that proves it.
"""

from __future__ import annotations

import ast
import os
from typing import Iterable

from msgspec import Struct

from cursedlint.analysis.available_devices import cuda_where_available
from cursedlint.analysis.capture_regions import (
    FUNCTIONS, GLOBAL, LOADER_ITERATORS, LOCAL_DEPTH, CaptureAnalysis, Region, body_of,
    capture_analysis, is_self_attribute, iterated, pinning_loader, position,
)
from cursedlint.analysis.cuda_facts import CudaFact, remote_kind
from cursedlint.analysis.nn_modules import NnModules, constructed
from cursedlint.analysis.python_project import (
    CALL_METHOD, FORWARD, ProjectFunctions, call_target, constructor_arguments, dotted, last_name,
    linted_imports, own_nodes,
)
from cursedlint.findings import Step

class Use(Struct, frozen=True):
    """A call that reaches CUDA: `what` says how, `device_wide` when it synchronizes the whole
    device (illegal during any capture, whatever the mode)."""

    what: str
    device_wide: bool = False


DEVICE_SYNCS = frozenset({"torch.cuda.synchronize", "cupy.cuda.runtime.deviceSynchronize",
                          "warp.synchronize", "warp.synchronize_device"})
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
    "warp.synchronize": "wp.synchronize() waits for every CUDA device",
    "warp.synchronize_device": "wp.synchronize_device() waits for the whole device",
    "warp.synchronize_stream": "wp.synchronize_stream() waits for the stream",
    "warp.synchronize_event": "wp.synchronize_event() waits for the event",
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
INITIALIZING_QUERIES = frozenset({
    "torch.cuda.is_available", "torch.cuda.current_device",
    "torch.cuda.set_device", "torch.cuda.get_device_name", "torch.cuda.get_device_properties",
    "torch.cuda.get_device_capability", "torch.cuda.init", "torch.cuda.mem_get_info",
})
"""torch.cuda functions that do no GPU work but initialize CUDA in the process: a forked child
that then uses CUDA fails (observed for `is_available()`, which asks the CUDA runtime
(`cudaGetDeviceCount`, hence `cuInit`) unless PYTORCH_NVML_BASED_CUDA_CHECK=1 is set:
tests/gpu_fork_cases.py). Not `device_count()`: PyTorch asks NVML first whatever the variable
(torch/cuda/__init__.py, 2.13; a fork after it alone works, observed with 2.11)."""
DEFERRED_TORCH_CUDA = frozenset({
    "torch.cuda.manual_seed", "torch.cuda.manual_seed_all", "torch.cuda.seed",
    "torch.cuda.seed_all", "torch.cuda.empty_cache", "torch.cuda.amp.autocast",
})
"""torch.cuda functions that do not initialize CUDA: the seeds are queued until it is
(`_lazy_call`), `empty_cache()` does nothing before, autocast only records the device."""
NVML_ANSWERED = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})
NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"
"""Set, PyTorch answers `NVML_ANSWERED` from NVML without initializing CUDA: a module that
names it is taken to ask that way."""
NCCL_GROUPS = frozenset({"torch.distributed.init_process_group"})
_CUDA_MODULES = ("torch.cuda.", "cupy.", "cuda.", "numba.cuda.")


class _CudaNames:
    """The qualified names `CudaUse` reads (`qualified_name(among=...)`: any other callee is
    passed over without the costly scope analysis)."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name.startswith(("torch.", *_CUDA_MODULES))
                                          or name in DEVICE_SYNCS)


CUDA_NAMES = _CudaNames()
_TORCH_DEVICE = frozenset({"torch.device"})
_DEVICE_KEYWORDS = frozenset({"device", "map_location"})


def _c_name(func: ast.AST) -> str | None:
    name = last_name(func)
    return name[:-3] if name and name.endswith("_v2") else name


def allocates(node: ast.AST) -> bool:
    """Whether a Python node is a cuda-python allocation or free (prohibited but not in
    relaxed captures)."""
    return isinstance(node, ast.Call) and _c_name(node.func) in C_ALLOCATIONS


CHECKED_NODES = (ast.Call, ast.Subscript, ast.BinOp)
"""The only nodes a check of CUDA use answers for (and `CudaUse.callee`): calls, a
boolean-mask index (`host_sync`), a `@` product (`library_work`); and, in a module that
writes `pin_memory`, loops (`PINNING_CHECKED_NODES`: over a pinning DataLoader,
`thread_use`)."""
PINNING_CHECKED_NODES = CHECKED_NODES + (ast.For, ast.AsyncFor)
_ITERATOR_NAMES = frozenset(name.rpartition(".")[2] for name in LOADER_ITERATORS)


def checked_types(context) -> tuple[type, ...]:
    """The node types a check answers for in the module (`CHECKED_NODES`, with loops where
    the module writes `pin_memory`: no loop of another can iterate a pinning loader it
    made)."""
    return context.derived("checked types", lambda: PINNING_CHECKED_NODES if
                           b"pin_memory" in context.source.data else CHECKED_NODES)


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
        self._uses: dict[int, Use | None] = {}  # per call or loop: three checks ask
        self._types = checked_types(context)  # (`first`)
        self._pins = self._types is PINNING_CHECKED_NODES  # (`thread_use`)
        self._bound_names: dict[str, set[str]] | None = None  # (`stored`)
        self._reaching_any: dict[tuple, frozenset[str]] = {}  # (`may_be_reached`)
        self._callees: dict[int, ast.AST | None] = {}  # (`callee`: each index's walk asks)
        self._modules: NnModules | None = None  # (`_forward_reached`)

    @remote_kind(CudaFact.DEVICE_WIDE)
    def device_wide_use(self, node: ast.AST) -> str | None:
        """Why `node` synchronizes the whole device, or None."""
        use = self.thread_use(node)
        return use.what if use and use.device_wide else None

    @remote_kind(CudaFact.CUDA)
    def any_use(self, node: ast.AST) -> str | None:
        """How `node` uses CUDA (made by another thread), or None."""
        use = self.thread_use(node)
        return use.what if use else None

    @remote_kind(CudaFact.SURE_CUDA)
    def sure_use(self, node: ast.AST) -> str | None:
        """How `node` surely uses CUDA: not a method such as `.item()` or `.cpu()`, which waits
        for the GPU only on a CUDA tensor."""
        use = self.thread_use(node)
        if use is None or use.what in _TENSOR_METHOD_USES:
            return None
        return use.what

    @remote_kind(CudaFact.CUDA_INIT)
    def initializes(self, node: ast.AST) -> str | None:
        """How `node` leaves CUDA initialized in the process: a sure CUDA use, a query that
        initializes the runtime (`INITIALIZING_QUERIES`), an NCCL process group."""
        if not isinstance(node, ast.Call):
            return None
        name = self.context.qualified_name(node.func, among=CUDA_NAMES)
        if name in DEFERRED_TORCH_CUDA:
            return None
        if name in INITIALIZING_QUERIES:
            if name in NVML_ANSWERED and self.context.shared(
                    NVML_CHECK, lambda: NVML_CHECK.encode() in self.context.source.data):
                return None  # the module asks NVML (`patch_environment(NVML_CHECK="1")`)
            return f"`{name}()` initializes CUDA"
        if name in NCCL_GROUPS:
            backend = self.context.evaluate(self.context.argument(node, 0, "backend"))
            return "an NCCL process group is made" if isinstance(backend, str) and \
                "nccl" in backend else None
        return self.sure_use(node)

    @remote_kind(CudaFact.CUDA_NEEDED)
    def needs_cuda(self, node: ast.AST) -> str | None:
        """How `node` needs a working CUDA runtime, as code a forked child runs: what
        `initializes` says but the device queries PyTorch answers without it
        (`is_available()`, `device_count()`; `set_device()` does need it); and a device
        chosen by `is_available()` (`available_devices`)."""
        if isinstance(node, ast.Call) and self.context.qualified_name(
                node.func, among=NVML_ANSWERED):
            return None
        return self.initializes(node) or self._available_device_use(node)

    def _available_device_use(self, node: ast.AST) -> str | None:
        """`.to(device)` or `torch.f(..., device=device)` where the device is chosen by
        `torch.cuda.is_available()`: CUDA in a child forked from a process holding CUDA
        (`available_devices`)."""
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            devices = self._to_targets(node)
        else:
            devices = [k.value for k in node.keywords if k.arg in _DEVICE_KEYWORDS]
            name = self.context.qualified_name(node.func, among=CUDA_NAMES) if devices else None
            if not (name and name.startswith("torch.")):
                return None
        device = next((d for d in devices if cuda_where_available(
            self.context, self.analysis, d)), None)
        return None if device is None else (
            f"`{ast.unparse(device)}` is CUDA wherever `torch.cuda.is_available()` is true, "
            "as it is in a child forked from a process holding CUDA")

    @remote_kind(CudaFact.HOST_SYNC)
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
        return None if allocates(node) else self.host_sync(node)

    def thread_use(self, node: ast.AST) -> Use | None:
        """Whether a call or loop, made by another thread, is CUDA work (and whether
        device-wide)."""
        if not isinstance(node, (ast.Call, ast.For, ast.AsyncFor)):
            return None
        key = id(node)
        if key not in self._uses:
            self._uses[key] = self._thread_use(node)
        return self._uses[key]

    def _pinning(self, node: ast.AST) -> Use | None:
        """Iterating a DataLoader made with pin_memory=True: each batch is copied into pinned
        host memory by the caching host allocator (cudaHostAlloc, CUDA event queries), in the
        iterating thread or, with workers, in the iterator's pin-memory thread."""
        made = pinning_loader(self.analysis, node)
        return None if made is None else Use(
            f"iterating the DataLoader made on line {made.lineno} (pin_memory=True) pins each "
            "batch through CUDA (cudaHostAlloc, event queries)")

    def _thread_use(self, node: ast.Call | ast.For | ast.AsyncFor) -> Use | None:
        if not isinstance(node, ast.Call):
            return self._pinning(iterated(self.analysis, node.iter))
        func = node.func
        if self._pins and last_name(func) in _ITERATOR_NAMES and node.args and \
                self.analysis.named(func, LOADER_ITERATORS):
            return self._pinning(iterated(self.analysis, node.args[0]))
        name = self.context.qualified_name(func, among=CUDA_NAMES)
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
            keyword = next(k.arg for k in node.keywords if k.arg in _DEVICE_KEYWORDS)
            return Use(f"`{name}({keyword}=\"cuda\")` allocates a CUDA tensor")
        if name and name.startswith("torch.") and any(
                keyword.arg == "pin_memory" and self.context.evaluate(keyword.value) is True
                for keyword in node.keywords) and not name.endswith("DataLoader"):
            return Use(f"`{name}(pin_memory=True)` allocates pinned memory through CUDA")
        return None

    def makes_cuda_tensor(self, call: ast.Call) -> bool:
        """`t.cuda()`, `t.to("cuda")`, `torch.zeros(..., device="cuda")`."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and not call.args:
            return True
        return self._moved_to_cuda(call) or self._made_on_cuda(
            call, self.context.qualified_name(func, among=CUDA_NAMES))

    def _moved_to_cuda(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Attribute) and call.func.attr == "to" and any(
            self.is_cuda_device(a) for a in self._to_targets(call))

    def _made_on_cuda(self, call: ast.Call, name: str | None) -> bool:
        """`torch.zeros(..., device="cuda")`, `torch.load(..., map_location="cuda")`."""
        device = next((k.value for k in call.keywords if k.arg in _DEVICE_KEYWORDS), None)
        return bool(name) and name.startswith("torch.") and self.is_cuda_device(device)

    @staticmethod
    def _to_targets(call: ast.Call) -> list[ast.AST]:
        return [*call.args[:1], *(k.value for k in call.keywords if k.arg == "device")]

    def is_cuda_device(self, node: ast.AST | None) -> bool:
        """Whether a device argument names a CUDA device (`"cuda:0"`, `torch.device("cuda")`)."""
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
        for node in checked_nodes(self.context, code, self._types):
            what = check(node)
            if what:
                return node, what, []
            callee = self.callee(node) if depth < LOCAL_DEPTH else None
            if callee is not None and id(callee) not in seen:
                inner = self._first_in(callee, check, depth + 1, seen | {id(callee)})
                if inner:
                    return inner[0], inner[1], [callee.name, *inner[2]]
            elif callee is None and isinstance(node, ast.Call):
                remote = self.remote(node.func, check)
                if remote is not None:
                    self._steps[id(node)] = remote
                    return node, located(remote[-1]), [ast.unparse(node.func)]
        return None

    def remote(self, func: ast.AST, check) -> tuple[Step, ...] | None:
        """The chain by which the project function that `func` names (in another module)
        reaches what `check` looks for; None when unknown or it does not."""
        kind = getattr(check, "remote_kind", None)
        return self.reach_of(func, kind) if kind else None

    def reach_of(self, func: ast.AST, kind: CudaFact) -> tuple[Step, ...] | None:
        """The chain by which the project function that `func` names (in another module)
        reaches a fact of `kind` (see `CudaReach`); None when unknown or it does not."""
        found = self.reached(func, kind)
        return None if found is None else found[0]

    def reached(self, func: ast.AST, kind: CudaFact):
        """`reach_of`'s chain and the fact it ends in (through a name or `self.attr` that
        stores another module's function: `self.step_fn = clip_and_step`, or holds an
        instance of a project `torch.nn.Module` class: its `forward`)."""
        if self.project is None:
            return None
        found = self._reached(func, kind)
        if found is None and (isinstance(func, ast.Name) or is_self_attribute(func)) and \
                self.project.may_reach(FORWARD, kind):  # (none before the facts: asked)
            found = self._forward_reached(func, kind)
        return found

    def _reached(self, func: ast.AST, kind: CudaFact):
        name = last_name(func)
        stored = None
        if name is not None and not self.project.may_reach(name, kind) and \
                self.project.reaching(kind):  # (none in a lint before the facts are gathered)
            bound = self._bound().get(name, ())  # (what it may hold, before resolving it)
            stored = self.stored(func) if any(self.project.may_reach(value, kind)
                                              for value in bound) else None
            name = last_name(stored) if stored is not None else \
                CALL_METHOD if self._instance_called(func, (kind,)) else None
        if name is None or not self.project.may_reach(name, kind):
            return None  # no project function of that name reaches it: nothing to resolve
        target = call_target(self.context, self.project, stored or func)
        if target is None and stored is None:  # a name of the same last name that stores it
            stored = self.stored(func)  # (`step = NormGatedOptimizer(params, inner).step`)
            target = None if stored is None else call_target(self.context, self.project,
                                                             stored)
        found = None if target is None else self.project.reached(*target, kind)
        if found is None or stored is None:
            return found
        step = Step(self.context.source.path, stored.lineno,
                    f"`{ast.unparse(func)}` is `{ast.unparse(stored)}`")
        return (step, *found[0]), found[1]

    def may_capture(self, *kinds: CudaFact) -> bool:
        """Whether a capture may begin where the module's code reaches: a region of the
        module (any mode), or a project function that reaches a fact of one of `kinds`
        (`GLOBAL_CAPTURE` by default). Every check that finds a capture finds one only there:
        the races of tasks and units, and the threads running at a capture, are none in a
        module without a region, in a project without such a function."""
        if self.analysis.regions:
            return True
        return self.project is not None and any(
            self.project.reaching(kind) for kind in kinds or (CudaFact.GLOBAL_CAPTURE,))

    def may_be_reached(self, func: ast.AST, kinds: Iterable[CudaFact]) -> bool:
        """Whether `reached(func, kind)` may be other than None for one of `kinds`: the test
        by names it makes before resolving anything (of `func`'s last name, or of what that
        name may hold), at one look for all of them."""
        if self.project is None:
            return False
        name = last_name(func)
        if name is None:
            return False
        kinds = tuple(kinds)
        reaching = self._reaching_any.get(kinds)
        if reaching is None:
            reaching = self._reaching_any[kinds] = frozenset().union(
                *(self.project.reaching(kind) for kind in kinds))
        if name in reaching:
            return True
        return bool(reaching) and (
            not reaching.isdisjoint(self._bound().get(name, ()))
            or (CALL_METHOD in reaching and self._instance_called(func, kinds))
            or (FORWARD in reaching and (isinstance(func, ast.Name) or is_self_attribute(func))))

    def _instance_called(self, func: ast.AST, kinds: tuple[CudaFact, ...]) -> bool:
        """Whether `func` (a name or `self.attr`) may be an instance that the module makes
        with a call (`runner = LazyGraphRunner(model)`, or the module's constructions of the
        class give `__init__` for `self.runner = runner`) where a project `__call__` reaches
        one of `kinds` (`call_target` resolves which class's)."""
        if not ((isinstance(func, ast.Name) or is_self_attribute(func)) and any(
                self.project.may_reach(CALL_METHOD, kind) for kind in kinds)):
            return False
        value = self.analysis.value_of(func)
        if isinstance(value, ast.Name) and is_self_attribute(func):
            return any(isinstance(self.analysis.value_of(given), ast.Call)
                       for given in constructor_arguments(self.context, value))
        return isinstance(value, ast.Call)

    def _forward_reached(self, func: ast.AST, kind: CudaFact):
        """`reached` for a call of an instance of a project `torch.nn.Module` class
        (`nn_modules`: bound once, annotated, or given by the class's constructions): its
        `forward`, which the module's `__call__` runs."""
        target = self.forward_target(func)
        return self.project.reached(*target, kind) if target else None

    def forward_target(self, func: ast.AST) -> tuple[str, str] | None:
        """The project's `forward` (path, qualified name) that calling `func`, an instance of
        a project `torch.nn.Module` class, runs (`_forward_reached`)."""
        if self._modules is None:
            self._modules = NnModules(self.context, self.analysis, self.project)
        held = self._modules.instance(func, lambda call: False)
        made = held and (held[0].func if isinstance(held[0], ast.Call) else held[0])
        cls = dotted(made) if made is not None else None
        value = self.analysis.value_of(func)
        if cls and isinstance(value, ast.Name) and is_self_attribute(func):  # given: all agree
            given = {dotted(built.func) if (built := constructed(self.analysis.value_of(v)))
                     else None for v in constructor_arguments(self.context, value)}
            cls = cls if given == {cls} else None
        return cls and self.project.method(os.path.abspath(self.context.source.path),
                                           linted_imports(self.context), cls, FORWARD) or None

    def stored(self, func: ast.AST) -> ast.AST | None:
        """The function a name or `self.attr` holds where the module binds it once to another
        name or dotted name (`self.step_fn = clip_and_step`; `fn = steps.drain`), or None."""
        if isinstance(func, ast.Name):
            name = func.id
        elif is_self_attribute(func):
            name = func.attr
        else:
            return None
        if name not in self._bound():  # (most calls' names are bound to no name)
            return None
        bound = self.analysis.value_of(func)
        if isinstance(bound, ast.Name) and is_self_attribute(func):  # `self.f = f` in __init__
            bound = _agreeing(self.context, constructor_arguments(self.context, bound)) or bound
        return bound if isinstance(bound, (ast.Name, ast.Attribute)) and bound is not func \
            else None

    def _bound(self) -> dict[str, set[str]]:
        if self._bound_names is None:
            self._bound_names = _names_bound_to_names(self.context)
        return self._bound_names

    def remote_region(self, call: ast.Call) -> Region | None:
        """The global-mode capture that a call of another module's function begins, named as
        messages name it: the call and where the capture begins (`graphs.record()
        (graphs.py:11)`; the chain shows how); None when it begins none."""
        steps = self.reach_of(call.func, CudaFact.GLOBAL_CAPTURE)
        if not steps:
            return None
        what = f"{ast.unparse(call.func)}() ({os.path.basename(steps[-1].path)}:{steps[-1].line})"
        return Region(call, (), GLOBAL, what, steps)

    def steps_for(self, node: ast.AST) -> tuple[Step, ...]:
        """The chain through other modules behind a node `first` returned (none if local)."""
        return self._steps.get(id(node), ())

    def _first_in(self, callee: ast.AST, check, depth: int, seen: frozenset[int]):
        """`first` over a callee's body, remembered per callee and check."""
        key = (id(callee), check.__name__)
        if key not in self._memo:
            self._memo[key] = self.first(body_of(callee), check, depth, seen)
        return self._memo[key]

    def callee(self, node: ast.AST) -> ast.AST | None:
        """The module's def that a call runs: `helper(...)`, `self.method(...)`, a function
        stored in a name or `self.attr` (`self.finish()`)."""
        if not isinstance(node, ast.Call) or not (isinstance(node.func, ast.Name)
                                                  or is_self_attribute(node.func)):
            return None
        key = id(node)
        if key not in self._callees:
            code = self.analysis.code_of(node.func)
            self._callees[key] = code if isinstance(code, FUNCTIONS) else None
        return self._callees[key]


def checked_nodes(context, code: Iterable[ast.AST], types: tuple[type, ...]) -> list[ast.AST]:
    """The nodes of `own_nodes(code)` a check answers for (`types`: `checked_types`), by position:
    listed once per tree for each body (every check of a function, and each index's, reads the
    same list; the module's functions were walked again for each)."""
    code = tuple(code)
    return context.derived((types, *map(id, code)), lambda: sorted(
        (n for n in own_nodes(code) if isinstance(n, types)), key=position))


def _names_bound_to_names(context) -> dict[str, set[str]]:
    """The names and `self` attributes the module assigns a name or dotted name to, with the
    last names of what it assigns them (`fn = steps.drain`: fn -> {drain}; `self.f = f` in
    `__init__`: also what the module's constructions of the class pass for `f`)."""
    bound: dict[str, set[str]] = {}
    for node in context.nodes(ast.Assign):
        if isinstance(node.value, (ast.Name, ast.Attribute)):
            for target in node.targets:
                if isinstance(target, ast.Name) or is_self_attribute(target):
                    name = target.id if isinstance(target, ast.Name) else target.attr
                    names = bound.setdefault(name, set())
                    names.add(last_name(node.value))
                    if isinstance(node.value, ast.Name) and isinstance(target, ast.Attribute):
                        names.update(last_name(value) for value in
                                     constructor_arguments(context, node.value)
                                     if isinstance(value, (ast.Name, ast.Attribute)))
    for values in bound.values():  # through names bound in turn (`g = fn`, `fn = steps.drain`)
        pending = list(values)
        while pending:
            for value in bound.get(pending.pop(), ()):
                if value not in values:
                    values.add(value)
                    pending.append(value)
    return bound


def _agreeing(context, values: list[ast.AST]) -> ast.AST | None:
    """The one name or dotted name `values` (arguments of several calls) all give, where
    each names the same binding (`drain` imported once; not two callers' locals `opt`)."""
    found = {(ast.dump(value), id(_root_binding(context, value))): value for value in values}
    return found.popitem()[1] if len(found) == 1 else None


def _root_binding(context, value: ast.AST) -> ast.AST | None:
    while isinstance(value, ast.Attribute):
        value = value.value
    return (context.definition(value) or context.scope_of(value)) \
        if isinstance(value, ast.Name) else value


def module_cuda_use(context) -> CudaUse:
    """The module's CudaUse without the project's facts (an index's own run), one per file
    for every index that summarizes it."""
    return context.shared("module-cuda-use",
                          lambda: CudaUse(context, capture_analysis(context)))


def through(path: list[str]) -> str:
    return "".join(f" through {name}()" for name in path)


def located(step: Step) -> str:
    """A fact found in another module, with its place."""
    return f"{step.note} (at {os.path.basename(step.path)}:{step.line})"


