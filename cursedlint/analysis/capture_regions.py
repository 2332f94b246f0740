"""CUDA graph capture regions of a Python module, with their capture mode.

`CaptureAnalysis` finds the body of `with torch.cuda.graph(...)`, the statements between
`g.capture_begin()` and `g.capture_end()`, CuPy's `stream.begin_capture()` ... `end_capture()`,
NVIDIA Warp's `with wp.ScopedCapture()` and `wp.capture_begin()` ... `wp.capture_end()` (on a
device not known to be the CPU, which Warp records without CUDA), and cuda-python's `cudaStreamBeginCapture` / `cuStreamBeginCapture` ... `End` in one block,
and calls of `make_graphed_callables` (which capture inside) and of a name or `self` attribute
the module binds once to a tensordict `CudaGraphModule` (one of which captures, lazily). A mode
the module does not show is None. `pinned_loader` says whether a value is a DataLoader that pins memory in a thread.
"""

from __future__ import annotations

import ast

from msgspec import Struct

from cursedlint.analysis.cuda_facts import CudaFact, remote_kind
from cursedlint.analysis.python_project import (
    CALL_METHOD, last_name, own_method, own_nodes, passed_values, scope_nodes, value_of,
)
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN

GLOBAL, THREAD_LOCAL, RELAXED = "global", "thread_local", "relaxed"
_MODE_NUMBERS = {0: GLOBAL, 1: THREAD_LOCAL, 2: RELAXED}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOCAL_DEPTH = 4
BEGINS_GLOBAL = " begins a global-mode capture"

GRAPH_CONTEXTS = frozenset({"torch.cuda.graph", "torch.cuda.graphs.graph"})
GRAPHED_CALLABLES = frozenset({"torch.cuda.make_graphed_callables",
                               "torch.cuda.graphs.make_graphed_callables"})
WARP_SCOPED = frozenset({"warp.ScopedCapture", "warp.utils.ScopedCapture",
                         "warp._src.utils.ScopedCapture"})
WARP_BEGINS = frozenset({"warp.capture_begin", "warp.context.capture_begin",
                         "warp._src.context.capture_begin"})
GRAPH_MODULES = frozenset({"tensordict.nn.CudaGraphModule",
                           "tensordict.nn.cudagraphs.CudaGraphModule"})
"""tensordict's wrapper (torchrl's `cudagraph_policy`): its `warmup`-th call captures the
wrapped callable with `torch.cuda.graph(graph, stream=...)`, global mode (tensordict
`nn/cudagraphs.py`, unchanged since the class was added in fc323e58a); later calls replay."""
REGION_TRIGGERS = ("capture_begin", "begin_capture", "BeginCapture", ("cuda", "graph("),
                   ("cuda", "graph as"), "make_graphed_callables", "ScopedCapture",
                   "CudaGraphModule")
"""`torch.cuda.graph(` however imported: `graph(`, `cuda_graph(`, or an alias (`graph as g`)."""
UNIT_TRIGGERS = (("asyncio", "gather"), "create_task", "ensure_future", "run_in_executor",
                 "to_thread")
"""Words of a module that runs coroutines or executor tasks beside each other
(`concurrent_units`): such a module may name no capture (its units' code, in other modules,
does)."""
REGION_WORDS = frozenset(word.encode() for word in REGION_TRIGGERS if isinstance(word, str))
GRAPH_NAMES = frozenset(name.rpartition(".")[2].encode() for name in GRAPH_CONTEXTS)


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
WARP_PAIRING = Pairing(frozenset({"capture_end"}), "wp.capture_begin()", (5, "capture_mode"),
                       THREAD_LOCAL, False)
"""Warp's module functions `capture_begin(device, stream, force_module_load, external, apic,
capture_mode)` and `capture_end(device, stream)`, paired by their first argument; Warp opens
captures in thread-local mode unless `capture_mode` says otherwise (`wp.CaptureMode`)."""


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
        return self.mode or "unknown"


def key(node: ast.AST) -> str:
    """An expression's text, the same wherever it is loaded or stored."""
    return ast.unparse(node)


def position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def body_of(scope: ast.AST) -> list[ast.AST]:
    """What a module, class, def or lambda runs: its statements, or a lambda's expression
    (read every scope's body through this: a lambda's is one node, not a list)."""
    return [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)


def own_calls(context, scope: ast.AST) -> list[ast.Call]:
    """The calls among `own_nodes(body_of(scope))`, in its order, listed once per tree for
    each scope (a function's thread starts, its joins and the callables it hands to threads
    were each looked for in a walk of its own)."""
    return context.derived((_OWN_CALLS, id(scope)), lambda: [
        node for node in scope_nodes(context, scope) if isinstance(node, ast.Call)])


_OWN_CALLS = "own-calls"


def never_rebound(function: ast.AST, names: set[str]) -> frozenset[str]:
    """Of a function's (or lambda's) parameter `names`, those its body never binds again."""
    if not names:
        return frozenset()
    stored = {node.id for node in own_nodes(body_of(function))
              if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    return frozenset(names - stored)


def _statement_call(statement: ast.stmt) -> ast.Call | None:
    """The call a statement makes: `f(...)`, `x = f(...)`, `check(f(...))`."""
    value = getattr(statement, "value", None) if isinstance(
        statement, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
    if not isinstance(value, ast.Call):
        return None
    if (last_name(value.func) not in _PAIR_NAMES and len(value.args) == 1
            and isinstance(value.args[0], ast.Call)):
        return value.args[0]
    return value


_PAIR_NAMES = frozenset(PAIRINGS).union(*(p.ends for p in PAIRINGS.values()))
_CALL_STARTS = frozenset(PAIRINGS) | {name.rpartition(".")[2] for name in GRAPHED_CALLABLES}
"""The last names of the calls `_read_call` may find a region begun by."""


def enclosing_class(context, node: ast.AST) -> ast.ClassDef | None:
    return next((a for a in context.ancestors(node) if isinstance(a, ast.ClassDef)), None)


def is_self_attribute(node: ast.AST) -> bool:
    return type(node) is ast.Attribute and type(node.value) is ast.Name \
        and node.value.id == "self"  # (asked per call: parsed nodes are no subclasses)


class CaptureAnalysis:
    """The capture regions of one module and what the module binds to names and attributes
    (shared by the CUR4xx rules of a file). The rules feed it the engine walk's `with`
    statements and calls, so it walks nothing itself; a region is kept once."""

    def __init__(self, context):
        self.context = context
        self.regions: list[Region] = []
        self._starts: set[int] = set()
        self._by_start: dict[int, Region] = {}
        self._values: dict[int, ast.AST | None] = {}  # (`value_of`: asked again of a node)
        self.graph_modules = self._graph_module_names() \
            if b"CudaGraphModule" in context.source.data else frozenset()
        """The names and `self` attributes the module assigns a `CudaGraphModule(...)` to."""
        self.callee_names = _CALL_STARTS | self.graph_modules  # (`visit_Call`'s, `Rule`'s)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        self._read_with(node)

    visit_AsyncWith = visit_With

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if self.graph_modules and (type(func) is ast.Name and func.id in self.graph_modules
                                   or is_self_attribute(func) and func.attr in self.graph_modules):
            self._read_graph_module(node)
        elif type(func) not in (ast.Attribute, ast.Name) or \
                self.context.imports.may_resolve_to(func, _CALL_STARTS):
            self._read_call(node)  # (a call of another name, not imported, begins nothing)

    def _read_with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and self.named(call.func, GRAPH_CONTEXTS):
                mode = self.mode(self.context.argument(call, 3, "capture_error_mode"), GLOBAL)
                self._add(Region(call, tuple(node.body), mode, "torch.cuda.graph"))
            elif isinstance(call, ast.Call) and self.named(call.func, WARP_SCOPED) and \
                    not self._on_cpu(call):
                mode = self.mode(self.context.argument(call, 5, "capture_mode"), THREAD_LOCAL)
                self._add(Region(call, tuple(node.body), mode, "wp.ScopedCapture"))

    def _read_call(self, node: ast.Call) -> None:
        pairing = PAIRINGS.get(last_name(node.func))
        if pairing is not None and self.named(node.func, WARP_BEGINS):
            pairing = None if self._on_cpu(node) else WARP_PAIRING
        if pairing is not None:
            region = self._paired(node, pairing)
            if region is not None:
                self._add(region)
        elif self.named(node.func, GRAPHED_CALLABLES):
            self._add(Region(node, (), GLOBAL, "torch.cuda.make_graphed_callables"))

    def _graph_module_names(self) -> frozenset[str]:
        found = set()
        for node in self.context.nodes(ast.Assign):
            if isinstance(node.value, ast.Call) and self.named(node.value.func, GRAPH_MODULES):
                found.update(target.id if isinstance(target, ast.Name) else target.attr
                             for target in node.targets
                             if isinstance(target, ast.Name) or is_self_attribute(target))
        return frozenset(found)

    def _read_graph_module(self, node: ast.Call) -> None:
        """A call of a `CudaGraphModule` the name or attribute holds (bound once: not a
        parameter rebound to one, `policy = CudaGraphModule(policy)` under the caller's flag)."""
        made = self.context.definition(node.func) if isinstance(node.func, ast.Name) else \
            self.value_of(node.func)
        if isinstance(made, ast.Call) and self.named(made.func, GRAPH_MODULES):
            self._add(Region(node, (), GLOBAL, "CudaGraphModule"))

    def _add(self, region: Region) -> None:
        if id(region.start) not in self._starts:
            self._starts.add(id(region.start))
            self.regions.append(region)
            self._by_start[id(region.start)] = region

    def _on_cpu(self, call: ast.Call) -> bool:
        """Whether a Warp capture's `device` (its first argument) is the CPU, where Warp
        records the calls itself and nothing is captured by CUDA."""
        device = self.context.argument(call, 0, "device")
        device = None if device is None else self.context.evaluate(device)
        return isinstance(device, str) and device.startswith("cpu")

    def region_at(self, node: ast.AST) -> Region | None:
        """The region `node` begins, or None."""
        return self._by_start.get(id(node))

    @remote_kind(CudaFact.GLOBAL_CAPTURE)
    def begins(self, node: ast.AST) -> str | None:
        """How `node` begins a global-mode capture, or None (a `CudaUse.first` check)."""
        region = self._by_start.get(id(node))
        if region is None or region.mode != GLOBAL:
            return None
        return f"{region.what}{BEGINS_GLOBAL}"

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
            if (end is not None and last_name(end.func) in pairing.ends
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
            return key(call.func.value) if isinstance(call.func, ast.Attribute) else None
        return key(call.args[0]) if call.args else None

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
        word = (last_name(node) or "").lower().replace("_", "")
        for suffix, mode in (("threadlocal", THREAD_LOCAL), ("relaxed", RELAXED),
                             ("global", GLOBAL)):
            if word.endswith(suffix):
                return mode
        return None

    # -- what names and attributes hold ----------------------------------------------------
    def value_of(self, node: ast.AST) -> ast.AST | None:
        """What `node` is bound to (`python_project.value_of`) for a name or `self.attr`;
        any other expression is itself."""
        if not (isinstance(node, ast.Name) or is_self_attribute(node)):
            return node
        key = id(node)
        if key not in self._values:  # (the callee's code and the module's work ask of each)
            self._values[key] = value_of(self.context, node)
        return self._values[key]

    own_method = staticmethod(own_method)

    def code_of(self, target: ast.AST | None, depth: int = 0) -> ast.AST | None:
        """The def or lambda a callable value runs: a module function, `self.method`, a
        lambda, `functools.partial(f, ...)`, the method of an instance of a module class
        (`runner.run`, `runner` made by `Runner(...)`, or taken by a loop over a list of
        them), such an instance itself (`runner`: its `__call__`); None when the module does not show it."""
        if target is None or depth > LOCAL_DEPTH:
            return None
        if isinstance(target, (ast.Lambda, *FUNCTIONS)):
            return target
        if isinstance(target, ast.Call) and self.named(target.func, PARTIAL) and target.args:
            return self.code_of(target.args[0], depth + 1)
        if isinstance(target, ast.Call):  # an instance of a module class: its `__call__`
            cls = self.module_class(target)
            return own_method(cls, CALL_METHOD) if cls is not None else None
        if isinstance(target, ast.Attribute) and not is_self_attribute(target):
            cls = self.module_class(self.constructor_of(target.value))
            return own_method(cls, target.attr) if cls is not None else None
        if isinstance(target, (ast.Name, ast.Attribute)):
            bound = self.value_of(target)
            return None if bound is target else self.code_of(bound, depth + 1)
        return None

    def module_class(self, call: ast.Call | None) -> ast.ClassDef | None:
        """The module's class that `call` constructs (`Runner(...)`), or None."""
        cls = self.context.definition(call.func) if call is not None and isinstance(
            call.func, ast.Name) else None
        return cls if isinstance(cls, ast.ClassDef) else None

    def constructor_of(self, node: ast.AST, depth: int = 0) -> ast.Call | None:
        """The call that made the object `node` is: a call itself, a name (or `self.attr`)
        bound once to one, a parameter of a module-level function that every call of it in
        the module passes such an object (made by calls of one callee: `passed_values`), or a
        loop's name over a list, tuple or comprehension whose items one call makes (`for
        runner in [Runner(size) for size in sizes]`); None when the module does not show one. (Whether it constructs a class is the caller's to ask.)"""
        if depth > LOCAL_DEPTH:
            return None
        if isinstance(node, ast.Call):
            return node
        if is_self_attribute(node):
            return self.constructor_of(self.value_of(node), depth + 1)
        if not isinstance(node, ast.Name):
            return None
        bound = self.value_of(node)
        if bound is not None:
            return self.constructor_of(bound, depth + 1)
        given = [self.constructor_of(value, depth + 1)
                 for value in passed_values(self.context, node)]
        if given and all(given) and len({key(call.func) for call in given}) == 1:
            return given[0]  # a parameter every call of the module's gives one call's object
        for ancestor in self.context.ancestors(node):
            loops = ancestor.generators if isinstance(ancestor, _COMPREHENSIONS) else \
                (ancestor,) if isinstance(ancestor, (ast.For, ast.AsyncFor)) else ()
            for loop in loops:
                items = _items_named(loop.target, loop.iter, node.id)
                if items is not None:
                    return self.item_constructor(items, depth + 1)
        return None

    def item_constructor(self, node: ast.AST, depth: int = 0) -> ast.Call | None:
        """The one call (by its callee's text) that makes the items of a list, tuple, set or
        comprehension (or of a name bound once to one)."""
        if depth > LOCAL_DEPTH:
            return None
        if isinstance(node, ast.Name) or is_self_attribute(node):
            bound = self.value_of(node)
            return self.item_constructor(bound, depth + 1) if bound is not None else None
        if isinstance(node, ast.Call):  # a container of modules (`nn.ModuleList([...])`)
            items = self.module_items(node)
            return self.item_constructor(items, depth + 1) if items is not None else None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.constructor_of(node.elt, depth + 1)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts:
            made = [self.constructor_of(item, depth + 1) for item in node.elts]
            if all(made) and len({key(call.func) for call in made}) == 1:
                return made[0]
        return None

    def module_items(self, call: ast.Call) -> ast.AST | None:
        """The modules a `torch.nn` container call holds, as what `item_constructor` reads:
        the list `nn.ModuleList(layers)` is given, the arguments of `nn.Sequential(a, b)` (or
        the list of `nn.Sequential(*layers)`), the values of the dict `nn.ModuleDict(heads)`
        is given, read through `heads.values()` (iterating the dict itself gives its keys)."""
        func, args = call.func, call.args
        if isinstance(func, ast.Attribute) and func.attr == "values" and not args and \
                not call.keywords:
            held = self.value_of(func.value)
            if not (isinstance(held, ast.Call) and len(held.args) == 1 and
                    self.named(held.func, MODULE_DICTS)):
                return None
            mapping = self.value_of(held.args[0])
            return ast.List(elts=list(mapping.values)) if isinstance(
                mapping, ast.Dict) and None not in mapping.keys else ast.ListComp(
                    mapping.value, mapping.generators) if isinstance(
                        mapping, ast.DictComp) else None
        if call.keywords or not args or last_name(func) not in _CONTAINERS or \
                not self.named(func, MODULE_LISTS):
            return None
        if len(args) == 1 and isinstance(args[0], ast.Starred):
            return args[0].value
        if len(args) == 1 and not self.named(func, SEQUENTIALS):  # ModuleList(layers)
            return args[0]
        return ast.List(elts=list(args)) if not any(
            isinstance(arg, ast.Starred) for arg in args) else None


SEQUENTIALS = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})
MODULE_LISTS = SEQUENTIALS | {"torch.nn.ModuleList", "torch.nn.modules.container.ModuleList"}
"""`torch.nn` containers whose iteration gives their modules (a `Sequential`'s call runs them
in turn)."""
MODULE_DICTS = frozenset({"torch.nn.ModuleDict", "torch.nn.modules.container.ModuleDict"})
_CONTAINERS = frozenset({"ModuleList", "Sequential"})


def _items_named(target: ast.AST, items: ast.AST, name: str) -> ast.AST | None:
    """What a loop `for target in items` takes `name` from: `items` itself for a plain name;
    the i-th argument of `zip(...)`, or the iterable of `enumerate(...)` for the second name
    of a pair, where `name` is the i-th of a tuple target; else None."""
    if isinstance(target, ast.Name):
        return items if target.id == name else None
    if not (isinstance(target, ast.Tuple) and isinstance(items, ast.Call)
            and isinstance(items.func, ast.Name) and not items.keywords):
        return None
    index = next((i for i, elt in enumerate(target.elts)
                  if isinstance(elt, ast.Name) and elt.id == name), None)
    if index is None:
        return None
    if items.func.id == "zip" and len(items.args) == len(target.elts):
        return items.args[index]
    if items.func.id == "enumerate" and len(target.elts) == 2 and index == 1 and items.args:
        return items.args[0]
    return None


PARTIAL = frozenset({"functools.partial"})
END = (float("inf"), 0)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def capture_check(starts: dict[int, Region], syncing: frozenset[str]):
    """A check (for `CudaUse.first` and `ThreadStarts.reached`) for the start of a region
    (`starts`: by the id of its start) in global mode, or of one whose entry synchronizes the
    device (`Region.what` in `syncing`); named by what it finds (`CudaUse` remembers a
    callee's answer per check name)."""
    def begins_capture(node: ast.AST) -> str | None:
        region: Region | None = starts.get(id(node))
        if region is None or not (region.mode == GLOBAL or region.what in syncing):
            return None
        return f"{region.what} begins a capture ({region.mode_words} mode)"

    begins_capture.__name__ = "begins_capture_" + "_".join(sorted(syncing))
    begins_capture.remote_kind = CudaFact.GLOBAL_CAPTURE
    return begins_capture


def capture_analysis(context) -> CaptureAnalysis:
    """The file's analysis, built once for all CUR4xx rules."""
    return context.shared(CaptureAnalysis, lambda: CaptureAnalysis(context))


DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


LOADER_ITERATORS = frozenset({"builtins.iter", "itertools.cycle", "itertools.islice"})
"""Calls that take a loader's iterator when made."""
LOADER_WRAPPERS = frozenset({"builtins.enumerate", "builtins.zip", "itertools.cycle",
                             "itertools.islice"})
"""Calls whose iteration iterates their first argument."""


def iterated(analysis: CaptureAnalysis, node: ast.AST) -> ast.AST:
    """What iterating `node` iterates: `loader` for `enumerate(loader)`, `cycle(loader)`,
    `islice(loader, n)` (and the first argument of `zip`)."""
    if isinstance(node, ast.Call) and node.args and analysis.named(node.func, LOADER_WRAPPERS):
        return node.args[0]
    return node


def pinning_loader(analysis: CaptureAnalysis, node: ast.AST) -> ast.Call | None:
    """The DataLoader call of the module `node` refers to, when it pins its batches
    (pin_memory=True): in the thread iterating it, or in a pin-memory thread with workers."""
    context = analysis.context
    made = node if isinstance(node, ast.Call) else analysis.value_of(node)
    if not (isinstance(made, ast.Call) and analysis.named(made.func, DATA_LOADERS)):
        return None
    return made if context.evaluate(context.argument(made, 7, "pin_memory")) is True else None


def pinned_loader(analysis: CaptureAnalysis, node: ast.AST) -> ast.Call | None:
    """The DataLoader call of the module `node` refers to, when it pins memory in a background
    thread (pin_memory=True and worker processes)."""
    context = analysis.context
    made = pinning_loader(analysis, node)
    if made is None:
        return None
    workers_node = context.argument(made, 5, "num_workers")
    workers = context.evaluate(workers_node) if workers_node is not None else 0
    if workers is UNKNOWN or (isinstance(workers, int) and workers > 0):
        return made
    return None
