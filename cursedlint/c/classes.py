"""C++ class declarations as facts, and name lookup over them.

`file_classes(context)` reads one file's tree-sitter tree (a `CContext`) into a small picklable
`FileClasses`: each class or struct with a body — its qualified name, bases as written, data
members with their types, and method signatures — plus type aliases. Types are summarized by
`type_facts`: the raw pointers they hold, directly or in a standard container.
`ClassIndex` joins the facts of many files and looks a name up as C++ does from where it is
written (innermost enclosing class or namespace outward), falling back on a class name that is
unique in the index (a `using namespace` it does not follow); an ambiguous name resolves to
nothing, so rules stay silent rather than guess.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterable, Iterator, NamedTuple

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    declared_name,
    function_declarator,
    inner_declarator,
    unqualified,
    written_name,
)
from cursedlint.patterns import LazyPattern

STANDARD_CONTAINERS = frozenset({
    "vector", "deque", "list", "forward_list", "array", "set", "multiset", "unordered_set",
    "unordered_multiset", "map", "multimap", "unordered_map", "unordered_multimap", "pair",
    "tuple", "optional",
})
"""Templates whose arguments a member holds by value (std:: or written unqualified)."""

_CLASS_NODES = ("class_specifier", "struct_specifier")
_TRANSPARENT = ("translation_unit", "declaration_list", "linkage_specification",
                "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
_TEMPLATE_PARAMETERS = ("type_parameter_declaration", "optional_type_parameter_declaration",
                        "variadic_type_parameter_declaration",
                        "template_template_parameter_declaration")
_NAMED_TYPES = ("type_identifier", "qualified_identifier", "template_type")
_SPACE = LazyPattern(r"\s+")


class TypeFacts(Struct, frozen=True):
    """A declared type: `text` as written (whitespace collapsed, with the declarator's * and &),
    `named` the named type without template arguments ("std::vector", "Val"), `pointees` the
    class names (as written) it holds raw pointers to, directly or inside standard containers,
    `pointer` whether it is itself a raw pointer and `reference` whether it is a reference."""

    text: str
    named: str
    pointees: tuple[str, ...]
    pointer: bool
    reference: bool


class Member(Struct, frozen=True):
    name: str
    type: TypeFacts
    line: int
    static: bool
    mutable: bool


class Method(Struct, frozen=True):
    name: str
    parameters: tuple[TypeFacts, ...]
    template: bool
    line: int
    static: bool = False


class ClassFacts(Struct, frozen=True):
    """`scope` is the qualified name's parts: names inside the class are looked up from there."""

    name: str
    scope: tuple[str, ...]
    bases: tuple[str, ...]
    members: tuple[Member, ...]
    methods: tuple[Method, ...]
    line: int

    @property
    def short_name(self) -> str:
        return self.scope[-1]


class AliasFacts(Struct, frozen=True):
    """`using name = type;` or `typedef type name;`, looked up from `scope`."""

    name: str
    scope: tuple[str, ...]
    type: TypeFacts
    line: int


class FileClasses(Struct, frozen=True):
    classes: tuple[ClassFacts, ...]
    aliases: tuple[AliasFacts, ...]


# -- reading a tree -------------------------------------------------------------------------------
def file_classes(context) -> FileClasses:
    """The classes (with bodies) and type aliases declared in one C++ file. The walk keeps
    the children of a namespace or file still to read as a cursor, not as a list (a file may
    hold millions of declarations)."""
    classes: list[ClassFacts] = []
    aliases: list[AliasFacts] = []
    stack = _Pending([(context.root, (), frozenset())])
    while (entry := stack.pop()) is not None:
        node, scope, template_parameters = entry
        kind = node.type
        if kind == "namespace_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            inner = _Within(scope, tuple(_qualified_parts(context.text(name)))) if name \
                else scope
            if body is not None:
                stack.append((body, inner, template_parameters))
        elif kind == "template_declaration":
            parameters = template_parameters | template_parameter_names(context, node)
            for child in node.named_children:
                if child.type != "template_parameter_list":
                    stack.append((child, scope, parameters))
        elif kind in _CLASS_NODES:
            facts = _class(context, node, scope, template_parameters, stack)
            if facts is not None:
                classes.append(facts)
        elif kind in ("alias_declaration", "type_definition"):
            aliases.extend(_aliases(context, node, scope, template_parameters))
            _push_class_of(node, scope, template_parameters, stack)
        elif kind in _TRANSPARENT:
            stack.extend_lazily(_entries(context.children(node, last_first=True), scope,
                                         template_parameters))
        elif kind == "declaration":
            _push_class_of(node, scope, template_parameters, stack)
    classes.sort(key=lambda facts: facts.line)
    return FileClasses(tuple(classes), tuple(aliases))


class _Pending:
    """What is left to read, last in first out: entries, and runs of entries that are produced
    only when reached (each run is read in the order it yields). A run is dropped as soon as its
    last entry is taken, so a chain of nested namespaces holds one run, not one per level."""

    def __init__(self, entries):
        self._runs: list[list] = []
        self.extend_lazily(entries)

    def append(self, entry) -> None:
        self._runs.append([entry, iter(())])

    def extend_lazily(self, entries) -> None:
        entries = iter(entries)
        first = next(entries, None)
        if first is not None:
            self._runs.append([first, entries])

    def pop(self):
        """The next entry, or None when nothing is left."""
        if not self._runs:
            return None
        run = self._runs[-1]
        entry, run[0] = run[0], next(run[1], None)
        if run[0] is None:
            self._runs.remove(run)
        return entry


class _Within(NamedTuple):
    """The scope of a namespace body, not spelled out yet: `parts` inside `outer` (a scope, or
    the tuple of its names). Namespaces nested thousands deep then cost one step each, not a
    copy of the names above."""

    outer: Any
    parts: tuple[str, ...]


def _spelled_out(scope) -> tuple[str, ...]:
    """The names of a scope, outermost first."""
    chunks = []
    while isinstance(scope, _Within):
        chunks.append(scope.parts)
        scope = scope.outer
    return scope + tuple(part for chunk in reversed(chunks) for part in chunk)


def _entries(nodes, scope, template_parameters) -> Iterator[tuple]:
    for node in nodes:
        yield node, scope, template_parameters


def _push_class_of(node, scope, template_parameters, stack) -> None:
    """`struct S {...} s;` and `typedef struct {...} S;` declare a class in their type."""
    kind = node.child_by_field_name("type")
    if kind is not None and kind.type in _CLASS_NODES:
        stack.append((kind, scope, template_parameters))


def _class(context, node, scope, template_parameters, stack) -> ClassFacts | None:
    name_node = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name_node is None or body is None:
        return None
    if name_node.type == "template_type":  # a specialization: facts under the template's name
        name_node = name_node.child_by_field_name("name")
    qualified = _spelled_out(scope) + tuple(_qualified_parts(context.text(name_node)))
    bases = []
    for child in node.named_children:
        if child.type == "base_class_clause":
            bases.extend(
                named_type(context, base) for base in child.named_children
                if base.type in _NAMED_TYPES
            )
    members: list[Member] = []
    methods: list[Method] = []
    _read_body(context, body, qualified, template_parameters, False, members, methods, stack)
    return ClassFacts(
        name="::".join(qualified),
        scope=qualified,
        bases=tuple(bases),
        members=tuple(members),
        methods=tuple(methods),
        line=node.start_point[0] + 1,
    )


def _read_body(context, body, scope, template_parameters, template, members, methods, stack):
    pending = [(body, template_parameters, template)]
    while pending:
        node, parameters, in_template = pending.pop()
        for child in context.children(node, last_first=True):
            kind = child.type
            if kind in ("field_declaration", "declaration", "function_definition"):
                _push_class_of(child, scope, parameters, stack)
                _read_declaration(context, child, parameters, in_template, members, methods)
            elif kind == "template_declaration":
                pending.append((child, parameters | template_parameter_names(context, child), True))
            elif kind.startswith("preproc_"):
                pending.append((child, parameters, in_template))
            elif kind in ("alias_declaration", "type_definition"):
                stack.append((child, scope, parameters))


def _read_declaration(context, node, template_parameters, template, members, methods) -> None:
    type_node = node.child_by_field_name("type")
    specifiers = {
        context.text(child)
        for child in node.children
        if child.type in ("storage_class_specifier", "type_qualifier")
    }
    for declarator in node.children_by_field_name("declarator"):
        function = function_declarator(declarator)
        line = declarator.start_point[0] + 1
        if function is not None:
            name = written_name(context, function)
            if name:
                parameters = tuple(parameter_types(context, function, template_parameters))
                methods.append(
                    Method(name, parameters, template, line, static="static" in specifiers)
                )
        elif type_node is not None:
            name = declared_name(context, declarator)
            if name:
                members.append(Member(
                    name=name,
                    type=type_facts(context, type_node, declarator, template_parameters),
                    line=line,
                    static="static" in specifiers,
                    mutable="mutable" in specifiers,
                ))


def _aliases(context, node, scope, template_parameters) -> Iterator[AliasFacts]:
    scope = _spelled_out(scope)
    line = node.start_point[0] + 1
    if node.type == "alias_declaration":
        name = node.child_by_field_name("name")
        described = node.child_by_field_name("type")
        if name is not None and described is not None:
            facts = type_facts(context, described.child_by_field_name("type"),
                               described.child_by_field_name("declarator"), template_parameters)
            yield AliasFacts("::".join(scope + (context.text(name),)), scope, facts, line)
        return
    type_node = node.child_by_field_name("type")
    for declarator in node.children_by_field_name("declarator"):
        name = written_name(context, declarator)
        if name and type_node is not None:
            facts = type_facts(context, type_node, declarator, template_parameters)
            yield AliasFacts("::".join(scope + (name,)), scope, facts, line)


# -- declarators and types ------------------------------------------------------------------------
def template_parameter_names(context, template_declaration) -> frozenset[str]:
    parameters = template_declaration.child_by_field_name("parameters")
    names = set()
    for parameter in parameters.named_children if parameters is not None else ():
        if parameter.type in _TEMPLATE_PARAMETERS:
            for child in parameter.named_children:
                if child.type == "type_identifier":
                    names.add(context.text(child))
    return frozenset(names)


def pointer_depth(declarator) -> tuple[int, bool]:
    """How many `*` a declarator (or abstract declarator) adds, and whether it adds `&`."""
    depth, reference = 0, False
    node = declarator
    while node is not None:
        if node.type in ("pointer_declarator", "abstract_pointer_declarator"):
            depth += 1
        elif node.type in ("reference_declarator", "abstract_reference_declarator"):
            reference = True
        elif node.type not in ("init_declarator", "attributed_declarator",
                               "parenthesized_declarator", "array_declarator"):
            break
        node = inner_declarator(node)
    return depth, reference


def type_facts(context, type_node, declarator, template_parameters=frozenset()) -> TypeFacts:
    depth, reference = pointer_depth(declarator) if declarator is not None else (0, False)
    named = named_type(context, type_node) if type_node is not None else ""
    text = _SPACE.sub(" ", context.text(type_node)) if type_node is not None else ""
    if type_node is not None and is_const(context, type_node.parent):
        text = "const " + text
    return TypeFacts(
        text=text + "*" * depth + ("&" if reference else ""),
        named=named,
        pointees=tuple(_pointees(context, type_node, depth, template_parameters)),
        pointer=depth > 0,
        reference=reference,
    )


def is_const(context, declaration) -> bool:
    """Whether a declaration (or parameter) qualifies its type `const`."""
    return declaration is not None and any(
        child.type == "type_qualifier" and context.text(child) == "const"
        for child in declaration.children
    )


class Parameter(NamedTuple):
    """A parameter of a function: its name (None when unnamed), type, and whether it is const."""

    name: str | None
    type: TypeFacts
    const: bool


def parameters_of(context, function_declarator) -> Iterator[Parameter]:
    """The parameters of a function declarator (not a `...`)."""
    for parameter in _parameter_declarations(function_declarator):
        declarator = parameter.child_by_field_name("declarator")
        facts = type_facts(context, parameter.child_by_field_name("type"), declarator)
        name = declared_name(context, declarator) if declarator is not None else ""
        yield Parameter(name or None, facts, is_const(context, parameter))


def parameter_types(context, function_declarator, template_parameters) -> Iterator[TypeFacts]:
    for parameter in _parameter_declarations(function_declarator):
        yield type_facts(context, parameter.child_by_field_name("type"),
                         parameter.child_by_field_name("declarator"), template_parameters)


def _parameter_declarations(function_declarator):
    listed = function_declarator.child_by_field_name("parameters")
    for parameter in listed.named_children if listed is not None else ():
        if parameter.type in ("parameter_declaration", "optional_parameter_declaration"):
            yield parameter


def named_type(context, node) -> str:
    """A type's name without template arguments or qualifiers: "std::vector", "Val"."""
    parts = []
    while node is not None:
        if node.type == "template_type":
            node = node.child_by_field_name("name")
        elif node.type == "qualified_identifier":
            scope = node.child_by_field_name("scope")
            if scope is not None:
                if scope.type == "template_type":
                    scope = scope.child_by_field_name("name")
                parts.append(context.text(scope))
            node = node.child_by_field_name("name")
        else:
            parts.append(context.text(node))
            break
    return "::".join(part for part in parts if part)


def template_arguments(node):
    """The template_argument_list of a (possibly qualified) template type, or None."""
    node = unqualified(node)
    if node is not None and node.type == "template_type":
        return node.child_by_field_name("arguments")
    return None


def _pointees(context, type_node, depth, template_parameters) -> Iterator[str]:
    pending = [(type_node, depth)]
    while pending:
        node, depth = pending.pop()
        if node is None or node.type not in _NAMED_TYPES:
            continue
        named = named_type(context, node)
        if depth == 1:
            if named.split("::")[-1] not in template_parameters:
                yield named
            continue
        if depth or not is_standard_container(named):
            continue
        arguments = template_arguments(node)
        for argument in reversed(arguments.named_children if arguments is not None else ()):
            if argument.type == "type_descriptor":
                inner_depth, _ = pointer_depth(argument.child_by_field_name("declarator"))
                pending.append((argument.child_by_field_name("type"), inner_depth))


def is_standard_container(named: str) -> bool:
    scope, _, last = named.rpartition("::")
    return last in STANDARD_CONTAINERS and scope in ("", "std")


def _qualified_parts(name: str) -> list[str]:
    return [part.strip() for part in name.split("::") if part.strip()]


# -- looking names up -----------------------------------------------------------------------------
class ClassIndex:
    """The classes and aliases of many files, by qualified name."""

    def __init__(self, files: Iterable[tuple[str, FileClasses]]):
        self.classes: dict[str, tuple[str, ClassFacts]] = {}
        self.aliases: dict[str, tuple[str, AliasFacts]] = {}
        self._short: dict[str, set[str]] = {}
        self._ancestors: dict[str, frozenset[str]] = {}
        for path, facts in files:
            for found in facts.classes:
                known = self.classes.get(found.name)
                if known is None or _richer(found, known[1]):
                    self.classes[found.name] = (path, found)
                self._short.setdefault(found.short_name, set()).add(found.name)
            for alias in facts.aliases:
                self.aliases.setdefault(alias.name, (path, alias))

    def resolve(self, name: str, scope: tuple[str, ...]) -> str | None:
        """The qualified name of the class `name` means where `scope` is the enclosing scope."""
        return self._lookup(name, scope, self.classes, unique_fallback=True)

    def resolve_alias(self, name: str, scope: tuple[str, ...]) -> str | None:
        return self._lookup(name, scope, self.aliases, unique_fallback=False)

    def _lookup(self, name, scope, table, unique_fallback) -> str | None:
        parts = _qualified_parts(name)
        if not parts:
            return None
        if name.lstrip().startswith("::"):
            candidate = "::".join(parts)
            return candidate if candidate in table else None
        for depth in range(len(scope), -1, -1):
            candidate = "::".join((*scope[:depth], *parts))
            if candidate in table:
                return candidate
        if unique_fallback:
            matches = [
                qualified for qualified in self._short.get(parts[-1], ())
                if qualified.split("::")[-len(parts):] == parts
            ]
            if len(matches) == 1:
                return matches[0]
        return None

    def facts(self, qualified: str) -> tuple[str, ClassFacts] | None:
        return self.classes.get(qualified)

    def bases(self, qualified: str) -> list[str]:
        found = self.classes.get(qualified)
        if found is None:
            return []
        facts = found[1]
        resolved = (self.resolve(base, facts.scope[:-1]) for base in facts.bases)
        return [base for base in resolved if base and base != qualified]

    def ancestors(self, qualified: str) -> frozenset[str]:
        """Every class `qualified` derives from, directly or not (not itself); a cycle in
        broken code ends where it closes."""
        memo = self._ancestors
        pending = [(qualified, False)]
        visiting: set[str] = set()
        while pending:
            name, expanded = pending.pop()
            if name in memo:
                continue
            bases = self.bases(name)
            if expanded:
                found: set[str] = set()
                for base in bases:
                    found.add(base)
                    found |= memo.get(base, frozenset())
                found.discard(name)
                memo[name] = frozenset(found)
                continue
            visiting.add(name)
            pending.append((name, True))
            pending.extend((base, False) for base in bases
                           if base not in memo and base not in visiting)
        return memo[qualified]

    def derived_from(self, roots: set[str]) -> set[str]:
        """`roots` and every class of the index that derives from one of them."""
        return set(roots) | {name for name in self.classes if self.ancestors(name) & roots}

    def member(self, qualified: str, name: str) -> tuple[str, ClassFacts, Member] | None:
        """The data member `name` of a class or, first found, of its bases."""
        seen: set[str] = set()
        queue = deque([qualified])
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            found = self.classes.get(current)
            if found is None:
                continue
            path, facts = found
            for member in facts.members:
                if member.name == name:
                    return path, facts, member
            queue.extend(self.bases(current))
        return None

    def methods(self, qualified: str) -> Iterator[Method]:
        """The methods of a class and of its bases."""
        for name in (qualified, *self.ancestors(qualified)):
            found = self.classes.get(name)
            if found is not None:
                yield from found[1].methods


def _richer(new: ClassFacts, old: ClassFacts) -> bool:
    """Of two definitions of one name (build variants), keep the one that says more."""
    return len(new.members) + len(new.methods) > len(old.members) + len(old.methods)
