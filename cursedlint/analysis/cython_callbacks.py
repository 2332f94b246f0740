"""C callbacks in Cython: which `cdef` functions are C function pointers and whether they take
the GIL (CUR201 reads it through `analysis.callbacks`), and the Python objects a module hands
to C as a callback's `<void*>` user data, with what keeps them alive (CUR202).

A Cython file's facts are `PythonContext.cython` (`python.cython.CythonFacts`): its cdef
functions, casts and declarations. A C function takes a callback to call later when it is a CUDA
function that calls host code back later (`ASYNC_CUDA_APIS`), or when its name says it keeps one
(`keeps`, and no removal does: `foreign_keeping.removes`) and either a `cdef extern from` block
of the module declares a function pointer parameter for it or the call hands it one of the
module's cdef functions (a function `cimport`ed from a `.pxd` has its declaration there).
"""

from __future__ import annotations

import ast
from typing import Callable, NamedTuple

from cursedlint.analysis.callback_apis import ASYNC_CUDA_APIS
from cursedlint.analysis.foreign_keeping import removes
from cursedlint.analysis.python_project import last_name

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
GRAPH_HOST_LAUNCHES = frozenset({"cuLaunchHostFunc", "cudaLaunchHostFunc"})
"""Host functions a stream capture records as a graph node: called again on every launch of
the graph (stream callbacks, `cu[da]StreamAddCallback`, cannot be captured)."""
CAPTURE_CHECKS = frozenset({
    "cudaStreamIsCapturing", "cuStreamIsCapturing", "cudaStreamGetCaptureInfo",
    "cuStreamGetCaptureInfo", "cudaStreamGetCaptureInfo_v2", "cuStreamGetCaptureInfo_v2",
    "cudaStreamGetCaptureInfo_v3", "cuStreamGetCaptureInfo_v3", "is_capturing",
    "isCapturing", "streamIsCapturing",
})
"""Calls that ask whether a stream captures: a function that asks may launch differently."""
STREAM_WAITS = frozenset({
    "cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize",
    "cudaThreadSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuCtxSynchronize",
})
"""CUDA calls that wait for a stream's work, a host function in it included, to finish."""
_INCREF = frozenset({"Py_INCREF", "Py_XINCREF"})
_DECREF = frozenset({"Py_DECREF", "Py_XDECREF", "Py_CLEAR"})


def c_function(context, function: ast.AST) -> bool:
    """Whether a def of a Cython module is a `cdef` function (a C function: passed by name,
    C gets its address, not a Python object); no other callable (a lambda, a partial) is."""
    facts = getattr(context, "cython", None)
    if facts is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    declared = facts.functions.get(function.name)
    return declared is not None and declared.line == function.lineno and \
        declared.kind == "cdef"


def takes_gil(context, function: ast.AST) -> bool:
    """Whether a cdef function takes the GIL when C calls it: declared `with gil`, or
    holding a `with gil:` block."""
    declared = context.cython.functions[function.name]
    return declared.with_gil or any(
        isinstance(node, ast.With) and any(
            isinstance(item.context_expr, ast.Name) and item.context_expr.id == "gil"
            for item in node.items)
        for node in ast.walk(function))


def gil_held_in_driver(context, handoff: ast.Call) -> tuple[int, str] | None:
    """Where the module waits in the driver holding the GIL, which a host function that takes
    the GIL cannot get: the `handoff` itself made holding it (the driver may run an earlier
    callback of the stream meanwhile), else a call that waits for a stream (`STREAM_WAITS`)
    made holding it; (line, note), or None when every such call is in a `with nogil:` block
    (in a function declared `nogil`, its caller's state: not known, not counted)."""
    waits = [node for node in context.nodes(ast.Call)
             if isinstance(node.func, ast.Name) and node.func.id in STREAM_WAITS]
    for call in (handoff, *waits):
        if _holds_gil(context, call):
            what = "is called" if call is handoff else "waits for the stream"
            return call.lineno, (f"{call.func.id} {what} holding the GIL, which the callback "
                                 "needs to finish: each waits for the other")
    return None


def _holds_gil(context, node: ast.AST) -> bool:
    for ancestor in context.ancestors(node):
        if isinstance(ancestor, ast.With):
            held = {item.context_expr.id for item in ancestor.items
                    if isinstance(item.context_expr, ast.Name)}
            if "nogil" in held or "gil" in held:
                return "gil" in held
        elif isinstance(ancestor, _FUNCTIONS):
            declared = context.cython.functions.get(ancestor.name)
            return not (declared is not None and declared.line == ancestor.lineno
                        and declared.nogil)
    return True  # module level


class UserData(NamedTuple):
    """A Python object handed to `api` as the `<void*>` user data of a C callback
    (`trampoline`: the module's cdef function handed beside it, if any), why it may be gone
    when C calls back (`problem`), and the lines that show it (`steps`: (line, note))."""

    call: ast.Call
    api: str
    argument: ast.AST
    trampoline: ast.AST | None
    problem: str
    steps: tuple[tuple[int, str], ...] = ()


def user_data_handovers(context, keeps: Callable[[str], bool]) -> list[UserData]:
    """The Python objects the module hands as user data to C functions that call back later
    (cast at the call, or through a pointer variable bound once to the cast: `_pointed`) and
    that nothing keeps alive as long as C may call: a temporary, a local no one else holds
    (`Py_INCREF` holds it), or an object whose one reference the trampoline releases on its
    first call while the launch may be captured into a graph (called on every replay)."""
    facts = getattr(context, "cython", None)
    if facts is None:
        return []
    found = []
    for call in context.nodes(ast.Call):
        api = call.func.id if isinstance(call.func, ast.Name) else None
        if api is None or api not in ASYNC_CUDA_APIS and not keeps(api) \
                or removes(api, call.args):
            continue
        trampoline = next((bound for argument in call.args
                           if isinstance(argument, ast.Name)
                           and isinstance(bound := context.definition(argument), _FUNCTIONS)
                           and c_function(context, bound)), None)
        if api not in ASYNC_CUDA_APIS and trampoline is None and \
                not any(param.callback for param in facts.externs.get(api, ())):
            continue  # no sign that the C function takes a callback
        for argument in call.args:
            held, cast, steps = _pointed(context, argument)
            if held is None or not cast.endswith("*"):
                continue
            problem = _lifetime_problem(context, held, api, trampoline)
            if problem is not None:
                found.append(UserData(call, api, argument, trampoline, problem[0],
                                      (*steps, *problem[1])))
    return found


def _pointed(context, argument: ast.AST) -> tuple[ast.AST | None, str, tuple]:
    """(the object, the cast, the lines that show it) of a `<void*>obj` argument, or of a
    pointer variable bound once to one (`cdef void* p = <void*>obj`, then `p` passed);
    (None, "", ()) for any other argument."""
    facts = context.cython
    cast = facts.cast_of(argument)
    if cast is not None:
        return argument, cast, ()
    bound = context.definition(argument) if isinstance(argument, ast.Name) else None
    cast = facts.cast_of(bound) if isinstance(bound, ast.Name) else None
    if cast is None:
        return None, "", ()
    return bound, cast, ((bound.lineno, f"'{argument.id}' is <{cast}>{bound.id}, which holds "
                                        "no reference"),)


def _lifetime_problem(context, argument: ast.AST, api: str, trampoline: ast.AST | None
                      ) -> tuple[str, tuple[tuple[int, str], ...]] | None:
    """Why the object `argument` names may be freed before C calls back, and the lines that
    show it; None when it is kept, or when the module does not show what it is (a
    parameter: its caller's)."""
    from cursedlint.python.cython import PYTHON_OBJECT_TYPES

    if isinstance(argument, (ast.Tuple, ast.List, ast.Dict, ast.Lambda, ast.Call)):
        return "a temporary, freed when the call returns", ()
    if not isinstance(argument, ast.Name):
        return None  # an attribute, a subscript: held by its container
    scope = context.scope_of(argument)
    if not isinstance(scope, _FUNCTIONS):
        return None  # a module-level object lives as long as the module
    facts = context.cython
    declared = facts.c_type(scope.lineno, argument.id)
    if declared and declared.split()[-1].rstrip("?") not in PYTHON_OBJECT_TYPES:
        return None  # a C value (a pointer, a struct), or an extension type's
    if argument.id in {arg.arg for arg in (*scope.args.posonlyargs, *scope.args.args,
                                           *scope.args.kwonlyargs)}:
        return None
    calls = [node for node in ast.walk(scope) if isinstance(node, ast.Call)]
    increfs = [node for node in calls
               if last_name(node.func) in _INCREF and _names(node, argument.id)]
    if increfs:
        releases = [] if trampoline is None else [
            node for node in ast.walk(trampoline)
            if isinstance(node, ast.Call) and last_name(node.func) in _DECREF]
        if api not in GRAPH_HOST_LAUNCHES or not releases or \
                any(last_name(node.func) in CAPTURE_CHECKS for node in calls):
            return None
        return (f"{trampoline.name}() releases it on its first call, but a captured graph "
                "calls it again", (
                    (increfs[0].lineno, f"the one reference to '{argument.id}' is taken here"),
                    (releases[0].lineno, f"{trampoline.name}(), the host function, releases "
                                         "it when it first runs"),
                    (argument.lineno, f"nothing in {scope.name}() asks whether the stream "
                                      "captures: launched during a capture, the host node "
                                      "runs on every graph launch, after the object is freed"),
                ))
    uses = sum(1 for node in ast.walk(scope)
               if isinstance(node, ast.Name) and node.id == argument.id
               and isinstance(node.ctx, ast.Load))
    if uses > 1 or any("synchronize" in str(last_name(node.func)).lower() for node in calls):
        return None  # held elsewhere, or the callback has run before the function returns
    return (f"the local '{argument.id}' is its only reference, freed when "
            f"{scope.name}() returns"), ()


def _names(call: ast.Call, name: str) -> bool:
    return any(isinstance(argument, ast.Name) and argument.id == name
               for argument in call.args)
