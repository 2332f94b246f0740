"""Whether an instance of a module's class may die while C still holds what it keeps (CUR202
asks it of a callback object kept only in `self.<attr>` and handed to a foreign function).

"May die" is read from the module, and answered only where the module shows it:
- a construction of the class (`Kernel(name)`) whose instance nothing keeps: a call whose
  value is discarded (an expression statement), or a function's local bound once to it and
  used only to read attributes (`kernel.name`) or to call the class's methods, and neither
  returned, stored, passed, yielded nor captured;
- where neither the constructor nor a method called there lets `self` escape: no bare `self`
  (stored, passed, returned) and no nested function or lambda reading `self`, except the
  callable the callback object wraps (which the object holds, and dies with it);
- and the class has no `__del__` (which may release what C holds).
A construction anywhere else (kept at module level, in a container or an attribute, in another
module) may keep the instance for as long as C calls: no answer. So may one returned to a
caller, except where C keeps the pointer for the rest of the process (`permanent`: an XLA FFI
target): then only a keeper for the process's life would do, and the callers' is not shown.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.python_project import own_method, value_of
from cursedlint.findings import Step

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (*_FUNCTIONS, ast.Lambda)
MAX_METHODS = 3
"""Calls of the class's own methods followed (`self.setup()` in `__init__`) when asking
whether `self` escapes."""


class Dropped(NamedTuple):
    """A construction of `cls` (`call`) whose instance dies when `function` returns, bound to
    its `local` (None, None: at once, its value discarded; a function and no local: returned
    by it, to callers a permanent registry outlives)."""

    cls: ast.ClassDef
    call: ast.Call
    function: ast.AST | None
    local: str | None

    def when(self) -> str:
        if self.function is None:
            return "at once (its value is discarded)"
        if self.local is None:
            return (f"when the callers of {self.function.name}(), which returns it, let go of "
                    "it, while the registry keeps the pointer for the process")
        return (f"when {self.function.name}() returns (its local '{self.local}' is all that "
                "holds it)")


class DyingKeeper(NamedTuple):
    """A callback object (`wrap`) kept in an attribute of an instance that dies (`dropped`)."""

    wrap: ast.AST
    dropped: Dropped

    @property
    def where(self) -> str:
        return f"dies with the {self.dropped.cls.name} holding it"

    def step(self, context) -> Step:
        """The chain step at the construction whose instance dies."""
        return Step(context.source.path, self.dropped.call.lineno,
                    f"the {self.dropped.cls.name} made here dies {self.dropped.when()}")


def dying_attribute(context, attribute: ast.Attribute, is_wrap,
                    permanent: bool = False) -> DyingKeeper | None:
    """For `self.<attr>` handed to C in a method: the callback object the class binds it to
    (its one binding, `is_wrap`; read nowhere else in the class) and a construction whose
    instance dies with it (`dropped_instance`; `permanent`: C keeps the pointer for the
    process); None else."""
    bound = value_of(context, attribute)
    if bound is None or not is_wrap(bound):
        return None
    method = context.scope_of(attribute)
    cls = context.parent_of(method) if isinstance(method, _FUNCTIONS) else None
    if not isinstance(cls, ast.ClassDef) or sum(
            is_self_attribute(node) and node.attr == attribute.attr
            and isinstance(node.ctx, ast.Load) for node in ast.walk(cls)) != 1:
        return None
    held = bound.args[-1] if isinstance(bound, ast.Call) and bound.args else bound
    dropped = dropped_instance(context, method, held, permanent)
    return None if dropped is None else DyingKeeper(bound, dropped)


def dropped_instance(context, method: ast.AST, held: ast.AST,
                     permanent: bool = False) -> Dropped | None:
    """A construction in the module of the class defining `method` whose instance dies with
    the object `method` keeps in it, when the instance runs `method` (it is the constructor,
    a method the constructor calls, or one called on the dropped instance) and `self` escapes
    nowhere but into `held` (the callback object's wrapped callable); None when the module
    does not show one."""
    cls = context.parent_of(method)
    if not isinstance(cls, ast.ClassDef) or own_method(cls, "__del__") is not None:
        return None
    init = own_method(cls, "__init__")
    if init is not None and _escapes(cls, init, held, 0):
        return None
    constructed = init is not None and method is not init and _calls(cls, init, method.name, 0)
    for call in context.nodes(ast.Call):
        if not (isinstance(call.func, ast.Name) and context.definition(call.func) is cls):
            continue
        found = _dropped(context, cls, call, held, permanent)
        if found is not None and (method is init or constructed or _runs(found, method)):
            return found
    return None


def _dropped(context, cls: ast.ClassDef, call: ast.Call, held: ast.AST,
             permanent: bool) -> Dropped | None:
    parent = context.parent_of(call)
    if isinstance(parent, ast.Expr):
        return Dropped(cls, call, None, None)
    if permanent and isinstance(parent, ast.Return):
        function = context.scope_of(call)
        return Dropped(cls, call, function, None) if isinstance(function, _FUNCTIONS) else None
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    function = context.scope_of(call)
    if not isinstance(function, _FUNCTIONS):
        return None  # (module level: kept)
    for node in ast.walk(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None
        if isinstance(node, _NESTED) and node is not function and any(
                isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node)):
            return None  # captured
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Store) and context.parent_of(node) is not parent:
                return None  # bound again
            if isinstance(node.ctx, ast.Load) and not _only_read(context, cls, node, held):
                return None
    return Dropped(cls, call, function, name)


def _only_read(context, cls: ast.ClassDef, name: ast.Name, held: ast.AST) -> bool:
    """Whether this use of the local reads an attribute of the instance, or calls a method of
    the class that lets `self` escape nowhere."""
    attribute = context.parent_of(name)
    if not isinstance(attribute, ast.Attribute) or attribute.value is not name:
        return False
    called = context.parent_of(attribute)
    if not (isinstance(called, ast.Call) and called.func is attribute):
        return True
    method = own_method(cls, attribute.attr)
    return method is not None and not _escapes(cls, method, held, 0)


def _runs(found: Dropped, method: ast.AST) -> bool:
    """Whether the function holding the dropped local calls `method` on it."""
    return found.function is not None and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == method.name and isinstance(node.func.value, ast.Name)
        and node.func.value.id == found.local for node in ast.walk(found.function))


def _calls(cls: ast.ClassDef, method: ast.AST, name: str, depth: int) -> bool:
    """Whether `method` calls `self.<name>()`, itself or through the class's methods."""
    for node in ast.walk(method):
        if isinstance(node, ast.Call) and is_self_attribute(node.func):
            if node.func.attr == name:
                return True
            callee = own_method(cls, node.func.attr)
            if callee is not None and depth < MAX_METHODS and _calls(cls, callee, name, depth + 1):
                return True
    return False


def _escapes(cls: ast.ClassDef, method: ast.AST, held: ast.AST, depth: int) -> bool:
    """Whether `method` lets `self` out: a bare `self` (stored, passed, returned), a nested
    function reading it (but `held`), or a method of the class it calls that does."""
    nested = {id(inner) for node in ast.walk(method) if isinstance(node, _NESTED)
              and node is not method and node is not held for inner in ast.walk(node)}
    bases = {id(node.value) for node in ast.walk(method) if isinstance(node, ast.Attribute)}
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == "self" and (
                id(node) in nested or id(node) not in bases):
            return True
        if isinstance(node, ast.Call) and is_self_attribute(node.func):
            callee = own_method(cls, node.func.attr)
            if callee is not None and callee is not method and (
                    depth >= MAX_METHODS or _escapes(cls, callee, held, depth + 1)):
                return True
    return False
