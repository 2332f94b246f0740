"""Callback objects that their own callback drops while C runs it (CUR202 asks).

A class binds `self.<attr>` to a ctypes or cffi callback object of one of its own methods
(`Proto(self.on_done)`) and hands it to calls: a foreign function, or a function that stores it
where C reads it later (a structure's field). The module holds it nowhere else: every read of
`self.<attr>` in the class is an argument of such a call (not a container's `append`), and no
other object's `.<attr>` is read. When the wrapped method, itself or through the class's
methods it calls (`self.close()`, `MAX_METHODS` deep), rebinds or deletes `self.<attr>`, the
object's last reference goes while C is executing its trampoline: the collection that frees it
may run before the callback returns, and the return goes through freed memory (python-libusb1
issue #47: `close()`, called inside the transfer callback, cleared the thunk; occasional
segfaults in libffi). A call named for synchronous use (`*sort*`, ...) holds the object in its
own arguments while C calls it: such handing calls alone are not a finding.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator, NamedTuple

from cursedlint.analysis.capture_regions import is_self_attribute
from cursedlint.analysis.foreign_keeping import synchronous
from cursedlint.analysis.python_project import last_name, own_method, own_nodes
from cursedlint.findings import Step

MAX_METHODS = 3
"""Calls of the class's own methods followed from the wrapped method to the release."""

_CONTAINER_METHODS = frozenset({"append", "add", "extend", "insert", "setdefault", "update",
                                "put", "put_nowait", "appendleft"})
_RELEASES = (ast.Assign, ast.AnnAssign, ast.Delete)

SELF_RELEASE_HELP = (
    "C is executing this object's trampoline when its callback drops the last reference: "
    "ctypes frees the closure at the next collection, which may run before the callback "
    "returns, and C then returns through freed memory (an occasional crash in libffi). Keep "
    "the object past the callback: one object for the class (a class attribute or module "
    "global), or clear the attribute only where C can no longer be running it.")


class SelfRelease(NamedTuple):
    """`release` rebinds or deletes `self.<attribute>`, which holds the callback object
    `made` binds (of the class's `method`) and `handed` hands on; `calls`: the `self.<m>()`
    calls from `method` to the method holding `release`."""

    attribute: str
    made: ast.Assign
    method: ast.AST
    handed: ast.Call
    calls: tuple[ast.Call, ...]
    release: ast.stmt

    def message(self, maker: str) -> str:
        via = f" (through {', '.join(f'{c.func.attr}()' for c in self.calls)})" \
            if self.calls else ""
        return (f"self.{self.attribute}, the {maker} callback of {self.method.name}(), is "
                f"dropped inside that callback{via}: C returns into a freed trampoline")

    def steps(self, path: str) -> tuple[Step, ...]:
        return (Step(path, self.made.lineno, f"self.{self.attribute} holds the callback of "
                     f"{self.method.name}(), made here"),
                Step(path, self.handed.lineno,
                     f"and handed to {last_name(self.handed.func)}() here, for C to call"),
                *(Step(path, call.lineno, f"the callback calls {call.func.attr}() here")
                  for call in self.calls))


def self_releases(context, is_wrap: Callable[[ast.AST], bool]) -> Iterator[SelfRelease]:
    """The module's callback objects that their own callback drops (`is_wrap`: whether a
    call makes a callback object)."""
    for made in context.nodes(ast.Assign):
        value = made.value  # (the cheapest tests first: every assignment of the module)
        if not (type(value) is ast.Call and value.args
                and type(value.args[-1]) is ast.Attribute and len(made.targets) == 1
                and is_self_attribute(value.args[-1]) and is_self_attribute(made.targets[0])):
            continue
        scope = context.scope_of(made)
        cls = context.parent_of(scope) if scope is not None else None
        method = own_method(cls, value.args[-1].attr) if isinstance(cls, ast.ClassDef) else None
        if method is None or not is_wrap(value):
            continue
        attribute = made.targets[0].attr
        handed = _only_handed(context, cls, attribute)
        found = None if handed is None else _release(cls, method, attribute, made, (), {method})
        if found is not None:
            yield SelfRelease(attribute, made, method, handed, *found)


def _only_handed(context, cls: ast.ClassDef, attribute: str) -> ast.Call | None:
    """The first call handing `self.<attribute>` on for later (not named synchronous), where
    every read of it in the class is an argument of a call and no other object's attribute
    of that name (or its mangled name) is read; None else."""
    names = {attribute}
    if attribute.startswith("__") and not attribute.endswith("__"):
        names.add(f"_{cls.name.lstrip('_')}{attribute}")
    inside = {id(node) for node in ast.walk(cls)}
    handed = []
    for node in context.nodes(ast.Attribute):
        if node.attr not in names or not isinstance(node.ctx, ast.Load):
            continue
        if not is_self_attribute(node):
            return None  # (another object's: a copy may keep it)
        if id(node) not in inside:
            continue  # (another class's own attribute)
        call = context.parent_of(node)
        if isinstance(call, ast.keyword):
            call = context.parent_of(call)
        if not (isinstance(call, ast.Call) and node is not call.func) or \
                last_name(call.func) in _CONTAINER_METHODS:
            return None
        if not synchronous(last_name(call.func) or ""):
            handed.append(call)
    return min(handed, key=lambda call: (call.lineno, call.col_offset), default=None)


def _release(cls: ast.ClassDef, method: ast.AST, attribute: str, made: ast.Assign,
             calls: tuple[ast.Call, ...], seen: set) -> tuple[tuple, ast.stmt] | None:
    """The first statement of `method` (or of a method of the class it calls, in order)
    rebinding or deleting `self.<attribute>`, with the calls leading to it."""
    nodes = sorted((node for node in own_nodes(method.body)
                    if isinstance(node, (*_RELEASES, ast.Call))),
                   key=lambda node: (node.lineno, node.col_offset))
    for node in nodes:
        if isinstance(node, _RELEASES) and node is not made and any(
                is_self_attribute(target) and target.attr == attribute
                for target in (node.targets if not isinstance(node, ast.AnnAssign)
                               else (node.target,))):
            return calls, node
    if len(calls) >= MAX_METHODS:
        return None
    for node in nodes:
        if isinstance(node, ast.Call) and is_self_attribute(node.func):
            callee = own_method(cls, node.func.attr)
            if callee is not None and callee not in seen:
                seen.add(callee)
                found = _release(cls, callee, attribute, made, (*calls, node), seen)
                if found is not None:
                    return found
    return None
