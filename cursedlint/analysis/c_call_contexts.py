"""What a function's parameters hold at each call of its own file, followed up to `MAX_DEPTH`
calls, and at the calls of other files of the function at the top (`c_parameter_blocks.
call_values`: their constants, their headers' constants, plain names) (CUR301's lengths): a
length of a parameter, or of a member of a pointer parameter,
unknown within its function, is known for a call that passes it a constant
(`pool_grow(pool, 8)` where `pool_init` stored `pool->entry = sizeof(struct msg)` just
before), and a call through a field is known to reach a registering function there only where
that call's chain stores one in it (`pool->reg = reg`, `reg` given `endpoint_reg`).

A `CallContext` is one call of the function and, where the caller's own parameters matter,
one of the caller's contexts in turn. The evaluator of a context (`CConstants` with `given`)
gives the function's parameters, and member paths on them (`p->size`), what the call's
arguments are where the caller calls it: the argument's value, or the path on it (`&pool`
then `pool.size`) as the caller's flow gives it there (`CConstants.path_value`). Each
context has an evaluator of its own (its values differ from call to call). A context whose
conditions skip the node (`if (pinned)` given 0) does not reach it (`reaches`)."""

from __future__ import annotations

import os
import weakref
from typing import Callable, NamedTuple

from cursedlint.analysis.c_constants import CConstants
from cursedlint.analysis.c_constants.flow import _field_path, _parameter_list
from cursedlint.analysis.c_constants.syntax import _Env
from cursedlint.analysis.c_constants.types import _ULONG, _GiveUp, _Value
from cursedlint.analysis.c_macros import function_scope
from cursedlint.analysis.c_memory import has_storage
from cursedlint.analysis.c_nodes import arguments, unwrapped
from cursedlint.analysis.c_syntax import parameter_names, plain_function
from cursedlint.findings import Step
from cursedlint.python.consteval import UNKNOWN

MAX_DEPTH = 3
"""Calls up a context is followed (the function's caller's callers' callers)."""
MAX_CONTEXTS = 16
"""Contexts of one function at most (each has an evaluator of its own)."""


class CallContext(NamedTuple):
    """One call (`call`) of a function (`function`, its definition); `outer`: a context of
    the caller's own (None: the caller's parameters are not known). A call of another file
    (`call` None) is its `path` and what it passes (`given`: `c_parameter_blocks.Given`s,
    a constant's value or a plain name, as that file shows them)."""

    function: object
    call: object
    outer: CallContext | None
    path: str = ""
    given: tuple = ()

    def key(self) -> tuple:
        if self.call is None:
            return (self.path, id(self.given))
        return (self.call.start_byte, *(self.outer.key() if self.outer else ()))


class CallContexts:
    """The call contexts of one file's functions, and their evaluators (`extra`: the header
    evaluators the file's `CConstants` has)."""

    def __init__(self, context, extra=(), callers: dict | None = None,
                 value_in: Callable | None = None):
        self.context, self.extra = context, tuple(extra)
        self.value_in = value_in  # (path, text) -> the value of a text in another file
        self.callers = callers or {}  # path -> `CallerBlocks` (`call_values`) of other files
        self.path = os.path.abspath(context.source.path)  # (as the index names it)
        self._evaluators: dict[tuple, CConstants] = {}
        self._found: dict[int, list] = {}

    def of(self, node) -> list[CallContext]:
        """The contexts of the plain function holding `node` ([] where the file calls it
        nowhere)."""
        function = function_scope(self.context, node)
        if function is None or function.type != "function_definition":
            return []
        return self._contexts(function, MAX_DEPTH)

    def _contexts(self, function, depth: int) -> list[CallContext]:
        key = (function.start_byte, depth)
        if key in self._found:
            return self._found[key]
        self._found[key] = found = []  # (a recursive call finds none)
        plain = plain_function(function)
        if plain is None:
            return found
        name = self.context.text(plain[0])
        for _, call in self.context.calls([name]):
            caller = function_scope(self.context, call)
            if caller is None or caller.type != "function_definition" or caller == function:
                continue
            outers = self._contexts(caller, depth - 1) if depth > 1 else []
            for outer in outers or [None]:
                found.append(CallContext(function, call, outer))
                if len(found) >= MAX_CONTEXTS:
                    return found
        if self.callers and not has_storage(self.context, function, ("static",)):
            for path, blocks in sorted(self.callers.items()):
                for given in blocks.calls.get(name, ()) if path != self.path else ():
                    found.append(CallContext(function, None, None, path, tuple(given)))
                    if len(found) >= MAX_CONTEXTS:
                        return found
        return found

    def tops(self, node) -> set[str]:
        """The functions other files may call at the top of `node`'s contexts in its file (the
        one holding it and its callers there, none `static`) that have a parameter that is no
        pointer: the calls of other files worth reading."""
        self.of(node)
        found = set()
        for start, _ in self._found:
            function = self.context.node_at(start, start)
            while function is not None and function.type != "function_definition":
                function = self.context.parent(function)
            plain = plain_function(function) if function is not None else None
            if plain is None or has_storage(self.context, function, ("static",)):
                continue
            parameters = plain[1].child_by_field_name("parameters").named_children
            if any("*" not in self.context.text(parameter) for parameter in parameters):
                found.add(self.context.text(plain[0]))
        return found

    def evaluator(self, context: CallContext | None) -> CConstants:
        """The evaluator of expressions of `context.function` in that context (None: the
        file's own, no parameter known)."""
        key = context.key() if context is not None else ()
        if key not in self._evaluators:
            evaluator = CConstants(self.context, extra=self.extra)
            if context is not None:  # (a weak reference: no cycle holds the file's tree)
                contexts = weakref.ref(self)
                evaluator.given = lambda path, function, asker: contexts()._given(
                    context, path, function, asker)
            self._evaluators[key] = evaluator
        return self._evaluators[key]

    def _given(self, context: CallContext, path: tuple, function, asker):
        """`CConstants.given` in `context`: the `_Value` of the call's argument for a
        parameter of the function called (a member path on it: the path on the argument
        where the caller calls it), else None."""
        argument = self._argument(context, path[0], function)
        if argument is None:
            return None
        if context.call is None:
            value = argument.value if argument.kind == "value" else self.value_in(
                context.path, argument.what) if argument.kind == "text" and self.value_in \
                else UNKNOWN
            return _Value(value, _ULONG) if value is not UNKNOWN and len(path) == 1 else None
        outer = self.evaluator(context.outer)
        if len(path) == 1:
            return asker._ask(outer, lambda: outer._eval(
                argument, _Env(argument, assignments=True)))
        root = _root(argument)
        if root is None:
            return None
        return asker._ask(outer, lambda: outer._path_value((root, *path[1:]), context.call))

    def _argument(self, context: CallContext, name: str, function):
        """The argument the call of `context` passes for parameter `name` of `function`
        (None: another function, or the call's arguments and the parameters differ in
        number)."""
        plain = plain_function(function)
        if function != context.function or plain is None:
            return None
        names = parameter_names(self.context, plain[1])
        given = arguments(context.call) if context.call is not None else context.given
        if name not in names or len(names) != len(given):
            return None
        return given[names.index(name)]

    def reaches(self, node, context: CallContext) -> bool:
        """Whether `node` may run in `context`: no `if` (or `?:`) around it in its function
        has a condition known there to take the other branch (`if (pinned)` given 0)."""
        evaluator = self.evaluator(context)
        function = function_scope(self.context, node)
        inner = node
        for outer in self.context.ancestors(node):
            if outer == function:
                return True
            if outer.type in ("if_statement", "conditional_expression"):
                taken = evaluator.evaluate(outer.child_by_field_name("condition"),
                                           assignments=True)
                branch = self.context.field_of(inner)
                if taken is not UNKNOWN and (branch == "consequence" and not taken
                                             or branch == "alternative" and taken):
                    return False
            inner = outer
        return True

    def function_named(self, node, context: CallContext | None, depth: int = 0
                       ) -> tuple[str, str] | None:
        """(name, path of its file) of the function an expression (a name, a member path:
        `pool->reg`) holds in `context`: the last assignment's value, followed; a parameter's
        argument at the call (another file's: a plain name it passes); a name that is no local
        or parameter (a function's); None where not known."""
        node = unwrapped(node)
        path = _field_path(node) if node is not None else None
        evaluator = self.evaluator(context)
        function = function_scope(self.context, node) if node is not None else None
        if path is None or function is None or depth > 2 * MAX_DEPTH:
            return None
        try:
            found = evaluator._assignment_of(path, node, function)
            root = evaluator._local_root(path[0], node, function)
            if found is not None:
                given = found[0] and found[0].child_by_field_name("right")
                return self.function_named(given, context, depth + 1) if given else None
            if root is None:
                return (path[0], self.path) if len(path) == 1 else None
            parameters = _parameter_list(function)
            if root.kind != "param" or context is None or parameters is None or \
                    evaluator._disturbed(path, parameters, node, function):
                return None
        except (_GiveUp, RecursionError):
            return None
        argument = self._argument(context, path[0], function)
        if argument is None:
            return None
        if context.call is None:
            return (argument.what, context.path) if argument.kind == "name" and \
                len(path) == 1 else None
        if len(path) == 1:
            return self.function_named(argument, context.outer, depth + 1)
        root = _root(argument)
        if root is None:
            return None
        return self._member_named((root, *path[1:]), context.call, context.outer, depth + 1)

    def _member_named(self, path: tuple, anchor, context: CallContext | None, depth: int):
        """`function_named` of a member path on a name (no node spells it) at `anchor`."""
        evaluator = self.evaluator(context)
        function = function_scope(self.context, anchor)
        try:
            found = evaluator._assignment_of(path, anchor, function)
        except (_GiveUp, RecursionError):
            return None
        given = found[0] and found[0].child_by_field_name("right") if found else None
        return self.function_named(given, context, depth) if given is not None else None

    def steps(self, context: CallContext, path: str) -> tuple[Step, ...]:
        """The chain's links of a context, the call nearest the function first."""
        found = []
        while context is not None:
            name = self.context.text(plain_function(context.function)[0])
            if context.call is None:
                line = context.given[0].line if context.given else 0
                found.append(Step(context.path, line, f"for this call of `{name}()`"))
                break
            caller = plain_function(function_scope(self.context, context.call))
            by = f" in `{self.context.text(caller[0])}()`" if caller else ""
            found.append(Step(path, context.call.start_point[0] + 1,
                              f"for this call of `{name}()`{by}"))
            context = context.outer
        return tuple(found)


def _root(argument) -> str | None:
    """The name a member path on a parameter continues from at the call: the argument's name,
    or the name whose address it is (`&pool`)."""
    node = unwrapped(argument)
    if node is not None and node.type == "pointer_expression" and \
            node.child_by_field_name("operator").type == "&":
        node = unwrapped(node.child_by_field_name("argument"))
    return node.text.decode() if node is not None and node.type == "identifier" else None
