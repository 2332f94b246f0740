"""Calls through function pointers in C/C++, project-wide: a field-based call graph.

A function stored in a struct field anywhere in the project is a callee of every call through a
field of that name (`p->f(...)`, `s.f(...)`, `tbl[i].f(...)`, `(*p->f)(...)`). A function is
stored by a designated initializer (`.f = fn`, `.f = &fn`, the last designator of `.a.f = fn`)
or an assignment (`x->f = fn`, `x.f = fn`); a function passed as an argument flows to the
callee's parameter, and where the callee stores that parameter in a field (`x->f = param;`),
to that field; a function of the same file passing its parameter on to such a callee stores
it there too (`init_mr(.., fn)` calling `init_internal(.., fn)`: two calls; a parameter passed
on again, or to a callee in another file, is not followed).

**Field identity is the field's name alone**, not the struct type: the type of the object a
call goes through (`fl->f`, `tbl[i].f`, a `void *` cast back, a typedef in another header) is
not known without a type checker, and tables of one struct type are filled in files that
never name the pointer's type. Two structs with a field of the same name are one field here;
to keep that from inventing edges, a field is only resolved when every value the project gives
it is known:
- a value that is neither a function nor NULL (`x->f = local`, `x->f = g()`, `.f = a ? b : c`)
  makes the field `unknown` (no edges); copies between fields of the same name are ignored;
  a name no rule knows as a function (a variable, a macro) is a candidate that agrees with
  nothing;
- a field with more than `MAX_CANDIDATES` distinct functions gives no edge;
- a name a C++ class of the project declares as a method gives no edge (`obj.name(...)` may
  call the method);
- a candidate that cannot take the argument count a call passes (a function of the project
  by its definitions' parameters, a library's by `resolved_calls`' `arities`) is no callee of
  that call: it goes through a field of another struct sharing the name. Two structs whose
  fields share a name and a parameter count are still one field.
A rule then asks what each candidate does: `FunctionPointerGraph.agreeing` follows a call
through the field only when every candidate does the same thing (a field that also holds a
harmless function stays silent), `FunctionPointerGraph.doing` also when the others are
functions the project defines that do nothing the rule follows (an ops table with one
provider that registers and one that does not: the call may register); a candidate the
project does not define (a library's function, a symbol loaded by name) may do anything,
and keeps the field from being followed by either. Positional initializers of known struct
types are not read (a struct's field order would need its declaration, often in another
header): such a store is missed, never invented.

A store of a name (`fn`, `&fn`, a cast of one, or a symbol loaded by a literal name,
`(T)dlsym(lib, "fn")`, or by a function of the project that returns what `dlsym` loads by
its parameter's name, `(T)load(lib, "fn")`; into a field, or a data member from one of its
class's member functions, `fn_ = ...`) records the name: a function, or a variable or
macro that no rule knows, which then keeps the field from agreeing. Where the name is a
parameter of the enclosing function, the store is a parameter flow (`FieldFlows.parameters`),
resolved against the calls that pass the file's functions (defined or declared at file scope)
to it.

`field_flows(context)` is one file's `FieldFlows` (plain data: the rules' project indexes store
it in their summaries); `project_graph(facts, flows_of)` combines the project's, once per run,
and `FunctionPointerGraph.overlay` puts the linted file's own in; `indirect_calls(context,
fields)` lists the file's calls through the given fields.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Callable, Container, Iterable, Mapping

from ahocorasick_rs import Implementation
from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    ARGUMENT_NAME, arguments, callee, declared_name, file_scope, function_declarator,
    macro_parameters, method_class, parameter_count, parameter_names, plain_function, unwrapped,
)
from cursedlint.findings import Step
from cursedlint.languages import CPP
from cursedlint.patterns import LazyPattern
from cursedlint.triggers.byte_search import automaton

_NFA = Implementation.NoncontiguousNFA
"""The automaton `written_as_arguments` builds for one file's names: built faster than the
library's DFA, searched about as fast once (0.14 -> 0.10 s over the C/C++ worst case)."""

MAX_CANDIDATES = 8
"""Distinct functions a field may hold and still give edges (an ops table implemented by many
providers is resolved; a generic `fn`/`cb` field of a dispatcher is not)."""

_NULLS = frozenset({"NULL", "nullptr", "0"})
_NULL_BYTES = frozenset(name.encode() for name in _NULLS)  # (a text decoded from other bytes
# is never one: each byte not of ASCII decodes to a character not of ASCII)
_HOLD_NO_CLASS_BODY = frozenset({
    "compound_statement",  # a function's body (its local classes are not the file's)
    "identifier", "type_identifier", "field_identifier", "primitive_type", "number_literal",
    "string_literal", "comment", "storage_class_specifier", "type_qualifier",
    "parameter_list", "pointer_declarator", "function_declarator", "reference_declarator",
    "array_declarator", "init_declarator", "initializer_list", "enumerator_list",
    "preproc_def", "preproc_function_def", "preproc_include", "preproc_call", "preproc_arg",
    "preproc_params", "bitfield_clause"})
"""Nodes no class body that declares methods is inside, outside a function's body (a C++
class cannot be defined in a parameter's type or a declarator): `_methods` walks no further
(half the nodes of the C/C++ worst case's headers)."""
_SCOPES = frozenset({"function_definition", "lambda_expression"})
"""The scopes whose parameters a stored name may be (the nearest one decides)."""
_VALUE_KNOWN_BY_BYTES = rb"(?:[1-9\"'{-]|0[\dxXbB.]|(?!dl v?sym\s*\()[A-Za-z_]\w*\s*\()".replace(
    b" ", b"")
_LOADERS = frozenset({"dlsym", "dlvsym"})
_LOCAL_DECLARATORS = frozenset({"declaration", "init_declarator", "pointer_declarator",
                                "reference_declarator", "array_declarator"})
"""The parents of a name a declaration in a function body declares (a local)."""
_LOADER_CALL = LazyPattern(
    rb"dl(?<![\w]dl)v?sym\s*\((?:[^,()]|\([^()]*\))+,\s*(\(\s*)?([A-Za-z_]\w*)\s*(?(1)\)\s*)[,)]")
"""A loader's call in a macro's body: the name it loads is a parameter (group 2, perhaps in
parentheses). (Its literal first: a pattern led by `\b` is tried at every byte.)"""
_DEFINE = LazyPattern(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)\(")
"""A function-like macro's definition (group 1: its name)."""
_FIELD_CALL = LazyPattern(r"[\w)\]]\s*(?:\.|->)\s*([A-Za-z_]\w*)\b(?!\s*\()")
"""A macro parameter placed after `.` or `->` in the macro's body, not itself called there
(the argument is the call: `container.call`)."""
_LITERAL_NAME = LazyPattern(rb'("[A-Za-z_]\w*")\s*[,)]')
"""A string literal holding a name, before a comma or a closing parenthesis (the tree says
whether it is an argument: led by `"`, the search skips ahead to each quote)."""
_STORED_FIELD = LazyPattern(rb"=(?<!==)\s*(\w*[A-Za-z_])(?:\.|>-)")
"""A store into a field, searched in the file's bytes reversed: an `=` not before another,
blanks, and the field's name written right after `.` or `->` (backwards: the name ends with a
letter or `_`, then `.` or `>-`). Reversed, the search starts with a character to find; led
by `.` or `->`, a pattern tried every `.` and `-` of the file, comments' too (twice the time
on the C/C++ worst case, the same stores: `tests/test_c_function_pointers.py`)."""
_STORED_VALUE = LazyPattern(rb"\s*(?:(" + _VALUE_KNOWN_BY_BYTES + rb")|(?=\S))")
"""What follows a store's `=`: where the value's bytes show a literal other than 0 (`.len =
64`, `.name = "x"`), a nested initializer or a call's result (group 1), the field holds
something that is not a function (found in the bytes alone; one in a comment only makes a
field unknown, which is silent); else the value may name a function, and the field's name is
looked up in the tree."""


class FieldFlows(Struct, frozen=True):
    """One file's flows of functions into struct fields: `stores` field -> [(function,
    line)]; `unknown` the fields given a value that is not a function; `parameters` function ->
    [(parameter position, field, line)] where a function stores its parameter in a field;
    `forwarded` function -> [(parameter position, field, line, callee)] where a function
    passes its parameter on to a function of the file that stores it (`parameters`);
    `passes` [(callee, argument position, function, line)] for calls given a function;
    `defined` the names of the functions the file defines (kept only with flows); `loaders`
    macro -> (name position, target position) for the function-like macros the file defines
    that load a symbol by the name one parameter gives into another (`dlsym(handle, symbol)`
    stored through `&funcptr`); `loaded` [(macro, name position, target position, name,
    field, line)] for the file's calls of a macro given a literal name and a field
    (`LOAD_SYM(h, "ibv_fork_init", tbl->fork_init)`), which store the name in the field
    where the project defines the macro as such a loader; `loader_functions` function ->
    name position for the file's functions returning what `dlsym` loads by the name a
    parameter gives (`void *load(void *h, const char *name)`); `loaded_calls` [(function,
    name position, name, field, line)] for the file's stores of a call of another function
    given a literal name (`f = (T)load(h, "ibv_reg_mr")`, of a member too), which store the
    name where the project defines the function as such a loader, and make the field unknown
    elsewhere. `counts` function -> how many arguments the file's definitions of it take
    (-1: more than one count, `c_syntax.parameter_count`), for those the file's flows name (a
    function stored only by other files takes any count)."""

    stores: dict[str, list[tuple[str, int]]] = {}
    unknown: list[str] = []
    parameters: dict[str, list[tuple[int, str, int]]] = {}
    passes: list[tuple[str, int, str, int]] = []
    defined: list[str] = []  # the functions the file defines at file scope
    loaders: dict[str, tuple[int, int]] = {}
    loaded: list[tuple[str, int, int, str, str, int]] = []
    loader_functions: dict[str, int] = {}
    loaded_calls: list[tuple[str, int, str, str, int]] = []
    forwarded: dict[str, list[tuple[int, str, int, str]]] = {}
    counts: dict[str, int] = {}

    def __bool__(self) -> bool:
        return bool(self.stores or self.unknown or self.parameters or self.passes
                    or self.loaders or self.loaded or self.loader_functions
                    or self.loaded_calls)


class Candidate(Struct, frozen=True):
    """A function a field may hold: `function`, stored at `path:line` (the initializer or the
    assignment; for a parameter flow, the call that passes it, with the store in `through`)."""

    function: str
    path: str
    line: int
    through: tuple[str, int, str] | None = None  # (path, line, callee) of the parameter store
    via: str = ""  # the function of the callee's file that `callee` passes it on to and stores it

    def steps(self, call_text: str, does: str = "") -> tuple[Step, ...]:
        """The chain links that show how the call reaches the function (`does`: what the
        function does, added to the first link: "which registers with ibv_reg_mr()")."""
        if self.through is None:
            return (Step(self.path, self.line, f"through `{call_text}`, which holds "
                                               f"`{self.function}`{', ' + does if does else ''}"),)
        path, line, called = self.through
        stores = (f"`{called}()` passes it on to `{self.via}()`, which stores it" if self.via
                  else f"`{called}()` stores it")
        return (Step(self.path, self.line, f"`{self.function}`{', ' + does + ',' if does else ''}"
                                           f" is passed to `{called}()`"),
                Step(path, line, f"{stores} in the field called as `{call_text}`"))


def field_flows(context) -> FieldFlows:
    """The file's `FieldFlows` (computed once for every rule of the file)."""
    return context.shared(FieldFlows, lambda: _Flows(context).flows)


def indirect_calls(context, fields: Iterable[str],
                   through_macros: bool = False) -> list[tuple[str, object]]:
    """(field, call) for each call of the file through a field named in `fields`, in order;
    with `through_macros`, also each call `f(...)` written as an argument of a macro of the
    file whose body calls that argument through a field (`#define CHECK(table, call) ...
    table.call`: `CHECK(syms, f())` calls `syms.f()`), and each call of a pointer to a
    function the file declares at file scope (`pointer_variables`), which the graph keeps
    as a field of that name."""
    found = []
    macros = _field_calling_macros(context) if through_macros and fields else {}
    variables = pointer_variables(context) if through_macros and fields else frozenset()
    for field, leaf in context.tokens(fields) if fields else ():
        access = context.parent(leaf)
        if leaf.type == "identifier" and access is not None and (
                (macros and _called_through(context, leaf, macros)) or (
                field in variables and access.type == "call_expression"
                and access.child_by_field_name("function") == leaf)):
            found.append((field, access))
            continue
        if leaf.type != "field_identifier" or access is None \
                or access.type != "field_expression" or access.child_by_field_name("field") != leaf:
            continue
        called, call = access, context.parent(access)
        while call is not None and (call.type == "parenthesized_expression" or (
                call.type == "pointer_expression" and call.child(0).type == "*")):
            called, call = call, context.parent(call)
        if call is not None and call.type == "call_expression" \
                and call.child_by_field_name("function") == called:
            found.append((field, call))
    return found


class _FileFunctions:
    """The key of `_file_functions` in a context's shared analyses."""


def _file_functions(context) -> tuple[frozenset[str], frozenset[str], frozenset[str], dict]:
    """The names the file declares at file scope (through `#if`, `extern "C"` and
    namespaces): of its function definitions, of its other function declarations, and of
    its pointers to functions (`int (*fork_init_fn)(void);`), in one walk; and name -> the
    function declarators of its definitions."""
    def found() -> tuple[frozenset[str], frozenset[str], frozenset[str], dict]:
        defined, declared, pointers = set(), set(), set()
        definitions: dict[str, list] = {}
        data = context.source.data
        for node in file_scope(context):
            if node.type == "function_definition":
                for declarator in node.children_by_field_name("declarator"):
                    inner = function_declarator(declarator)
                    if inner is not None:
                        name = declared_name(context, declarator)
                        defined.add(name)
                        definitions.setdefault(name, []).append(inner)
            elif node.type == "declaration" and \
                    data.find(b"(", node.start_byte, node.end_byte) >= 0:  # (a function's)
                for declarator in node.children_by_field_name("declarator"):
                    inner = declarator.child_by_field_name("declarator") \
                        if declarator.type == "init_declarator" else declarator
                    if function_declarator(declarator) is not None:
                        declared.add(declared_name(context, declarator))
                    elif inner is not None and inner.type == "function_declarator":
                        pointers.add(declared_name(context, declarator))
        return (frozenset(defined - {""}), frozenset(declared - {""}),
                frozenset(pointers - {""}), definitions)
    return context.shared(_FileFunctions, found)


def _parameter_counts(context, names: Iterable[str]) -> dict[str, int]:
    """Function -> how many arguments the file's definitions of it at file scope take (-1
    where they differ, or one takes more than one count), for those of `names` it defines."""
    counts: dict[str, int] = {}
    cpp, definitions = context.language == CPP, _file_functions(context)[3]
    for name in sorted(set(names).intersection(definitions)):
        found = {parameter_count(context, declarator, cpp) for declarator in definitions[name]}
        counts[name] = found.pop() if len(found) == 1 else -1
    return counts


def pointer_variables(context) -> frozenset[str]:
    """The names the file declares at file scope as pointers to functions (`int
    (*fork_init_fn)(void);`): a call `fork_init_fn()` goes through one."""
    return _file_functions(context)[2]


def _field_calling_macros(context) -> dict[str, set[int]]:
    """Macro -> the positions of its parameters that its body calls through a field
    (`x.P`, `x->P`), for the function-like macros the file defines."""
    found: dict[str, set[int]] = {}
    for macro, names, body in function_macros(context):
        called = {match[1] for match in _FIELD_CALL.finditer(body)}
        positions = {position for position, name in enumerate(names) if name in called}
        if positions:
            found[macro] = positions
    return found


def function_macros(context) -> list[tuple[str, list[str], str]]:
    """(name, parameters, body) of the function-like macros the file defines, at file scope
    or inside a function."""
    found = []
    spans = [match.span(1) for match in _DEFINE.finditer(context.source.data)]
    for _, _, leaf in context.at(spans):
        node = context.parent(leaf)
        if node is None or node.type != "preproc_function_def" \
                or node.child_by_field_name("name") != leaf:
            continue
        value = node.child_by_field_name("value")
        if value is not None and node.child_by_field_name("parameters") is not None:
            found.append((context.text(leaf), macro_parameters(context, node),
                          context.text(value)))
    return found


def _called_through(context, leaf, macros: dict[str, set[int]]) -> bool:
    """Whether the name `leaf` is the callee of a call given to one of `macros` at a
    position its body calls through a field."""
    call = context.parent(leaf)
    given = context.parent(call) if call is not None else None
    macro = context.parent(given) if given is not None else None
    if call is None or call.type != "call_expression" \
            or call.child_by_field_name("function") != leaf or given.type != "argument_list" \
            or macro is None or macro.type != "call_expression":
        return False
    name = callee(context, macro, scoped=False, system_calls=False)
    return bool(name) and arguments(macro).index(call) in macros.get(name, ())


def called_text(context, call) -> str:
    """How an indirect call names its callee (`fl->regmr_fn`, `tbl[op].fn`), on one line."""
    return " ".join(context.text(call.child_by_field_name("function")).split())


class _Flows:
    def __init__(self, context):
        self.context = context
        self._parameter_names: dict[int, list[str]] = {}
        self._stored_parameters: dict[tuple[str, int], Any] = {}  # (function, position) of a
        # parameter stored in a field -> the function's declarator
        self._plain: dict[int, tuple | None] = {}  # `_plain_around`'s, by the scope's id

    @cached_property
    def _functions(self) -> frozenset[str]:
        """The names the file defines or declares as functions at file scope (through `#if`,
        `extern "C"` and namespaces)."""
        defined, declared, _, _ = _file_functions(self.context)
        return defined | declared

    def _methods(self) -> set[str]:
        """The names of the methods the (C++) file's classes declare: a call `obj.name(...)`
        of one is no call through a function pointer, so such a name gives no edges."""
        if self.context.language != CPP:
            return set()
        found, pending, data = set(), [self.context.root], self.context.source.data
        while pending:
            node = pending.pop()
            for child in node.named_children:
                if child.type in _HOLD_NO_CLASS_BODY:
                    continue
                if node.type == "field_declaration_list" and child.type in (
                        "field_declaration", "function_definition", "declaration"):
                    found.update(declared_name(self.context, declarator)
                                 for declarator in child.children_by_field_name("declarator")
                                 if function_declarator(declarator) is not None)
                if data.find(b"{", child.start_byte, child.end_byte) >= 0:  # (a class body's)
                    pending.append(child)
        found.discard("")
        return found

    def _named(self, value) -> str | None:
        """The name an expression stores (`fn`, `&fn`, `(cast)fn`, `(cast)dlsym(h, "fn")`;
        not NULL), else None."""
        value = unwrapped(value)
        if value is not None and value.type == "pointer_expression" \
                and value.child(0).type == "&":
            value = unwrapped(value.child_by_field_name("argument"))
        if value is not None and value.type == "call_expression":
            return self._loaded(value)
        if value is None or value.type != "identifier":
            return None
        name = self.context.text(value)
        return None if name in _NULLS else name

    def _loaded(self, call) -> str | None:
        """The symbol `dlsym(handle, "name")` loads, named by a plain string literal."""
        function = call.child_by_field_name("function")
        given = arguments(call)
        if function is None or self.context.text(function).lstrip(":") not in _LOADERS \
                or len(given) < 2:
            return None
        return self._literal_name(given[1])

    def _loading_call(self, value) -> tuple[str, int, str] | None:
        """(function, literal position, name) where a value is a call of a plain function of
        another name than the loaders given a literal that names a function
        (`(T)load(h, "ibv_reg_mr")`): a load where the project defines it as a loader."""
        call = unwrapped(value)
        function = callee(self.context, call, scoped=False, system_calls=False) \
            if call is not None and call.type == "call_expression" else ""
        if not function:
            return None
        for position, given in enumerate(arguments(call)):
            name = self._literal_name(given)
            if name is not None:
                return function, position, name
        return None

    def _loader_functions(self) -> dict[str, int]:
        """`FieldFlows.loader_functions`: the file's plain functions that call a loader with
        a parameter as the name and return its result (directly, or through the one local
        it is given to, every `return` returning that local)."""
        data = self.context.source.data
        if b"dlsym" not in data and b"dlvsym" not in data:
            return {}
        found = {}
        for _, leaf in self.context.tokens(_LOADERS):
            call = self.context.call_of(leaf)
            given = arguments(call) if call is not None else []
            name = unwrapped(given[1]) if len(given) > 1 else None
            plain = self._plain_around(leaf)
            if plain is None or name is None or name.type != "identifier":
                continue
            parameters = plain[3]
            if self.context.text(name) in parameters and self._returns(call, plain[2]):
                found[plain[0]] = parameters.index(self.context.text(name))
        return found

    def _returns(self, call, body) -> bool:
        """Whether the function of `body` returns the value of `call`: `return call;`, or
        `T sym = call;` with every `return` returning `sym`."""
        parent = self.context.parent(call)
        while parent is not None and parent.type in ("cast_expression",
                                                     "parenthesized_expression"):
            parent = self.context.parent(parent)
        if parent is not None and parent.type == "return_statement":
            return True
        local = declared_name(self.context, parent) if parent is not None \
            and parent.type == "init_declarator" else ""
        returned = [node.named_children[0] if node.named_children else None
                    for node in self.context.descendants(body)
                    if node.type == "return_statement"]
        return bool(local) and bool(returned) and all(
            value is not None and value.type == "identifier"
            and self.context.text(value) == local for value in returned)

    def _member_stores(self):
        """(field, its leaf, value) for each `f = value` in a member function of a class that
        declares the member `f`, the value a loader's call given a literal name
        (`devx_umem_reg = (T)load(h, "mlx5dv_devx_umem_reg");`)."""
        for _, call in self._literal_arguments if self.context.language == CPP else ():
            value = call
            assignment = self.context.parent(value)
            while assignment is not None and assignment.type in ("cast_expression",
                                                                 "parenthesized_expression"):
                value, assignment = assignment, self.context.parent(assignment)
            target = assignment.child_by_field_name("left") if assignment is not None \
                and assignment.type == "assignment_expression" else None
            if target is None or target.type != "identifier" or \
                    assignment.child_by_field_name("right") != value:
                continue
            name = self.context.text(target)
            if name in self._class_members(target):
                yield name, target, value

    def _class_members(self, node) -> frozenset[str]:
        """The data members the class declares whose member function holds `node` (none
        outside one, and where a local or parameter of the function has the name)."""
        scope = next((found for found in self.context.ancestors(node)
                      if found.type == "function_definition"), None)
        declarator = function_declarator(scope.child_by_field_name("declarator")) \
            if scope is not None else None
        owner = method_class(self.context, scope) if declarator is not None else ""
        members = self._members.get(owner, frozenset()) if owner else frozenset()
        name = self.context.text(node)
        if name not in members or name in self._parameters(declarator) or any(
                self.context.parent(leaf) is not None
                and self.context.parent(leaf).type in _LOCAL_DECLARATORS
                for _, leaf in self.context.tokens((name,), scope)):
            return frozenset()  # (the name of a parameter or a local of the function)
        return members

    @cached_property
    def _members(self) -> dict[str, frozenset[str]]:
        """Class name -> the names of the data members its body declares."""
        found: dict[str, set[str]] = {}
        for node in self.context.descendants(self.context.root):
            if node.type not in ("class_specifier", "struct_specifier"):
                continue
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            for member in body.named_children if name is not None and body is not None else ():
                if member.type == "field_declaration":
                    found.setdefault(self.context.text(name), set()).update(
                        declared_name(self.context, declarator) for declarator
                        in member.children_by_field_name("declarator")
                        if function_declarator(declarator) is None)
        return {owner: frozenset(names - {""}) for owner, names in found.items()}

    def _function(self, value) -> str | None:
        """The function of the file an expression names, else None."""
        name = self._named(value)
        return name if name in self._functions else None

    @cached_property
    def flows(self) -> FieldFlows:
        stores: dict[str, list[tuple[str, int]]] = {}
        unknown: set[str] = set()
        parameters: dict[str, list[tuple[int, str, int]]] = {}
        loaded_calls: list[tuple[str, int, str, str, int]] = []
        for field, leaf, value in self._stores():
            line = leaf.start_point[0] + 1
            named = unwrapped(value)
            if named is not None and named.type == "identifier":  # (most stores: read once)
                name = self.context.text(named)
                found = self._parameter(leaf, name)
                if found is not None:
                    parameters.setdefault(found[0], []).append((found[1], field, line))
                elif name not in _NULLS:
                    stores.setdefault(field, []).append((name, line))
                continue
            function = self._named(value)
            called = self._loading_call(value) if function is None else None
            if function is not None:
                stores.setdefault(field, []).append((function, line))
            elif called is not None:
                loaded_calls.append((*called, field, line))
            elif not self._harmless(value, field):
                unknown.add(field)
        unknown.update(self._scanned[1])
        unknown.update(self._methods())
        passes, loaders, loaded = self._passes(), self._loaders(), self._loaded_by_macros()
        loader_functions = self._loader_functions()
        forwarded = self._forwarded(parameters)
        defined = sorted(_file_functions(self.context)[0]) if (
            stores or unknown or parameters or passes or loaders or loaded or loader_functions
            or loaded_calls) else []
        return FieldFlows(stores, sorted(unknown), parameters, passes, defined, loaders, loaded,
                          loader_functions, loaded_calls, forwarded,
                          _parameter_counts(self.context, _named([FieldFlows(
                              stores, passes=passes, loaded=loaded,
                              loaded_calls=loaded_calls)])) if defined else {})

    def _forwarded(self, parameters: dict[str, list[tuple[int, str, int]]]
                   ) -> dict[str, list[tuple[int, str, int, str]]]:
        """Function -> [(position, field, line, callee)] for the file's plain functions that
        pass their parameter, as a bare argument, to a function of the file storing the
        parameter at that position in a field (`parameters`), one that may be a pointer to a
        function (`_function_like`)."""
        found: dict[str, list[tuple[int, str, int, str]]] = {}
        function_like = {(called, position) for (called, position), declarator
                         in self._stored_parameters.items() if _function_like(
                             declarator.child_by_field_name("parameters").named_children[position])}
        # (the calls are those the search for their names finds: counting each name in the file
        # first to skip one not called cost the file's size per function, 38,066 times for 10 MB)
        storing = {called for called, _ in function_like}
        for called, leaf in self.context.tokens(storing) if storing else ():
            call = self.context.parent(leaf)
            if leaf.type != "identifier" or call is None or call.type != "call_expression" \
                    or call.child_by_field_name("function") != leaf:
                continue
            given = arguments(call)
            plain = self._plain_around(call)
            if plain is None or plain[0] == called:
                continue
            names = plain[3]
            for position, field, _ in parameters[called]:
                if (called, position) not in function_like:
                    continue
                argument = unwrapped(given[position]) if position < len(given) else None
                text = self.context.text(argument) \
                    if argument is not None and argument.type == "identifier" else None
                if text in names:
                    found.setdefault(plain[0], []).append(
                        (names.index(text), field, call.start_point[0] + 1, called))
        return found

    def _loaders(self) -> dict[str, tuple[int, int]]:
        """Macro -> (name position, target position) for the file's loader macros."""
        if _LOADER_CALL.search(self.context.source.data) is None:
            return {}
        found = {}
        for macro, names, body in function_macros(self.context):
            symbol = _LOADER_CALL.search(body.encode())
            symbol = symbol[2].decode() if symbol else None
            targets = [name for name in names if name != symbol and re.search(
                rf"&\s*(?:\(\s*)?{name}\b|\b{name}\s*=(?!=)", body)]
            if symbol in names and len(targets) == 1:
                found[macro] = (names.index(symbol), names.index(targets[0]))
        return found

    @cached_property
    def _literal_arguments(self) -> list[tuple[object, object]]:
        """(literal, call) for each string literal holding a name given to a call
        (`_LITERAL_NAME`, then the tree): where a loader macro or function may load it."""
        found = []
        spans = [match.span(1) for match in _LITERAL_NAME.finditer(self.context.source.data)]
        for _, _, leaf in self.context.at(spans):
            literal = leaf if leaf.type == "string_literal" else self.context.parent(leaf)
            given = self.context.parent(literal) if literal is not None else None
            call = self.context.parent(given) if given is not None else None
            if literal is not None and literal.type == "string_literal" and given.type == \
                    "argument_list" and call is not None and call.type == "call_expression":
                found.append((literal, call))
        return found

    def _literal_name(self, node) -> str | None:
        """The name a string literal holds (`"ibv_reg_mr"`), else None."""
        text = self.context.text(node) if node.type == "string_literal" else ""
        return text[1:-1] if text.isascii() and text[1:-1].isidentifier() else None

    def _loaded_by_macros(self) -> list[tuple[str, int, int, str, str, int]]:
        """(macro, name position, target position, name, field, line) for each call of a
        plain name given a string literal that names a function and a field (`x->f`,
        `x.f`) or a pointer to a function the file declares (`pointer_variables`, kept as a
        field of that name): a store where the project defines the macro as a loader."""
        found = []
        for literal, call in self._literal_arguments:
            values, function = arguments(call), None
            for target, value in enumerate(values):
                value = unwrapped(value)
                slot = value.child_by_field_name("field") if value is not None \
                    and value.type == "field_expression" else value if value is not None \
                    and value.type == "identifier" and self.context.text(value) \
                    in pointer_variables(self.context) else None
                if slot is None:
                    continue
                if function is None:  # (read at the first slot: most calls have none)
                    function = callee(self.context, call, scoped=False, system_calls=False)
                    position, name = values.index(literal), self.context.text(literal)[1:-1]
                if not function:
                    break
                found.append((function, position, target, name, self.context.text(slot),
                              call.start_point[0] + 1))
        return found

    @cached_property
    def _scanned(self) -> tuple[list[tuple[int, int]], set[str]]:
        """The spans of the field names stored a value that may name a function, and the
        names of the fields stored another value (`stores_by_bytes`)."""
        names, others = [], set()
        data = self.context.source.data
        for start, end, known in stores_by_bytes(data):
            if known:
                others.add(data[start:end].decode())
            else:
                names.append((start, end))
        return names, others

    def _stores(self):
        """(field, its leaf, value) for each `.f = v` of an initializer (the last designator) and
        each `x.f = v` / `x->f = v`, found by a byte search for the name before `=`; and each
        `f = v` of a pointer to a function the file declares (`pointer_variables`)."""
        data, parent_of = self.context.source.data, self.context.parent
        for start, end, leaf in self.context.at(self._scanned[0]):
            if leaf.start_byte != start or leaf.end_byte != end \
                    or leaf.type != "field_identifier":
                continue
            parent = parent_of(leaf)
            if parent is None:
                continue
            if parent.type == "field_designator":
                pair = parent_of(parent)
                designators = pair.children_by_field_name("designator") if pair else []
                if pair is None or pair.type != "initializer_pair" or designators[-1] != parent:
                    continue
                value = pair.child_by_field_name("value")
            elif parent.type == "field_expression" \
                    and parent.child_by_field_name("field") == leaf:
                assignment = parent_of(parent)
                if assignment is None or assignment.type != "assignment_expression" \
                        or assignment.child_by_field_name("left") != parent \
                        or assignment.child_by_field_name("operator").type != "=":
                    continue
                value = assignment.child_by_field_name("right")
            else:
                continue
            if value is not None:
                yield data[start:end].decode("utf-8", errors="replace"), leaf, value
        yield from self._member_stores()
        for name, leaf in self.context.tokens(pointer_variables(self.context)):
            assignment = self.context.parent(leaf)
            if leaf.type == "identifier" and assignment is not None \
                    and assignment.type == "assignment_expression" \
                    and assignment.child_by_field_name("left") == leaf:
                value = assignment.child_by_field_name("right")
                if assignment.child_by_field_name("operator").type == "=" and value is not None:
                    yield name, leaf, value

    def _harmless(self, value, field: str) -> bool:
        """NULL, 0, or a copy from a field of the same name: no new function for the field."""
        value = unwrapped(value)
        if value is None:
            return True
        if value.type in ("null", "nullptr") or self.context.source.data[
                value.start_byte:value.end_byte] in _NULL_BYTES:
            return True
        return value.type == "field_expression" and self.context.text(
            value.child_by_field_name("field")) == field

    def _parameter(self, leaf, text: str) -> tuple[str, int] | None:
        """(function, position) when a name stored is a parameter of the plain function
        storing it (in the field named by `leaf`: the scope around the store is the one around
        the leaf, on the path the lookup of the leaf left)."""
        plain = self._plain_around(leaf)
        if plain is None or text not in plain[3]:
            return None
        found = (plain[0], plain[3].index(text))
        self._stored_parameters[found] = plain[1]
        return found

    def _parameters(self, declarator) -> list[str]:
        if declarator.id not in self._parameter_names:
            self._parameter_names[declarator.id] = parameter_names(self.context, declarator)
        return self._parameter_names[declarator.id]

    def _plain_around(self, node) -> tuple[str, Any, Any, list[str]] | None:
        """(name, function declarator, body, parameter names) of the plain function whose scope
        (the nearest function or lambda) holds `node`, else None; read once per scope (a
        function stores many fields)."""
        scope = next((above for above in self.context.ancestors(node)
                      if above.type in _SCOPES), None)
        if scope is None or scope.type != "function_definition":
            return None
        if scope.id not in self._plain:
            plain = plain_function(scope)
            self._plain[scope.id] = None if plain is None else (
                self.context.text(plain[0]), plain[1], plain[2], self._parameters(plain[1]))
        return self._plain[scope.id]

    def _passes(self) -> list[tuple[str, int, str, int]]:
        """(callee, position, function, line) for each plain call given a function."""
        found = []
        passed = written_as_arguments(self.context.source.data, self._functions)
        for name, leaf in self.context.tokens(passed):
            argument, parent = leaf, self.context.parent(leaf)
            while parent is not None and (parent.type in (
                    "parenthesized_expression", "cast_expression") or (
                    parent.type == "pointer_expression" and parent.child(0).type == "&")):
                argument, parent = parent, self.context.parent(parent)
            if parent is None or parent.type != "argument_list" or argument.type == "comment":
                continue
            call = self.context.parent(parent)
            function = callee(self.context, call, scoped=False, system_calls=False) \
                if call is not None else ""
            if not function or self._function(argument) != name:
                continue
            found.append((function, arguments(call).index(argument), name,
                          leaf.start_point[0] + 1))
        return found


def _function_like(parameter) -> bool:
    """Whether a parameter may be a pointer to a function: declared as one (`int (*fn)(void
    *)`), or as a bare name of a type named by an identifier (`regmr_fn fn`, a typedef)."""
    declarator = parameter.child_by_field_name("declarator")
    kind = parameter.child_by_field_name("type")
    if declarator is None or kind is None:
        return False
    if declarator.type == "identifier":
        return kind.type == "type_identifier"
    return any(node.type == "function_declarator" for node in _below(declarator))


def _below(node):
    pending = [node]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(node.named_children)


def stores_by_bytes(data: bytes) -> list[tuple[int, int, bool]]:
    """(start, end, whether the value is known) of the field name of each store `.f = v` or
    `x->f = v` (`_STORED_FIELD`, `_STORED_VALUE`), in order, as one forward search of both
    would find them: one starting inside the value bytes read for another is not one."""
    size, found, last = len(data), [], 0
    for match in reversed(list(_STORED_FIELD.finditer(data[::-1]))):
        if size - match.end() < last:  # (the `.` or `->`)
            continue
        value = _STORED_VALUE.match(data, size - match.start())
        if value is not None:
            found.append((size - match.end(1), size - match.start(1), value.start(1) >= 0))
            last = value.end()
    return found


AUTOMATON_BYTES = 1 << 20
"""The largest file `written_as_arguments` searches with an automaton of the names."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARGUMENT_END = LazyPattern(rb"\s*[,)]")
_ARGUMENT_START = frozenset(b"(,&)")
_SPACES = frozenset(b" \t\n\r\x0b\x0c")  # (`\s` of a bytes pattern)


def written_as_arguments(data: bytes, names: Iterable[str]) -> set[str]:
    """The names of `names` that `data` writes somewhere as an argument (where `ARGUMENT_NAME`
    matches them): one automaton pass for the names, each place checked around it (the
    pattern's search over a whole file, listing every name in it, took half as long again).
    The automaton lists every place a name is spelled, inside longer identifiers too: a file
    over AUTOMATON_BYTES is searched with the pattern (the same names), so that a short name
    cannot make the list grow with a big file."""
    if len(data) > AUTOMATON_BYTES:
        written = set(ARGUMENT_NAME.findall(data))
        return {name for name in names if name.encode() in written}
    words = sorted(name.encode() for name in names if _NAME.fullmatch(name))
    found: set[bytes] = set()
    for index, start, end in automaton(words, implementation=_NFA).find_matches_as_indexes(
            data, overlapping=True) if words else ():
        word = words[index]
        if word in found or not _ARGUMENT_END.match(data, end):
            continue
        before = start - 1
        while before >= 0 and data[before] in _SPACES:
            before -= 1
        if before >= 0 and data[before] in _ARGUMENT_START:
            found.add(word)
    return {word.decode() for word in found}


class FunctionPointerGraph:
    """The project's fields and the functions they may hold, from each file's `FieldFlows`
    (path -> flows), indexed once; `overlay` puts a linted file's own flows, as they are now,
    in place of its stored ones without indexing the project again."""

    def __init__(self, flows: dict[str, FieldFlows]):
        self.flows = flows
        self._own: tuple[str, FieldFlows] | None = None

    def overlay(self, path: str, flows: FieldFlows) -> "FunctionPointerGraph":
        """This graph with `flows` as the flows of `path` (sharing the project's indexes)."""
        view = FunctionPointerGraph(self.flows)
        view.__dict__["_index"] = self._index  # the cached_property, indexed once
        view._own = (path, flows)
        return view

    @cached_property
    def _index(self) -> dict[str, dict]:
        """Per field: the stores, the paths giving it unknown values, the parameter stores;
        per (callee, position): the functions passed."""
        return built_for(self.flows, "flows index", lambda flows: _indexed(flows.items()),
                         same_values=True, narrow=_narrowed)

    @cached_property
    def _index_own(self) -> dict[str, dict]:
        return _indexed([self._own] if self._own else [])

    def _entries(self, kind: str, key) -> list:
        found, mine = self._index[kind].get(key), self._index_own[kind].get(key, ())
        if not found:
            return [*mine]
        own = self._own[0] if self._own else None
        return [*[entry for entry in found if entry[0] != own], *mine]

    def touched(self) -> set[str]:
        """The fields the overlaid file's flows may change: those it stores in (a function,
        a parameter, another value), and those its functions reach through a parameter."""
        if self._own is None:
            return set()
        own = self._own[1]
        found = {*own.stores, *own.unknown,
                 *(field for stores in own.parameters.values() for _, field, _ in stores),
                 *(field for stores in own.forwarded.values() for _, field, _, _ in stores)}
        passed = {(called, position) for called, position, _, _ in own.passes}
        found.update(field for field, stores in self._index["parameters"].items()
                     if any(entry[1:3] in passed for entry in stores))
        return found

    def fields(self) -> set[str]:
        """The fields some function is stored in (directly, through a parameter, or a
        loader macro)."""
        return {*self._index["stores"], *self._index["parameters"], *self._index["loaded"],
                *self._index["loaded_calls"], *self._index_own["stores"],
                *self._index_own["parameters"], *self._index_own["loaded"],
                *self._index_own["loaded_calls"]}

    def candidates(self, field: str) -> list[Candidate]:
        """Every function stored in `field`, directly, through a parameter, or by a loader
        macro of the project."""
        found = [Candidate(function, path, line)
                 for path, function, line in self._entries("stores", field)]
        found.extend(Candidate(function, path, line)
                     for path, macro, position, target, function, line
                     in self._entries("loaded", field)
                     if any(entry[1:] == (position, target)
                            for entry in self._entries("loaders", macro)))
        found.extend(Candidate(function, path, line)
                     for path, loader, position, function, line
                     in self._entries("loaded_calls", field) if self._loads(loader, position))
        for store_path, called, position, line, via in self._entries("parameters", field):
            found.extend(Candidate(function, path, passed, (store_path, line, called), via)
                         for path, function, passed
                         in self._entries("passes", (called, position)))
        return found

    def _loads(self, function: str, position: int) -> bool:
        """Whether the project's definitions of `function` all load by the name at
        `position` (`FieldFlows.loader_functions`)."""
        defined = self._entries("loader_functions", function)
        return bool(defined) and all(entry[1] == position for entry in defined)

    def callees(self, field: str) -> list[Candidate] | None:
        """The candidates of a call through `field`, or None where it gives no edge: a value
        that is not a function stored in it, none, or more than `MAX_CANDIDATES`."""
        if self._entries("unknown", field) or not all(
                self._loads(loader, position)
                for _, loader, position, _, _ in self._entries("loaded_calls", field)):
            return None  # (a value no function, or a call of no loader the project defines)
        found = self.candidates(field)
        if not found or len({candidate.function for candidate in found}) > MAX_CANDIDATES:
            return None
        return found

    def doing(self, does: Callable[[str, str], Any], fields: Iterable[str] | None = None,
              answering: Container[str] | None = None) -> dict[str, tuple[Any, list, list]]:
        """Field -> (what, the candidates doing it, the others) for the fields (of `fields`,
        default all) some candidate of which does `what` (`does(function, path where it is
        stored)`, None for nothing a rule follows) and every other of which does the same or
        is a function the project defines (in a file with flows) that does nothing: a name
        the project does not define (a library's function, a symbol loaded by name, a
        variable or macro) may do anything, and keeps the field from being followed.
        `answering`: the only functions `does` may answer for (None: any); a field whose
        entries name none of them is passed over without making its candidates."""
        found = {}
        if answering is not None and isinstance(answering, (set, frozenset, tuple)) and \
                self._names_none(answering):
            return found  # (no entry names one: no field's does, `_names_any`)
        for field in sorted(self.fields() if fields is None else set(fields)):
            if answering is not None and not self._names_any(field, answering):
                continue
            candidates = self.callees(field) or ()
            answers = [does(candidate.function, candidate.path) for candidate in candidates]
            what = set(answers) - {None}
            others = [candidate for candidate, answer in zip(candidates, answers)
                      if answer is None]
            if len(what) == 1 and all(self._entries("defined", candidate.function)
                                      for candidate in others):
                found[field] = (what.pop(), [candidate for candidate, answer
                                             in zip(candidates, answers) if answer is not None],
                                others)
        return found

    def _names_none(self, functions: Iterable[str]) -> bool:
        """Whether no entry of the graph names one of `functions` (stored, loaded, or passed):
        no field holds one, and none is passed to a function or loaded."""
        return self._index["named"].isdisjoint(functions) and \
            self._named_own.isdisjoint(functions)

    @cached_property
    def _named_own(self) -> set[str]:
        """The functions the overlaid file's entries name (`_index_own`'s "named", read
        without indexing them: most files' name none of those asked about)."""
        return _named([self._own[1]] if self._own else [])

    def _names_any(self, field: str, functions: Container[str]) -> bool:
        """Whether an entry of `field` names one of `functions` (stored, loaded, or passed to
        the function storing a parameter in it): where a candidate of it may be one."""
        return any(entry[at] in functions for kind, at in _FUNCTION_AT
                   for entry in self._entries(kind, field)) or any(
            entry[1] in functions for stored in self._entries("parameters", field)
            for entry in self._entries("passes", stored[1:3]))

    def agreeing(self, does: Callable[[str, str], Any], fields: Iterable[str] | None = None,
                 answering: Container[str] | None = None) -> dict[str, tuple[Any, list]]:
        """Field -> (what, candidates) for the fields (of `fields`, default all) every
        candidate of which does the same `what` (see `doing`)."""
        return {field: (what, candidates) for field, (what, candidates, others)
                in self.doing(does, fields, answering).items() if not others}

    def resolved_calls(self, context, does: Callable[[str, str], Any], known: Iterable[str],
                       some: bool = False, through_macros: bool = False,
                       answering: Container[str] | None = None,
                       arities: Mapping[str, int] | None = None
                       ) -> list[tuple[str, object, Any, list]]:
        """(field, call, what, candidates) for the calls of the file of `context` through a
        field every candidate of which does the same `what` (see `agreeing`; with `some`,
        through a field of `doing`, whose candidates are then those doing it and the others
        after them): `known` are the project's such fields (worked out once per run), to
        which the fields the overlaid file's own flows resolve are added; only these
        fields' names are searched (`through_macros`: see `indirect_calls`; `answering`:
        see `doing`). A candidate that cannot take the arguments a call passes is no callee
        of it (the call goes through a field of another struct that shares the name): the
        project's functions by their definitions' parameters (`FieldFlows.counts`), the
        library's by `arities` (those that take no other count, `process_vm_readv`: 6); a
        call none of whose candidates doing `what` remains is left out."""
        fields = {*known, *self.doing(does, self.touched(), answering)}
        calls = indirect_calls(context, fields, through_macros)
        resolved = {field: found for field, found
                    in self.doing(does, {field for field, _ in calls}, answering).items()
                    if some or not found[2]}
        found = []
        for field, call in calls:
            if field in resolved:
                what, candidates, others = resolved[field]
                count = _argument_count(call)
                candidates = [candidate for candidate in candidates
                              if self._takes(candidate, count, arities or {})]
                if candidates:
                    found.append((field, call, what, [*candidates, *(
                        other for other in others if self._takes(other, count, arities or {}))]))
        return found

    def _takes(self, candidate: Candidate, count: int, arities: Mapping[str, int]) -> bool:
        """Whether `candidate` may take `count` arguments (-1: any): by `arities`, else by
        the counts of its definitions in the file storing it, else of all the project's
        (where they agree; a function defined nowhere may take any)."""
        if count < 0:
            return True
        if candidate.function in arities:
            return arities[candidate.function] == count
        defined = self._entries("counts", candidate.function)
        counts = {found for path, found in defined if path == candidate.path} or \
            {found for _, found in defined}
        return len(counts) != 1 or counts == {-1} or counts == {count}

    def passed_to(self, functions: set[str]) -> set[str]:
        """The callees to which the project passes one of `functions` (where they may store
        it: the files defining them are worth reading)."""
        if self._names_none(functions):
            return set()
        return {called for (called, _), passes in self._index["passes"].items()
                if any(function in functions for _, function, _ in passes)}

    def loader_macros(self, functions: set[str]) -> set[str]:
        """The macros and functions the project calls to load one of `functions` into a
        field (the files defining them are worth reading: they say whether it is a
        loader)."""
        if self._names_none(functions):
            return set()
        return {*(macro for entries in self._index["loaded"].values()
                  for _, macro, _, _, function, _ in entries if function in functions),
                *(loader for entries in self._index["loaded_calls"].values()
                  for _, loader, _, function, _ in entries if function in functions)}

    def holding(self, functions: set[str]) -> set[str]:
        """The fields some candidate of which is one of `functions`: of the fields whose
        entries name one of them (stored, loaded, or passed to the function storing a
        parameter in it), those a candidate confirms (most fields name none: their candidates
        are not made)."""
        if self._names_none(functions):
            return set()
        return {field for field in self.fields() if self._names_any(field, functions)
                and any(candidate.function in functions for candidate in self.candidates(field))}


def _argument_count(call) -> int:
    """How many arguments `call` passes, -1 for any (a call through a macro, with no argument
    list)."""
    listed = call.child_by_field_name("arguments") if call.type == "call_expression" else None
    return len(arguments(call)) if listed is not None and listed.type == "argument_list" else -1


_FUNCTION_AT = (("stores", 1), ("loaded", 4), ("loaded_calls", 3))
"""Where an entry of these kinds of the graph's index names the function it stores."""


def _indexed(flows: Iterable[tuple[str, FieldFlows]]) -> dict[str, dict]:
    index: dict[str, Any] = {"stores": {}, "unknown": {}, "parameters": {}, "passes": {},
                             "defined": {}, "loaders": {}, "loaded": {},
                             "loader_functions": {}, "loaded_calls": {}, "counts": {}}
    flows = sorted(flows)
    for path, found in flows:
        for field, stored in found.stores.items():
            index["stores"].setdefault(field, []).extend(
                (path, function, line) for function, line in stored)
        for field in found.unknown:
            index["unknown"].setdefault(field, []).append((path,))
        for called, positions in found.parameters.items():
            for position, field, line in positions:
                index["parameters"].setdefault(field, []).append(
                    (path, called, position, line, ""))
        for called, forwards in found.forwarded.items():
            for position, field, line, via in forwards:
                index["parameters"].setdefault(field, []).append(
                    (path, called, position, line, via))
        for called, position, function, line in found.passes:
            index["passes"].setdefault((called, position), []).append((path, function, line))
        for function in found.defined:
            index["defined"].setdefault(function, []).append((path,))
        for function, count in found.counts.items():
            index["counts"].setdefault(function, []).append((path, count))
        for macro, positions in found.loaders.items():
            index["loaders"].setdefault(macro, []).append((path, *positions))
        for macro, position, target, function, field, line in found.loaded:
            index["loaded"].setdefault(field, []).append(
                (path, macro, position, target, function, line))
        for function, position in found.loader_functions.items():
            index["loader_functions"].setdefault(function, []).append((path, position))
        for loader, position, function, field, line in found.loaded_calls:
            index["loaded_calls"].setdefault(field, []).append(
                (path, loader, position, function, line))
    index["named"] = _named(found for _, found in flows)
    return index


def _narrowed(index: dict[str, dict], flows: dict[str, FieldFlows]) -> dict[str, dict]:
    """`_indexed` of `flows` from the index of flows of more files (the same for these paths):
    the entries of these paths, in the order indexing them gives (by path). Keys may come in
    another order; every use of the index reads a key's entries or a set of the keys."""
    narrowed: dict[str, Any] = {}
    for kind, entries in index.items():
        if kind != "named":
            narrowed[kind] = {key: kept for key, found in entries.items()
                              if (kept := [entry for entry in found if entry[0] in flows])}
    narrowed["named"] = _named(flows.values())
    return narrowed


def _named(flows: Iterable[FieldFlows]) -> set[str]:
    """The functions entries of `flows` name (stored, passed, loaded)."""
    named: set[str] = set()
    for found in flows:
        named.update(function for stored in found.stores.values() for function, _ in stored)
        named.update(function for _, _, function, _ in found.passes)
        named.update(entry[3] for entry in found.loaded)
        named.update(entry[2] for entry in found.loaded_calls)
    return named


_BUILT: dict[tuple[int, str], tuple[dict, int, Any]] = {}
_BUILT_KEPT = 32


def built_for(facts: dict, key: str, build: Callable[[dict], Any],
              same_values: bool = False, narrow: Callable[[Any, dict], Any] | None = None
              ) -> Any:
    """`build(facts)` of a project index's facts (path -> summary), made once for the facts
    of a run and shared by every file linted with them (`key` tells the products apart);
    made again when files were added to them (the index's rounds grow one dict). Empty facts
    (a file linted before the facts are gathered) are not kept: a new empty dict each time,
    they pushed the project's products out (the C/C++ worst case built the project's graph
    1,408 times). `same_values`: also shared by another dict holding the same objects path
    by path (each indexer reading the project's flows holds them in a dict of its own: the
    C/C++ worst case indexed the flows of its 1,286 files three times). `narrow(product,
    facts)`: the product of `facts` from that of a dict holding the same objects for these
    paths and more (the indexers' facts of the C/C++ worst case are 832 to 1,286 of its
    files' flows)."""
    if not facts:
        return build(facts)
    kept = _BUILT.get((id(facts), key))
    if kept is None or kept[0] is not facts or kept[1] != len(facts):
        product = next((product for (_, name), (other, size, product) in _BUILT.items()
                        if name == key and size == len(other) and _same_values(other, facts)),
                       None) if same_values else None
        if product is None and narrow is not None:
            wider = next((product for (_, name), (other, size, product) in _BUILT.items()
                          if name == key and size == len(other) > len(facts)
                          and _holds_values(other, facts)), None)
            product = None if wider is None else narrow(wider, facts)
        if len(_BUILT) >= _BUILT_KEPT:
            del _BUILT[next(iter(_BUILT))]  # (the oldest)
        kept = _BUILT[id(facts), key] = (facts, len(facts),
                                         build(facts) if product is None else product)
    return kept[2]


_ABSENT = object()


def _same_values(one: dict, other: dict) -> bool:
    return len(one) == len(other) and _holds_values(other, one)


def _holds_values(wider: dict, facts: dict) -> bool:
    """Whether `wider` holds each of the objects of `facts` under its path."""
    return all(wider.get(path, _ABSENT) is value for path, value in facts.items())


def project_graph(facts: dict) -> FunctionPointerGraph:
    """The graph of a project index's facts (path -> a summary with `flows`), built once."""
    return built_for(facts, "graph", lambda found: FunctionPointerGraph(
        {path: summary.flows for path, summary in found.items()}))


def wrappers_by_name(facts: dict) -> dict[str, set]:
    """Name -> what the wrappers of that name do, over a project index's facts (path -> a
    summary with `wrappers`: name -> what that wrapper does)."""
    found: dict[str, set] = {}
    for summary in facts.values():
        for name, wrapper in summary.wrappers.items():
            found.setdefault(name, set()).add(wrapper)
    return found
