"""Allocators of a C/C++ project whose blocks are whole pages of their own (memory facts
across files, for `analysis.c_memory`'s provenance).

A function of the project that hands a block back, through a pointer parameter (`*out = p;`)
or as its result (`return p;`), where every block it gives (a null pointer aside) starts on a
page boundary and spans whole pages (`c_memory.MemoryProvenance.whole_pages_in`: a map of
pages, or a page-aligned allocation whose size is whole pages or rounded up to the page size)
is such an allocator, as is a function-like macro that calls one with its own arguments first
(`#define ncclIbMalloc(...) ncclIbMallocDebug(__VA_ARGS__, __FILE__, __LINE__)`), and a
function that hands its pointer parameter, cast to `void **`, to one as the place its block is
stored (`ncclIbMalloc((void **)out, size)`: a chained allocator, `PageAllocators.chains`). Its callers'
blocks are whole pages of their own; so is every member of one, which shares its pages only
with the rest of the block (`&comm->flush`), never with memory the process uses elsewhere.

A function handing out page-aligned blocks of the size a caller gives (`buf_alloc(dev, size,
&out)` calling `posix_memalign(&p, page_size, size)`, or a wrapper named after it,
`ucs_posix_memalign`) is a sized allocator (`PageAllocators.sized`): its block is whole
pages where that argument is (`analysis.c_parameter_blocks`, for the stores into members).

A size rounded by a macro the allocator's file does not define (`ROUNDUP(size, page_size)`,
defined in a header it includes) holds only where a file of the project defines that macro as
rounding up (`c_memory.rounding_macros`): the summary keeps the macros it relied on, and
`project_allocators` keeps the allocators whose macros are known.
"""

from __future__ import annotations

import os
import re
from functools import partial

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    file_scope, line_macros, parameter_names, plain_function, scope_of, unwrapped,
)
from cursedlint.languages import C, CPP
from cursedlint.patterns import LazyPattern
from cursedlint.project.index import Indexer
from cursedlint.triggers.byte_search import WholeWords

PAGE_ALLOCATOR_NAMES = ("_aligned_malloc", "aligned_alloc", "cudaHostAlloc", "cudaMallocHost",
                        "hipHostMalloc", "memalign", "mmap", "mmap64", "posix_memalign",
                        "pvalloc", "valloc")
"""The allocators whose blocks may start on a page boundary (`c_memory`'s, which this module's
summaries read; written here so that the index's words need no checking analysis)."""

LIBRARY_PAGE_OUTS = {"cudaHostAlloc": 0, "cudaMallocHost": 0, "hipHostMalloc": 0}
"""Library allocators whose blocks are pages of their own (pinned host memory is mapped in
whole pages), by the position of the pointer they store it through: a function handing its
parameter to one, as `(void **)param`, chains to it (`PageAllocators.chains`)."""

LIBRARY_ALLOCATOR_NAMES = ("aligned_alloc", "calloc", "malloc", "memalign", "posix_memalign")
"""The C library's allocators a project's macro may stand for (`#define xx_malloc(s, ...)
malloc(s)`): its calls are theirs, with the macro's leading arguments."""
_LIBRARY_MACRO = LazyPattern(
    rb"#[ \t]*define[ \t]+\w+\([^()\n]*\)[ \t]*(?:" + b"|".join(
        name.encode() for name in LIBRARY_ALLOCATOR_NAMES) + rb")\(")
"""A macro standing for a C library allocator."""
_WRAPPER_CALL = LazyPattern(rb"\w_posix_memalign\s*\(")
"""A call of a wrapper named after `posix_memalign` (`c_memory._ALIGNED_WRAPPER`)."""


class _LibraryAlias:
    """The search for a macro standing for a C library allocator, or a call of a wrapper named
    after `posix_memalign`: two searches, the wrapper's only in a file that spells
    `_posix_memalign` (as one pattern of both, the wrapper's `\\w` led it to be tried at every
    byte: 0.35 -> 0.01 s over the C/C++ worst case's 20 MB)."""

    @staticmethod
    def search(data: bytes) -> re.Match[bytes] | None:
        """A match of either (the macro's first), as `re.Pattern.search`: None where neither is."""
        found = _LIBRARY_MACRO.search(data)
        if found is None and b"_posix_memalign" in data:
            found = _WRAPPER_CALL.search(data)
        return found


_LIBRARY_ALIAS = _LibraryAlias()
_NAMED_WRAPPER = re.compile(rb"(?<![\w$])\w+_posix_memalign(?![\w$])")
"""A call of a wrapper named after `posix_memalign` (`_allocating_functions`; searched only in
a file that spells `_posix_memalign`: a pattern of no leading literal is tried at every
byte)."""
_ONE_CALL = LazyPattern(rb"[ \t]*(\w+)\(([^()\n]*)\)[ \t]*")
"""A function-like macro's body that is one call: `#define A(x, y) B(x, y, __LINE__)`."""
_STORE_THROUGH = LazyPattern(rb"\*\s*(?:\(\s*)?(?:\([^()]*\)\s*)?([A-Za-z_]\w*)\s*(?:\)\s*)?=(?!=)")
"""`*out =`, `*(void **)out =`: where a function may store through a pointer parameter."""
_RETURN = LazyPattern(rb"return(?<![\w$]return)(?![\w$])")
"""The word `return` (its start checked behind it, as `c_error_codes._RETURNS_NAME` says why)."""


class PageAllocators(Struct, frozen=True):
    """A file's facts: `allocators` name -> (position of the pointer parameter the block is
    stored through, -1 where it is returned; the macros of no definition in the file its size
    is rounded with: (name, value position, alignment position, in place)); `rounding` its
    rounding macros (`c_memory.rounding_macros`); `aliases` macro -> the function it calls with
    its own arguments first; `library` macro -> (the C library allocator it calls, how many of
    its own leading arguments it passes: all the call takes); `chains` function -> (position of
    its pointer parameter, the function it hands it to as `(void **)param`, as which argument):
    an allocator where the one it calls is one storing through that argument; `sized`
    function -> (position of the pointer parameter its block is stored through, -1 where it
    is returned; position of the parameter that is the block's size): page-aligned blocks of
    the size a caller gives, whole pages where that size is."""

    allocators: dict[str, tuple[int, tuple[tuple[str, int, int, bool], ...]]] = {}
    rounding: dict[str, tuple[int, int, bool]] = {}
    aliases: dict[str, str] = {}
    library: dict[str, tuple[str, int]] = {}
    chains: dict[str, tuple[int, str, int]] = {}
    sized: dict[str, tuple[int, int]] = {}


def page_allocators(context) -> PageAllocators | None:
    """The file's `PageAllocators` (None: none), from its own text alone."""
    from cursedlint.analysis.c_memory import MemoryProvenance, rounding_macros

    data = context.source.data
    rounding = rounding_macros(data)
    aliases, library = _aliases(data)
    allocators, sized = {}, {}
    definitions = _allocating_functions(context) if any(
        name.encode() in data for name in PAGE_ALLOCATOR_NAMES) else []
    if definitions:
        from cursedlint.analysis.c_constants import CConstants  # only files that need it pay

        value = partial(CConstants(context).evaluate, assignments=True)
        provenance = MemoryProvenance(context, value, context.settings.page_size, {}, rounding)
        provenance.assume = True
        for definition in definitions:
            found = _allocator(context, provenance, definition)
            if found is not None and found[2] is not None:
                sized[found[0]] = found[1][0], found[2]
            elif found is not None:
                allocators[found[0]] = found[1]
    chains = _chains(context) if _CAST_OUT.search(data) else {}
    if not (allocators or rounding or aliases or library or chains or sized):
        return None
    return PageAllocators(allocators, rounding, aliases, library, chains, sized)


def project_sized(facts: dict) -> dict[str, tuple[int, int]]:
    """`PageAllocators.sized` of the project's files (path -> facts)."""
    return {name: found_sized for found in facts.values()
            for name, found_sized in found.sized.items()}


def project_allocators(facts: dict) -> tuple[dict[str, int], dict, dict]:
    """(allocator name -> position, as `MemoryProvenance` takes them; rounding macros; the
    macros standing for the C library's allocators) of the project's files' `PageAllocators`
    (path -> facts)."""
    rounding, library = {}, {}
    for found in facts.values():
        rounding.update(found.rounding)
        library.update(found.library)
    allocators = {}
    for found in facts.values():
        for name, (position, needs) in found.allocators.items():
            if all(rounding.get(macro) == (value, alignment, in_place)
                   for macro, value, alignment, in_place in needs):
                allocators[name] = position
    for found in facts.values():
        for alias, called in found.aliases.items():
            if called in allocators:
                allocators.setdefault(alias, allocators[called])
    chains = {name: chain for found in facts.values() for name, chain in found.chains.items()}
    while True:  # (each round adds an allocator, or ends)
        added = [(name, position) for name, (position, called, argument) in chains.items()
                 if name not in allocators and argument in (
                     allocators.get(called), LIBRARY_PAGE_OUTS.get(called))]
        if not added:
            return allocators, rounding, library
        allocators.update(added)


_CAST_OUT = LazyPattern(rb"\(\s*void\s*\*\s*\*\s*\)\s*([A-Za-z_]\w*)(?=\s*[,)])")
"""`(void **)name` given as an argument: where a function may hand its pointer parameter to an
allocator storing through it."""


def _chains(context) -> dict[str, tuple[int, str, int]]:
    """`PageAllocators.chains`: the file-scope functions that hand their pointer parameter, as
    `(void **)param`, to one plain call as an argument, and neither store through it
    (`*param = p;`, a null pointer aside) nor hand it to another such call."""
    from cursedlint.analysis.c_syntax import arguments, callee

    data, found, spoiled = context.source.data, {}, set()
    for match in _CAST_OUT.finditer(data):
        leaf = context.node_at(match.start(1), match.end(1))
        scope = scope_of(context, leaf) if leaf is not None else None
        plain = plain_function(scope) if scope is not None \
            and scope.type == "function_definition" else None
        if plain is None or scope.id in spoiled:
            continue
        name = context.text(plain[0])
        parameters = parameter_names(context, plain[1])
        spelled = match.group(1).decode("latin-1")
        cast = context.parent(leaf)
        argument = context.parent(cast) if cast is not None else None
        call = context.parent(argument) if argument is not None \
            and argument.type == "argument_list" else None
        called = callee(context, call) if call is not None \
            and call.type == "call_expression" else None
        if spelled not in parameters or not called or name in found or \
                parameters.index(spelled) in stored_through(context, plain[2], parameters):
            spoiled.add(scope.id)
            found.pop(name, None)
            continue
        position = [node.id for node in arguments(call)].index(cast.id)
        found[name] = (parameters.index(spelled), called, position)
    return found


def file_allocators(context, facts: dict | None) -> tuple[dict[str, int], dict, dict]:
    """`project_allocators` of the project's facts with the linted file's own read now."""
    return project_allocators(_with_own(context, facts))


def file_sized(context, facts: dict | None) -> dict[str, tuple[int, int]]:
    """`project_sized` of the project's facts with the linted file's own read now."""
    return project_sized(_with_own(context, facts))


def _with_own(context, facts: dict | None) -> dict:
    """The project's facts, the linted file's own read now in place of its stored ones."""
    merged = dict(facts or {})
    path = os.path.abspath(context.source.path)
    own = context.shared(("page-allocators", path), lambda: page_allocators(context))
    if own is None:
        merged.pop(path, None)
    else:
        merged[path] = own
    return merged


def _aliases(data: bytes) -> tuple[dict[str, str], dict[str, tuple[str, int]]]:
    """(macro -> the function it calls with all its own arguments first; macro -> (the C
    library allocator it calls with its leading arguments alone, how many))."""
    found, library = {}, {}
    for name, parameters, body in line_macros(data):
        call = _ONE_CALL.fullmatch(body)
        if call is None:
            continue
        called, given = call.groups()
        own = [parameter.strip() for parameter in parameters.split(b",") if parameter.strip()]
        passed = [argument.strip() for argument in given.split(b",")]
        if own == [b"..."]:
            own = [b"__VA_ARGS__"]
        called = called.decode("latin-1")
        if called in LIBRARY_ALLOCATOR_NAMES:
            if passed and b"..." not in passed and own[:len(passed)] == passed:
                library[name.decode("latin-1")] = (called, len(passed))
        elif own and passed[:len(own)] == own:
            found[name.decode("latin-1")] = called
    return found, library


def _allocating_functions(context) -> list:
    """The file-scope functions of the file that call a page-aligned allocator and may hand a
    block out: they store through a parameter or return a pointer."""
    calls = context.calls(PAGE_ALLOCATOR_NAMES)
    if b"_posix_memalign" in context.source.data:
        calls = sorted({call.id: (name, call) for name, call in (
            *calls, *context.calls(_NAMED_WRAPPER))}.values(), key=lambda item: item[1].start_byte)
    if not calls:
        return []
    top = {item.id: item for item in file_scope(context)
           if item.type == "function_definition"}
    found = {}
    for _, call in calls:
        scope = scope_of(context, call)
        if scope is not None and scope.id in top and (
                _returns_pointer(scope)
                or _STORE_THROUGH.search(context.source.data, scope.start_byte, scope.end_byte)):
            found[scope.id] = scope
    return list(found.values())


def _returns_pointer(definition) -> bool:
    return definition.child_by_field_name("declarator").type == "pointer_declarator"


def _allocator(context, provenance, definition) -> tuple | None:
    """(name, (position, macros relied on), None) where the function hands out blocks of
    whole pages of its own, through a pointer parameter or as its result; (name, (position,
    ()), the position of its size parameter) where it hands out page-aligned blocks of the
    size a caller gives (`MemoryProvenance.sized_by`)."""
    plain = plain_function(definition)
    if plain is None:
        return None
    from cursedlint.analysis.c_memory import declarations_in

    name, declarator, body = plain
    parameters = parameter_names(context, declarator)
    provenance.assumed = set()
    stored = stored_through(context, body, parameters)
    if len(stored) == 1:
        (position, values), = stored.items()
    elif not stored and _returns_pointer(definition):
        position, values = -1, _returned(context, body)
    else:
        return None
    locals_ = [value for value in values if value is not None]
    if not locals_ or len(locals_) != len(values) or not all(
            value.type == "identifier" and declarations_in(context, body, context.text(value))
            for value in locals_):
        return None
    if all(provenance.whole_pages_in(context.text(value), body) for value in locals_):
        return context.text(name), (position, tuple(sorted(provenance.assumed))), None
    sizes = {provenance.sized_by(context.text(value), body, parameters) for value in locals_}
    size = sizes.pop() if len(sizes) == 1 else None
    return None if size is None else (context.text(name), (position, ()), size)


def stored_through(context, body, parameters: list[str]) -> dict[int, list]:
    """Parameter position -> the values (None: not a local's name or a null pointer) the body
    stores through it (`*out = p;`)."""
    from cursedlint.analysis.c_memory import null_pointer

    data, found = context.source.data, {}
    for match in _STORE_THROUGH.finditer(data, body.start_byte, body.end_byte):
        spelled = match.group(1).decode("latin-1")
        if spelled not in parameters:
            continue
        leaf = body.descendant_for_byte_range(match.start(1), match.end(1))
        target = leaf
        while target is not None and target.type != "pointer_expression":
            target = context.parent(target)
        assignment = context.parent(target) if target is not None else None
        if assignment is None or assignment.type != "assignment_expression" \
                or assignment.child_by_field_name("left") != target:
            continue
        value = unwrapped(assignment.child_by_field_name("right"))
        if not null_pointer(value):
            found.setdefault(parameters.index(spelled), []).append(value)
    return found


def _returned(context, body) -> list:
    """The values the body returns, null pointers aside."""
    from cursedlint.analysis.c_memory import null_pointer

    data, found = context.source.data, []
    for match in _RETURN.finditer(data, body.start_byte, body.end_byte):
        statement = body.descendant_for_byte_range(match.start(), match.end())
        while statement is not None and statement.type != "return_statement":
            statement = context.parent(statement)
        values = [child for child in statement.named_children if child.type != "comment"] \
            if statement is not None else []
        value = unwrapped(values[0]) if values else None
        if value is None or not null_pointer(value):
            found.append(value)
    return found


class PageAllocatorIndex(Indexer):
    """Per C/C++ file (`PageAllocators`): first the files calling a page-aligned allocator or
    defining a macro that stands for a C library allocator; then the files defining a macro an allocator's size relies on, or a macro calling an
    allocator (both found by their `#define` lines), or calling one with `(void **)name` first
    (a chained allocator, whose callers may be chains in turn: one more round)."""

    name = "page-allocators"
    languages = (C, CPP)
    summary_type = PageAllocators
    max_rounds = 3

    def words(self, settings):
        return (*PAGE_ALLOCATOR_NAMES, "malloc", "calloc")  # (substrings; `pattern` decides)

    def summarize(self, context):
        return page_allocators(context)

    def more_words(self, facts, settings):
        allocators = project_allocators(facts)[0]
        return {*(macro for found in facts.values() for _, needs in found.allocators.values()
                  for macro, *_ in needs),
                *(name for found in facts.values() for name in found.allocators), *allocators}

    def pattern(self, words, first_round):
        if first_round:  # a page allocator's name, or a macro standing for a C allocator
            return WholeWords([name.encode() for name in PAGE_ALLOCATOR_NAMES], _LIBRARY_ALIAS)
        names = "|".join(re.escape(word) for word in sorted(words))
        return re.compile(  # (or a call of one given `(void **)name` first: a chain)
            rf"#[ \t]*define[ \t]+(?:(?:{names})\(|\w+\([^()\n]*\)[ \t]*(?:{names})\()|"
            rf"(?<![\w$.>])(?:{names})\s*\(\s*\(\s*void\s*\*\s*\*\s*\)\s*[A-Za-z_]".encode())


PAGE_ALLOCATORS = PageAllocatorIndex()
