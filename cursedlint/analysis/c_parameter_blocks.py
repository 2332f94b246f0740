"""What the callers of a C/C++ function hand it for a pointer parameter, across the project's
files (memory facts for `analysis.c_memory`'s provenance).

A registering function often gets its buffer through a parameter (`dev_init(ctx, ...)` then
`ibv_reg_mr(pd, &ctx->results, ...)`): within the function the memory is not known. Its callers
know it: each file's summary (`CallerBlocks`) keeps, for every call of a plain function, what
each argument is in the caller, as the caller's file alone shows it (`Given`): a block of whole
pages of its own, a heap block that shares its pages (its size known and under the mmap
threshold), the caller's own pointer parameter (followed to its callers in turn, up to
`MAX_DEPTH` calls up), a pointer read from a member (`comm->base.ctx`: what every store into
a member of that name the project shows puts there, `CallerBlocks.stores`, a function that
only clears it aside; only a block of whole pages is taken from there, a name being no type:
an allocator of whole pages, or a page-aligned one given whole pages to allocate, `&x->m`
handed to it), or not known. A member read directly at a registration is resolved so too
(`member_provenance`: whole pages, or device memory where every store is). `passed_in` combines them: a block of whole pages where every call of the
function the project shows passes one, a shared heap block where some call does (that call
registers it); nothing (not known) where a call passes memory not known, where
no call is seen, or where the function's name is also used as a value (stored in a field,
passed to another function: callers through a pointer are not seen).

The files read (`rules.rdma_registration.ParameterBlockIndex`) are those naming the functions
asked about: the linted file's registering functions whose memory comes through a parameter
(with the parameter's position, `ASKED`) and the members its registered addresses are read
from, then, at that argument of their calls, the functions
whose parameter is passed on there and the members read there (and the functions given those
members' addresses), bounded in rounds, files and bytes.
"""

from __future__ import annotations

import re
from functools import partial

from msgspec import Struct

from cursedlint.analysis.c_syntax import arguments, callee, unwrapped
from cursedlint.patterns import LazyPattern
from cursedlint.python.consteval import UNKNOWN

INDEX = "c-parameter-blocks"  # the project index's name (`rules.rdma_registration`)
VALUES_INDEX = "c-call-values"  # the index of calls' constant arguments (`call_values`)
MEMBER_INDEX = "c-member-stores"  # the index of stores into the members registrations read
ASKED = "#"
"""Between a function's name and the position of its parameter asked about, in the index's
words (`function#position`; no identifier holds it)."""
MAX_DEPTH = 3
"""Calls up a parameter is followed through callers that pass their own parameter on."""

_CALLED = re.compile(rb"(?<![\w$.>:])[A-Za-z_]\w*(?=\s*\()")
"""A name called as a plain function (`f(`), not a method or member (`a.f(`, `p->f(`)."""
_VALUE_PARENTS = frozenset({"argument_list", "init_declarator", "initializer_list",
                            "initializer_pair", "assignment_expression", "return_statement"})
"""Where a function's bare name used as a value is stored or passed on."""


class Given(Struct, frozen=True, array_like=True):
    """One argument of one call: `kind` "whole" (a block of whole pages of its own), "heap" (a
    heap block sharing its pages), "parameter" (the caller's own pointer parameter: `function`
    and `position`; `static`: only its file can call it), "field" (a pointer read from the
    member named `field`), "" (not known); `what` and `line` say what and where, for the
    chain. As a store into a member (`CallerBlocks.stores`): "whole", "device" (device
    memory, or a device's address), "call" (the block an allocator `function` of the project
    may give: stored through its argument `position`, `&x->m`, or returned, -1; `pages`: the
    positions of its arguments that are whole pages, sizes or alignments), "" (anything
    else). In `call_values`' summaries: "value" (a constant, `value`), "text" (perhaps a
    constant of the file's headers, `what`) or "name" (a plain name, `what`)."""

    kind: str
    what: str = ""
    line: int = 0
    function: str = ""
    position: int = -1
    static: bool = False
    field: str = ""
    pages: tuple[int, ...] = ()
    value: int | None = None


class CallerBlocks(Struct, frozen=True):
    """A file's facts: `calls` callee -> one list of `Given` per call (argument by argument);
    `values` the names it uses as values (a function stored or passed on: its calls through a
    pointer are not seen); `stores` member name -> what each store into such a member puts
    there (null pointers aside); `clears` function -> the positions of its pointer-to-pointer
    parameters through which it stores nothing but null pointers and which it hands nowhere
    (`free(*p); *p = NULL;`: given `&x->m`, it puts no other block there)."""

    calls: dict[str, list[list[Given]]] = {}
    values: list[str] = []
    stores: dict[str, list[Given]] = {}
    clears: dict[str, list[int]] = {}
    returns: dict[str, list[str]] = {}
    """Function -> the members its bodies of one `return` of a member give (`return m_;`,
    `return this->m_;`, `return s.m;`), read from the bytes: the members whose stores a
    getter's call is worth reading (`MemberStoreIndex`)."""


def caller_blocks(context, names: frozenset[str] | None = None) -> CallerBlocks | None:
    """The file's `CallerBlocks`, from its own text (its own page allocators only; a caller's
    own parameter is kept as such, not followed here); `names`: of these functions' calls
    only (None: of every plain function's)."""
    found = context.calls(_CALLED if names is None else names)
    values = sorted({context.text(leaf) for _, leaf in context.tokens(
        _BARE if names is None else names) if leaf.type == "identifier"
        and _as_value(context, leaf)})
    stored = _all_member_stores(context) if names is None else []
    clears = _clears(context) if names is None and b"**" in context.source.data else {}
    if not (found or values or stored or clears):
        return None
    provenance = _provenance(context)
    return CallerBlocks(_calls(context, found), values, _stores(context, provenance, stored),
                        clears)


def _calls(context, found: list[tuple]) -> dict[str, list[list[Given]]]:
    """`CallerBlocks.calls` of (name, call) pairs."""
    calls: dict[str, list[list[Given]]] = {}
    for name, call in found:
        if name.isupper() or name in _NOT_ASKED:
            continue  # (a macro's by its spelling, or the C library's: none registers)
        provenance = _provenance(context)
        given = [_given(context, provenance, argument) for argument in arguments(call)]
        calls.setdefault(name, []).append(given)
    return calls


def caller_base(context) -> CallerBlocks | None:
    """What of the file's `caller_blocks` does not depend on the names asked about: nothing
    but whether it has any (an empty `CallerBlocks`; None where `caller_blocks` is None: no
    call, no name used as a value, no store into a member, no clear). The calls, values,
    stores and clears of the names asked about are `word_blocks`'; the index merges them
    (`ParameterBlockIndex`): a 10 MB file's `caller_blocks` asked the provenance of each of
    its 110,553 calls' arguments, and of each of its stores, for the calls of one function."""
    if _all_member_stores(context) or b"**" in context.source.data and _clears(context) or any(
            context.call_of(leaf) is not None for _, leaf in context.tokens(_CALLED)) or any(
            leaf.type == "identifier" and _as_value(context, leaf)
            for _, leaf in context.tokens(_BARE)):
        return CallerBlocks()
    return None


def word_blocks(context, names: frozenset[str]) -> CallerBlocks | None:
    """`caller_blocks` of the names asked about: the calls and values of the functions `names`
    and of the `static` functions whose parameters their calls pass on, in turn (`passed_in`
    reads those of the file for them), the stores into members of those names, and their
    clears; each as `caller_blocks` finds it (`_CALLED`, `_BARE`: not a qualified call, nor a
    name with a comment before its `(`)."""
    data = context.source.data
    while True:
        found = [(name, call) for name, leaf in context.tokens(names)
                 if _spelled_as(_CALLED, data, leaf) and (call := context.call_of(leaf)) is not None]
        found.sort(key=lambda item: item[1].start_byte)
        calls = _calls(context, found)
        more = {given.function for made in calls.values() for call in made for given in call
                if given.kind == "parameter" and given.static} - names
        if not more:
            break
        names = names | more
    values = sorted({context.text(leaf) for _, leaf in context.tokens(names)
                     if leaf.type == "identifier" and _spelled_as(_BARE, data, leaf)
                     and _as_value(context, leaf)})
    stored = [(member, value) for member, value in _all_member_stores(context) if member in names]
    stores = _stores(context, _provenance(context), stored) if stored else {}
    clears = {function: positions for function, positions in _clears(context).items()
              if function in names} if b"**" in data else {}
    return CallerBlocks(calls, values, stores, clears) if calls or values or stores or clears \
        else None


def _spelled_as(pattern: re.Pattern[bytes], data: bytes, leaf) -> bool:
    """Whether `pattern` matches the bytes of `leaf` whole where it starts, as a search of the
    file finds it there."""
    match = pattern.match(data, leaf.start_byte)
    return match is not None and match.end() == leaf.end_byte


def member_stores(context, names: frozenset[str] | None = None) -> CallerBlocks | None:
    """The file's stores into members alone (`CallerBlocks.stores`; None: none); `names`:
    into members of these names only (None: of any)."""
    stored = [(member, value) for member, value in _all_member_stores(context)
              if names is None or member in names]
    returns = getter_returns(context.source.data) if names is None else {}
    if not (stored or returns):
        return None
    clears = _clears(context) if stored and b"**" in context.source.data else {}
    return CallerBlocks(stores=_stores(context, _provenance(context), stored) if stored else {},
                        clears=clears, returns=returns)


_GETTER = LazyPattern(rb"\(\s*(?:void\s*)?\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?"
                      rb"(?:final\s*)?\{\s*return\s+(?:this\s*->\s*|[A-Za-z_]\w*\s*(?:->|\.)\s*)?"
                      rb"([A-Za-z_]\w*)\s*;\s*\}")
"""A function of no parameters whose body is one `return` of a member (or of a name), from
its `(`: the function's name is read backwards from there (`getter_returns`). (Led by the
name, `[A-Za-z_]\\w*`, the pattern was tried at every byte of every identifier: 0.17 s of
the C worst case's member-store summaries, 46 files.)"""
_SPACE_BYTES = frozenset(b" \t\n\r\x0b\x0c")  # (`\s` of a bytes pattern)
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def getter_returns(data: bytes) -> dict[str, list[str]]:
    """`CallerBlocks.returns` of a file's bytes: for each `_GETTER` match, the name before its
    `(` (blanks between), from the run's first letter or `_` (as a pattern led by
    `([A-Za-z_]\\w*)\\s*` would find it)."""
    found: dict[str, list[str]] = {}
    for match in _GETTER.finditer(data):
        if match.group(1) in (b"nullptr", b"NULL", b"0"):
            continue
        end = match.start()
        while end and data[end - 1] in _SPACE_BYTES:
            end -= 1
        start = end
        while start and data[start - 1] in _WORD_BYTES:
            start -= 1
        while start < end and data[start] in b"0123456789":
            start += 1
        if start == end:
            continue
        returned = found.setdefault(data[start:end].decode(), [])
        if match.group(1).decode() not in returned:
            returned.append(match.group(1).decode())
    return found


def _stores(context, provenance, stored: list[tuple[str, object]]) -> dict[str, list[Given]]:
    """`CallerBlocks.stores` of (member name, value stored) pairs."""
    stores: dict[str, list[Given]] = {}
    for member, value in stored:
        stores.setdefault(member, []).append(_stored(context, provenance, value))
    return stores


def _provenance(context):
    """A `MemoryProvenance` of the file as its own text shows it (its own page allocators),
    made once per file: its answers are asked again for each function and member."""
    from cursedlint.analysis.c_allocators import file_allocators
    from cursedlint.analysis.c_constants import CConstants
    from cursedlint.analysis.c_memory import MemoryProvenance

    def made():
        constants = CConstants(context)
        allocators, rounding, library = file_allocators(context, None)
        return MemoryProvenance(context, partial(constants.evaluate, assignments=True),
                                context.settings.page_size, allocators, rounding,
                                constants.assigned, library)

    return context.shared(_PROVENANCE, made)


_PROVENANCE, _MEMBER_STORES, _CLEARS = "own-text-provenance", "member-stores", "clears"
"""`FileContext.shared` keys: the file's own provenance, its stores into members, `_clears`."""


def _clears(context) -> dict[str, list[int]]:
    """`CallerBlocks.clears`: each use of such a parameter in its function's body reads
    through it (`*p`), or tests it (`p == NULL`, `!p`). Read once per file (the member stores
    are summarized for each registration's question: each read the whole file again)."""
    return context.shared(_CLEARS, lambda: _read_clears(context))


def _read_clears(context) -> dict[str, list[int]]:
    from cursedlint.analysis.c_allocators import stored_through
    from cursedlint.analysis.c_syntax import file_scope, parameter_names, plain_function

    data, found = context.source.data, {}
    for item in file_scope(context):
        plain = plain_function(item) if item.type == "function_definition" else None
        parameters = plain[1].child_by_field_name("parameters") if plain is not None else None
        if parameters is None or b"**" not in data[parameters.start_byte:parameters.end_byte]:
            continue
        names = parameter_names(context, plain[1])
        body, stored = plain[2], None
        for position, parameter in enumerate(parameters.named_children):
            name = names[position] if position < len(names) else ""
            if not name or context.text(parameter).replace(" ", "").count("**") != 1:
                continue
            stored = stored_through(context, body, names) if stored is None else stored
            if position not in stored and all(_reads_or_tests(data, use) for use in re.finditer(
                    rb"(?<![\w$.>])" + re.escape(name.encode()) + rb"(?![\w$])",
                    data[body.start_byte:body.end_byte])):
                found.setdefault(context.text(plain[0]), []).append(position)
    return found


def _reads_or_tests(data: bytes, use) -> bool:
    before = use.string[max(0, use.start() - 16):use.start()].rstrip(b" \t(")
    after = use.string[use.end():use.end() + 8].lstrip()
    return before.endswith((b"*", b"!")) and not before.endswith(b"**") or \
        after.startswith((b"==", b"!="))

_NOT_ASKED = frozenset({
    "assert", "calloc", "fprintf", "free", "malloc", "memcmp", "memcpy", "memmove", "memset",
    "printf", "realloc", "snprintf", "sprintf", "strcmp", "strcpy", "strlen", "strncmp",
    "strncpy", "strdup", "sizeof", "vsnprintf"})
"""C library functions whose calls are never kept (no registering function of a project)."""

_MEMBER = LazyPattern(rb"(?:->|\.)\s*([A-Za-z_]\w*)\s*(?:=(?!=)|[,)])")
"""A member written (`x->m =`) or perhaps given by address to a call (`&x->m,`, `&x.m)`)."""


_OWN_MEMBER = LazyPattern(rb"&\s*([A-Za-z_]\w*)\s*[,)]|(?<![\w$.>:&])([A-Za-z_]\w*)\s*"
                          rb"(?:=(?!=)|[({])")
"""What may store into a C++ class's own member: `&m,` given to a call, `m = v` in a member
function, `m(v)` in a constructor's initializer list, `T *m = v;` or `T *m{v};` in the class."""


def _all_member_stores(context) -> list[tuple[str, object]]:
    """`_member_stores`, found once per file (asked again for each member name)."""
    return context.shared(_MEMBER_STORES, lambda: _member_stores(context))


def _member_stores(context) -> list[tuple[str, object]]:
    """(member name, what is stored: the assigned value, or the argument `&x->m` of a call)
    for each store into a member of the file (in C++ also a class's own, `_own_stores`)."""
    from cursedlint.analysis.c_memory import null_pointer
    from cursedlint.languages import CPP

    data = context.source.data
    found = _own_stores(context) if context.language == CPP else []
    for match in _MEMBER.finditer(data):
        leaf = context.node_at(match.start(1), match.end(1))
        field = context.parent(leaf) if leaf is not None else None
        if field is None or field.type != "field_expression" or \
                field.child_by_field_name("field") != leaf:
            continue
        parent = context.parent(field)
        if parent is not None and parent.type == "assignment_expression" and \
                parent.child_by_field_name("left") == field:
            value = unwrapped(parent.child_by_field_name("right"))
            if value is not None and not null_pointer(value):
                found.append((context.text(leaf), value))
        elif parent is not None and parent.type == "pointer_expression" and \
                context.text(parent.child_by_field_name("operator")) == "&":
            found.append((context.text(leaf), parent))
    return found


def _own_stores(context) -> list[tuple[str, object]]:
    """A C++ file's stores into members written without an object: a member function's
    assignment or `&m` given to a call (a name its function does not declare, nor the file at
    file scope), a constructor's initializer, a default member initializer."""
    from cursedlint.analysis.c_memory import declarations, declarations_in, null_pointer

    data, found = context.source.data, []
    for match in _OWN_MEMBER.finditer(data):
        group = 1 if match.group(1) else 2
        leaf = context.node_at(match.start(group), match.end(group))
        parent = context.parent(leaf) if leaf is not None else None
        if parent is None:
            continue
        name, value = context.text(leaf), None
        if leaf.type == "field_identifier" and parent.type == "field_initializer":
            given = parent.named_children[-1]
            value = unwrapped(given.named_children[0]) if given.named_child_count == 1 else None
        elif leaf.type == "field_identifier" and context.field_of(leaf) == "declarator" \
                and parent.type != "function_declarator":
            while parent is not None and parent.type != "field_declaration":
                parent = context.parent(parent)
            value = parent.child_by_field_name("default_value") if parent is not None else None
            if value is None:
                continue
            if value.type == "initializer_list":
                value = value.named_children[0] if value.named_child_count == 1 else None
            value = unwrapped(value)
        elif leaf.type == "identifier" and (
                group == 1 and parent.type == "pointer_expression"
                or parent.type == "assignment_expression"
                and parent.child_by_field_name("left") == leaf):
            scope = context.parent(leaf)
            while scope is not None and scope.type != "function_definition":
                scope = context.parent(scope)
            if scope is None or declarations_in(context, scope, name) or declarations(
                    context, name, None, ("declaration",)):
                continue
            value = parent if group == 1 else unwrapped(parent.child_by_field_name("right"))
        else:
            continue
        if value is None or not null_pointer(value):
            found.append((name, value))
    return found


def _stored(context, provenance, value) -> Given:
    from cursedlint.analysis.c_memory import device_out

    if value is None:  # (an initializer of several values)
        return _UNKNOWN
    line = value.start_point[0] + 1
    if value.type == "pointer_expression":  # `&x->m` handed to a call: its out-parameter?
        argument, call = context.parent(value), None
        while argument is not None and (argument.type in (
                "cast_expression", "parenthesized_expression") or argument.type == "argument_list"
                and unwrapped(context.parent(argument)) == value):  # (`reinterpret_cast<T>(&m)`)
            if argument.type == "argument_list":
                argument = context.parent(argument)
            value, argument = argument, context.parent(argument)
        if argument is not None and argument.type == "argument_list":
            call = context.parent(argument)
        name = callee(context, call) if call is not None \
            and call.type == "call_expression" else ""
        if not name:
            return _UNKNOWN
        given = arguments(call)
        position = [node.id for node in given].index(value.id)
        what = f"`{context.text(value)}` given to {name}()"
        if device_out(context, name, call, position):
            return Given("device", what, line)
        return Given("call", what, line, name, position, pages=tuple(
            index for index, argument in enumerate(given) if index != position
            and _MAY_BE_PAGES.search(context.text(argument)) and provenance.whole_size(argument)))
    if value.type == "call_expression" and callee(context, value):
        name = callee(context, value)
        return Given("call", f"{name}()'s result", line, name, -1)
    if value.type != "identifier":  # (a local's block, or not known: another member's too)
        return _UNKNOWN
    found = provenance.of(value)
    if found.kind == "page-aligned" and found.whole:
        return Given("whole", found.what, line)
    return _UNKNOWN


_MAY_BE_PAGES = LazyPattern(r"\d|page|pgsz|sysconf|(?<![A-Z_])[A-Z_]{3,}\s*\(", re.I)
"""An argument that may be whole pages (a number, the page size, a rounding macro): only
these are evaluated (`Given.pages`; a local given the page size is taken for not known). A
name's letters are tried from its first only: tried from each, a long name without `(` after
it cost the square of its length."""
_BARE = re.compile(rb"(?<![\w$.>:&*])[A-Za-z_]\w*(?=\s*[,;})])")
"""A name followed by what ends a value (`f,` `f;` `f)` `f}`): a candidate function value."""


def _as_value(context, leaf) -> bool:
    parent = context.parent(leaf)
    return parent is not None and parent.type in _VALUE_PARENTS and (
        parent.type != "assignment_expression" or parent.child_by_field_name("right") == leaf)


def call_values(context) -> CallerBlocks | None:
    """The file's calls of plain functions (`CallerBlocks.calls` alone), each argument a
    `Given` of kind "value" where the file's own text gives it a constant value, "text"
    (`what`: the expression) where it may be a constant of the file's headers
    (`includes.value_in` reads it there, with the project's headers in view: the summary
    depends on the file's text alone), "name" for a plain name (perhaps a function's), else
    "" (`c_call_contexts` follows lengths to these calls)."""
    from cursedlint.analysis.c_constants import CConstants

    found = [(name, call) for name, call in context.calls(_CALLED)
             if not name.isupper() and name not in _NOT_ASKED]
    if not found:
        return None
    constants = CConstants(context)
    calls: dict[str, list[list[Given]]] = {}
    for name, call in found:
        calls.setdefault(name, []).append([
            _value_given(context, constants, unwrapped(argument), argument.start_point[0] + 1)
            for argument in arguments(call)])
    return CallerBlocks(calls)


def _value_given(context, constants, node, line: int) -> Given:
    text = context.text(node) if node is not None else ""
    if node is not None and node.type == "identifier" and not _MAY_BE_VALUE.search(text):
        return Given("name", text, line)
    if node is None or not _MAY_BE_VALUE.search(text):
        return _UNKNOWN
    value = constants.evaluate(node, assignments=True)
    if value is UNKNOWN:
        return Given("text", text, line) if len(text) <= _LONGEST else _UNKNOWN
    return Given("value", text, line, value=value)


_LONGEST = 200
"""The longest expression kept as text (longer ones are not constants worth reading)."""
_MAY_BE_VALUE = LazyPattern(r"\d|sizeof|\b[A-Z_][A-Z0-9_]{2,}")
"""An argument that may be a constant: a number, a `sizeof`, an all-caps name (a macro's, an
enumerator's); only these are evaluated."""


def _given(context, provenance, argument) -> Given:
    node = unwrapped(argument)
    if node is None or node.type not in ("identifier", "pointer_expression", "field_expression",
                                         "binary_expression"):
        return _UNKNOWN
    found = provenance.of(argument)
    line = argument.start_point[0] + 1
    if found.kind == "page-aligned" and found.whole:
        return Given("whole", found.what, line)
    if found.kind == "heap" and not found.offset:
        return Given("heap", found.what, line)
    passed = provenance.passed.get(argument.id) if node.type == "identifier" else None
    if passed is not None:
        return Given("parameter", found.what, line, *passed)
    if node.type == "field_expression" and found.kind in ("", "unknown", "member"):
        return Given("field", f"`{context.text(node)}`", line,
                     field=context.text(node.child_by_field_name("field")))
    return _UNKNOWN


_UNKNOWN = Given("")


def passed_in(facts: dict, function: str, position: int, only: str | None = None,
              depth: int = 0, seen: frozenset = frozenset(),
              allocators: dict | None = None, sized: dict | None = None
              ) -> tuple[Given, str, str] | None:
    """What every call of `function` the project shows passes as argument `position` (`only`:
    the calls of that file, where the function is `static` there): (a `Given` of kind "whole"
    or "heap", the path of the caller's file, the function called there) or None (not
    known). `allocators`: the project's allocators of whole pages (name -> the argument their
    block is stored through, -1: returned), for what members are given."""
    files = sorted(facts.items()) if only is None else [(only, facts[only])] \
        if only in facts else []
    if depth > MAX_DEPTH or (function, position) in seen or any(
            function in found.values for _, found in files):
        return None
    seen = seen | {(function, position)}
    whole, known = None, True
    for path, found in files:
        for call in found.calls.get(function, ()):
            given = call[position] if position < len(call) else _UNKNOWN
            step = (given, path, function)
            if given.kind == "parameter":
                step = passed_in(facts, given.function, given.position,
                                 path if given.static else None, depth + 1, seen,
                                 allocators, sized) or (_UNKNOWN, path, function)
            elif given.kind == "field":
                step = (member_given(facts, given, allocators or {}, sized), path, function)
            if step[0].kind == "heap":
                return step
            if step[0].kind == "whole":
                whole = whole or step
            else:
                known = False
    return whole if known else None


def member_given(facts: dict, given: Given, allocators: dict, sized: dict | None = None
                 ) -> Given:
    """What a pointer read from a member holds (`given`, of kind "field"): a block of whole
    pages where the project shows stores into members of that name and every one is such a
    block (an allocator of whole pages given `&x->m` where it stores its block, or its
    result; a page-aligned one, `sized`, `aligned_out`, given whole pages to allocate);
    device memory where every one is; else not known."""
    clears = {(function, position) for found in facts.values()
              for function, positions in found.clears.items() for position in positions}
    stores = [store for found in facts.values() for store in found.stores.get(given.field, ())
              if store.kind != "call" or (store.function, store.position) not in clears]
    kinds = {_store_kind(store, allocators, sized or {}) for store in stores}
    if len(kinds) != 1 or not kinds <= {"whole", "device"}:
        return _UNKNOWN
    kind, store = kinds.pop(), stores[0]
    said = "whole pages" if kind == "whole" else "device memory"
    return Given(kind, f"{given.what} (every store into `{given.field}`: "
                 f"{store.what} on line {store.line}, {said})", given.line)


def _store_kind(store: Given, allocators: dict, sized: dict) -> str:
    """"whole", "device" or "" (not known) for a store into a member."""
    from cursedlint.analysis.c_memory import aligned_out

    if store.kind != "call":
        return store.kind
    if allocators.get(store.function, -2) == store.position:
        return "whole"
    size = sized.get(store.function)
    if size is not None and size[0] == store.position and size[1] in store.pages:
        return "whole"
    aligned = aligned_out(store.function)
    return "whole" if aligned is not None and aligned[0] == store.position and \
        set(aligned[1:]) <= set(store.pages) else ""


def may_be_whole(store: Given) -> bool:
    """Whether a store into a member may put whole pages or device memory there, as its file
    alone shows it: "whole", "device", or a block a function of the project may give."""
    return store.kind in ("whole", "device") or store.kind == "call" and (
        store.position >= 0 or store.function not in _NOT_ASKED)


def stores_into(data: bytes, field: str) -> bool:
    """Whether a file's bytes may store into a member named `field` (in any shape
    `member_stores` reads: more, never fewer): where the name is spelled whole, `x->m =`,
    `&x->m,` (`&` and the member in one argument), `&m,`, or `m =`, `m(`, `m{` not after a
    member's `.`, `->` or `::`. Each place the name is spelled is looked at (one pattern of
    these shapes tried at every byte of a 10 MB file took 60 ms a member)."""
    name, size = field.encode(), len(data)
    at = data.find(name)
    while at >= 0:
        after = at + len(name)
        if (not at or data[at - 1] not in _NAME_BYTES) and (
                after == size or data[after] not in _NAME_BYTES) and _stores_at(data, at, after):
            return True
        at = data.find(name, after)
    return False


_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_ARGUMENT_ENDS = frozenset(b",;(){}")


def _stores_at(data: bytes, start: int, end: int) -> bool:
    """`stores_into` at the name spelled data[start:end]."""
    while end < len(data) and data[end] in _SPACE_BYTES:
        end += 1
    following = data[end:end + 2]
    assigned = following[:1] == b"=" and following != b"=="
    if not (assigned or following[:1] in (b",", b")", b"(", b"{")):
        return False
    if (assigned or following[:1] in (b"(", b"{")) and (
            not start or data[start - 1] not in b".>:&" and data[start - 1] not in _WORD_BYTES):
        return True  # `m = v`, `m(v)`, `m{v}`
    before = start
    while before and data[before - 1] in _SPACE_BYTES:
        before -= 1
    member = before >= 1 and data[before - 1] == ord(".") or \
        before >= 2 and data[before - 2:before] == b"->"
    if assigned:
        return member  # `x->m = v`
    if following[:1] not in (b",", b")"):
        return False
    if before and data[before - 1] == ord("&"):
        return True  # `&m,`
    if not member:
        return False
    operator = before - (1 if data[before - 1] == ord(".") else 2)
    while operator:  # `&x->m,`: an `&` earlier in the same argument
        operator -= 1
        if data[operator] in _ARGUMENT_ENDS:
            return False
        if data[operator] == ord("&"):
            return True
    return False


def member_provenance(facts: dict, allocators: dict, sized: dict, field: str):
    """`member_given` of a member read directly (`p->m`), as `c_memory.Provenance` (None:
    not known): whole pages or device memory where every store of the project is."""
    from cursedlint.analysis.c_memory import Provenance

    found = member_given(facts, Given("field", "", field=field), allocators, sized)
    what = found.what.strip(" ()")
    if found.kind == "whole":
        return Provenance("page-aligned", what, whole=True)
    return Provenance("device", what) if found.kind == "device" else None


def caller_provenance(facts: dict, function: str, position: int, only: str | None = None,
                      allocators: dict | None = None, sized: dict | None = None):
    """`passed_in` as `c_memory.Provenance` (None: not known)."""
    import os

    from cursedlint.analysis.c_memory import Provenance

    found = passed_in(facts, function, position, only, allocators=allocators, sized=sized)
    if found is None:
        return None
    given, path, called = found
    name = os.path.basename(path)
    what = f"its caller's {given.what} of {name}, passed to {called}() at {name}:{given.line}"
    if given.kind == "whole":
        return Provenance("page-aligned", what, whole=True)
    return Provenance("heap", what, "neighbouring heap blocks and malloc's chunk headers (blocks "
                      "below the 128 KiB mmap threshold share pages)")


def passed_on(facts: dict, searched: set[str], statics: bool = False) -> set[str]:
    """Of the calls of the functions looked for, at the parameter asked about (`searched`:
    `function#position`, `ASKED`): the functions (not `static`: their calls are in their own
    file) whose parameter a call passes on there, whose callers are read next (that parameter
    asked about), and the members whose pointer a call passes there, whose stores are read
    next (and the functions given a member's address there, whose definitions may clear
    it). `statics`: the `static` functions too (their calls, in their own file, are what
    `passed_in` reads next)."""
    asked: dict[str, set[int]] = {}
    for word in searched:
        name, _, position = word.partition(ASKED)
        if position:
            asked.setdefault(name, set()).add(int(position))
    givens = [call[position] for found in facts.values() for name, calls in found.calls.items()
              if name in asked for call in calls for position in asked[name]
              if position < len(call)]
    return {*(f"{given.function}{ASKED}{given.position}" for given in givens
              if given.kind == "parameter" and (statics or not given.static)),
            *(given.field for given in givens if given.kind == "field"),
            *(store.function for found in facts.values() for member, stores in
              found.stores.items() if member in searched for store in stores
              if store.kind == "call")}
