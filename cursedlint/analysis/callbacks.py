"""Python callables handed to C as callbacks, in one module (CUR201 and CUR202 read it).

`CallbackTracer` follows a value back to a Python callable (lambda, def, bound method,
`functools.partial`, an instance of a class with `__call__`) through local names, ctypes
prototypes (`CFUNCTYPE(...)(f)`, a prototype kept in `self.<attr>`), cffi's `ffi.callback`,
`ctypes.cast`, `int.from_bytes` (a ctypes function object's bytes are its address) and
cuda-python's pointer types, or to a
parameter of the function it is used in; a value whose nature the module does not show (a
decorated function, an attribute of an unknown object) is unknown. In Cython a `cdef`
function is C: a callback only where it takes the GIL (`analysis.cython_callbacks`). `CallbackHandovers` walks a
module for the values it hands to a CUDA API that calls back (`analysis.callback_apis`): the
Python callables handed over, and the module's helpers, functions that hand a parameter on.
`foreign_function` says which calls go to a ctypes or cffi library's function, through any
alias of the library or of the function, and by what name the library knows it.
"""

from __future__ import annotations

import ast
from functools import cached_property
from typing import Any, NamedTuple

from msgspec import Struct

from cursedlint.analysis.callback_apis import (
    CALLBACK_APIS, CAPSULE_MAKERS, CONFIGURED, FUNCTION_POINTER_TYPES, HOST_FUNCTION,
    HOST_NODE_PARAMS, KNOWN_PROTOTYPES, LIBRARY_OBJECTS, NUMBA_DRIVER,
    POINTER_CASTS, PROTOTYPE_FACTORIES, STREAM_FACTORIES, STREAM_OBJECTS, Callback, CallbackApi,
)
from cursedlint.analysis.capture_regions import PARTIAL, enclosing_class, is_self_attribute
from cursedlint.analysis.cython_callbacks import c_function, takes_gil
from cursedlint.analysis.foreign_keeping import (
    MESSAGE_LOOPS, callback_names, cffi_export, foreign_callee_names, imported_binding,
    is_ffi_method, loads_library, may_be_function_alias, may_be_library, may_make_callback,
    may_name_foreign,
)
from cursedlint.analysis.python_project import last_name, own_method, value_of
from cursedlint.findings import Step
from cursedlint.patterns import LazyPattern
from cursedlint.python.consteval import UNKNOWN

_METHOD_DECORATORS = frozenset({"staticmethod", "classmethod"})
_MAX_DEPTH = 8
_UNWRAPPERS = POINTER_CASTS | CAPSULE_MAKERS | {"builtins.int.from_bytes"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def parameters(function: ast.AST) -> list[str]:
    """The names of the function's positional parameters, in order."""
    arguments = function.args
    return [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]


# -- where a value comes from ----------------------------------------------------------------------


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


class CallbackTracer:
    """Follows a value back to a Python callable through the module."""

    def __init__(self, context):
        self.context = context

    def trace(self, node: ast.AST | None, depth: int = 0) -> Flow | None:
        """Where the value of `node` comes from, when the module shows it is a Python callable
        or a function's parameter; None when unknown or compiled."""
        if node is None or depth > _MAX_DEPTH:
            return None
        facts = getattr(self.context, "cython", None)
        if facts is not None and facts.is_data_pointer(node):
            return None  # Cython's `<void*>obj`: data the callback reads, not the callback
        if isinstance(node, ast.Lambda):
            return Flow(node, f"lambda on line {node.lineno}")
        if isinstance(node, ast.Name):
            return self._trace_name(node, depth)
        if isinstance(node, ast.Attribute):
            if node.attr == "value":
                return self.trace(self.unwrapped(node), depth + 1)  # ctypes.cast(cb, T).value
            method = self.self_method(node)
            return self._function(method, f"method self.{node.attr}") if method else None
        if isinstance(node, ast.Call):
            return self._trace_call(node, depth)
        if isinstance(node, _FUNCTIONS):
            return self._function(node, f"Python function {node.name}()")
        return None

    def _trace_name(self, node: ast.Name, depth: int) -> Flow | None:
        scope = self.context.evaluator.binding_scope(node.id, node)
        if isinstance(scope, _FUNCTIONS) and node.id in parameters(scope):
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
        decorator (`@numba.cfunc(sig)` compiles it). A Cython `cdef` function is compiled: a
        callback that needs the GIL only where it takes it (`with gil`)."""
        if c_function(self.context, function):
            if not takes_gil(self.context, function):
                return None
            return Flow(function, f"cdef {function.name}() (line {function.lineno}), which "
                                  "takes the GIL,")
        decorators = [d for d in function.decorator_list
                      if not (isinstance(d, ast.Name) and d.id in _METHOD_DECORATORS)]
        if not all(self._is_prototype(decorator) for decorator in decorators):
            return None
        how = " (a C pointer by its decorator)" if decorators else ""
        return Flow(function, f"{label} (line {function.lineno}){how}")

    def _trace_call(self, node: ast.Call, depth: int) -> Flow | None:
        if self.context.qualified_name(node.func, among=PARTIAL):
            return Flow(node, f"functools.partial on line {node.lineno}")
        if self.is_wrap(node):
            inner = self.trace(node.args[-1], depth + 1)
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
        `int.from_bytes(cb, ...)`, `<call>.value` (or `<local>.value`, the local bound to a cast),
        a PyCapsule of it (`jax.ffi.pycapsule(address)`), cuda-python's `CUhostFn(address)` /
        `cudaHostFn_t(_ptr=address)`."""
        if isinstance(node, ast.Attribute):
            if node.attr != "value":
                return None
            if isinstance(node.value, ast.Name):
                cast = self.context.definition(node.value)
                return self.unwrapped(cast) if isinstance(cast, ast.Call) else None
            return node.value if isinstance(node.value, ast.Call) else None
        if not isinstance(node, ast.Call):
            return None
        if self.context.qualified_name(
                node.func, among=_UNWRAPPERS) and node.args:
            return node.args[0]
        if last_name(node.func) in FUNCTION_POINTER_TYPES:
            only = [*node.args, *(keyword.value for keyword in node.keywords)]
            return only[0] if len(only) == 1 else None
        return None

    def peeled(self, node: ast.AST) -> ast.AST:
        """The value under pointer conversions (`ctypes.cast(cb, T).value` -> `cb`)."""
        while (inner := self.unwrapped(node)) is not None:
            node = inner
        return node

    def may_hand_callback(self, call: ast.Call) -> bool:
        """Whether an argument of `call` may be a callback object under pointer conversions
        (`may_make_callback`): asked of every call, so only a call or `<x>.value` is peeled
        (no conversion is anything else), and a name or attribute is asked as it is (a
        plain name, most arguments, is looked up here)."""
        made = self._made
        for argument in call.args:
            if argument.id in made if type(argument) is ast.Name else self._may_hand(argument):
                return True
        return any(self._may_hand(keyword.value) for keyword in call.keywords) \
            if call.keywords else False

    @cached_property
    def _made(self) -> frozenset[str]:
        """`foreign_keeping.callback_names` (asked of each call: kept here)."""
        return callback_names(self.context)

    def _may_hand(self, argument: ast.AST) -> bool:
        kind = type(argument)
        if kind is ast.Call or kind is ast.Attribute and argument.attr == "value":
            return may_make_callback(self.context, self.peeled(argument))
        return (kind is ast.Name or kind is ast.Attribute) and \
            may_make_callback(self.context, argument)

    def handed(self, argument: ast.AST) -> tuple[ast.AST, str] | None:
        """What an argument hands to C, under pointer conversions and through a local, and how
        it may die: a callback object made in the argument ("dies when the call returns"),
        one a function's local alone holds, one whose address a local holds; None where a
        local holding a callback object is used again (it may be kept)."""
        wrap = self.peeled(argument)
        if not isinstance(wrap, ast.Name):
            return wrap, "dies when the call returns"
        name, bound = wrap.id, self.context.definition(wrap) or self.made_in(wrap)
        if self.is_wrap(bound):
            return (bound, f"dies with the local '{name}'") if self.dies_with_function(wrap) \
                else None
        if bound is None:
            return wrap, "dies when the call returns"
        return self.peeled(bound), f"dies once its address '{name}' is taken"

    def is_wrap(self, node: ast.AST) -> bool:
        """Whether `node` makes a ctypes callback object: `Prototype(callable)`, cffi's
        `ffi.callback(cdecl, callable)` (the callable is the last argument either way), or a
        def under a prototype decorator (`@CFUNCTYPE(None, c_char_p)`,
        `@ffi.callback("void(int)")`: its name holds the object)."""
        if isinstance(node, _FUNCTIONS):
            return self.decorating_prototype(node) is not None
        if not isinstance(node, ast.Call) or node.keywords:
            return False
        if len(node.args) == 2:
            return is_ffi_method(self.context, node.func, "callback")
        return len(node.args) == 1 and self._is_prototype(node.func)

    def maker(self, wrap: ast.AST) -> str:
        """Which library makes the callback object `wrap` (`is_wrap`): "cffi" for
        `ffi.callback`, call or decorator, else "ctypes"."""
        if isinstance(wrap, _FUNCTIONS):
            wrap = self.decorating_prototype(wrap)
        cffi = isinstance(wrap, ast.Call) and len(wrap.args) in (1, 2) and is_ffi_method(
            self.context, wrap.func, "callback")
        return "cffi" if cffi else "ctypes"

    def made_here(self, wrap: ast.AST, argument: ast.AST) -> tuple[Step, ...]:
        """The chain step at the callback object `wrap` (`is_wrap`; a def: its prototype
        decorator) where it is made on another line than the `argument` handing it to C."""
        made = self.decorating_prototype(wrap) if isinstance(wrap, _FUNCTIONS) else wrap
        return () if made.lineno == argument.lineno else (Step(
            self.context.source.path, made.lineno, f"the {self.maker(wrap)} callback is made here"),)

    def dies_with_function(self, name: ast.Name) -> bool:
        """Whether a function's local `name` is used only here (any other use may keep the
        object), the function synchronizes with nothing (`cuStreamSynchronize`,
        `stream.synchronize()`: the callback has run by then) and takes no Windows messages
        after handing it over (`GetMessageW`: the hook or timer callback runs there; or a call
        that does, `takes_messages`)."""
        scope = self.context.evaluator.binding_scope(name.id, name)
        if not isinstance(scope, _FUNCTIONS):
            return False
        uses = 0
        for node in ast.walk(scope):
            if isinstance(node, ast.Name) and node.id == name.id and isinstance(node.ctx, ast.Load):
                uses += 1
            elif isinstance(node, ast.Call) and ("synchronize" in str(
                    last_name(node.func)).lower() or (node.lineno, node.col_offset) > (
                    name.lineno, name.col_offset) and self.takes_messages(node)):
                return False
        return uses == 1

    def takes_messages(self, call: ast.Call, depth: int = 0) -> bool:
        """Whether a call takes its thread's Windows messages: a call of `MESSAGE_LOOPS`, or of
        a function of the module or a method of the class (`self.listen()`) that makes one,
        `_MESSAGE_DEPTH` calls deep."""
        if last_name(call.func) in MESSAGE_LOOPS:
            return True
        if depth >= _MESSAGE_DEPTH:
            return False
        callee = self.context.definition(call.func) if isinstance(call.func, ast.Name) \
            else self.self_method(call.func)
        return isinstance(callee, _FUNCTIONS) and any(
            isinstance(node, ast.Call) and self.takes_messages(node, depth + 1)
            for node in ast.walk(callee))

    def callable_parameter(self, flow: Flow) -> bool:
        """Whether a prototype wraps a parameter its function takes as a callable: not one
        annotated as a number (`Proto(address)` makes a pointer of an address, with nothing
        to keep), nor one the module's calls of the function pass a number for."""
        function, name = flow.origin, flow.parameter
        arg = next(a for a in (*function.args.posonlyargs, *function.args.args) if a.arg == name)
        if arg.annotation is not None and last_name(arg.annotation) in ("int", "c_void_p"):
            return False
        position = parameters(function).index(name)
        for call in self.context.nodes(ast.Call):
            callee = self.context.definition(call.func) if isinstance(call.func, ast.Name) \
                else self.self_method(call.func)
            if callee is function:
                passed = self.context.argument(
                    call, position - isinstance(call.func, ast.Attribute), name)
                if isinstance(passed, ast.Constant) and isinstance(passed.value, int):
                    return False
        return True

    def callable_shape(self, wrap: ast.AST) -> str | None:
        """What a prototype call whose argument the module does not show wraps, where its
        shape says a callable (a trampoline for ctypes to keep, whatever it is): a function
        imported by name (`from .log import on_log`), a method of an object
        (`self.event.execute`); None for anything else (an address: `Proto(addr)`)."""
        if not (isinstance(wrap, ast.Call) and wrap.args):
            return None
        inner = wrap.args[-1]
        if isinstance(inner, ast.Name) and inner.id in _imported_names(self.context):
            return f"the imported function {inner.id}"
        if isinstance(inner, ast.Attribute) and not _ADDRESS.search(inner.attr.lower()):
            return f"{ast.unparse(inner)} (line {inner.lineno})"
        return None

    def made_in(self, name: ast.Name) -> ast.AST | None:
        """The one callback object a function's local holds where it binds it more than once,
        each time to that one or to None (`cb_func = None`, then `cb_func = Proto(cb)` under
        `if cb:`); None for any other binding."""
        scope = self.context.evaluator.binding_scope(name.id, name)
        if not isinstance(scope, _FUNCTIONS) or name.id in parameters(scope):
            return None
        values = []
        for node in ast.walk(scope):
            if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr,
                                 ast.Delete, ast.Global, ast.Nonlocal)) and name.id in {
                    target.id for target in ast.walk(node) if isinstance(target, ast.Name)
                    and isinstance(target.ctx, (ast.Store, ast.Del))} | set(
                    getattr(node, "names", ())):
                return None  # bound otherwise
            if isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Name) and target.id == name.id
                    for target in node.targets):
                if len(node.targets) != 1:
                    return None
                values.append(node.value)
        made = [value for value in values
                if not (isinstance(value, ast.Constant) and value.value is None)]
        return made[0] if len(made) == 1 and self.is_wrap(made[0]) else None

    def decorating_prototype(self, function: ast.AST) -> ast.AST | None:
        """The prototype decorator that makes a def a ctypes callback object, if any."""
        return next((decorator for decorator in function.decorator_list
                     if self._is_prototype(decorator)), None)

    def _is_prototype(self, func: ast.AST) -> bool:
        """A ctypes function pointer type: `CFUNCTYPE(...)`, a name or `self.<attr>` bound to
        one (here, or at module level in the project module it is imported from), numba's
        driver prototypes, or cffi's decorator `ffi.callback(cdecl)`."""
        if isinstance(func, ast.Call):
            if len(func.args) == 1 and is_ffi_method(self.context, func.func, "callback"):
                return True  # `@ffi.callback("void(int)")`
            return self.context.qualified_name(func.func, among=PROTOTYPE_FACTORIES) is not None
        if self.context.qualified_name(func, among=KNOWN_PROTOTYPES):
            return True
        if isinstance(func, ast.Name) or is_self_attribute(func):
            bound = value_of(self.context, func)  # `self.proto = CFUNCTYPE(...)` too
            if isinstance(bound, ast.Call):
                return self._is_prototype(bound)
        binding = imported_binding(  # (`m.Proto` too: another module's)
            self.context, func, ask=isinstance(func, ast.Name))
        return binding is not None and binding[0] == "prototype"

    def _callable_class(self, func: ast.AST) -> ast.ClassDef | None:
        """The module's class that `func` names, when it defines `__call__`."""
        bound = self.context.definition(func) if isinstance(func, ast.Name) else None
        if isinstance(bound, ast.ClassDef) and own_method(bound, "__call__") is not None:
            return bound
        return None

    def self_method(self, node: ast.AST) -> ast.AST | None:
        """The def of `self.name` in the class enclosing `node`."""
        if not is_self_attribute(node):
            return None
        cls = enclosing_class(self.context, node)
        return None if cls is None else own_method(cls, node.attr)


_MESSAGE_DEPTH = 3
"""Calls followed from a function to the message loop it runs (`hook()` -> `listen()` ->
`_pump()` -> `PeekMessageW`)."""
_ADDRESS = LazyPattern(r"addr|ptr|pointer|value|handle|^fn$|func_?p")
"""Attribute names that may hold a function's address rather than a callable."""


def _imported_names(context) -> set[str]:
    """The names the module imports from another module by name (`from m import f`)."""
    return context.derived("imported-by-name", lambda: {
        alias.asname or alias.name for node in context.nodes(ast.ImportFrom)
        for alias in node.names})


def foreign_function(context, func: ast.AST) -> str | None:
    """The name of the library function that calling `func` calls, when `func` is a function
    of a ctypes library (or numba's driver object) or an alias of one: `lib.name` for a
    library the module loads or imports, also kept in an attribute (`self._lib.name`, the
    class binding `self._lib` once to a loaded library), and a name bound once to such a
    function (`f = lib.name`, module level or local) or `self.<attr>` the class binds once to
    one (`self._f = self._lib.name`), and another project module's such name, imported or read
    as its attribute (`m.f`). The name is the library's own (`name`), whatever the
    alias is called; None for anything else. Answered once per call of the file (the rules
    that ask ask of each call as the walk meets it; most plain names and `self.<attr>` are
    none by the module's bindings alone: `may_name_foreign`)."""
    if (isinstance(func, ast.Name) or is_self_attribute(func)) \
            and not may_name_foreign(context, func):
        return None
    known = context.shared("foreign-functions", dict)
    key = id(func)
    if key not in known:
        known[key] = _foreign_function(context, func)
    return known[key]


def _foreign_function(context, func: ast.AST) -> str | None:
    binding = imported_binding(context, func, ask=False)  # (`m.f`, `from m import f`)
    if binding is not None and binding[0] == "function":
        return binding[1]
    if (isinstance(func, ast.Name) or is_self_attribute(func)) \
            and may_be_function_alias(context, func):
        bound = value_of(context, func)
        if isinstance(bound, ast.Attribute) and _is_library(context, bound.value):
            return bound.attr
    if isinstance(func, ast.Attribute) and _is_library(context, func.value):
        return func.attr
    return None


def _is_library(context, library: ast.AST) -> bool:
    """Whether `library` is a ctypes library the module loads (a name or `self.<attr>` bound
    once to a loader's call or to a call of the module's function returning one,
    `ctypes.cdll.name`), one cffi's `ffi.dlopen(...)` loads, one another module of the project
    binds so and this one imports or reads as that module's attribute (`m.lib`:
    `analysis.foreign_keeping.imported_binding`), a compiled cffi module's `lib`, or numba's
    driver object."""
    if isinstance(library, ast.Name) and cffi_export(context, library) == "lib":
        return True
    if isinstance(library, ast.Name) or is_self_attribute(library):
        if not may_be_library(context, library):
            return False
        bound = value_of(context, library)
        library = bound if isinstance(bound, ast.Name) else library  # (`self._lib = lib`)
        binding = imported_binding(context, library) if isinstance(library, ast.Name) else None
        if binding is not None:
            return binding[0] == "library"
        library = bound or library
    elif isinstance(library, ast.Attribute):  # (`m.lib` of a project module `m`)
        binding = imported_binding(context, library, ask=False)
        if binding is not None:
            return binding[0] == "library"
    if isinstance(library, ast.Call):
        return loads_library(context, library)
    qualified = context.imports.qualified_name(library) or ""
    return qualified.startswith(LIBRARY_OBJECTS) or qualified in NUMBA_DRIVER


# -- what the module hands to the driver -----------------------------------------------------------


class Handed(NamedTuple):
    """A Python callable (`flow`) handed to `api` as a C callback: `argument` is what the
    module passes, in the arguments of `call` (None: a host node's `fn` field)."""

    flow: Flow
    argument: ast.AST
    api: str
    callback: Callback
    call: ast.Call | None


class Helper(Struct, frozen=True):
    """A function of the module that hands its `parameter` (at `position`) to `api` at
    `site`."""

    function: ast.AST
    parameter: str
    position: int
    site: ast.AST
    api: str
    callback: Callback

    def argument_in(self, context, call: ast.Call) -> Any:
        """What `call` of the helper (by its name, or as `self.<name>`, which passes no
        `self`) passes for the parameter (`PythonContext.argument`)."""
        offset = 1 if isinstance(call.func, ast.Attribute) else 0
        index = self.position - offset
        return context.argument(call, index, self.parameter) if index >= 0 else None


class CallbackHandovers:
    """The values a module hands to a CUDA API that calls back, found by its walk (the
    `visit_` methods: `PythonContext.walk` drives them, or a rule's own): each traced, a
    Python callable is `handed`, a parameter of the module's function makes it a helper.
    `extra_apis` are more API names (any argument may be the callback)."""

    def __init__(self, context, extra_apis=()):
        self.context = context
        extra = CallbackApi(CONFIGURED)
        self.apis = dict(CALLBACK_APIS) | {name: extra for name in extra_apis}
        self.tracer = CallbackTracer(context)
        self.handed: list[Handed] = []
        self.helpers: list[Helper] = []
        self._api_calls: set[ast.Call] = set()
        foreign = foreign_callee_names(context)
        self.callee_names = None if foreign is None else foreign | frozenset(self.apis)
        """What `_api_name` may name an API for (`Rule.callee_names`): an API's own name, a
        name that may be an alias of a library's function."""

    def calls(self) -> list[ast.Call]:
        """The calls of names and attributes that name no API, in walk order (once walked):
        a helper's calls."""
        return [call for call in self.context.met(ast.Call)
                if isinstance(call.func, (ast.Name, ast.Attribute)) and call not in self._api_calls]

    def visit_Call(self, node: ast.Call) -> None:
        name = self._api_name(node.func)
        api = self.apis.get(name)
        if api is None:
            return
        self._api_calls.add(node)
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

    def helpers_called(self, call: ast.Call) -> list[Helper]:
        """The module's helpers that `call` (of a plain name, or `self.<method>`) runs."""
        if isinstance(call.func, ast.Name):
            callee = self.context.definition(call.func)
        else:
            callee = self.tracer.self_method(call.func)
        return [helper for helper in self.helpers if helper.function is callee]

    def _follow(self, argument: ast.AST, api_name: str, callback: Callback,
                call: ast.Call | None = None) -> None:
        flow = self.tracer.trace(argument)
        if flow is None:
            return
        if flow.parameter is None:
            self.handed.append(Handed(flow, argument, api_name, callback, call))
        elif isinstance(flow.origin, _FUNCTIONS):
            position = parameters(flow.origin).index(flow.parameter)
            self.helpers.append(Helper(flow.origin, flow.parameter, position,
                                       flow.wrap or argument, api_name, callback))

    def _api_name(self, func: ast.AST) -> str | None:
        """The function's own name: `launchHostFunc` for `launch` after
        `from cupy.cuda.runtime import launchHostFunc as launch`; the library's name for an
        alias of a library's function (`launch = libcuda.cuLaunchHostFunc`)."""
        if type(func) is ast.Attribute and not (  # (`is_self_attribute` inlined: every call)
                type(func.value) is ast.Name and func.value.id == "self"):
            return func.attr  # (`lib.name`: its name, a library's or not)
        foreign = foreign_function(self.context, func)
        if foreign is not None:
            return foreign
        if isinstance(func, ast.Name):
            imported = self.context.imports.names.get(func.id)
            return imported.rpartition(".")[2] if imported else func.id
        return last_name(func)

    def _is_stream(self, func: ast.AST) -> bool:
        """Whether a method's receiver is a CuPy or Numba stream the module creates (a plain
        function of the method's name has none)."""
        if not isinstance(func, ast.Attribute):
            return False
        receiver = func.value
        if isinstance(receiver, ast.Name) or is_self_attribute(receiver):
            receiver = value_of(self.context, receiver) or receiver  # `self.stream` too
        if isinstance(receiver, ast.Call):
            receiver = receiver.func
            return self.context.qualified_name(receiver, among=STREAM_FACTORIES) is not None
        return self.context.qualified_name(receiver, among=STREAM_OBJECTS) is not None

    def _is_host_node_params(self, node: ast.AST) -> bool:
        bound = self.context.definition(node) if isinstance(node, ast.Name) else None
        return isinstance(bound, ast.Call) and last_name(bound.func) in HOST_NODE_PARAMS
