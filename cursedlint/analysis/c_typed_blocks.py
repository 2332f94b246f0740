"""Objects of a C/C++ type that the project makes only as blocks of whole pages of their own
(memory facts across files, for `analysis.c_memory`'s provenance).

A registered member is often reached through a pointer that no caller settles: a `void *`
handed through an ops table and cast back (`struct recv_comm *c = (struct recv_comm *)h;`), a
pointer an out-parameter getter filled (`get_comm(ctx, rank, &c)`). Whatever path it took, the
pointer declared `struct T *` points at a `T`: where every `T` the project makes is a block of
whole pages of its own, `&c->m` lies in that block's pages, which nothing else shares.

Each file's summary (`TypeCreations`) keeps how it makes and views objects of each type it
names:
- an allocation (a call whose name says so: `*alloc*`, `*Alloc*`, `memalign`, `mmap`) given
  `sizeof(T)`, or `sizeof(*p)` with `p` a `T *`, or storing into a local `T *` (`&p` as an
  argument, `p = alloc(...)`, cast or not): the allocator's name, which the project's index of
  allocators of whole pages (`analysis.c_allocators`) then judges;
- an object of its own (`T x;`, `T x[4];`, a parameter by value, `new T`, `std::vector<T>`,
  `std::make_unique<T>`), or memory of no known origin cast to `T *` (arithmetic, a byte
  pointer, a call of no allocator): "", never whole pages;
- the types holding a `T` by value (a member, a C++ base: made where they are), the types a
  `T *` is cast from or to (`(T *)u`, `u` a `U *`; or a member, `(T *)r->base`, whose
  declarations in view give its type), and plain aliases (`typedef struct T T_t;`).
`typed_provenance` joins the types over these (`joined`, at most `MAX_JOINED`): whole pages only
where every object of every one of them is. A `void *` cast to `T *` is a view of what it was
handed, not an object. Not seen: a `T` allocated through a member's pointer (`s->c =
malloc(...)`) with no `sizeof(T)`: such a project may be silent where a block is not whole pages
(a finding missed, never a false one).
"""

from __future__ import annotations

from msgspec import Struct

from cursedlint.analysis.c_allocators import LIBRARY_PAGE_OUTS
from cursedlint.analysis.c_syntax import (
    NAMES, callee, declarator_kind, pointee_type, specifier_name, unwrapped,
)
from cursedlint.patterns import LazyPattern

TYPED_INDEX = "c-typed-blocks"  # the project index's name (`analysis.c_parameter_index`)
_SHARED, _CALLS_ALLOCATOR = "c-type-creations", "c-calls-allocator"  # `FileContext.shared`

_ALLOCATING = LazyPattern(r"[Aa]lloc|ALLOC|memalign|^mmap(?:64)?$")
"""The names of the calls that may allocate the object they are given or return."""
_ALLOCATING_BYTES = LazyPattern(rb"(?:[Aa]lloc|ALLOC|memalign|mmap)"
                                rb"(?:(?![Aa]lloc|ALLOC|memalign|mmap)\w)*\s*\(")
"""A call of a name holding one of those words. The rest of a name is read from the word's
last occurrence in it only (the same calls): read from each, a long name made of the words
cost its length squared."""
_WHOLE = frozenset({*LIBRARY_PAGE_OUTS, "mmap", "mmap64"})
"""The library's allocators whose every block is whole pages of its own."""
_POINTERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr"})
"""Templates whose type argument is no object of their own."""
MAX_JOINED = 24
"""Types joined to one asked about (aliases, casts, containing types) past which its objects
are not known."""

_SIZEOF = LazyPattern(rb"sizeof\s*\(\s*(?:(?:struct|class|union)\s+)?(\*\s*)?([A-Za-z_]\w*)\s*\)")
_NEW = LazyPattern(rb"(?<![\w$])new\s+(?:(?:struct|class)\s+)?([A-Za-z_]\w*)(?![\w$:<])")
_TEMPLATE = LazyPattern(rb"(?<![\w$])([A-Za-z_]\w*+)\s*+<\s*(?:const\s+)?(?:(?:struct|class)\s+)?"
                        rb"([A-Za-z_]\w*)\s*[,>]")
_DECLARED = LazyPattern(rb"(?<![\w$.>:])([A-Za-z_]\w*+)[ \t\n]*+(\*[ \t\n*]*+)?(?<![\w$])"
                        rb"([A-Za-z_]\w*+)\s*+(?=[;=,\[{)(])")
"""`T x;`, `T *x = ...`, `struct T x[4];` (from the type's name, `struct` left before it)."""
_CAST = LazyPattern(rb"(?:\(|_cast\s*<)\s*(?:const\s+)?(?:(?:struct|class|union)\s+)?"
                   rb"([A-Za-z_]\w*)\s*\*\s*[)>]")
_BASES = LazyPattern(rb"(?:struct|class)\s+([A-Za-z_]\w*)\s*(?:final\s*)?:(?!:)")
_ALIAS = LazyPattern(rb"(?:typedef\s+(?:(?:struct|class|union)\s+)?([A-Za-z_]\w*)\s+"
                    rb"([A-Za-z_]\w*)\s*;|using\s+([A-Za-z_]\w*)\s*=\s*"
                    rb"(?:(?:struct|class|union)\s+)?([A-Za-z_]\w*)\s*;)")
_SCALAR = LazyPattern(r"void|char|short|int|long|unsigned|signed|float|double|bool|_Bool|"
                      r"u?int(?:8|16|32|64|ptr|max)_t|__[us](?:8|16|32|64)|[us](?:8|16|32|64)|"
                      r"size_t|ssize_t|ptrdiff_t|off_t|byte|BYTE|uchar|wchar_t|char(?:8|16|32)_t")
"""Type names of no object of a struct or class: a pointer to one is raw memory (a cast of it
to `T *` carves a `T` out of it) or, `void *`, a handle to anything."""
_KEYWORDS = frozenset({"return", "else", "case", "goto", "sizeof", "typedef", "using", "delete",
                       "throw", "new", "struct", "class", "union", "enum", "const", "static"})


class TypeCreations(Struct, frozen=True):
    """How one file makes and views objects of the types it names. `made`: type -> the
    allocators' names ("" for an object of its own: a variable or parameter by value, `new`, a
    container's element, memory of no known origin cast to the type); `within`: type -> the
    types holding one by value (a member, a C++ base: made where they are); `joins`: type ->
    the types a pointer to it is cast from (an object viewed as either may be the other);
    `fields`: type -> the members a pointer to it is cast from (`(T *)r->base`); `members`:
    member name -> the types the pointer members of that name point to ("void" for `void *`);
    `aliases`: alias ->
    the type it names."""

    made: dict[str, list[str]]
    within: dict[str, list[str]]
    joins: dict[str, list[str]]
    fields: dict[str, list[str]]
    members: dict[str, list[str]]
    aliases: dict[str, str]


def allocates(context, name: str | None) -> bool:
    """Whether the file itself allocates an object of type `name` (`TypeCreations.made`; of
    any type, by its bytes, for None)."""
    data = context.source.data
    if not context.shared(_CALLS_ALLOCATOR, lambda: _ALLOCATING_BYTES.search(data) is not None):
        return False
    found = type_creations(context) if name is not None else None
    return name is None or found is not None and any(found.made.get(name, ()))


def type_creations(context) -> TypeCreations | None:
    """The file's `TypeCreations` (None: it holds none), made once per file."""
    return context.shared(_SHARED, lambda: _type_creations(context))


def _type_creations(context) -> TypeCreations | None:
    data = context.source.data
    made, within, joins, fields, members = {}, {}, {}, {}, {}

    def add(table: dict, name: str, how: str):
        kept = table.setdefault(name, [])
        if how not in kept:
            kept.append(how)

    for match in _SIZEOF.finditer(data):
        call = _call_around(context, match.start())
        name = match[2].decode()
        if call is None or not _ALLOCATING.search(callee(context, call)):
            continue
        if match[1]:
            name = _pointee_at(context, match.start(2), name)
        if name:
            add(made, name, callee(context, call))
    for match in _NEW.finditer(data):
        if _node_at(context, match.start(), "new_expression") is not None:
            add(made, match[1].decode(), "")
    for match in _TEMPLATE.finditer(data):
        if match[1].decode() not in _POINTERS and not match[1].endswith(b"_cast") and \
                _node_at(context, match.start(2), "template_argument_list") is not None:
            add(made, match[2].decode(), "")
    for match in _DECLARED.finditer(data):
        named = match[1].decode()
        if named in _KEYWORDS or match[3].decode() in _KEYWORDS or \
                named != "void" and _SCALAR.fullmatch(named):
            continue  # (no object of a struct; a `void *` member is kept)
        found = _declaration_at(context, match.start(3), match[3].decode())
        if found is None:
            continue
        declaration, declarator, typed = found
        kind = declarator_kind(declarator)
        if typed == "void" and kind != "pointer":
            continue
        if kind in ("object", "array") and declaration.type == "field_declaration":
            add(within, typed, _holder(context, declaration))
        elif kind in ("object", "array") and declaration.type != "type_definition":
            add(made, typed, "")
        elif kind == "pointer" and (match[2] or b"").count(b"*") == 1 and \
                declaration.type == "field_declaration":
            add(members, match[3].decode(), typed)
        elif kind == "pointer" and (match[2] or b"").count(b"*") == 1 and typed != "void" and \
                declaration.type == "declaration":
            for allocator in _stored_into(context, declaration, match[3].decode()):
                add(made, typed, allocator)
    for match in _CAST.finditer(data):
        if _SCALAR.fullmatch(match[1].decode()):
            continue
        for table, how in _viewed(context, match.start(1)):
            add({"made": made, "joins": joins, "fields": fields}[table], match[1].decode(), how)
    for match in _BASES.finditer(data):
        for base in _bases(context, match.start(1)):
            add(within, base, match[1].decode())
    aliases = {}
    for match in _ALIAS.finditer(data):
        alias, named = (match[2], match[1]) if match[1] else (match[3], match[4])
        if alias != named:
            aliases[alias.decode()] = named.decode()
    return TypeCreations(made, within, joins, fields, members, aliases) \
        if made or within or joins or fields or members or aliases else None


def _holder(context, declaration) -> str:
    """The name of the struct or class a member declaration is in ("" where it has none)."""
    body = context.parent(declaration)
    holder = context.parent(body) if body is not None else None
    name = holder.child_by_field_name("name") if holder is not None and holder.type in (
        "struct_specifier", "class_specifier", "union_specifier") else None
    if name is None and holder is not None:
        definition = context.parent(holder)
        named = definition.child_by_field_name("declarator") \
            if definition is not None and definition.type == "type_definition" else None
        return context.text(named) if named is not None and named.type == "type_identifier" \
            else ""
    return context.text(name) if name is not None else ""


def _bases(context, start: int) -> list[str]:
    """The base classes a class head at `start` names (its name's byte)."""
    leaf = context.node_at(start, start)
    head = context.parent(leaf) if leaf is not None else None
    clause = next((child for child in head.named_children if child.type == "base_class_clause"),
                  None) if head is not None and head.type in ("struct_specifier",
                                                             "class_specifier") else None
    return [context.text(child) for child in clause.named_children
            if child.type == "type_identifier"] if clause is not None else []


def _viewed(context, start: int) -> list[tuple[str, str]]:
    """What a cast to `T *` (its type's name at `start`) says of `T`'s objects: ("joins", U)
    from a `U *`, ("fields", m) from a member `m`, ("made", allocator) from an allocation
    (a call, or a local given one), ("made", "") from memory of no known origin (a call of no
    allocator, arithmetic, a byte pointer given no block); nothing from a `void *` parameter or
    local given no block (a view of what it is handed) or what cannot be read."""
    descriptor = _node_at(context, start, "type_descriptor")
    holder = context.parent(descriptor) if descriptor is not None else None
    if holder is not None and holder.type == "cast_expression":
        operand = holder.child_by_field_name("value")
    elif holder is not None and holder.type == "template_argument_list":
        function = context.parent(holder)
        call = context.parent(function) if function is not None else None
        given = call.child_by_field_name("arguments").named_children \
            if call is not None and call.type == "call_expression" else []
        operand = given[0] if given else None
    else:
        return []
    operand = unwrapped(operand) if operand is not None else None
    if operand is None:
        return []
    if operand.type == "field_expression":
        return [("fields", context.text(operand.child_by_field_name("field")))]
    if operand.type == "call_expression":
        name = callee(context, operand)
        return [("made", name if _ALLOCATING.search(name) else "")]
    if operand.type != "identifier":
        return [("made", "")] if operand.type in ("binary_expression", "pointer_expression") \
            else []
    name = context.text(operand)
    scope = next((node for node in context.ancestors(operand)
                  if node.type == "function_definition"), None)
    from cursedlint.analysis.c_memory import declarations_in  # (the index's words need none)

    found = declarations_in(context, scope, name) if scope is not None else []
    if not found:
        return []
    declaration, declarator = found[-1]
    pointee = pointee_type(context, declaration, declarator)
    if pointee and not _SCALAR.fullmatch(pointee):
        return [("joins", pointee)]
    if declarator_kind(declarator) != "pointer":
        return []
    given = [("made", allocator) for allocator in _stored_into(context, declaration, name)] \
        if declaration.type == "declaration" else []
    kind = declaration.child_by_field_name("type")
    handle = kind is not None and context.text(kind) == "void"
    return given or ([] if handle else [("made", "")])  # (bytes of no known origin)


def _node_at(context, start: int, kind: str):
    """The node of `kind` around the token starting at byte `start`, up to its statement."""
    leaf = context.node_at(start, start)
    for node in (leaf, *context.ancestors(leaf)) if leaf is not None else ():
        if node.type == kind:
            return node
        if node.type.endswith("statement") or node.type == "function_definition":
            return None
    return None


def _call_around(context, start: int):
    """The call whose argument holds the `sizeof` at `start` (through arithmetic, casts and
    parentheses), or None."""
    leaf = context.node_at(start, start)
    for node in context.ancestors(leaf) if leaf is not None else ():
        if node.type == "argument_list":
            call = context.parent(node)
            return call if call is not None and call.type == "call_expression" else None
        if node.type not in ("sizeof_expression", "binary_expression", "cast_expression",
                             "parenthesized_expression", "type_descriptor"):
            return None
    return None


def _declaration_at(context, start: int, name: str):
    """(declaration, declarator, its type's name) where the name at `start` is the name
    declared (a variable, member, parameter or alias) with a named type, else None."""
    leaf = context.node_at(start, start + len(name))
    if leaf is None or leaf.type not in NAMES:
        return None
    declarator = leaf
    for node in context.ancestors(leaf):
        if node.type in ("declaration", "field_declaration", "parameter_declaration",
                         "type_definition"):
            kind = node.child_by_field_name("type")
            typed = "void" if kind is not None and context.text(kind) == "void" else \
                specifier_name(context, node) if kind is not None else ""
            return (node, declarator, typed) if typed else None
        if node.type == "function_declarator" or not (
                node.type.endswith("declarator") or node.type == "init_declarator"):
            return None
        declarator = node
    return None


def _pointee_at(context, start: int, name: str) -> str:
    """`sizeof(*p)`: the type `p` points to, where its declaration in view says."""
    leaf = context.node_at(start, start + len(name))
    scope = next((node for node in context.ancestors(leaf)
                  if node.type == "function_definition"), None) if leaf is not None else None
    if scope is None:
        return ""
    from cursedlint.analysis.c_memory import declarations_in  # (the index's words need none)

    found = declarations_in(context, scope, name)
    return pointee_type(context, *found[-1]) if found else ""


def _stored_into(context, declaration, name: str) -> list[str]:
    """The allocating calls a local pointer is given a block by: `alloc(&p, ...)`, `p =
    alloc(...)`, `T *p = alloc(...)` (through casts)."""
    scope = next((node for node in context.ancestors(declaration)
                  if node.type in ("function_definition", "lambda_expression")), None)
    if scope is None or not context.shared(("allocating", scope.id), lambda: (
            _ALLOCATING_BYTES.search(context.source.data, scope.start_byte, scope.end_byte)
            is not None)):
        return []  # (no allocating call in its function: searched once per function)
    return context.shared(("stored-into", scope.id, name),
                          lambda: _allocations_into(context, scope, name))


def _allocations_into(context, scope, name: str) -> list[str]:
    """`_stored_into` of the pointers named `name` in `scope`, read once per scope and name
    (a function tree-sitter misread as megabytes declares the same pointer thousands of
    times)."""
    found = []
    for _, leaf in context.tokens((name,), scope):
        node = context.parent(leaf)
        if node is not None and node.type == "pointer_expression" and \
                context.text(node.child_by_field_name("operator")) == "&":
            outer = node
            while context.parent(outer) is not None and context.parent(outer).type in (
                    "cast_expression", "parenthesized_expression"):
                outer = context.parent(outer)
            holder = context.parent(outer)
            call = context.parent(holder) if holder is not None and \
                holder.type == "argument_list" else None
        elif node is not None and (node.type == "assignment_expression" and node.child(0) == leaf
                                   or node.type == "pointer_declarator"):
            node = context.parent(node) if node.type == "pointer_declarator" else node
            if node is None or node.type not in ("assignment_expression", "init_declarator"):
                continue
            value = node.child_by_field_name("right" if node.type == "assignment_expression"
                                             else "value")
            call = unwrapped(value) if value is not None else None
        else:
            continue
        if call is not None and call.type == "call_expression":
            name_called = callee(context, call)
            if _ALLOCATING.search(name_called):
                found.append(name_called)
    return found


def typed_provenance(facts: dict, name: str, allocators: dict):
    """What an object of type `name` is, from the project's summaries (`facts`: path ->
    `TypeCreations`): a `Provenance`, a block of whole pages of its own, where the project
    makes some and every object of the types joined to it (`joined`) is made by an allocator
    of whole pages (`allocators`); else None (not known). Asked only about a type the asking
    file allocates itself (`allocates`: the types its lint asked the index about; of
    another, the facts may be partial)."""
    names = joined(facts, name)
    made = {how for found in facts.values() for typed in names or ()
            for how in found.made.get(typed, ())}
    if not made or not all(how in allocators or how in _WHOLE for how in made):
        return None
    from cursedlint.analysis.c_memory import Provenance  # (the index's words need none)

    return Provenance("page-aligned", f"a `{name}`, which the project makes only with "
                      f"{', '.join(f'{how}()' for how in sorted(made))} (whole pages)",
                      offset=True, whole=True)


def joined(facts: dict, name: str, partial: bool = False) -> set[str] | None:
    """`name` and the types whose objects a pointer to it may point into (`neighbours`, over
    and over); None where more than `MAX_JOINED` or (unless `partial`: what the facts so far
    lead to, for the index's next round) a member cast from is declared nowhere in view."""
    names, queue = {name}, [name]
    while queue:
        found = neighbours(facts, queue.pop(), partial)
        if found is None:
            return None
        queue.extend(found - names)
        names |= found
        if len(names) > MAX_JOINED:
            return None
    return names


def neighbours(facts: dict, typed: str, partial: bool = False) -> set[str] | None:
    """The types joined to `typed` in one step: its aliases and the type it names, the types
    it is cast from or to, the types pointer members it is cast from point to, the types
    holding one by value; None where a holder has no name or (unless `partial`) a member cast
    from is declared nowhere in view."""
    found, fields = set(), set()
    for summary in facts.values():
        found.update(alias for alias, named in summary.aliases.items() if named == typed)
        if typed in summary.aliases:
            found.add(summary.aliases[typed])
        found.update(summary.within.get(typed, ()))
        found.update(summary.joins.get(typed, ()))
        found.update(other for other, joins in summary.joins.items() if typed in joins)
        fields.update(summary.fields.get(typed, ()))
    for field in fields:
        pointees = {pointee for summary in facts.values()
                    for pointee in summary.members.get(field, ())}
        if not pointees and not partial:
            return None
        found |= pointees - {"void"}  # (a `void *` member holds what it is handed)
    return None if "" in found else found
