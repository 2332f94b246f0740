"""C/C++ syntax helpers over tree-sitter nodes, in one place for every rule and analysis: a
call's callee and arguments, an expression without its parentheses and casts, the function
around a node, and what a declarator declares."""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator, NamedTuple

from cursedlint.analysis.c_macros import function_scope
from cursedlint.analysis.c_nodes import (  # (given on: every analysis reads them here)
    WRAPPING, arguments, callee_text, is_named_cast, unqualified, unwrapped,
    without_template_arguments,
)
from cursedlint.analysis.c_system_calls import system_call
from cursedlint.patterns import LazyPattern

__all__ = ["ARGUMENT_NAME", "FILE_SCOPES", "NAMES", "arguments", "array_dimensions", "assigns",
           "block_statement", "called_member", "callee", "callee_text", "declarator_kind",
           "declared_name", "declared_names", "defined_functions", "discards", "file_scope",
           "file_scope_items", "function_declarator", "function_name", "inner_declarator",
           "leads_to", "line_macros", "macro_parameters", "mentions", "method_class",
           "parameter_names", "plain_function", "pointee_type", "scope_of", "specifier_name",
           "unqualified", "unwrapped", "within", "without_template_arguments", "wrappers", "writes",
           "written_name"]

NAMES = frozenset({"identifier", "field_identifier"})
ARGUMENT_NAME = LazyPattern(rb"[(,&)]\s*([A-Za-z_]\w*)(?=\s*[,)])")
"""A name written as an argument (after `(`, `,`, `&` or a cast, before `,` or `)`), found in
the bytes before a tree is asked."""
_DECLARATOR_NAMES = NAMES | {"type_identifier"}  # a typedef's: `typedef Node& NodeRef;`
_WRITTEN_NAMES = _DECLARATOR_NAMES | {"qualified_identifier", "destructor_name", "operator_name",
                                      "template_function"}
_DECLARATOR_KINDS = {"array_declarator": "array", "pointer_declarator": "pointer",
                     "reference_declarator": "reference"}


def callee(context, call, *, scoped: bool = True, templates: bool = False,
           members: bool = False, system_calls: bool = True) -> str:
    """The last name a call calls by, in the forms asked for; "" for any other call (through a
    function pointer, `(*fp)()`, an index, a call's result). Always a plain name, `f(...)` (a
    function-like macro's call too, `CHECK(x)`); with
    - `scoped`: a qualified one, `::f(...)`, `ns::f(...)`, `a::b::f(...)`, `C<T>::f(...)` -> `f`;
    - `templates`: one with template arguments, `f<T>(...)` (`ns::f<T>(...)` also scoped) -> `f`;
    - `members`: a member's, `obj.f(...)`, `p->f(...)` -> `f` (not `obj.template f<T>()`);
    - `system_calls`: `syscall(SYS_x, ...)` -> `x` where its number says (`c_system_calls`).
    The name as written, qualified, is `callee_text`."""
    function = call.child_by_field_name("function")
    kind = function.type if function is not None else ""
    if kind != "identifier":
        if kind == "field_expression":
            field = function.child_by_field_name("field") if members else None
            return context.text(field) if field is not None and field.type == \
                "field_identifier" else ""
        while kind == "qualified_identifier" and scoped or kind == "template_function" and \
                templates:
            function = function.child_by_field_name("name")
            kind = function.type if function is not None else ""
        if kind != "identifier":
            return ""
    name = context.text(function)
    return (system_call(context, call) or name) if system_calls and name == "syscall" else name


def within(node, region) -> bool:
    return region.start_byte <= node.start_byte and node.end_byte <= region.end_byte


def scope_of(context, node):
    """The innermost function, lambda or macro-defined function body (`TEST(a, b) {...}`)
    containing `node`, or None at file scope."""
    parent = next(iter(context.ancestors(node)), None)
    return None if parent is None else function_scope(context, parent)


def function_declarator(node):
    """The function declarator that makes the name a declarator (or a definition) declares a
    function (through pointers and references of the return type: `T *f(...)`, `T &f(...)`,
    `T (*f(int))(char)`), or None: a variable, a pointer to a function (`T (*f)(int)`)."""
    found = None
    while node is not None and node.type not in NAMES:
        if node.type == "function_declarator":
            found = node
        elif node.type in _DECLARATOR_KINDS:
            found = None  # nearer the name than a function declarator: not a function
        node = inner_declarator(node)
    return found


def method_class(context, definition) -> str:
    """The class a function definition is a member of: `C` of `C::f` (`ns::C::f`, `C<T>::f`),
    or the class whose body holds it; "" for a free function (a namespace's `ns::f` gives
    `ns`, which names no class)."""
    declarator = function_declarator(definition.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    scope = None
    while name is not None and name.type == "qualified_identifier":
        scope, name = name.child_by_field_name("scope"), name.child_by_field_name("name")
    if scope is not None:
        if scope.type == "template_type":
            scope = scope.child_by_field_name("name")
        return context.text(scope) if scope is not None else ""
    holder = context.parent(definition)
    if holder is not None and holder.type == "template_declaration":
        holder = context.parent(holder)
    owner = context.parent(holder) if holder is not None and \
        holder.type == "field_declaration_list" else None
    named = owner.child_by_field_name("name") if owner is not None and owner.type in (
        "class_specifier", "struct_specifier") else None
    return context.text(named) if named is not None else ""


def inner_declarator(node):
    """The declarator inside a pointer, array, reference, parenthesized or init declarator."""
    inner = node.child_by_field_name("declarator")
    if inner is not None:
        return inner
    return next((child for child in node.named_children
                 if child.type in _DECLARATOR_NAMES or child.type.endswith("declarator")), None)


def declared_name(context, declarator) -> str:
    """The name a declarator declares ("" for an abstract one, and for a structured binding,
    which declares several: `declared_names`)."""
    node = _declared(declarator)
    return context.text(node) if node is not None and node.type in NAMES else ""


def declarator_kind(declarator) -> str:
    """"array", "pointer", "reference" or "object": what the declarator makes of its name
    (the wrapper nearest the name decides: `*a[4]` is an array, `(*p)[4]` a pointer)."""
    kind, node = "object", declarator
    while node is not None and node.type not in NAMES:
        kind = _DECLARATOR_KINDS.get(node.type, kind)
        node = inner_declarator(node)
    return kind


def array_dimensions(declarator) -> int:
    """How many dimensions the declarator gives its name, as an array (`a[3][4]`: 2,
    `*a[4]`: 1, `(*p)[4]`: 0): the array wrappers nearest the name."""
    kinds, node = [], declarator
    while node is not None and node.type not in NAMES:
        kinds.append(_DECLARATOR_KINDS.get(node.type))
        node = inner_declarator(node)
    kinds = [kind for kind in kinds if kind is not None]
    count = 0
    for kind in reversed(kinds):
        if kind != "array":
            break
        count += 1
    return count


def leads_to(parent, child) -> bool:
    """Whether `declared_name(parent)` goes down through `child`."""
    return inner_declarator(parent) == child


def macro_parameters(context, definition) -> list[str]:
    """The names of a function-like macro's parameters (`#define M(a, b) ...`), in order
    (`...` left out)."""
    parameters = definition.child_by_field_name("parameters")
    return [context.text(parameter) for parameter in parameters.named_children
            if parameter.type == "identifier"] if parameters is not None else []


def parameter_names(context, declarator) -> list[str]:
    """The names of a function declarator's parameters, in order ("" where unnamed)."""
    parameters = declarator.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else ():
        inner = parameter.child_by_field_name("declarator")
        names.append(declared_name(context, inner) if inner is not None else "")
    return names


def parameter_count(context, declarator, cpp: bool) -> int:
    """How many arguments a function declarator takes, or -1 where it takes more than one
    count or the list does not say: `...`, a C++ default value or pack, an empty list of C
    (unspecified), a list the parser could not read. `(void)` takes none."""
    parameters = declarator.child_by_field_name("parameters")
    listed = [parameter for parameter in parameters.named_children
              if parameter.type != "comment"] if parameters is not None else None
    if listed is None or (not listed and not cpp):
        return -1
    if any(parameter.type not in ("parameter_declaration", "identifier")
           for parameter in listed):
        return -1
    if len(listed) == 1 and listed[0].type == "parameter_declaration" \
            and listed[0].child_by_field_name("declarator") is None \
            and context.text(listed[0].child_by_field_name("type")) == "void":
        return 0
    return len(listed)


def block_statement(context, node):
    """The statement of a block (compound statement) that holds `node`, or None."""
    for parent in context.ancestors(node):
        if parent.type == "compound_statement":
            return node
        node = parent
    return None


class Condition(NamedTuple):
    """What a node passes walking up from a call (`conditions_of`): an `if` around it (its
    `condition`, unwrapped; `taken`: the call is in its consequence, so runs where it holds),
    an earlier `if` of a block that leaves it (`exits`: the call runs where it fails), or any
    other node around it (`condition` None)."""

    node: object
    condition: object
    taken: bool = True
    exits: bool = False


def conditions_of(context, node, leaves, scopes=("function_definition",),
                  top=None) -> tuple[list[Condition], object]:
    """The `Condition`s met walking up from `node` to the innermost ancestor of a type of
    `scopes` (or `top`, whose block's earlier `if`s are read too), innermost first, with
    that ancestor; (..., None) where none is reached. `leaves(statement)` says which earlier
    `if` of a block leaves it (a `return` in it, ...)."""
    found: list[Condition] = []
    child = node
    for parent in context.ancestors(node):
        if parent.type in scopes:
            return found, parent
        if parent.type == "if_statement":
            alternative = parent.child_by_field_name("alternative")
            found.append(Condition(parent, unwrapped(parent.child_by_field_name("condition")),
                                   not (alternative is not None and
                                        alternative.start_byte <= child.start_byte)))
        elif parent.type == "compound_statement":
            for statement in parent.named_children:
                if statement.start_byte >= child.start_byte:
                    break
                if statement.type == "if_statement" and leaves(statement):
                    found.append(Condition(statement, unwrapped(
                        statement.child_by_field_name("condition")), False, True))
        else:
            found.append(Condition(parent, None))
        if parent == top:
            return found, parent
        child = parent
    return found, None


def assigns(context, body, name: str) -> bool:
    """Whether `body` assigns or increments the variable `name`."""
    return any(write.type in ("assignment_expression", "update_expression")
               for write in writes(context, body, name))


_WRITTEN = {"assignment_expression": "left", "update_expression": "argument",
            "init_declarator": "declarator", "pointer_expression": "argument"}


def writes(context, body, name: str) -> Iterator:
    """The nodes of `body` that may give the variable `name` a value, in order: assignments,
    increments, initialized declarations and `&name`."""
    for _, leaf in context.tokens((name,), body):
        parent = context.parent(leaf)
        field = _WRITTEN.get(parent.type) if leaf.type == "identifier" else None
        if (field is not None and parent.child_by_field_name(field) == leaf
                and within(parent, body)
                and (parent.type != "pointer_expression" or parent.child(0).type == "&")):
            yield parent


def wrappers(context, node) -> Iterator:
    """The parentheses and casts around `node` that `unwrapped` sees through, innermost
    first."""
    above = context.ancestors(node)
    for parent in above:
        if parent.type == "argument_list":  # maybe a named cast's
            parent = next(above, None)
            if parent is None or parent.type != "call_expression" or not is_named_cast(parent):
                return
        elif parent.type not in WRAPPING:
            return
        yield parent


def discards(cast) -> bool:
    """Whether a cast is to void (`(void)f(...)`, `static_cast<void>(f(...))`)."""
    if cast.type == "call_expression":  # a named cast
        cast = cast.child_by_field_name("function").child_by_field_name("arguments")
        type_ = cast.named_children[0] if cast is not None and cast.named_children else None
    else:
        type_ = cast.child_by_field_name("type") if cast.type == "cast_expression" else None
    return type_ is not None and type_.text.strip() == b"void"


FILE_SCOPES = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef", "linkage_specification",
                         "declaration_list", "namespace_definition"})
"""Nodes whose children are at file scope (`#if` branches, `extern "C"`, namespaces)."""


def file_scope_items(root) -> Iterator:
    """The nodes at file scope, in order: the root's children and, through `FILE_SCOPES`,
    theirs (without recursion: a hostile file nests `#if`s thousands deep)."""
    pending = [iter(root.named_children)]
    while pending:
        child = next(pending[-1], None)
        if child is None:
            pending.pop()
        elif child.type in FILE_SCOPES:
            pending.append(iter(child.named_children))
        else:
            yield child


class _FileScope:
    """The key of `file_scope` in a context's shared analyses."""


def file_scope(context) -> tuple:
    """`file_scope_items` of the file's tree, listed once for every analysis of the file (six
    walks of it per file on the C/C++ worst case)."""
    return context.shared(_FileScope, lambda: tuple(file_scope_items(context.root)))


def plain_function(definition):
    """(name, function declarator, body) of a definition of a plain function `T name(...)
    {...}` (`T *name(...)` too), else None: a method (`C::name`, or in a class body), an
    operator, a shape a macro made."""
    declarator = function_declarator(definition.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    body = definition.child_by_field_name("body")
    if name is None or name.type != "identifier" or body is None \
            or body.type != "compound_statement":
        return None
    return name, declarator, body


class _DefinedFunctions:
    """The key of `defined_functions`' answers in a context's shared analyses."""


def defined_functions(context, names) -> dict:
    """Name -> the file's last definition of a plain function of that name (`plain_function`;
    the one a call in the file reaches, of several under `#if`), for those of `names` the file
    defines. Each name is looked up once per file (asked for the callees of each of 1,900
    registrations, a 10 MB file's common names were read again each time)."""
    known = context.of_tree(_DefinedFunctions, dict)  # name -> its definition, or None
    asked = {name for name in names if name not in known} if names else ()
    for name in asked:
        known[name] = None
    for name, leaf in context.tokens(asked) if asked else ():
        definition = context.parent(leaf)
        while definition is not None and definition.type.endswith("declarator"):
            definition = context.parent(definition)
        if definition is not None and definition.type == "function_definition":
            function = plain_function(definition)
            if function is not None and function[0] == leaf:
                known[name] = definition
    return {name: known[name] for name in names if known[name] is not None} if names else {}



def function_name(context, definition) -> str:
    """The last name of a function definition's declarator (`f`, `C::f`, a method in a class
    body); "" for operators, destructors and shapes a macro made."""
    declarator = function_declarator(definition.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    name = unqualified(name)
    return context.text(name) if name is not None and name.type in (
        "identifier", "field_identifier") else ""

def mentions(context, node, name: str | None) -> bool:
    """Whether the variable `name` is used in `node` (an identifier token)."""
    if node is None or name is None:
        return False
    return any(leaf.type == "identifier" for _, leaf in context.tokens((name,), node))


def called_member(call):
    """The `object.f` or `pointer->f` (a field expression) a call is made through, or None."""
    function = call.child_by_field_name("function")
    return function if function is not None and function.type == "field_expression" else None


def written_name(context, declarator) -> str:
    """The name a declarator declares as written, qualifiers and template arguments kept
    (`Expr::Expr`, `Scalar<T>::Scalar`, `~Expr`, `operator[]`, a typedef's name); "" for an
    abstract one. `declared_name` is a variable's bare name."""
    node = declarator
    while node is not None and node.type not in _WRITTEN_NAMES:
        node = inner_declarator(node)
    return context.text(node) if node is not None else ""


def declared_names(context, declarator) -> list[str]:
    """The names a declarator declares: its `declared_name`, or each name of a structured
    binding (`auto& [key, value]`), in order."""
    node = _declared(declarator)
    if node is None:
        return []
    if node.type in NAMES:
        return [context.text(node)]
    return [context.text(child) for child in node.named_children if child.type == "identifier"]


def _declared(declarator):
    """The name a declarator leads to, or its structured binding; None for an abstract one."""
    node = declarator
    while node is not None and node.type not in NAMES \
            and node.type != "structured_binding_declarator":
        node = inner_declarator(node)
    return node


_LINE_DEFINE = LazyPattern(rb"#[ \t]*define[ \t]+(\w+)\(([^()\n]*)\)((?:[^\n\\]|\\\r?\n|\\)*)")
"""A function-like macro's definition from its `#` (name, parameters, body: to the line's end,
continued lines included). Led by the `#`, the search skips ahead to each one; a pattern led by
`^[ \\t]*` under MULTILINE was tried at every byte (0.2 s of the C/C++ worst case's 20 MB)."""


@lru_cache(maxsize=4)
def line_macros(data: bytes) -> tuple[tuple[bytes, bytes, bytes], ...]:
    """(name, parameters, body) of each function-like macro `data` defines on a line of its own
    (`#` after blanks alone), in order: as `^[ \\t]*#[ \\t]*define ...` under MULTILINE
    finds them (several analyses of one file read them)."""
    found = []
    at = 0
    while (match := _LINE_DEFINE.search(data, at)) is not None:
        start = match.start()
        line = data.rfind(b"\n", 0, start) + 1
        if data[line:start].strip(b" \t"):
            at = start + 1  # (not a directive: a define at a line's start may follow)
            continue
        found.append(match.groups())
        at = match.end()
    return tuple(found)


_TYPE_SPECIFIERS = frozenset({"struct_specifier", "class_specifier", "union_specifier"})


def specifier_name(context, declaration) -> str:
    """The type name a declaration's type is spelled with (`struct T`, `T`), else ""."""
    kind = declaration.child_by_field_name("type")
    if kind.type in _TYPE_SPECIFIERS:
        kind = kind.child_by_field_name("name")
    return context.text(kind) if kind is not None and kind.type == "type_identifier" else ""


def pointee_type(context, declaration, declarator) -> str:
    """The type a declarator's one pointer points to (`struct T *p`, `T *p`: "T"), else ""."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator")
    inner = declarator.child_by_field_name("declarator") \
        if declarator is not None and declarator.type == "pointer_declarator" else None
    if inner is None or inner.type not in NAMES or declaration.type not in (
            "declaration", "parameter_declaration", "field_declaration"):
        return ""
    return specifier_name(context, declaration)
