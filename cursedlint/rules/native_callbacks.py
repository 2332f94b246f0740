"""CUR2xx: Python callables handed to C as CUDA driver callbacks (Python).

CUR201 follows a Python callable (lambda, def, bound method, `functools.partial`, an instance of a
class with `__call__`) to an argument of a CUDA API that calls host code back, directly, through
local names, a ctypes prototype (`CFUNCTYPE(...)(f)`), `ctypes.cast`, a host-node parameter
struct's `fn` field, one level of parameter passing inside the module, and helpers of other
modules of the project that hand a parameter to such an API (the `CALLBACK_HELPERS` index).
The APIs are the data
in `CALLBACK_APIS` (option `extra-apis` adds names). CUR202 finds ctypes callback objects that a
foreign function keeps for later while only a temporary or a local refers to them. Both follow
values with `CallbackTracer`; a value whose nature the module does not show (a parameter nobody
in the module passes a callable to, a decorated function, an attribute of an unknown object) is
not a finding.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache

from msgspec import Struct

from cursedlint.analysis.python_project import (
    MAX_DEPTH, FunctionIndexer, ProjectFunctions, Reach, call_target, dotted, last_name,
    linted_imports, own_nodes, project_functions, project_names, value_of,
)
from cursedlint.findings import Step
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rule import NAME_GLOB, PYTHON_NAME, Example, Option, Rule
from cursedlint.second_look import AnyOf, MethodCall, Names

# -- the APIs --------------------------------------------------------------------------------


class Callback(Struct, frozen=True):
    """When the driver calls a host callback, and how to replace a Python one."""

    when: str
    fix: str


OCCUPANCY = Callback(
    "from inside the call while holding a driver lock",
    "pass a compiled function instead: `numba.cfunc(sig)(f).address` (or `.ctypes`), or a C "
    "function from a loaded shared library",
)
HOST_FUNCTION = Callback(
    "later, from the driver's callback thread, blocking the stream until it returns",
    "record an event after the work and do the Python part on a host thread that waits for "
    "it, or enqueue a compiled function (`numba.cfunc(sig)(f).address`)",
)
CONFIGURED = Callback(
    "back from the driver",
    "pass a compiled function instead: `numba.cfunc(sig)(f).address`, or a C function",
)
DESTRUCTOR = Callback(
    "from a shared internal driver thread when the object's last reference goes",
    "pass a compiled destructor (`numba.cfunc(sig)(f).address`, or a C function)",
)


class CallbackApi(Struct, frozen=True):
    """A function that passes a callable on to the driver. `slot` is the callback's (index,
    keyword), for APIs whose other arguments may be any Python object; None: any argument (the
    C functions, whose argument order differs between ctypes, cuda-python and numba). With
    `stream_method`, the name is a method found only on a CuPy or Numba stream object."""

    callback: Callback
    slot: tuple[int, str] | None = None
    stream_method: bool = False


_ANY_OCCUPANCY = CallbackApi(OCCUPANCY)
_ANY_HOST_FUNCTION = CallbackApi(HOST_FUNCTION)
CALLBACK_APIS: dict[str, CallbackApi] = {
    # driver and runtime C API, through ctypes (`libcuda.cuLaunchHostFunc`), cuda-python
    # (`cuda.cuda`, `cuda.cudart`, `cuda.bindings.driver/runtime`) or numba's `driver` object
    "cuOccupancyMaxPotentialBlockSize": _ANY_OCCUPANCY,
    "cuOccupancyMaxPotentialBlockSizeWithFlags": _ANY_OCCUPANCY,
    "cudaOccupancyMaxPotentialBlockSizeVariableSMem": _ANY_OCCUPANCY,
    "cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags": _ANY_OCCUPANCY,
    "cuLaunchHostFunc": _ANY_HOST_FUNCTION,
    "cudaLaunchHostFunc": _ANY_HOST_FUNCTION,
    "cuStreamAddCallback": _ANY_HOST_FUNCTION,
    "cudaStreamAddCallback": _ANY_HOST_FUNCTION,
    "cuGraphAddHostNode": _ANY_HOST_FUNCTION,
    "cudaGraphAddHostNode": _ANY_HOST_FUNCTION,
    "cuGraphHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cudaGraphHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cuGraphExecHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cudaGraphExecHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cuUserObjectCreate": CallbackApi(DESTRUCTOR),
    "cudaUserObjectCreate": CallbackApi(DESTRUCTOR),
    # numba's driver wrapper: Context.get_max_potential_block_size (the incident's call)
    "get_max_potential_block_size": CallbackApi(OCCUPANCY, (1, "b2d_func")),
    # CuPy's runtime module (`cupy.cuda.runtime`) takes the Python callable itself
    "launchHostFunc": CallbackApi(HOST_FUNCTION, (1, "callback")),
    "streamAddCallback": CallbackApi(HOST_FUNCTION, (1, "callback")),
    # CuPy and Numba stream objects
    "add_callback": CallbackApi(HOST_FUNCTION, (0, "callback"), stream_method=True),
    "launch_host_func": CallbackApi(HOST_FUNCTION, (0, "callback"), stream_method=True),
}
"""Function name (the last part of the called name) -> how it passes a callback on."""

STREAM_FACTORIES = frozenset({
    "cupy.cuda.Stream", "cupy.cuda.ExternalStream", "cupy.cuda.get_current_stream",
    "cupy.cuda.stream.Stream", "cupy.cuda.stream.ExternalStream",
    "cupy.cuda.stream.get_current_stream", "numba.cuda.stream", "numba.cuda.default_stream",
    "numba.cuda.legacy_default_stream", "numba.cuda.per_thread_default_stream",
    "numba.cuda.external_stream",
})
STREAM_OBJECTS = frozenset({
    "cupy.cuda.Stream.null", "cupy.cuda.Stream.ptds", "cupy.cuda.stream.Stream.null",
    "cupy.cuda.stream.Stream.ptds",
})
HOST_NODE_PARAMS = frozenset({"CUDA_HOST_NODE_PARAMS", "CUDA_HOST_NODE_PARAMS_v1",
                              "cudaHostNodeParams"})
"""Struct types whose `fn` field the driver calls when a graph host node runs."""

PROTOTYPE_FACTORIES = frozenset({"ctypes.CFUNCTYPE", "ctypes.PYFUNCTYPE", "ctypes.WINFUNCTYPE"})
KNOWN_PROTOTYPES = frozenset({
    "numba.cuda.cudadrv.drvapi.cu_occupancy_b2d_size",
    "numba.cuda.cudadrv.drvapi.cu_stream_callback_pyobj",
})
FUNCTION_POINTER_TYPES = frozenset({"CUhostFn", "cudaHostFn_t", "CUstreamCallback",
                                    "cudaStreamCallback_t", "CUoccupancyB2DSize"})
"""Callback types of cuda-python (`cudaHostFn_t(_ptr=address)`, `CUhostFn(address)`) and
common ctypes spellings: called with one value, they pass it through."""

_METHOD_DECORATORS = frozenset({"staticmethod", "classmethod"})
_PARTIAL = frozenset({"functools.partial"})
_CASTS = frozenset({"ctypes.cast", "ctypes.addressof"})
_MAX_DEPTH = 8
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _parameters(function: ast.AST) -> list[str]:
    arguments = function.args
    return [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]


# -- where a value comes from ----------------------------------------------------------------


class Flow(Struct, frozen=True):
    """What reaches a callback slot: a Python callable (`origin`, described by `what`) or, when
    `parameter` is set, whatever the callers of `function` pass for that parameter. `wrap` is
    the ctypes prototype call that made a C function pointer of it, if any."""

    origin: ast.AST
    what: str
    wrap: ast.Call | None = None
    parameter: str | None = None

    def wrapped(self, wrap: ast.Call) -> "Flow":
        return self if self.wrap else Flow(self.origin, self.what, wrap, self.parameter)


class Helper(Struct, frozen=True):
    """A function of the module that hands its `parameter` to `api` at `site`."""

    function: ast.AST
    parameter: str
    site: ast.AST
    api: str
    callback: Callback


class CallbackTracer:
    """Follows a value back to a Python callable through the module (shared by the rules)."""

    def __init__(self, context):
        self.context = context

    def trace(self, node: ast.AST | None, depth: int = 0) -> Flow | None:
        """Where the value of `node` comes from, when the module shows it is a Python callable
        or a function's parameter; None when unknown or compiled."""
        if node is None or depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Lambda):
            return Flow(node, f"lambda on line {node.lineno}")
        if isinstance(node, ast.Name):
            return self._trace_name(node, depth)
        if isinstance(node, ast.Attribute):
            if node.attr == "value":
                return self.trace(self.unwrapped(node), depth + 1)  # ctypes.cast(cb, T).value
            method = self.own_method(node)
            return self._function(method, f"method self.{node.attr}") if method else None
        if isinstance(node, ast.Call):
            return self._trace_call(node, depth)
        return None

    def _trace_name(self, node: ast.Name, depth: int) -> Flow | None:
        scope = self.context.evaluator.binding_scope(node.id, node)
        if isinstance(scope, _FUNCTIONS) and node.id in _parameters(scope):
            return Flow(scope, node.id, parameter=node.id)
        bound = self.context.definition(node)
        if isinstance(bound, _FUNCTIONS):
            return self._function(bound, f"Python function {bound.name}()")
        if isinstance(bound, ast.ClassDef):
            return None
        return self.trace(bound, depth + 1)

    def _function(self, function: ast.AST, label: str) -> Flow | None:
        """A def as a callback: Python, plain or under ctypes prototype decorators
        (`@CFUNCTYPE(...)`, numba's `@cu_stream_callback_pyobj`); unknown under any other
        decorator (`@numba.cfunc(sig)` compiles it)."""
        decorators = [d for d in function.decorator_list
                      if not (isinstance(d, ast.Name) and d.id in _METHOD_DECORATORS)]
        if not all(self._is_prototype(decorator) for decorator in decorators):
            return None
        how = " (a C pointer by its decorator)" if decorators else ""
        return Flow(function, f"{label} (line {function.lineno}){how}")

    def _trace_call(self, node: ast.Call, depth: int) -> Flow | None:
        if self.context.qualified_name(node.func, among=_PARTIAL):
            return Flow(node, f"functools.partial on line {node.lineno}")
        if self.is_wrap(node):
            inner = self.trace(node.args[0], depth + 1)
            return inner.wrapped(node) if inner else None
        inner = self.unwrapped(node)
        if inner is not None:
            return self.trace(inner, depth + 1)
        instance_of = self._callable_class(node.func)
        if instance_of is not None:
            return Flow(node, f"{instance_of.name} instance on line {node.lineno} "
                              "(called through __call__)")
        return None

    def unwrapped(self, node: ast.AST) -> ast.AST | None:
        """The value a pointer conversion passes on: `ctypes.cast(cb, T)`, `ctypes.addressof(cb)`,
        `<call>.value`, cuda-python's `CUhostFn(address)` / `cudaHostFn_t(_ptr=address)`."""
        if isinstance(node, ast.Attribute):
            return node.value if node.attr == "value" and isinstance(node.value, ast.Call) else None
        if not isinstance(node, ast.Call):
            return None
        if self.context.qualified_name(node.func, among=_CASTS) and node.args:
            return node.args[0]
        if last_name(node.func) in FUNCTION_POINTER_TYPES:
            only = [*node.args, *(keyword.value for keyword in node.keywords)]
            return only[0] if len(only) == 1 else None
        return None

    def is_wrap(self, node: ast.AST) -> bool:
        """Whether `node` makes a ctypes callback object: `Prototype(callable)`."""
        return (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and self._is_prototype(node.func))

    def _is_prototype(self, func: ast.AST) -> bool:
        """A ctypes function pointer type: `CFUNCTYPE(...)`, a name bound to one, or numba's
        driver prototypes."""
        if isinstance(func, ast.Call):
            return self.context.qualified_name(func.func, among=PROTOTYPE_FACTORIES) is not None
        if self.context.qualified_name(func, among=KNOWN_PROTOTYPES):
            return True
        if isinstance(func, ast.Name):
            bound = self.context.definition(func)
            if isinstance(bound, ast.Call):
                return self._is_prototype(bound)
        return False

    def _callable_class(self, func: ast.AST) -> ast.ClassDef | None:
        """The module's class that `func` names, when it defines `__call__`."""
        bound = self.context.definition(func) if isinstance(func, ast.Name) else None
        if isinstance(bound, ast.ClassDef) and any(
            isinstance(item, _FUNCTIONS) and item.name == "__call__" for item in bound.body
        ):
            return bound
        return None

    def own_method(self, node: ast.AST) -> ast.AST | None:
        """The def of `self.name` in the class enclosing `node`."""
        if not _on_self(node):
            return None
        cls = next((a for a in self.context.ancestors(node) if isinstance(a, ast.ClassDef)), None)
        if cls is None:
            return None
        return next((item for item in cls.body
                     if isinstance(item, _FUNCTIONS) and item.name == node.attr), None)


class CallbackHelpers(FunctionIndexer):
    """Per function of the project's modules: which of its parameters it hands to a CUDA API
    that calls back (kind `callback:<position>:<name>`), found by CUR201's own reading of the
    module (default options)."""

    name = "callback-helpers"

    def words(self, settings):
        rule = PythonCallbackIntoCuda
        return rule.triggers_for(rule.resolved_options(settings.rule_options.get(rule.code)))

    def seed_words(self, context):
        """The helpers a file that needs the facts may call: what it takes from the project."""
        return project_names(context)

    def trigger_words(self, facts):
        """The project's helpers that hand a parameter to a callback API, or on to another
        helper: a callable passed to one is a callback."""
        return helper_names(facts)

    def more_words(self, facts, settings):
        """The helpers found so far: a module that calls one may hand a parameter on to it.
        (`facts` still grows: not `helper_names`, which keeps its answer.)"""
        return _helper_names(facts)

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        helpers = context.shared(CallbackHelpers, lambda: _module_helpers(context))
        facts = {
            f"{CALLBACK}{_parameters(function).index(helper.parameter)}:{helper.parameter}": Reach(
                helper.site.lineno, f"`{helper.parameter}` reaches {helper.api}, which calls it "
                f"{helper.callback.when}")
            for helper in helpers if helper.function is function
        }
        if not isinstance(function, ast.Module):
            facts.update(_forwards(context, function, facts))
        return facts


def helper_names(facts: dict) -> frozenset[str]:
    """The names of the functions (path -> ModuleSummary of `CALLBACK_HELPERS`) that hand a
    parameter to a callback API, themselves or through the helpers they hand it on to
    (computed once for the run's final facts)."""
    if _HELPER_NAMES[0] is not facts:
        _HELPER_NAMES[:] = [facts, _helper_names(facts)]
    return _HELPER_NAMES[1]


_HELPER_NAMES: list = [None, frozenset()]  # the last facts asked about, and their names


def _helper_names(facts: dict) -> frozenset[str]:
    project = ProjectFunctions(facts)
    return frozenset(
        qualname.rpartition(".")[2] for path, summary in facts.items()
        for qualname, function in summary.functions.items()
        if any(kind.startswith(CALLBACK) or kind.startswith(FORWARDS) and
               _callback_chain(project, path, qualname, kind, 0) for kind in function.facts))


CALLBACK, FORWARDS = "callback:", "forwards:"
"""Fact kinds: `callback:<position>:<parameter>`, the parameter reaches a callback API;
`forwards:<position>:<parameter>`, it is handed to an imported function (`Reach.detail`:
`callee|argument position|keyword`), which may hand it on."""


def _forwards(context, function: ast.AST, facts: dict) -> dict[str, Reach]:
    """The function's parameters (not already facts) handed as they are to a function the
    module imports: the first call of each."""
    parameters = _parameters(function)
    imported = linted_imports(context)
    found: dict[str, Reach] = {}
    for node in own_nodes(function.body):
        callee = dotted(node.func) if isinstance(node, ast.Call) else None
        if callee is None or callee.partition(".")[0] not in imported:
            continue
        passed = [(str(i), "", a) for i, a in enumerate(node.args)] + \
            [("", k.arg, k.value) for k in node.keywords if k.arg]
        for position, keyword, argument in passed:
            if isinstance(argument, ast.Name) and argument.id in parameters:
                kind = f"{FORWARDS}{parameters.index(argument.id)}:{argument.id}"
                if kind not in found and kind.replace(FORWARDS, CALLBACK) not in facts:
                    found[kind] = Reach(node.lineno, f"passes `{argument.id}` to {callee}()",
                                        detail=f"{callee}|{position}|{keyword}")
    return found


def _module_helpers(context) -> list[Helper]:
    """The module's functions that hand a parameter to a callback API (CUR201's walk; an error
    in it is the summary's, reported as CUR000)."""
    rule = PythonCallbackIntoCuda(context, context.settings.rule_options.get("CUR201"))
    context.walk([rule], _raise)
    return rule.helpers


def _raise(rule, error: BaseException):
    raise error


CALLBACK_HELPERS = CallbackHelpers()


class PythonCallbackIntoCuda(Rule):
    """## What it does
    Finds a Python callable (lambda, function, bound method, `functools.partial`, an instance
    with `__call__`) that reaches a CUDA API which calls host code back: the occupancy
    calculators (`cuOccupancyMaxPotentialBlockSize[WithFlags]`, numba's
    `get_max_potential_block_size`), host functions and stream callbacks (`cuLaunchHostFunc`,
    `cuStreamAddCallback` and their runtime twins, CuPy's `launchHostFunc`/`streamAddCallback`,
    `Stream.launch_host_func`/`add_callback` of CuPy and Numba streams), graph host nodes (the
    `fn` field of `CUDA_HOST_NODE_PARAMS`/`cudaHostNodeParams`) and user-object destructors
    (`cuUserObjectCreate`), through ctypes, cuda-python or numba's driver. The callable is
    followed through local names, ctypes prototypes (`CFUNCTYPE(...)(f)`), `ctypes.cast`, one
    level of parameter passing inside the module, and into the project's other modules through
    helpers that hand their parameter to the driver or on to another module's such helper (to
    the project model's depth): a caller that passes a callable is a finding, with the chain. Streams are CuPy and Numba streams the module makes, in a name or in a `self`
    attribute its class assigns. The option `extra-apis` adds
    function names (any argument may be the callback). Compiled callbacks
    (`numba.cfunc(...).address`, functions of a loaded library, integer addresses) and values
    of unknown nature are not findings. A callable that reaches the call through `*args` or
    `**kwargs` (a tuple, list or dict bound before it) is reported at that call, its own line
    in the chain.

    ## Why it is cursed
    The driver calls the callback while it holds its own locks (the occupancy calculator
    inside the call; host functions on its callback thread, with the stream blocked). A ctypes
    or CuPy trampoline must take the GIL before it can run Python. If another thread holds the
    GIL while it waits for that driver lock (a CUDA call from C or Cython that does not release
    the GIL) or for that stream, neither can proceed: the process hangs. Incident 002: numba
    0.45 passed `lambda tpb: 0` to `cuOccupancyMaxPotentialBlockSize`; RAPIDS spent weeks in
    GDB on the resulting deadlock between the GIL and a `pthread_rwlock` of libcuda. Reproduced
    on an H100 (driver 580): while such a callback runs, a thread that holds the GIL and calls
    `cuMemAlloc`, `cuModuleLoadData` or the occupancy calculator hangs, and so does the process.

    ## Example
    ```python
    from numba import cuda

    ctx = cuda.current_context()
    grid, block = ctx.get_max_potential_block_size(kernel, lambda tpb: 0, 0, 1024)
    ```

    ## Fix
    Pass a compiled function that never needs the GIL: `numba.cfunc("uintp(int32)")(f).address`
    (or `.ctypes`), a C function from a shared library, or `0` for none. For stream callbacks,
    record an event after the work and do the Python part on a host thread that waits for it.

    ## References
    - Incident 002, "Debugging a Mixed Python and C Language Stack" (NVIDIA blog):
      https://developer.nvidia.com/blog/debugging-mixed-python-and-c-language-stack/
    - Numba PR #4581, the fix: https://github.com/numba/numba/pull/4581
    - Driver API, occupancy (`CUoccupancyB2DSize` callback):
      https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__OCCUPANCY.html
    - Runtime API, `cudaLaunchHostFunc`, `cudaStreamAddCallback` (callbacks must not call
      CUDA, run in stream order) and `cudaUserObjectCreate` (destructor on a shared internal
      thread): https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - Host node parameters (`fn` is called when the node executes):
      https://docs.nvidia.com/cuda/cuda-driver-api/cuda_driver_api/structCUDA__HOST__NODE__PARAMS__v1.html
    - CuPy `Stream.launch_host_func`, `add_callback`, `cupy.cuda.runtime.launchHostFunc`:
      https://docs.cupy.dev/en/stable/reference/generated/cupy.cuda.Stream.html
    - cuda.core `host_launch` (a ctypes callback wrapping Python takes the GIL and is subject
      to the same deadlock): https://nvidia.github.io/cuda-python/cuda-core/latest/
    """

    code = "CUR201"
    name = "python-callback-into-cuda"
    languages = ("python",)
    indexer = CALLBACK_HELPERS
    triggers = (*CALLBACK_APIS, *HOST_NODE_PARAMS)
    summary = "a Python callable passed to a CUDA API that calls it back while holding a lock"
    options = {
        "extra-apis": Option(
            (list, tuple),
            (),
            "more function names that hand a callable to the CUDA driver (any argument may be "
            "the callback), e.g. a project's own ctypes wrapper.",
            item=str, form=PYTHON_NAME,
        )
    }

    @classmethod
    def triggers_for(cls, options):
        return (*cls.triggers, *options["extra-apis"])

    @classmethod
    def look(cls, options, target_python, language):
        """Every API and struct is recognized by its whole name (as called, as imported under
        an alias, or as constructed), never as part of a longer name (`_add_callback`)."""
        return Names(frozenset(word.encode() for word in cls.triggers_for(options)))

    valid = (
        """
        import numba
        from numba import cuda

        @numba.cfunc("uintp(int32)")
        def no_shared_memory(block_size):
            return 0

        ctx = cuda.current_context()
        grid, block = ctx.get_max_potential_block_size(kernel, no_shared_memory.address, 0, 1024)
        """,
        """
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        libc.qsort(items, len(items), 8, compare(lambda a, b: 0))
        """,
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        helpers = ctypes.CDLL("./libhelpers.so")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        mark_done = ctypes.cast(helpers.mark_done, ctypes.c_void_p).value
        libcuda.cuLaunchHostFunc(stream, HostFn(mark_done), None)
        libcuda.cuLaunchHostFunc(stream, HostFn(0x7F00DEAD0000), None)
        """,
        """
        class Scheduler:
            def add_callback(self, callback):
                self.pending.append(callback)

        Scheduler().add_callback(lambda: print("done"))
        """,
        """
        from cuda.bindings import driver

        def enqueue(stream, host_fn, data):
            driver.cuLaunchHostFunc(stream, host_fn, data)
        """,
    )
    invalid = (
        """
        from numba import cuda

        ctx = cuda.current_context()
        grid, block = ctx.get_max_potential_block_size(k, lambda tpb: 0, 0, 1024)  # error: CUR201
        """,
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

        def release(data):
            print("batch done")

        libcuda.cuLaunchHostFunc(stream, HostFn(release), None)  # error: CUR201, CUR202
        """,
        """
        import cupy

        def on_done(arg):
            print("copied", arg)

        stream = cupy.cuda.Stream(non_blocking=True)
        stream.launch_host_func(on_done, "batch 3")  # error: CUR201
        """,
        """
        import ctypes
        from numba.cuda.cudadrv.driver import driver
        from numba.cuda.cudadrv.drvapi import cu_occupancy_b2d_size

        def best_block(kernel, shared_bytes_for):
            grid, block = ctypes.c_int(), ctypes.c_int()
            b2d = cu_occupancy_b2d_size(shared_bytes_for)
            driver.cuOccupancyMaxPotentialBlockSize(
                ctypes.byref(grid), ctypes.byref(block), kernel.handle, b2d, 0, 1024)
            return block.value

        threads = best_block(kernel, lambda tpb: 4 * tpb)  # error: CUR201
        """,
        Example(
            """
            import ctypes
            from mylib import gpu

            HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
            gpu.enqueue_host(stream, HostFn(lambda data: None))  # error: CUR201
            """,
            settings={"options": {"extra-apis": ["enqueue_host"]}},
        ),
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        extra = CallbackApi(CONFIGURED)
        self.apis = dict(CALLBACK_APIS) | {name: extra for name in self.option["extra-apis"]}
        self.helpers: list[Helper] = []
        self.calls: list[ast.Call] = []  # calls of plain names and self.<method>
        self.reported: set[int] = set()
        self.tracer = CallbackTracer(context)

    # -- the walk ------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        name = self._api_name(node.func)
        api = self.apis.get(name)
        if api is None:
            if isinstance(node.func, (ast.Name, ast.Attribute)):
                self.calls.append(node)
            return
        if api.stream_method and not self._is_stream(node.func):
            return
        arguments = self.context.arguments(node)
        if api.slot is None:
            candidates = arguments.values()
        else:
            candidates = [arguments.get(*api.slot)]
        for argument in candidates:
            if argument is not None and argument is not UNKNOWN:
                self._follow(argument, name, api.callback, node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """`params.fn = callable` on a host-node parameter struct."""
        for target in node.targets:
            if (isinstance(target, ast.Attribute) and target.attr == "fn"
                    and self._is_host_node_params(target.value)):
                self._follow(node.value, "a graph host node", HOST_FUNCTION)

    def visit_keyword(self, node: ast.keyword) -> None:
        """`cudaHostNodeParams(fn=callable, ...)`."""
        if node.arg == "fn":
            call = self.context.parent_of(node)
            if isinstance(call, ast.Call) and last_name(call.func) in HOST_NODE_PARAMS:
                self._follow(node.value, "a graph host node", HOST_FUNCTION)

    def check(self) -> None:
        """The one-level interprocedural case: callers passing a callable to a helper's
        parameter that the helper hands to the driver."""
        project = project_functions(self.context, CALLBACK_HELPERS)
        own_helpers = {helper.function.name for helper in self.helpers}
        project_helpers = helper_names(self.project_facts) if project is not None \
            else frozenset()
        for call in self.calls:
            if last_name(call.func) in own_helpers:  # a helper's call names its def
                callee = self._callee(call)
                for helper in self.helpers:
                    if helper.function is callee:
                        self._check_caller(call, helper)
            elif last_name(call.func) in project_helpers:
                self._check_project_caller(call, project)

    def _check_project_caller(self, call: ast.Call, project) -> None:
        """A call of another module's function that hands a parameter to a callback API,
        itself or through the helpers of further modules it hands it on to."""
        target = call_target(self.context, project, call.func)
        function = project.summaries[target[0]].functions.get(target[1]) if target else None
        if function is None or "." in target[1]:
            return  # methods of other modules' classes: their receiver is not followed yet
        for kind in function.facts:
            if not kind.startswith((CALLBACK, FORWARDS)):
                continue
            _, index, parameter = kind.split(":")
            chain = _callback_chain(project, *target, kind, 0)
            argument = self.context.argument(call, int(index), parameter) if chain else None
            flow = None if argument in (None, UNKNOWN) else self.tracer.trace(argument)
            if flow is not None and flow.parameter is None:
                steps, reach = chain
                where = f"{os.path.basename(steps[-1].path)}:{reach.line}"
                how = "which hands it on to " if len(steps) > 2 else "which hands it to "
                self._report(flow, argument, f"is passed to {target[1]}(), {how}"
                             f"{_api_of(reach.what)} ({where})", _callback_of(reach.what),
                             steps, call)

    def _check_caller(self, call: ast.Call, helper: Helper) -> None:
        offset = 1 if isinstance(call.func, ast.Attribute) else 0  # self.helper(...)
        index = _parameters(helper.function).index(helper.parameter) - offset
        argument = self.context.argument(call, index, helper.parameter) if index >= 0 else None
        flow = None if argument is UNKNOWN else self.tracer.trace(argument)
        if flow is not None and flow.parameter is None:
            path = (f"is passed to {helper.function.name}(), which hands "
                    f"'{helper.parameter}' to {helper.api} (line {helper.site.lineno})")
            self._report(flow, argument, path, helper.callback, call=call)

    def _api_name(self, func: ast.AST) -> str | None:
        """The function's own name: `launchHostFunc` for `launch` after
        `from cupy.cuda.runtime import launchHostFunc as launch`."""
        if isinstance(func, ast.Name):
            imported = self.context.imports.names.get(func.id)
            return imported.rpartition(".")[2] if imported else func.id
        return last_name(func)

    # -- following values ----------------------------------------------------------------------
    def _follow(self, argument: ast.AST, api_name: str, callback: Callback,
                call: ast.Call | None = None) -> None:
        flow = self.tracer.trace(argument)
        if flow is None:
            return
        if flow.parameter is not None:
            if isinstance(flow.origin, _FUNCTIONS):
                site = flow.wrap or argument
                self.helpers.append(Helper(flow.origin, flow.parameter, site, api_name, callback))
            return
        self._report(flow, argument, f"is handed to {api_name} as a C callback", callback,
                     call=call)

    def _callee(self, call: ast.Call) -> ast.AST | None:
        if isinstance(call.func, ast.Name):
            return self.context.definition(call.func)
        return self.tracer.own_method(call.func)

    def _is_stream(self, func: ast.AST) -> bool:
        """Whether a method's receiver is a CuPy or Numba stream the module creates (a plain
        function of the method's name has none)."""
        if not isinstance(func, ast.Attribute):
            return False
        receiver = func.value
        if isinstance(receiver, ast.Name) or _on_self(receiver):
            receiver = value_of(self.context, receiver) or receiver  # `self.stream` too
        if isinstance(receiver, ast.Call):
            receiver = receiver.func
            return self.context.qualified_name(receiver, among=STREAM_FACTORIES) is not None
        return self.context.qualified_name(receiver, among=STREAM_OBJECTS) is not None

    def _is_host_node_params(self, node: ast.AST) -> bool:
        bound = self.context.definition(node) if isinstance(node, ast.Name) else None
        return isinstance(bound, ast.Call) and last_name(bound.func) in HOST_NODE_PARAMS

    # -- reporting -----------------------------------------------------------------------------
    def _report(self, flow: Flow, argument: ast.AST, path: str, callback: Callback,
                steps: tuple[Step, ...] = (), call: ast.Call | None = None) -> None:
        """Report at the callable (or where it is made a C function pointer), or at `call`,
        the call that hands it over, when the callable is written elsewhere and reaches the
        call through `*args`/`**kwargs` (a dict or tuple bound before it): there the user acts,
        and the callable's place joins the chain."""
        target = flow.wrap or argument
        if call is not None and not _within(argument, call):
            steps = (Step(self.context.source.path, argument.lineno,
                          f"{flow.what} is put in the call's arguments here"), *steps)
            target = call
        if id(target) in self.reported:
            return
        self.reported.add(id(target))
        subject = f"{flow.what}, a C pointer here," if flow.wrap else flow.what
        self.report(
            target,
            f"{subject} {path}",
            help=f"The driver calls it {callback.when}, holding its own lock, and a Python "
            "callback must take the GIL first: a thread that holds the GIL while it waits for "
            f"that lock (or that stream) deadlocks the process. Fix: {callback.fix}.",
            related=steps,
        )


def _within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether `node`'s source lies inside `outer`'s."""
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) and \
        (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _callback_chain(project, path: str, qualname: str, kind: str, depth: int):
    """How the parameter `kind` names of the project function reaches a callback API: the
    steps (the function's definition, each hand-over, the API call) and the final fact; None
    when it does not, or the chain is longer than the project model follows."""
    function = project.summaries[path].functions[qualname]
    reach = function.facts.get(kind)
    head = Step(path, function.line, f"`{qualname}()` is defined here") if depth == 0 else None
    if reach is None or depth > MAX_DEPTH:
        return None
    if kind.startswith(CALLBACK):
        return (*filter(None, [head]), Step(path, reach.line, reach.what)), reach
    name, position, keyword = reach.detail.split("|")
    callee = project.callee(path, project.summaries[path].imports, name, qualname)
    inner = project.summaries[callee[0]].functions.get(callee[1]) if callee else None
    if inner is None or "." in callee[1]:
        return None
    for next_kind in inner.facts:
        if next_kind.startswith((CALLBACK, FORWARDS)):
            _, index, parameter = next_kind.split(":")
            if (position and index == position) or (keyword and parameter == keyword):
                found = _callback_chain(project, *callee, next_kind, depth + 1)
                if found is not None:
                    steps, final = found
                    return (*filter(None, [head]), Step(path, reach.line, reach.what),
                            *steps), final
    return None


def _api_of(what: str) -> str:
    """The callback API a helper's fact names ("`fn` reaches API, which ...")."""
    return what.partition(" reaches ")[2].partition(",")[0]


def _callback_of(what: str) -> Callback:
    """The kind of callback a helper's fact describes (by when the driver calls it)."""
    return next((callback for callback in (OCCUPANCY, HOST_FUNCTION, DESTRUCTOR)
                 if callback.when in what), CONFIGURED)


def _on_self(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self")


# -- CUR202 ----------------------------------------------------------------------------------

ASYNC_CUDA_APIS = frozenset({
    "cuLaunchHostFunc", "cudaLaunchHostFunc", "cuStreamAddCallback", "cudaStreamAddCallback",
    "cuUserObjectCreate", "cudaUserObjectCreate",
})
"""CUDA functions that return before they call the callback (on the driver's thread)."""

KEEPING_PATTERNS = ("*register*", "set_*callback*", "*add_callback*", "*set_handler*")
"""Names (matched without case) of foreign functions that keep a callback to call later."""

LIBRARY_LOADERS = frozenset({
    "ctypes.CDLL", "ctypes.PyDLL", "ctypes.WinDLL", "ctypes.OleDLL", "ctypes.cdll.LoadLibrary",
    "ctypes.pydll.LoadLibrary", "ctypes.windll.LoadLibrary",
})
_LIBRARY_OBJECTS = ("ctypes.cdll.", "ctypes.pydll.", "ctypes.windll.", "ctypes.oledll.")
_NUMBA_DRIVER = frozenset({"numba.cuda.cudadrv.driver.driver"})


_ASYNC_API_NAMES = frozenset(name.encode() for name in ASYNC_CUDA_APIS)


def keeping_calls(options) -> MethodCall:
    """Calls of foreign functions that keep a callback: the names of the keeping patterns
    (none saying `unregister`), on a receiver that may be a library the module loaded (or
    numba's imported driver object). One shape per option value, so that what it learns of
    names serves every file."""
    return _keeping_calls(tuple(options["keeping-apis"]))


@lru_cache(maxsize=None)
def _keeping_calls(keeping_apis: tuple[str, ...]) -> MethodCall:
    return MethodCall(
        (*KEEPING_PATTERNS, *keeping_apis),
        excluded=("unregister",),
        imported=frozenset(name.rpartition(".")[2].encode() for name in _NUMBA_DRIVER),
    )


class CtypesCallbackLifetime(Rule):
    """## What it does
    Finds a ctypes callback object (`CFUNCTYPE(...)(f)`, numba's `cu_stream_callback_pyobj(f)`)
    of a Python function that is created inline in the arguments of, or bound only to a local
    name passed to, a foreign function that keeps it to call later: the asynchronous CUDA host
    functions, stream callbacks and user-object destructors (`cuLaunchHostFunc`,
    `cuStreamAddCallback`, `cuUserObjectCreate` and their runtime twins), and functions of a
    ctypes library whose name says they register a callback (option `keeping-apis`, default
    `*register*`, `set_*callback*`, `*add_callback*`, `*set_handler*`). A synchronous use
    (`qsort`'s comparator), an object kept at module level or in an attribute, and a local
    used anywhere else in the function are not findings.

    ## Why it is cursed
    ctypes does not keep the callback object alive for C: when the last Python reference goes
    (the call returns, or the function that held the local returns), the object and its
    trampoline are freed. The C side still holds the pointer and calls it later, from another
    thread, into freed memory: a crash or corrupted state far from the cause, and only when
    the garbage collector or allocator happens to reuse that memory first.

    ## Example
    ```python
    def on_done(data):
        print("batch done")

    def enqueue(stream):
        libcuda.cuLaunchHostFunc(stream, HostFn(on_done), None)
    ```

    ## Fix
    Keep the callback object as long as C may call it: bind it at module level or in an
    attribute of an object that outlives the registration, and drop it only after the callback
    ran or was unregistered. For CUDA host functions prefer a compiled function
    (`numba.cfunc(sig)(f).address`), which has no Python object to keep (see CUR201).

    ## References
    - ctypes, callback functions ("Make sure you keep references to CFUNCTYPE() objects as
      long as they are used from C code"):
      https://docs.python.org/3/library/ctypes.html#callback-functions
    - `cuLaunchHostFunc` and `cuStreamAddCallback` run the function after the call returns:
      https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html
    """

    code = "CUR202"
    name = "ctypes-callback-lifetime"
    languages = ("python",)
    triggers = ("FUNCTYPE", *(name.rpartition(".")[2] for name in KNOWN_PROTOTYPES))
    summary = "a ctypes callback that C keeps for later but Python frees when the call returns"
    options = {
        "keeping-apis": Option(
            (list, tuple),
            (),
            "more names (shell-style patterns, matched without case) of foreign functions "
            "that keep a callback to call later.",
            item=str, form=NAME_GLOB,
        )
    }

    valid = (
        """
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        Compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

        def sort(items, count):
            libc.qsort(items, count, 8, Compare(lambda a, b: 0))
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./libsensor.so")
        OnSample = ctypes.CFUNCTYPE(None, ctypes.c_double)

        def record(value):
            print(value)

        ON_SAMPLE = OnSample(record)  # kept for the life of the process
        lib.register_sample_callback(ON_SAMPLE)
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./libsensor.so")
        OnSample = ctypes.CFUNCTYPE(None, ctypes.c_double)

        class Sensor:
            def start(self):
                self._on_sample = OnSample(self.record)
                lib.register_sample_callback(self._on_sample)

            def record(self, value):
                print(value)
        """,
        """
        import ctypes

        OnEvent = ctypes.CFUNCTYPE(None, ctypes.c_int)

        class Bus:
            def add_callback(self, callback):
                self.callbacks.append(callback)

        Bus().add_callback(OnEvent(print))
        """,
    )
    invalid = (
        """
        import ctypes

        libcuda = ctypes.CDLL("libcuda.so.1")
        HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

        def on_done(data):
            print("batch done")

        def enqueue(stream):
            libcuda.cuLaunchHostFunc(stream, HostFn(on_done), None)  # error: CUR201, CUR202
        """,
        """
        import ctypes

        lib = ctypes.CDLL("./liblogger.so")
        LogFn = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)

        def install(level):
            handler = LogFn(lambda lvl, text: print(lvl, text))  # error: CUR202
            lib.set_log_callback(handler)
        """,
        Example(
            """
            import ctypes

            lib = ctypes.CDLL("./libev.so")
            Watcher = ctypes.CFUNCTYPE(None, ctypes.c_int)

            def watch(fd):
                lib.ev_watch(fd, Watcher(lambda events: None))  # error: CUR202
            """,
            settings={"options": {"keeping-apis": ["ev_watch"]}},
        ),
    )

    @classmethod
    def look(cls, options, target_python, language):
        """A finding needs a call of a CUDA function that calls back later (by its whole name),
        or a foreign call a keeping pattern may match: `<receiver>.name(`, whose receiver is
        not a bare name that the module never assigns (a module, a parameter: `codecs.register`
        is no library's function; numba's imported `driver` is)."""
        return AnyOf((Names(_ASYNC_API_NAMES), keeping_calls(options)))

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.keeping = keeping_calls(self.option)
        self.tracer = CallbackTracer(context)

    def visit_Call(self, node: ast.Call) -> None:
        name = last_name(node.func)
        if name is None or not self._keeps(name, node.func):
            return
        for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
            self._check_argument(argument, name)

    def _keeps(self, name: str, func: ast.AST) -> bool:
        if name in ASYNC_CUDA_APIS:
            return True
        return self.keeping.matches(name) and self._is_foreign(func)

    def _is_foreign(self, func: ast.AST) -> bool:
        """Whether `func` is a function of a ctypes library (or numba's driver object)."""
        if not isinstance(func, ast.Attribute):
            return False
        library = func.value
        if isinstance(library, ast.Name):
            library = self.context.definition(library) or library
        if isinstance(library, ast.Call):
            return self.context.qualified_name(library.func, among=LIBRARY_LOADERS) is not None
        qualified = self.context.imports.qualified_name(library) or ""
        return qualified.startswith(_LIBRARY_OBJECTS) or qualified in _NUMBA_DRIVER

    def _check_argument(self, argument: ast.AST, api: str) -> None:
        wrap, where = self._peel(argument), "dies when the call returns"
        if isinstance(wrap, ast.Name):
            name, bound = wrap.id, self.context.definition(wrap)
            if self.tracer.is_wrap(bound):
                if not self._dies_with_function(wrap):
                    return
                wrap, where = bound, f"dies with the local '{name}'"
            elif bound is not None:
                wrap = self._peel(bound)
                where = f"dies once its address '{name}' is taken"
        if not self.tracer.is_wrap(wrap):
            return
        flow = self.tracer.trace(wrap)
        if flow is None or flow.parameter is not None:
            return
        self.report(
            wrap,
            f"ctypes callback of {flow.what} {where}; {api} calls it later",
            help=f"{api} keeps the function pointer and calls it after the call returns, but "
            "ctypes keeps no reference for C: the trampoline is freed and the later call jumps "
            "into freed memory (a crash far from here). Keep the object alive as long as C may "
            "call it (module level or an attribute), or pass a compiled function.",
        )

    def _peel(self, node: ast.AST) -> ast.AST:
        """The value under pointer conversions (`ctypes.cast(cb, T).value` -> `cb`)."""
        while (inner := self.tracer.unwrapped(node)) is not None:
            node = inner
        return node

    def _dies_with_function(self, name: ast.Name) -> bool:
        """Whether a function's local `name` is used only here (any other use may keep the
        object) and the function synchronizes with nothing (`cuStreamSynchronize`,
        `stream.synchronize()`: the callback has run by then)."""
        scope = self.context.evaluator.binding_scope(name.id, name)
        if not isinstance(scope, _FUNCTIONS):
            return False
        uses = 0
        for node in ast.walk(scope):
            if isinstance(node, ast.Name) and node.id == name.id and isinstance(node.ctx, ast.Load):
                uses += 1
            elif isinstance(node, ast.Call) and "synchronize" in str(last_name(node.func)).lower():
                return False
        return uses == 1
