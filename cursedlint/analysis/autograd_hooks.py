"""The autograd and module hooks a capture region runs: code of the module that autograd or a
module call runs while the stream captures, though the region never calls it by name.

- `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):` in the region: `pack` runs
  for every tensor autograd saves in the block's forward (its parameter is that tensor, on the
  GPU in a CUDA capture), `unpack` in a backward the region runs later;
- `t.register_hook(fn)` in the region: `fn` runs in a backward the region runs later, given
  the gradient (a CUDA tensor where `t` is known to be one);
- `m.register_forward_hook(fn)` / `register_forward_pre_hook` in the region, then `m(...)` in
  it (a forward hook's `output` is a CUDA tensor where `m(...)` is known to return one); `register_full_backward_hook`, `register_full_backward_pre_hook` and
  `register_backward_hook` likewise, with a backward after the call;
- the same module hooks registered on `self.m` by the statements of the class's `__init__`
  (not under a condition), where a region in a method of that class calls `self.m(...)`, or on
  `m` (`self.m`, or a name not bound again after it) by the statements of the function holding
  the region, before it (not under a condition), where the region calls `m(...)`;
- `with Offload():` in the region, an instance of a module class that pushes saved-tensors
  hooks in its `__enter__` or subclasses `saved_tensors_hooks` (`pushed_hooks.entered_hooks`);
  an unpack hook is given a CUDA tensor where the pack hook may return the one it is given.

A hook registered outside what the module shows (a library's, another class's) is not read.
"""

from __future__ import annotations

import ast

from msgspec import Struct

from cursedlint.analysis.capture_regions import (
    FUNCTIONS, CaptureAnalysis, Region, is_self_attribute, key, never_rebound,
)
from cursedlint.analysis.pushed_hooks import entered_hooks, first_parameter, may_return
from cursedlint.analysis.python_project import own_nodes, positional_parameters, scope_nodes

SAVED_TENSORS_HOOKS = frozenset({"torch.autograd.graph.saved_tensors_hooks"})
TENSOR_HOOKS = frozenset({"register_hook"})
FORWARD_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook"})
BACKWARD_HOOKS = frozenset({"register_full_backward_hook", "register_full_backward_pre_hook",
                            "register_backward_hook"})
MODULE_HOOKS = FORWARD_HOOKS | BACKWARD_HOOKS


class Hook(Struct, frozen=True):
    """A hook the region runs: `named` the expression that names it, `code` the def or lambda
    of the module it is (None: another module's function, or unknown), `registered` where it
    is registered,
    `runs` the node of the region that runs it (the registration itself, or the call of the
    module it is registered on), `what` its kind in words, `tensors` its parameters known to
    hold CUDA tensors, `backward` the backward call after which it runs (None: it runs in
    the forward)."""

    named: ast.AST
    code: ast.AST | None
    registered: ast.AST
    runs: ast.AST
    what: str
    tensors: frozenset[str] = frozenset()
    backward: ast.AST | None = None


class RegionHooks:
    """The hooks of the module's capture regions (`hooks(region, ...)`)."""

    def __init__(self, context, analysis: CaptureAnalysis, holds):
        """`holds(node)`: whether an expression of the region is known to hold a CUDA tensor
        (`CudaTensors.holds`)."""
        self.context = context
        self.analysis = analysis
        self.holds = holds

    def hooks(self, region: Region, backward_after) -> list[Hook]:
        """The hooks `region` runs; `backward_after(statements)`: the call among (or reached
        from) `statements` that runs a backward, or None."""
        found: list[Hook] = []
        persistent = self._init_hooks(region)
        for target, registrations in self._earlier_hooks(region).items():
            persistent.setdefault(target, []).extend(registrations)
        for index, statement in enumerate(region.body):
            rest = region.body[index:]
            for node in own_nodes([statement]):
                if isinstance(node, (ast.With, ast.AsyncWith)):
                    found.extend(self._saved_tensor_hooks(node, rest, backward_after))
                elif isinstance(node, ast.Call):
                    found.extend(self._registered(node, rest, backward_after))
                    found.extend(self._persistent(node, persistent, rest, backward_after))
        return found

    def _saved_tensor_hooks(self, node, rest, backward_after) -> list[Hook]:
        hooks = []
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and self.analysis.named(call.func, SAVED_TENSORS_HOOKS):
                pack = self.context.argument(call, 0, "pack_hook")
                unpack = self.context.argument(call, 1, "unpack_hook")
                registered = call
            else:  # a module class entered, that pushes them
                entered = entered_hooks(self.context, self.analysis, call)
                if entered is None:
                    continue
                pack, unpack, registered = entered
            pack_code = self._code(pack) if isinstance(pack, ast.AST) else None
            saved = first_parameter(pack_code)
            if isinstance(pack, ast.AST) and any(isinstance(n, ast.Call)
                                                 for n in own_nodes(node.body)):
                hooks.append(Hook(pack, pack_code, registered, call,
                                  "the saved-tensors pack hook", saved))
            backward = backward_after(rest) if isinstance(unpack, ast.AST) else None
            if backward is not None:
                code = self._code(unpack)
                given = first_parameter(code) if saved and may_return(
                    self.context, pack_code, next(iter(saved))) else frozenset()
                hooks.append(Hook(unpack, code, registered, call,
                                  "the saved-tensors unpack hook", given, backward))
        return hooks

    def _registered(self, call: ast.Call, rest, backward_after) -> list[Hook]:
        """A hook registered by `call` in the region that the region then runs."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and call.args and
                func.attr in TENSOR_HOOKS | MODULE_HOOKS):
            return []
        named = call.args[0]
        code = self._code(named)
        if func.attr in TENSOR_HOOKS:
            backward = backward_after(rest)
            tensors = first_parameter(code) if self.holds(func.value) else frozenset()
            return [] if backward is None else [
                Hook(named, code, call, call, "the gradient hook", tensors, backward)]
        module = key(func.value)
        runs = next((node for node in own_nodes(rest) if isinstance(node, ast.Call)
                     and node is not call and key(node.func) == module
                     and _after(node, call)), None)
        return [] if runs is None else self._module_hook(named, call, runs, func.attr, rest,
                                                          backward_after)

    def _persistent(self, call: ast.Call, persistent: dict[str, list[ast.Call]], rest,
                    backward_after) -> list[Hook]:
        """The hooks registered before the region (`_init_hooks`, `_earlier_hooks`) on `m`, run
        by the region's `m(...)`."""
        if not persistent or not isinstance(call.func, (ast.Attribute, ast.Name)):
            return []
        registrations = persistent.get(key(call.func))
        hooks = []
        for registration in registrations or ():
            hooks.extend(self._module_hook(registration.args[0], registration, call,
                                           registration.func.attr, rest, backward_after))
        return hooks

    def _module_hook(self, named, registered, runs, how: str, rest,
                     backward_after) -> list[Hook]:
        code = self._code(named)
        if how in FORWARD_HOOKS:
            tensors = _output_parameter(code, registered) \
                if how == "register_forward_hook" and self.holds(runs) else frozenset()
            return [Hook(named, code, registered, runs, "the forward hook", tensors)]
        backward = backward_after(rest)
        return [] if backward is None else [
            Hook(named, code, registered, runs, "the backward hook", backward=backward)]

    def _init_hooks(self, region: Region) -> dict[str, list[ast.Call]]:
        """`self.m` -> the module hooks the `__init__` of the class whose method holds the
        region registers on it, in statements of its own body (not under a condition)."""
        method = next((a for a in self.context.ancestors(region.start)
                       if isinstance(a, FUNCTIONS)), None)
        cls = self.context.parent_of(method) if method is not None else None
        if not isinstance(cls, ast.ClassDef):
            return {}
        init = self.analysis.own_method(cls, "__init__")
        registrations: dict[str, list[ast.Call]] = {}
        for statement in getattr(init, "body", ()):
            call = _registration(statement)
            if call is not None and is_self_attribute(call.func.value):
                registrations.setdefault(key(call.func.value), []).append(call)
        return registrations

    def _earlier_hooks(self, region: Region) -> dict[str, list[ast.Call]]:
        """`m` -> the module hooks registered on it by the statements of the function holding
        the region before the one that holds it (not under a condition), where `m` is `self.m`
        or a name the function never binds again after the registration."""
        function = next((a for a in self.context.ancestors(region.start)
                         if isinstance(a, FUNCTIONS)), None)
        if function is None:
            return {}
        registrations: dict[str, list[ast.Call]] = {}
        for statement in function.body:
            if statement.end_lineno >= region.start.lineno:
                break
            call = _registration(statement)
            target = call.func.value if call is not None else None
            if target is not None and (is_self_attribute(target) or isinstance(
                    target, ast.Name) and not self._bound_after(function, target)) \
                    and not self._removed(function, statement, region):
                registrations.setdefault(key(target), []).append(call)
        return registrations

    def _removed(self, function: ast.AST, statement: ast.stmt, region: Region) -> bool:
        """Whether the handle `statement` assigns is removed (`handle.remove()`) before the
        region, or is not a plain name."""
        if not isinstance(statement, ast.Assign):
            return False
        target = statement.targets[0]
        return not isinstance(target, ast.Name) or any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "remove" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == target.id and _after(region.start, node)
            for node in scope_nodes(self.context, function))

    def _bound_after(self, function: ast.AST, name: ast.Name) -> bool:
        return any(isinstance(node, ast.Name) and node.id == name.id and
                   not isinstance(node.ctx, ast.Load) and _after(node, name)
                   for node in scope_nodes(self.context, function))

    def _code(self, value) -> ast.AST | None:
        code = self.analysis.code_of(value) if isinstance(value, ast.AST) else None
        return code if isinstance(code, (ast.Lambda, *FUNCTIONS)) else None


def _output_parameter(code: ast.AST | None, registered: ast.Call) -> frozenset[str]:
    """A forward hook's `output` parameter (`hook(module, args, output)`, after `self` of a
    method), where the hook never rebinds it; none for one registered `with_kwargs`."""
    if code is None or any(keyword.arg == "with_kwargs" for keyword in registered.keywords):
        return frozenset()
    return never_rebound(code, set(positional_parameters(code)[2:3]))


def _registration(statement: ast.stmt) -> ast.Call | None:
    """The module hook a statement registers (`m.register_forward_hook(fn)`, or its handle
    assigned), or None."""
    call = getattr(statement, "value", None)
    if isinstance(statement, (ast.Expr, ast.Assign)) and isinstance(call, ast.Call) \
            and isinstance(call.func, ast.Attribute) and call.args \
            and call.func.attr in MODULE_HOOKS:
        return call
    return None


def _after(node: ast.AST, other: ast.AST) -> bool:
    return (node.lineno, node.col_offset) > (other.lineno, other.col_offset)
