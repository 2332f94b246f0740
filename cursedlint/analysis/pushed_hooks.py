"""Saved-tensors hooks a module pushes itself, where the module says its code runs inside CUDA
graph captures: code that autograd runs in a captured forward or backward though no capture
region of the module shows it.

- A module that asks whether a capture is under way (`torch.cuda.is_current_stream_capturing()`,
  or a wrapper named `is_..._capturing`, such as a project's `is_graph_capturing()`: by the
  name called) says that its code runs while a stream captures.
- The hooks it pushes: `torch._C._autograd._push_saved_tensors_default_hooks(pack, unpack)`
  (what `torch.autograd.graph.saved_tensors_hooks.__enter__` calls; PyTorch
  `torch/autograd/graph.py`), `torch.autograd.graph.saved_tensors_hooks(pack, unpack)`, and
  `super().__init__(pack, unpack)` in a subclass of it. Autograd calls `pack` with every tensor
  the forward saves inside the context and `unpack` with what `pack` returned, in the backward.
  A push under a test of the capture status (or after an early return on one) is not read.
- The tensor is one of the captured (CUDA) computation: `pack`'s first parameter holds it, and
  `unpack`'s where `pack` may return its parameter (itself, or through a function or the one
  method of the module's classes of that name that returns the argument it is given).
"""

from __future__ import annotations

import ast
import re

from msgspec import Struct

from cursedlint.analysis.capture_regions import FUNCTIONS, CaptureAnalysis, never_rebound
from cursedlint.analysis.python_project import (
    last_name, own_method, own_nodes, positional_parameters,
)

PUSHES = frozenset({"torch._C._autograd._push_saved_tensors_default_hooks",
                    "torch.autograd.graph.saved_tensors_hooks"})
HOOK_CLASSES = frozenset({"torch.autograd.graph.saved_tensors_hooks"})
TRIGGER = ("capturing", "saved_tensors")
"""The words of a module this analysis can find something in."""
CALLED = rb"capturing\s*\("
"""A call of a name ending in `capturing` (`may_find`; the rule's second look)."""
_CALLED = re.compile(CALLED)


class PushedHook(Struct, frozen=True):
    """A hook the module pushes: `code` its def or lambda, `what` its kind in words,
    `pushed` the call that pushes it, `tensors` its parameters that hold a saved tensor."""

    code: ast.AST
    what: str
    pushed: ast.Call
    tensors: frozenset[str]


def may_find(data: bytes) -> bool:
    """Whether a module's bytes may hold what `pushed_hooks` finds: a push of saved-tensors
    hooks and a call of a name `is_..._capturing` (linear: each call's name is read back once)."""
    if b"saved_tensors" not in data:
        return False
    for match in _CALLED.finditer(data):
        start = match.start()
        while start and (data[start - 1] == 95 or chr(data[start - 1]).isalnum()):  # (95: "_")
            start -= 1
        if _is_query_name(data[start:match.start() + 9].decode("latin-1")):
            return True
    return False


def _is_query_name(name: str) -> bool:
    """`torch.cuda.is_current_stream_capturing` and the wrappers named like it (by the name
    called: an alias of another name is not read)."""
    return name.endswith("capturing") and name.startswith(("is_", "_is_"))


def capture_query(context) -> ast.Call | None:
    """The module's first call that asks whether a CUDA graph capture is under way."""
    return next((node for node in context.nodes(ast.Call) if _is_query(node)), None)


def _is_query(node: ast.Call) -> bool:
    name = last_name(node.func)
    return name is not None and _is_query_name(name)


def pushed_hooks(context, analysis: CaptureAnalysis) -> list[PushedHook]:
    """The saved-tensors hooks the module pushes, not under a test of the capture status."""
    found = []
    for call in context.nodes(ast.Call):
        pair = _pair(context, analysis, call)
        if pair is None or _guarded(context, call):
            continue
        pack, unpack = (analysis.code_of(value) if isinstance(value, ast.AST) else None
                        for value in pair[:2])
        pack = pack if isinstance(pack, (ast.Lambda, *FUNCTIONS)) else None
        unpack = unpack if isinstance(unpack, (ast.Lambda, *FUNCTIONS)) else None
        saved = first_parameter(pack)
        if pack is not None and saved:
            found.append(PushedHook(pack, "saved-tensors pack hook", call, saved))
        if unpack is not None and pack is not None and saved and \
                may_return(context, pack, next(iter(saved))):
            found.append(PushedHook(unpack, "saved-tensors unpack hook", call,
                                    first_parameter(unpack)))
    return found


def entered_hooks(context, analysis: CaptureAnalysis, entered: ast.AST) -> tuple | None:
    """(pack, unpack, the call that pushes them) where `entered` (a `with` item) is an instance
    of a module class that pushes saved-tensors hooks when entered: in its `__enter__` (not
    under a test of the capture status), or as a subclass of `saved_tensors_hooks`."""
    cls = analysis.module_class(analysis.constructor_of(entered))
    if cls is None:
        return None
    enter = own_method(cls, "__enter__")
    init = own_method(cls, "__init__")
    for method in (enter, init):
        for node in own_nodes(method.body if method is not None else ()):
            pair = _pair(context, analysis, node) if isinstance(node, ast.Call) else None
            if pair is not None and (method is init) == (pair[2] is not None) and \
                    not _guarded(context, node):
                return pair[0], pair[1], node
    return None


def _pair(context, analysis: CaptureAnalysis, call: ast.Call) -> tuple | None:
    """(pack, unpack, the subclass of `saved_tensors_hooks` whose `__init__` is given them, or
    None for a call that pushes them) that `call` pushes, or None."""
    if analysis.named(call.func, PUSHES):
        return (context.argument(call, 0, "pack_hook"), context.argument(call, 1, "unpack_hook"),
                None)
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super" and len(call.args) >= 2):
        return None
    cls = next((a for a in context.ancestors(call) if isinstance(a, ast.ClassDef)), None)
    if cls is None or not any(analysis.named(base, HOOK_CLASSES) for base in cls.bases):
        return None
    return call.args[0], call.args[1], cls


def _guarded(context, call: ast.Call) -> bool:
    """Whether the push is under a test of the capture status, or follows, in its function, an
    `if` on one that leaves."""
    for ancestor in context.ancestors(call):
        if isinstance(ancestor, (ast.If, ast.IfExp, ast.While)) and _asks(ancestor.test):
            return True
        if isinstance(ancestor, FUNCTIONS):
            return any(isinstance(statement, ast.If) and statement.lineno < call.lineno
                       and _asks(statement.test)
                       and any(isinstance(node, (ast.Return, ast.Raise))
                               for node in own_nodes(statement.body))
                       for statement in ancestor.body)
    return False


def _asks(test: ast.AST) -> bool:
    return any(isinstance(node, ast.Call) and _is_query(node)
               for node in own_nodes([test]))


def first_parameter(code: ast.AST | None) -> frozenset[str]:
    """The parameter a hook is given its tensor in (after `self` of a method), where the hook
    never rebinds it."""
    if code is None:
        return frozenset()
    return never_rebound(code, set(positional_parameters(code)[:1]))


def may_return(context, function: ast.AST | None, name: str, depth: int = 0) -> bool:
    """Whether `function` may return its parameter `name` as it is: `return name`, or the
    result of a call given it whose callee (a module function, or the one method of that name
    in the module's classes) may return that argument."""
    if function is None:
        return False
    if isinstance(function, ast.Lambda):
        returned = [function.body]
    else:
        returned = [node.value for node in own_nodes(function.body)
                    if isinstance(node, ast.Return) and node.value is not None]
    for value in returned:
        if isinstance(value, ast.Name) and value.id == name:
            return True
        if depth < 2 and isinstance(value, ast.Call):
            callee, index = _callee(context, value), _position(value, name)
            inner = _parameter_at(callee, index) if callee is not None and index is not None \
                else None
            if inner and inner in never_rebound(callee, {inner}) and \
                    may_return(context, callee, inner, depth + 1):
                return True
    return False


def _position(call: ast.Call, name: str) -> int | None:
    return next((i for i, arg in enumerate(call.args)
                 if isinstance(arg, ast.Name) and arg.id == name), None)


def _parameter_at(function: ast.AST, index: int) -> str | None:
    positional = positional_parameters(function, not any(
        last_name(decorator) == "staticmethod" for decorator in function.decorator_list))
    return positional[index] if index < len(positional) else None


def _callee(context, call: ast.Call) -> ast.AST | None:
    """The module's def `call` runs: a module function by its name, or the one method of
    that name among the module's classes."""
    func = call.func
    if isinstance(func, ast.Name):
        found = context.definition(func)
        return found if isinstance(found, FUNCTIONS) else None
    if not isinstance(func, ast.Attribute):
        return None
    methods = [method for cls in context.nodes(ast.ClassDef)
               if (method := own_method(cls, func.attr)) is not None]
    return methods[0] if len(methods) == 1 else None
