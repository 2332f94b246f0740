"""Calls through function pointers in C/C++, project-wide: a field-based call graph.

A function stored in a struct field anywhere in the project is a callee of every call through a
field of that name (`p->f(...)`, `s.f(...)`, `tbl[i].f(...)`, `(*p->f)(...)`). A function is
stored by a designated initializer (`.f = fn`, `.f = &fn`, the last designator of `.a.f = fn`)
or an assignment (`x->f = fn`, `x.f = fn`); a function passed as an argument flows to the
callee's parameter, and where the callee stores that parameter in a field (`x->f = param;`),
to that field (one call: a parameter passed on again is not followed).

**Field identity is the field's name alone**, not the struct type: the type of the object a
call goes through (`fl->f`, `tbl[i].f`, a `void *` cast back, a typedef in another header) is
not known without a type checker, and tables of one struct type are filled in files that
never name the pointer's type. Two structs with a field of the same name are one field here;
to keep that from inventing edges, a field is only resolved when every value the project gives
it is known:
- a value that is neither a function nor NULL (`x->f = local`, `x->f = g()`, `.f = a ? b : c`)
  makes the field `unknown` (no edges); copies between fields of the same name are ignored;
- a field with more than `MAX_CANDIDATES` distinct functions gives no edge.
A rule then asks what each candidate does (`FunctionPointerGraph.agreeing`) and follows a call
through the field only when every candidate does the same thing, so a field that also holds a
harmless function stays silent. Positional initializers of known struct types are not read (a
struct's field order would need its declaration, often in another header): such a store is
missed, never invented.

What counts as a function: a name the file defines or declares as a function (a prototype), or
one of the names a rule family gives (`process_vm_readv`, `ibv_reg_mr`, declared in system
headers). Where the value of a store is a parameter of the enclosing function, the store is a
parameter flow (`FieldFlows.parameters`), resolved against the calls that pass functions to it.

`field_flows(context, functions)` is one file's `FieldFlows` (plain data: the rules' project
indexes store it in their summaries); `FunctionPointerGraph(flows)` combines the project's
(path -> `FieldFlows`); `indirect_calls(context, fields)` lists the file's calls through the
given fields.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Callable, Iterable

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    arguments, declared_name, function_declarator, parameter_names, plain_function, scope_of,
    unwrapped,
)
from cursedlint.findings import Step

MAX_CANDIDATES = 8
"""Distinct functions a field may hold and still give edges (an ops table implemented by many
providers is resolved; a generic `fn`/`cb` field of a dispatcher is not)."""

_NULLS = frozenset({"NULL", "nullptr", "0"})
_STORE_NAME = re.compile(rb"(?:(?<=\.)|(?<=->))[A-Za-z_]\w*(?=\s*=(?!=))")
"""A field name written right after `.` or `->` and before `=`: where a store may be."""
_FILE_SCOPES = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                          "preproc_elif", "preproc_elifdef", "linkage_specification",
                          "declaration_list"})


class FieldFlows(Struct, frozen=True):
    """One file's flows of functions into struct fields: `stores` field -> [(function,
    line)]; `unknown` the fields given a value that is not a function; `parameters` function ->
    [(parameter position, field, line)] where a function stores its parameter in a field;
    `passes` [(callee, argument position, function, line)] for calls given a function."""

    stores: dict[str, list[tuple[str, int]]] = {}
    unknown: list[str] = []
    parameters: dict[str, list[tuple[int, str, int]]] = {}
    passes: list[tuple[str, int, str, int]] = []

    def __bool__(self) -> bool:
        return bool(self.stores or self.unknown or self.parameters or self.passes)


class Candidate(Struct, frozen=True):
    """A function a field may hold: `function`, stored at `path:line` (the initializer or the
    assignment; for a parameter flow, the call that passes it, with the store in `through`)."""

    function: str
    path: str
    line: int
    through: tuple[str, int, str] | None = None  # (path, line, callee) of the parameter store

    def steps(self, call_text: str) -> tuple[Step, ...]:
        """The chain links that show how the call reaches the function."""
        if self.through is None:
            return (Step(self.path, self.line,
                         f"through `{call_text}`, which holds `{self.function}`"),)
        path, line, callee = self.through
        return (Step(self.path, self.line, f"`{self.function}` is passed to `{callee}()`"),
                Step(path, line, f"`{callee}()` stores it in the field called as `{call_text}`"))


def field_flows(context, functions: Iterable[str] = ()) -> FieldFlows:
    """The file's `FieldFlows`; `functions`: names that are functions besides those the file
    defines or declares."""
    return context.shared(("field flows", frozenset(functions)),
                          lambda: _Flows(context, frozenset(functions)).flows)


def indirect_calls(context, fields: Iterable[str]) -> list[tuple[str, object]]:
    """(field, call) for each call of the file through a field named in `fields`, in order."""
    found = []
    for field, leaf in context.tokens(fields) if fields else ():
        access = context.parent(leaf)
        if leaf.type != "field_identifier" or access is None \
                or access.type != "field_expression" or access.child_by_field_name("field") != leaf:
            continue
        callee, call = access, context.parent(access)
        while call is not None and (call.type == "parenthesized_expression" or (
                call.type == "pointer_expression" and call.child(0).type == "*")):
            callee, call = call, context.parent(call)
        if call is not None and call.type == "call_expression" \
                and call.child_by_field_name("function") == callee:
            found.append((field, call))
    return found


def called_text(context, call) -> str:
    """How an indirect call names its callee (`fl->regmr_fn`, `tbl[op].fn`), on one line."""
    return " ".join(context.text(call.child_by_field_name("function")).split())


class _Flows:
    def __init__(self, context, functions: frozenset[str]):
        self.context = context
        self.functions = functions

    @cached_property
    def _functions(self) -> frozenset[str]:
        """The names the file defines or declares as functions at file scope (through `#if`,
        `extern "C"` and namespaces), and the given ones."""
        names, pending = set(self.functions), [self.context.root]
        while pending:
            for node in pending.pop().named_children:
                if node.type in _FILE_SCOPES:
                    pending.append(node)
                elif node.type == "namespace_definition":
                    pending.extend(filter(None, [node.child_by_field_name("body")]))
                elif node.type in ("function_definition", "declaration"):
                    for declarator in node.children_by_field_name("declarator"):
                        if function_declarator(declarator) is not None:
                            names.add(declared_name(self.context, declarator))
        names.discard("")
        return frozenset(names)

    def _function(self, value) -> str | None:
        """The function an expression names (`fn`, `&fn`, `(cast)fn`), else None."""
        value = unwrapped(value)
        if value is not None and value.type == "pointer_expression" \
                and value.child(0).type == "&":
            value = unwrapped(value.child_by_field_name("argument"))
        if value is None or value.type != "identifier":
            return None
        name = self.context.text(value)
        return name if name in self._functions else None

    @cached_property
    def flows(self) -> FieldFlows:
        stores: dict[str, list[tuple[str, int]]] = {}
        unknown: set[str] = set()
        parameters: dict[str, list[tuple[int, str, int]]] = {}
        for field, value, line in self._stores():
            function = self._function(value)
            if function is not None:
                stores.setdefault(field, []).append((function, line))
                continue
            found = self._parameter(value)
            if found is not None:
                parameters.setdefault(found[0], []).append((found[1], field, line))
            elif not self._harmless(value, field):
                unknown.add(field)
        return FieldFlows(stores, sorted(unknown), parameters, self._passes())

    def _stores(self):
        """(field, value, line) for each `.f = v` of an initializer (the last designator) and
        each `x.f = v` / `x->f = v`, found by a byte search for the name before `=`."""
        for start, end, leaf in self.context.hits(_STORE_NAME):
            if leaf.type != "field_identifier" or leaf.start_byte != start \
                    or leaf.end_byte != end:
                continue
            parent = self.context.parent(leaf)
            if parent is None:
                continue
            if parent.type == "field_designator":
                pair = self.context.parent(parent)
                designators = pair.children_by_field_name("designator") if pair else []
                if pair is None or pair.type != "initializer_pair" or designators[-1] != parent:
                    continue
                value = pair.child_by_field_name("value")
            elif parent.type == "field_expression" \
                    and parent.child_by_field_name("field") == leaf:
                assignment = self.context.parent(parent)
                if assignment is None or assignment.type != "assignment_expression" \
                        or assignment.child_by_field_name("left") != parent \
                        or assignment.child_by_field_name("operator").type != "=":
                    continue
                value = assignment.child_by_field_name("right")
            else:
                continue
            if value is not None:
                yield self.context.text(leaf), value, leaf.start_point[0] + 1

    def _harmless(self, value, field: str) -> bool:
        """NULL, 0, or a copy from a field of the same name: no new function for the field."""
        value = unwrapped(value)
        if value is None:
            return True
        if value.type in ("null", "nullptr") or self.context.text(value) in _NULLS:
            return True
        return value.type == "field_expression" and self.context.text(
            value.child_by_field_name("field")) == field

    def _parameter(self, value) -> tuple[str, int] | None:
        """(function, position) when a value is a parameter of the plain function storing
        it."""
        value = unwrapped(value)
        if value is None or value.type != "identifier":
            return None
        scope = scope_of(self.context, value)
        plain = plain_function(scope) if scope is not None \
            and scope.type == "function_definition" else None
        if plain is None:
            return None
        parameters = parameter_names(self.context, plain[1])
        text = self.context.text(value)
        return (self.context.text(plain[0]), parameters.index(text)) \
            if text in parameters else None

    def _passes(self) -> list[tuple[str, int, str, int]]:
        """(callee, position, function, line) for each plain call given a function."""
        found = []
        for name, leaf in self.context.tokens(self._functions):
            argument, parent = leaf, self.context.parent(leaf)
            while parent is not None and (parent.type in (
                    "parenthesized_expression", "cast_expression") or (
                    parent.type == "pointer_expression" and parent.child(0).type == "&")):
                argument, parent = parent, self.context.parent(parent)
            if parent is None or parent.type != "argument_list" or argument.type == "comment":
                continue
            call = self.context.parent(parent)
            function = call.child_by_field_name("function") if call is not None else None
            if function is None or function.type != "identifier" \
                    or self._function(argument) != name:
                continue
            found.append((self.context.text(function), arguments(call).index(argument), name,
                          leaf.start_point[0] + 1))
        return found


class FunctionPointerGraph:
    """The project's fields and the functions they may hold, from each file's `FieldFlows`
    (path -> flows)."""

    def __init__(self, flows: dict[str, FieldFlows]):
        self.flows = flows

    @cached_property
    def _unknown(self) -> set[str]:
        return {field for flows in self.flows.values() for field in flows.unknown}

    @cached_property
    def _fields(self) -> dict[str, list[Candidate]]:
        """Field -> every function stored in it, directly or through a parameter."""
        fields: dict[str, list[Candidate]] = {}
        stored_parameters: dict[tuple[str, int], list[tuple[str, str, int]]] = {}
        for path, flows in sorted(self.flows.items()):
            for field, stored in flows.stores.items():
                fields.setdefault(field, []).extend(
                    Candidate(function, path, line) for function, line in stored)
            for function, positions in flows.parameters.items():
                for position, field, line in positions:
                    stored_parameters.setdefault((function, position), []).append(
                        (field, path, line))
        for path, flows in sorted(self.flows.items()):
            for callee, position, function, line in flows.passes:
                for field, store_path, store_line in stored_parameters.get((callee, position), ()):
                    fields.setdefault(field, []).append(
                        Candidate(function, path, line, (store_path, store_line, callee)))
        return fields

    @cached_property
    def edges(self) -> dict[str, list[Candidate]]:
        """Field -> its candidates, for the fields that give edges (every value known, at most
        `MAX_CANDIDATES` distinct functions)."""
        return {field: candidates for field, candidates in self._fields.items()
                if field not in self._unknown
                and len({candidate.function for candidate in candidates}) <= MAX_CANDIDATES}

    def agreeing(self, does: Callable[[str, str], Any]) -> dict[str, tuple[Any, list]]:
        """Field -> (what, candidates) for the fields every candidate of which does the same
        `what` (`does(function, path where it is stored)`, None for nothing a rule follows):
        a call through any other field is not followed."""
        found = {}
        for field, candidates in self.edges.items():
            answers = {does(candidate.function, candidate.path) for candidate in candidates}
            if len(answers) == 1 and None not in answers:
                found[field] = (answers.pop(), candidates)
        return found

    def passed_to(self, functions: set[str]) -> set[str]:
        """The callees to which the project passes one of `functions` (where they may store
        it: the files defining them are worth reading)."""
        return {callee for flows in self.flows.values()
                for callee, _, function, _ in flows.passes if function in functions}

    def holding(self, functions: set[str]) -> set[str]:
        """The fields some candidate of which is one of `functions`."""
        return {field for field, candidates in self._fields.items()
                if any(candidate.function in functions for candidate in candidates)}
