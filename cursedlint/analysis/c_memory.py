"""Provenance of memory in C/C++: what an address expression points into, as far as the
function using it and the file show. Shared by the rules about registered memory (CUR301,
CUR302).

Kinds: "stack" (a local or parameter), "global", "static", "member" (of a larger object),
"heap" (a small malloc-heap block, below glibc's mmap threshold), "page-aligned" (an
allocation or object that starts on a page boundary: `mmap`, `valloc`, page-aligned
`posix_memalign`/`aligned_alloc`/`memalign`, `cudaHostAlloc`, `alignas(page)`), "device" (GPU
memory: `cudaMalloc`, `cuMemAlloc`, `hipMalloc`, `hsa_memory_allocate` and wrappers named like
them), "maybe-whole" (a pointer one of whose values is a block of whole pages of its own, see
below, another one not known, or a member of one: nothing known to share its pages) and
"unknown". The first five share their pages with other data. A device's address is device
memory too: a peer's mapped with IPC (`cudaIpcOpenMemHandle`), the HDP flush register's
(`hipDeviceGetAttribute(..., hipDeviceAttributeHdpMemFlushCntl, ...)`). A pointer member read
where its function gives it no value (`p->m`) is what every store into members of that name
the project shows puts there, where asked (`members`: whole pages or device memory only).

Alignment and size are separate facts: a page-aligned block is `whole` where it also spans
whole pages (a map of pages, a size known to be whole pages or rounded up to the page size:
`(n + ps - 1) & ~(ps - 1)`, `((n + ps - 1) / ps) * ps`, a macro of the project that does so,
`ROUNDUP(n, ps)`, or one that does so in place, `ALIGN_SIZE(n, ps);`), or comes from an
allocator of the project that hands out such blocks (`analysis.c_allocators`). A member of a
whole block reached through one `->` from the pointer to it (`&p->m`, `p->ring.slots`) shares
its pages only with the rest of that block: it is "page-aligned" too, `whole`, at an offset.
The page size may be a constant, `sysconf(_SC_PAGESIZE)`, `getpagesize()` or a name that says
so (`page_size`, `ncclOsGetPageSize()`).
"""

from __future__ import annotations

import re
from functools import cached_property
from msgspec import Struct
from typing import Callable, Iterator

from cursedlint.analysis.c_declarations import declared
from cursedlint.analysis.c_syntax import (
    NAMES, arguments, array_dimensions, callee, declarator_kind, function_declarator, leads_to,
    line_macros, parameter_names, plain_function, pointee_type, scope_of, unwrapped, within,
)
from cursedlint.languages import CPP
from cursedlint.python.consteval import UNKNOWN
from cursedlint.patterns import LazyPattern

MMAP_THRESHOLD = 128 * 1024  # glibc's default M_MMAP_THRESHOLD: smaller blocks share pages
SHARING = frozenset({"stack", "global", "static", "member", "heap"})

# allocators that hand the block back through a pointer argument: its position
_DEVICE_ALLOCATORS = frozenset({
    "cudaMalloc", "cudaMallocAsync", "cudaMallocFromPoolAsync", "cudaMallocPitch",
    "cuMemAlloc", "cuMemAlloc_v2", "cuMemAllocAsync", "cuMemAllocFromPoolAsync",
    "cuMemAllocPitch", "cuMemAllocPitch_v2", "hipMalloc", "hipMallocAsync",
    "hipMallocFromPoolAsync", "hipMallocPitch", "hipExtMallocWithFlags",
    "hipMemAllocPitch", "hsa_memory_allocate", "hsa_amd_memory_pool_allocate",
    "cudaIpcOpenMemHandle", "cuIpcOpenMemHandle", "hipIpcOpenMemHandle"})
"""Device allocators and mappings of a peer's device memory, of the runtime, driver (its
`CUdeviceptr`, an integer: `_named` reads one as its pointer) and HIP APIs; managed memory
(`cudaMallocManaged`, `cuMemAllocManaged`) is host memory while it resides there: not here."""
_OUT_ALLOCATORS = {"posix_memalign": 0, "cudaHostAlloc": 0, "cudaMallocHost": 0,
                   "hipHostMalloc": 0, "hipDeviceGetAttribute": 0, **{
                       name: 0 for name in _DEVICE_ALLOCATORS},
                   "hsa_memory_allocate": 2, "hsa_amd_memory_pool_allocate": 3}
# (a peer's device memory mapped into this process: `cudaIpcOpenMemHandle` "returns a device
# pointer"; `cudaHostGetDevicePointer` is the device's view of host memory: not here)
_DEVICE_ATTRIBUTES = frozenset({"hipDeviceAttributeHdpMemFlushCntl",
                                "hipDeviceAttributeHdpRegFlushCntl"})
"""The attributes `hipDeviceGetAttribute` answers with an address: the GPU's HDP flush
registers (MMIO of the device, no host page), stored through its `int *` argument."""
_ALIGNED_WRAPPER = re.compile(r"(?<!\w)\w+_(posix_memalign)")
"""A project's wrapper of `posix_memalign` named after it, taking the same arguments first
(`ucs_posix_memalign(&p, align, size, name)`): read as `posix_memalign`."""
# a project's wrapper of a device allocator, named after it (`ofi_cudaMalloc(&buf, n)`); a
# search starts only at a word's start, so a long word is read once, not once per character
_DEVICE_WRAPPER = re.compile(r"(?<!\w)\w+_(cudaMalloc|hipMalloc)")
_WRAPPED_WORDS = (b"_cudaMalloc", b"_hipMalloc", b"_posix_memalign")
_DEVICE_WORDS = (b"cudaMalloc", b"cuMemAlloc", b"hipMalloc", b"hipMemAlloc", b"hipExtMalloc",
                 b"hsa_", b"IpcOpenMemHandle")
"""Substrings of every name `device_allocator` accepts."""
"""What a match of `_DEVICE_WRAPPER` or `_ALIGNED_WRAPPER` holds."""
_PAGE_ALLOCATORS = frozenset({"mmap", "mmap64", "valloc", "pvalloc", "cudaHostAlloc",
                              "cudaMallocHost", "hipHostMalloc"})
# those whose blocks are whole pages whatever size is asked (maps of pages, pinned memory)
_WHOLE_PAGES = _PAGE_ALLOCATORS - {"valloc"}
# (alignment, size) positions
_ALIGNED_ALLOCATORS = {"posix_memalign": (1, 2), "aligned_alloc": (0, 1), "memalign": (0, 1),
                       "_aligned_malloc": (1, 0)}
PAGE_ALLOCATOR_NAMES = tuple(sorted(_PAGE_ALLOCATORS | set(_ALIGNED_ALLOCATORS)))
"""The allocators whose blocks may start on a page boundary."""
_PAGE_SIZE_CALLS = frozenset({"sysconf", "getpagesize"})
_PAGE_SIZE_NAME = LazyPattern(r"page_?(?:size|sz)|pagesize|pgsize|pgsz", re.I)
# a function-like macro's definition, continuation lines included
_OPERAND = r"[\w.]+(?:->[\w.]+)*"
# n rounded up to a multiple of a, written without parentheses (`(n + a - 1) / a * a`,
# `(n + (a - 1)) & ~(a - 1)`, `(n + a - 1) & -a`): the parentheses are dropped before a match
_ROUNDS_UP = [re.compile(pattern.replace("N", rf"(?P<n>{_OPERAND})").replace(
    "A", rf"(?P<a>{_OPERAND})").replace("B", "(?P=a)")) for pattern in (
        r"N\+A-1/B\*B", r"A\*N\+B-1/B", r"N\+A-1&~B-1", r"~A-1&N\+B-1", r"N\+A-1&-B")]
_DIVIDES_UP = LazyPattern(rf"(?P<n>{_OPERAND})\+(?P<a>{_OPERAND})-1/(?P=a)")
_CALLED = re.compile(rf"(?<!\w)(?P<f>\w+)\((?P<n>{_OPERAND}),(?P<a>{_OPERAND})\)")  # (a word's
# start only: from each letter of a long word, `\w+` read the rest of it)
_NOT_ON_STACK = ("static", "extern", "thread_local", "__thread")
# what a use of an owning standard-library local may do without giving it another block
_KEEPS_ITS_BLOCK = frozenset({"data", "get", "size", "empty", "capacity", "begin", "end",
                              "cbegin", "cend", "front", "back", "at"})
_ALIGNAS = ("alignas", "_Alignas")
_BYTE_POINTERS = frozenset({"char*", "unsignedchar*", "signedchar*", "uint8_t*", "int8_t*",
                            "void*", "std::byte*", "std::uint8_t*"})
"""Pointer types whose arithmetic counts bytes (`void *`'s as GNU C does)."""
_ALIGNED = re.compile(rb"(?<![\w$])_*aligned_*(?![\w$])")  # __attribute__((__aligned__(n)))
# element sizes of `new T[n]` (LP64); other types leave the size unknown
_STD_TEMPLATE = LazyPattern(r"(?:std::)?\w+<\s*(?P<element>\w+(?: +\w+)*)\s*>")
_MAKE_UNIQUE = LazyPattern(
    r"std::make_unique<\s*(?P<element>\w+(?: +\w+)*)\s*(?:(?P<array>\[\s*\])\s*)?>")
_NEW_SIZES = {"char": 1, "unsigned char": 1, "signed char": 1, "int8_t": 1, "uint8_t": 1,
              "byte": 1, "int16_t": 2, "uint16_t": 2, "short": 2, "int": 4, "int32_t": 4,
              "uint32_t": 4, "float": 4, "long": 8, "int64_t": 8, "uint64_t": 8, "double": 8,
              "size_t": 8}


def rounding_macros(data: bytes, known: dict | None = None) -> dict[str, tuple[int, int, bool]]:
    """The function-like macros defined in `data` that round an argument up to a multiple of
    another: name -> (value position, alignment position, in place: the macro assigns the
    value argument its rounded value, `#define ALIGN_SIZE(n, a) n = ...`). A body may call a
    macro of the same file that divides up (`DIVUP(n, a) * a`) or one of `known`."""
    defined = []
    for name, parameters, body in line_macros(data):
        names = [parameter.strip() for parameter in parameters.decode("latin-1").split(",")]
        defined.append((name.decode("latin-1"), names, _normal(body.decode("latin-1"))))
    divides = {name: (names.index(match["n"]), names.index(match["a"]))
               for name, names, body in defined
               if (match := _DIVIDES_UP.fullmatch(_unparenthesized(body)))
               and match["n"] in names and match["a"] in names}
    found = {}
    for name, names, body in defined:
        target, _, value = body.partition("=")
        in_place = bool(value) and target in names and not value.startswith("=")
        operands = _rounded_operands(value if in_place else body, divides, known or {})
        if operands is None or not set(operands) <= set(names) or (
                in_place and operands[0] != target):
            continue
        found[name] = (names.index(operands[0]), names.index(operands[1]), in_place)
    return found


def _normal(text: str) -> str:
    """An expression's text without blanks, line continuations, a final `;`, and parentheses
    around a single word (`((n))` -> `n`, `((a)(b))` -> `ab`: as many rounds of
    `\\((\\w+)\\)` -> `\\1` as change it, in one pass: rounds cost the square of deep nesting)."""
    out: list[str] = []
    opened: list[list] = []  # per open "(": its index in out, and what it holds so far
    for character in re.sub(r"\\\r?\n|\s+", "", text).rstrip(";"):  # (0 nothing, 1 a word, 2 more)
        if character == "(":
            opened.append([len(out), 0])
            out.append(character)
        elif character == ")" and opened:
            at, holds = opened.pop()
            if holds == 1:
                out[at] = ""  # the word stays, in what holds it
            else:
                out.append(character)
            if opened and (holds != 1 or opened[-1][1] == 0):
                opened[-1][1] = 1 if holds == 1 else 2
        else:
            out.append(character)
            if opened:
                word = character.isalnum() or character == "_"  # as `\\w`
                opened[-1][1] = (opened[-1][1] or 1) if word else 2
    return "".join(out)


def _unparenthesized(text: str) -> str:
    return text.replace("(", "").replace(")", "")


def _rounded_operands(text: str, divides: dict, rounds: dict) -> tuple[str, str] | None:
    """(value, alignment) where the normalized `text` rounds the value up to a multiple of the
    alignment: by arithmetic, with the calls of `divides` (name -> positions) and of `rounds`
    (rounding macros: name -> (value, alignment, in place)) written out."""
    def written_out(match):
        name, given = match["f"], (match["n"], match["a"])
        if name in divides:
            value, alignment = (given[index] for index in divides[name])
            return f"{value}+{alignment}-1/{alignment}"
        if name in rounds and not rounds[name][2]:
            value, alignment = (given[index] for index in rounds[name][:2])
            return f"{value}+{alignment}-1/{alignment}*{alignment}"
        return match[0]

    flat = _unparenthesized(_CALLED.sub(written_out, text))
    if "+" not in flat or "-1" not in flat:
        return None  # (every form adds and subtracts 1: most macros' bodies are none)
    for pattern in _ROUNDS_UP:
        match = pattern.fullmatch(flat)
        if match:
            return match["n"], match["a"]
    return None


class Provenance(Struct, frozen=True):
    """Where an address points: `kind` (see the module), `what` it is and who else uses its
    pages (`neighbours`), for messages; `offset`: the address is past the start of it."""

    kind: str
    what: str = ""
    neighbours: str = ""
    offset: bool = False
    shared_tail: int | None = None
    """A page-aligned block whose size is known and not whole pages: where its last page,
    which other data shares, begins (its whole pages end there; alignment and size are
    separate facts). None: its pages are its own, or its size is unknown."""
    whole: bool = False
    """A page-aligned block that spans whole pages of its own, or a member of one."""

    @property
    def shares_pages(self) -> bool:
        return self.kind in SHARING


UNKNOWN_PROVENANCE = Provenance("unknown")


def _standing_for(library: dict, allocator: str) -> str:
    """The C library allocator a call stands for: a macro's (`library`), a wrapper's named
    after it (`_ALIGNED_WRAPPER`), else the allocator itself."""
    if allocator in library:
        return library[allocator][0]
    wrapper = _ALIGNED_WRAPPER.fullmatch(allocator)
    return wrapper.group(1) if wrapper else allocator


def device_allocator(name: str) -> bool:
    return name in _DEVICE_ALLOCATORS or bool(_DEVICE_WRAPPER.fullmatch(name))


def device_out(context, name: str, call, position: int) -> bool:
    """Whether a call stores device memory, or a device's address, through its argument at
    `position`: a device allocator's or mapping's (`cudaMalloc(&p, n)`, `cudaIpcOpenMemHandle`)
    or `hipDeviceGetAttribute` asked for a register's address."""
    if name == "hipDeviceGetAttribute":
        return position == 0 and _register_attribute(context, call) is not None
    return device_allocator(name) and _OUT_ALLOCATORS.get(name, 0) == position


def _register_attribute(context, call) -> str | None:
    """The attribute a `hipDeviceGetAttribute` call asks for where it is a register's address
    (`_DEVICE_ATTRIBUTES`), else None."""
    given = arguments(call)
    attribute = context.text(given[1]).split("::")[-1] if len(given) > 1 else ""
    return attribute if attribute in _DEVICE_ATTRIBUTES else None


def aligned_out(name: str) -> tuple[int, int, int] | None:
    """(position of the pointer stored through, of the alignment, of the size) of a C library
    aligned allocator storing through an argument, or of a wrapper named after it."""
    name = _standing_for({}, name)
    return (_OUT_ALLOCATORS[name], *_ALIGNED_ALLOCATORS[name]) \
        if name in _OUT_ALLOCATORS and name in _ALIGNED_ALLOCATORS else None


class MemoryProvenance:
    """Provenance of the addresses of one file. `value(node)` evaluates an integer expression
    (UNKNOWN when unknown); `page` is the page size in bytes; `allocators`: the project's
    functions handing out blocks of whole pages of their own (name -> the position of the
    pointer argument they store it through, -1: they return it; `analysis.c_allocators`);
    `rounding`: the project's rounding macros (`rounding_macros`), the file's own added."""

    def __init__(self, context, value: Callable, page: int, allocators: dict | None = None,
                 rounding: dict | None = None, assigned: Callable | None = None,
                 library: dict | None = None, sized: dict | None = None):
        self.context = context
        self.value = value
        self.assigned = assigned
        self.page = page
        self.allocators = allocators or {}
        self.library = library or {}
        """The project's macros standing for a C library allocator: name -> (the allocator,
        how many leading arguments it is given), `analysis.c_allocators`."""
        self.sized = sized or {}
        """The project's functions handing out page-aligned blocks of the size a caller gives:
        name -> (position of the pointer argument they store it through, -1: they return it;
        position of the size argument) (`c_allocators.PageAllocators.sized`): a call's block
        is read as `posix_memalign`'s with that size."""
        self.rounding = {**(rounding or {}), **rounding_macros(context.source.data, rounding)}
        self.assumed: set[tuple[str, int, int, bool]] = set()
        """Macros of no known definition taken to round up (`assume`): (name, value
        position, alignment position, in place)."""
        self.assume = False
        self._out_positions = {**_OUT_ALLOCATORS, **{
            name: position for name, position in self.allocators.items() if position >= 0}, **{
            name: position for name, (position, _) in self.sized.items() if position >= 0}, **{
            name: _OUT_ALLOCATORS[called] for name, (called, _) in self.library.items()
            if called in _OUT_ALLOCATORS}}
        self._scope_allocators: dict[tuple[int, int], list[str]] = {}
        self._scope_stores: dict[tuple[int, int], list[tuple[str, object, str]]] = {}
        self._scope_sources: dict[tuple[str, int, int], list[tuple[str, object]]] = {}
        """(name, scope's span) -> `_sources`: every call in a function asks again about the
        names it passes (a 100,000-line scope a misread macro made read its `ep` 4,000
        times: 10 MB of C took 36 s)."""
        self._scope_places: dict[tuple[str, int, int], list] = {}
        self._scope_statements: dict[tuple[str, int, int], list] = {}  # `_statement_calls`
        self._scope_given: dict[tuple[str, int, int], Provenance] = {}  # `_allocation`'s
        self._file_declarations: dict[str, tuple | None] = {}
        """Name -> its first declaration at file scope (a name no function declares is
        looked for there at each use)."""
        self._found: dict[int, Provenance] = {}  # address node id -> (each rule asks)
        self.callers: Callable[[str, int, bool], Provenance | None] | None = None
        """What every caller passes a function's pointer parameter (name, position, whether
        the function is `static`), where the project shows it (`analysis.c_parameter_blocks`);
        None: not asked."""
        self.macro_writes: Callable[[str, object, int], bool | None] | None = None
        """Whether a call of a macro (name, call) may write its argument at a position, where
        the definitions in view say (`CConstants.macro_writes`); None: a call given a place
        may write it."""
        self.members: Callable[[str], Provenance | None] | None = None
        """What every store into members of a name the project shows puts there, for a
        pointer member read at the use with nothing in its function giving it a value
        (`analysis.c_parameter_blocks.member_provenance`); None: not asked."""
        self.getters: Callable[[object, MemoryProvenance], Provenance | None] | None = None
        """What a getter's call gives, read with this provenance (`analysis.c_getters`: the
        member or value its every return gives); None: not asked."""
        self.typed: Callable[[str], Provenance | None] | None = None
        """What every object of a type the project makes is, for a member reached through a
        `T *` that nothing else settles (`asks_type`;
        `analysis.c_typed_blocks.typed_provenance`: whole pages); None: not asked."""
        self.asks_type: Callable[[str | None], bool] | None = None
        """Whether the index of the project's objects may be asked about a type (None: any)
        (the file allocates one itself, `c_typed_blocks.allocates`: of another, the facts may be
        partial); None: about none."""
        self.types_asked: set[str] = set()
        """The types of the pointers so read (`typed`: the project's objects of them are
        worth reading)."""
        self.arrays: Callable[[object], bool] | None = None
        """Whether a member is known to be an array (`CConstants.array_typed`): no pointer
        whose stores `members` may tell."""
        self.members_asked: set[str] = set()
        """The names of the members so read (`members`: their stores are worth reading)."""
        self.follow_parameters = False
        """Whether a member's pointer that is a parameter is followed to its callers in a file
        that names no allocator of whole pages (its callers may)."""
        self.parameters_asked: set[tuple[str, int, bool]] = set()
        """The (function, position, static) of the parameters an address came through."""
        self.passed: dict[int, tuple[str, int, bool]] = {}
        """Address node id -> the parameter it is (itself, or a local whose one value it is)."""
        self._asking: int | None = None

    def of(self, address) -> Provenance:
        """What `address` points into: `p + n` and `p - n` point where `p` does, `&a[i]` and
        `&*p` are `a + i` and `p`."""
        found = self._found.get(address.id)
        if found is None:
            asking, self._asking = self._asking, address.id  # (a getter's return asks within)
            found = self._found[address.id] = self._of(address)
            self._asking = asking
        return found

    def _of(self, address) -> Provenance:
        node, offset, moved = unwrapped(address), False, 0  # (moved: bytes, None: not known)
        while True:
            if node.type == "pointer_expression" and node.child(0).type == "&":
                target = unwrapped(node.child_by_field_name("argument"))
                if target.type == "subscript_expression":
                    if self._nonzero(target.named_children[-1]):
                        offset, moved = True, None
                elif not (target.type == "pointer_expression" and target.child(0).type == "*"):
                    return self._at(self._object(target), offset)
                node = target.child_by_field_name("argument")
            elif node.type == "binary_expression" and self.context.text(
                    node.child_by_field_name("operator")) in ("+", "-"):
                right = node.child_by_field_name("right")
                offset |= self._nonzero(right)
                moved = self._bytes_moved(node, moved)
                node = node.child_by_field_name("left")
            elif node.type == "identifier":
                return self._at(self._named(node, decayed=True), offset, moved, self.page)
            elif node.type == "subscript_expression":
                return self._row(node, offset)
            elif node.type == "call_expression" and (owner := self._owner(node)) is not None:
                return self._at(self._owned(owner), offset)
            elif node.type == "call_expression" and self.getters is not None:
                return self._at(self.getters(node, self) or UNKNOWN_PROVENANCE, offset)
            elif node.type == "field_expression" and self._array_member(node):
                return self._member(node, "the member array", "the rest of its object", offset)
            elif node.type == "field_expression":
                return self._at(self._member_value(node), offset)
            else:
                return UNKNOWN_PROVENANCE
            node = unwrapped(node)

    def _row(self, node, offset: bool) -> Provenance:
        """`a[i]` where `a` is an array of more dimensions than subscripted (`T a[n][m]`):
        a row, an address inside the array; anything else is a value read from memory (known
        where an allocation stored it there: `_allocated_through`)."""
        subscript, indices = node, []
        while node.type == "subscript_expression":
            indices.append(node.named_children[-1])
            node = unwrapped(node.child_by_field_name("argument"))
        if node.type != "identifier":
            return self._allocated_through(subscript)
        declaration = self._declaration(self.context.text(node), node, scope_of(self.context, node))
        if declaration is None or array_dimensions(declaration[1]) <= len(indices):
            return self._allocated_through(subscript)
        offset |= any(self._nonzero(index) for index in indices)
        return self._at(self._named(node, decayed=True), offset)

    def _nonzero(self, node) -> bool:
        """Whether an offset may be other than 0."""
        return node is None or self.value(node) != 0

    def _bytes_moved(self, arithmetic, moved: int | None) -> int | None:
        """`moved` plus the bytes `p + n` adds to a byte pointer (`(char *)p`, a `char *` or
        `void *` local); None where not known."""
        right, left = arithmetic.child_by_field_name("right"), \
            arithmetic.child_by_field_name("left")
        value = self.value(right)
        if moved is None or value is UNKNOWN or not isinstance(value, int) or self.context.text(
                arithmetic.child_by_field_name("operator")) != "+":
            return None
        left = left.named_children[0] if left.type == "parenthesized_expression" \
            and left.named_child_count == 1 else left
        if left.type == "cast_expression":
            typed = "".join(self.context.text(left.child_by_field_name("type")).split())
            return moved + value if typed in _BYTE_POINTERS else None
        if left.type != "identifier":
            return None
        declaration = self._declaration(self.context.text(left), left,
                                        scope_of(self.context, left))
        if declaration is None or declaration[0].child_by_field_name("type") is None:
            return None
        declarator = declaration[1].child_by_field_name("declarator") \
            if declaration[1].type == "init_declarator" else declaration[1]
        inner = declarator.child_by_field_name("declarator") \
            if declarator is not None and declarator.type == "pointer_declarator" else None
        typed = "".join(self.context.text(declaration[0].child_by_field_name("type")).split())
        return moved + value if inner is not None and inner.type in NAMES \
            and f"{typed}*" in _BYTE_POINTERS else None

    @staticmethod
    def _at(found: Provenance, offset: bool, moved: int | None = None,
            page: int = 0) -> Provenance:
        """`found` at an offset; `moved` bytes past the start of a page-aligned block of known
        size, a whole number of pages (`page`), starts a block of the pages that follow."""
        if offset and moved and page and moved % page == 0 and found.kind == "page-aligned" \
                and not found.offset and (found.whole or found.shared_tail is not None):
            tail = None if found.shared_tail is None else max(found.shared_tail - moved, 0)
            return Provenance(found.kind, f"{found.what}, {moved} bytes in", found.neighbours,
                              False, tail, found.whole)
        if not offset or found.kind == "unknown":
            return found
        if found.kind == "maybe-whole" and not found.offset:
            return UNKNOWN_PROVENANCE  # past the start of what may be a block (`p + 64`)
        # a member of a block of whole pages stays one (its pages hold only that block); an
        # address past the start of a block does not (`buf + 64`: reported as before)
        return Provenance(found.kind, found.what, found.neighbours, True, found.shared_tail,
                          found.whole and found.offset)

    def _object(self, node) -> Provenance:
        """`&node`: the object itself (a variable, a member)."""
        if node.type == "field_expression":
            return self._member(node, "the member",
                                "the rest of its object and whatever is allocated beside it")
        if node.type == "identifier":
            return self._named(node, decayed=False)
        return UNKNOWN_PROVENANCE

    def _member(self, field, noun: str, neighbours: str, offset: bool = False) -> Provenance:
        """A member: of a block of whole pages of its own where it is reached through one `->`
        from a pointer to one (`&p->m`, `p->ring.slots`), its pages are that block's; "maybe-whole"
        where the pointer may be one (one of its values is, another is not known: a state
        machine that allocates the block on its first call and reads it back from a field on
        the next)."""
        text = self.context.text(field)
        node, owner = field, None
        while node.type == "field_expression" and (
                self._whole_blocks_named or self.follow_parameters):
            base = unwrapped(node.child_by_field_name("argument"))
            if self.context.text(node.child_by_field_name("operator")) == "->":
                owner = self._named(base, decayed=True) if base.type == "identifier" \
                    else UNKNOWN_PROVENANCE
                if owner.kind == "page-aligned" and owner.whole:
                    return Provenance("page-aligned", f"{noun} `{text}` of {owner.what}",
                                      offset=True, whole=True)
                if owner.kind == "maybe-whole":
                    return Provenance("maybe-whole", f"{noun} `{text}` of {owner.what}",
                                      offset=True)
                break
            node = base
        typed = self._typed_owner(field, owner)
        if typed is not None:
            return Provenance("page-aligned", f"{noun} `{text}` of {typed.what}", offset=True,
                              whole=True)
        return Provenance("member", f"{noun} `{text}`", neighbours, offset)

    def _typed_owner(self, field, owner: Provenance | None) -> Provenance | None:
        """The object a member is reached in through its first `->` from a pointer declared
        `T *` (`&p->m`, `p->ring.slots`) that nothing else settles (`owner`: what the pointer
        holds, where already asked): what the project's every `T` is (`typed`), where known
        (the type is noted in `types_asked`)."""
        if self.asks_type is None or not self.asks_type(None):
            return None  # (the file allocates nothing)
        node = field
        while node.type == "field_expression":
            base = unwrapped(node.child_by_field_name("argument"))
            if self.context.text(node.child_by_field_name("operator")) == "->":
                break
            node = base
        else:
            return None
        if base.type != "identifier":
            return None
        name, scope = self.context.text(base), scope_of(self.context, base)
        declaration = self._declaration(name, base, scope)
        typed = pointee_type(self.context, *declaration[:2]) if declaration else ""
        if not typed or self.asks_type is None or not self.asks_type(typed):
            return None
        found = self.typed(typed) if self.typed is not None else None
        if self.typed is not None and found is None:
            return None  # (no question worth asking what the pointer holds)
        if (owner or self._named(base, decayed=True)).kind != "unknown":
            return None
        self.types_asked.add(typed)
        return found

    @cached_property
    def _whole_blocks_named(self) -> bool:
        """Whether the file names an allocator of whole pages (else no member is of one)."""
        data = self.context.source.data
        return any(name.encode() in data for name in (*_WHOLE_PAGES, *_ALIGNED_ALLOCATORS,
                                                      "valloc", *self.allocators))

    def _named(self, node, decayed: bool) -> Provenance:
        """A variable: the object named (`&x`, or an array `x`), or where a pointer `x` was
        allocated. `decayed`: the name is used as a value, so only arrays are objects."""
        name = self.context.text(node)
        scope = scope_of(self.context, node)
        declaration = self._declaration(name, node, scope)
        if declaration is None:
            if not decayed and self._member_of_method(name, scope):
                return Provenance("member", f"the member `{name}`", "the rest of its object")
            return UNKNOWN_PROVENANCE
        declaration_node, declarator, local = declaration
        kind = declarator_kind(declarator)
        if kind == "reference":
            return UNKNOWN_PROVENANCE  # the object referred to is somewhere else
        if decayed and kind == "pointer":
            return self._allocation(name, scope) if local else self._stored(node)
        if decayed and kind != "array":
            return (self._device_integer(name, scope) or self._owned(node)) \
                if kind == "object" and local else UNKNOWN_PROVENANCE
        if declaration_node.type == "parameter_declaration":
            return UNKNOWN_PROVENANCE if decayed else Provenance(
                "stack", f"the parameter `{name}` on the stack", "the thread's stack frames")
        if self._page_aligned(declaration_node):
            return Provenance("page-aligned", f"the page-aligned `{name}`")
        noun = "array" if kind == "array" else "variable"
        if local and not has_storage(self.context, declaration_node, _NOT_ON_STACK):
            return Provenance("stack", f"the stack {noun} `{name}`", "the thread's stack frames")
        storage = "static" if local or has_storage(
            self.context, declaration_node, ("static",)) else "global"
        return Provenance(storage, f"the {storage} {noun} `{name}`",
                          "the objects linked beside it")

    def _device_integer(self, name: str, scope) -> Provenance | None:
        """A local that is no pointer (the driver API's `CUdeviceptr`, a `uintptr_t`) whose
        every value, a null one aside, a device allocator stored through its address
        (`cuMemAlloc(&d, n)`, then `(void *)d`): device memory; else None."""
        data = self.context.source.data
        if scope is None or not any(data.find(word, scope.start_byte, scope.end_byte) >= 0
                                    for word in _DEVICE_WORDS):
            return None  # (no device allocator named in the function: its sources unread)
        sources = [(function, node) for function, node in self._sources(name, scope)
                   if not null_pointer(node)]
        if not sources or not all(device_allocator(function) for function, _ in sources):
            return None
        return Provenance("device", f"`{name}`, device memory from {sources[0][0]}()")

    def _declaration(self, name: str, use, scope):
        """(declaration, declarator, is local) of `name` visible at `use`: the function's
        parameters and earlier local declarations, else the file's top-level declarations."""
        if scope is not None:
            local = [d for d in declarations_in(self.context, scope, name)
                     if d[0].start_byte < use.start_byte]
            if local:
                return (*local[-1], True)
        if name not in self._file_declarations:
            self._file_declarations[name] = next((
                (declaration, declarator, False) for declaration, declarator
                in declarations(self.context, name, None, ("declaration",))
                if scope_of(self.context, declaration) is None), None)
        return self._file_declarations[name]

    def _page_aligned(self, declaration) -> bool:
        """Whether the declaration asks for an alignment of whole pages (`alignas(4096)`,
        `__attribute__((aligned(4096)))`). tree-sitter-c reads an attribute after the
        declarator as the start of the next declaration, leaving this one's `;` missing."""
        holders = [declaration]
        following = declaration.next_named_sibling
        if declaration.children[-1].is_missing and following is not None:
            holders.append(following.children[0])
        alignments = []
        for holder in holders:
            for _, keyword in self.context.tokens(_ALIGNAS, holder):
                qualifier = self.context.parent(keyword)
                if qualifier.type == "alignas_qualifier":
                    alignments.extend(qualifier.named_children)
            for _, call in self.context.calls(_ALIGNED, holder):
                alignments.extend(arguments(call))
        return any(self._whole_pages(node) for node in alignments)

    def _whole_pages(self, node) -> bool:
        value = self.value(node)
        return value is not UNKNOWN and value > 0 and value % self.page == 0

    def _member_of_method(self, name: str, scope) -> bool:
        """Whether an undeclared name in a C++ method is a data member: a field of that name
        is declared in the file, or the name follows a member convention (`x_`, `m_x`)."""
        if self.context.language != CPP or not _in_method(self.context, scope):
            return False
        return name.endswith("_") or name.startswith("m_") or bool(self._fields(name))

    def _array_member(self, field) -> bool:
        """Whether every field of this name declared in the file is an array."""
        name = self.context.text(field.child_by_field_name("field"))
        kinds = {declarator_kind(node) for node in self._fields(name)}
        return kinds == {"array"}

    def _fields(self, name: str) -> list:
        """The declarators of the fields named `name` declared in the file."""
        return [declarator for _, declarator
                in declarations(self.context, name, None, ("field_declaration",))]

    # -- allocations -----------------------------------------------------------------------

    def _allocation(self, name: str, scope) -> Provenance:
        """What the pointer `name` got in `scope`, when that is its only source; "maybe-whole"
        where one of several is a block of whole pages and the others are no allocation (a
        field read, a parameter); what its callers pass where it is the function's parameter
        (`_passed`)."""
        sources = self._sources(name, scope)
        passed = self._passed(name, sources, scope)
        if passed is not None:
            return passed
        if self.assume:  # (notes the macros it takes to round: asked each time)
            return self._given(name, sources)
        key = (name, scope.start_byte, scope.end_byte)  # (each use asks: once per scope)
        if key not in self._scope_given:
            self._scope_given[key] = self._given(name, sources)
        return self._scope_given[key]

    def _passed(self, name: str, sources: list, scope) -> Provenance | None:
        """A pointer parameter of a plain function that it never assigns, or a local whose one
        value is one (`T *s = (T *)param;`): what every caller passes it (`callers`), where
        known; None otherwise."""
        spelled = name
        if sources:
            value = unwrapped(sources[0][1])
            if len(sources) != 1 or sources[0][0] or value.type != "identifier":
                return None
            name = self.context.text(value)
            if self._sources(name, scope):
                return None
        function = plain_function(scope) if scope is not None \
            and scope.type == "function_definition" else None
        names = parameter_names(self.context, function[1]) if function is not None else ()
        if name not in names:
            return None
        key = (self.context.text(function[0]), names.index(name),
               has_storage(self.context, scope, ("static",)))
        self.parameters_asked.add(key)
        if self._asking is not None:
            self.passed[self._asking] = key
        found = self.callers(*key) if self.callers is not None else None
        return found if found is None else Provenance(
            found.kind, f"`{spelled}`, {found.what}", found.neighbours, whole=found.whole)

    def _given(self, name: str, sources: list[tuple[str, object]]) -> Provenance:
        """What a pointer spelled `name` holds, given the (allocator, value) of its sources."""
        if len(sources) != 1:
            whole = [function for function, node in sources
                     if function and self._whole_block(function, node)]
            others = [function for function, node in sources
                      if not null_pointer(node) and function not in whole]
            return Provenance("maybe-whole", f"`{name}`, whole pages from {whole[0]}() or "
                              "memory not known") if whole and not any(others) \
                else UNKNOWN_PROVENANCE
        function, call = sources[0]
        if function == "hipDeviceGetAttribute":
            attribute = _register_attribute(self.context, call)
            return Provenance("device", f"`{name}`, the device's {attribute[18:]} register "
                              "from hipDeviceGetAttribute()") \
                if attribute is not None else UNKNOWN_PROVENANCE
        if device_allocator(function):
            return Provenance("device", f"`{name}`, device memory from {function}()")
        if self._whole_block(function, call):
            return Provenance("page-aligned", f"`{name}`, whole pages from {function}()",
                              whole=True)
        if self._page_aligned_allocation(function, call):
            size = self._block_size(function, call)
            if size is UNKNOWN or size <= 0 or size % self.page == 0:
                return Provenance("page-aligned",
                                  f"`{name}`, page-aligned memory from {function}()")
            return Provenance("page-aligned", f"`{name}`, a page-aligned {size}-byte block from "
                              f"{function}() whose last page other data shares",
                              shared_tail=size // self.page * self.page)
        spelled = callee(self.context, call) if call.type == "call_expression" else function
        return self._heap(name, self._heap_size(function, call),
                          "new" if function == "new" else f"{spelled}()", call)

    @staticmethod
    def _heap(name: str, size, origin: str, node) -> Provenance:
        """A malloc-heap block of `size` bytes (unknown or past the mmap threshold: a block
        that may own its pages, so unknown)."""
        if size is UNKNOWN or size <= 0 or size >= MMAP_THRESHOLD:
            return UNKNOWN_PROVENANCE
        return Provenance(
            "heap", f"`{name}`, a {size}-byte block from {origin} on line {node.start_point[0] + 1}",
            "neighbouring heap blocks and malloc's chunk headers (blocks below the 128 KiB "
            "mmap threshold share pages)",
        )

    def _owner(self, call):
        """`x` of `x.data()` or `x.get()` (a container's or a smart pointer's block)."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "field_expression" or arguments(call):
            return None
        base = unwrapped(function.child_by_field_name("argument"))
        field = self.context.text(function.child_by_field_name("field"))
        if base.type == "identifier" and field in ("data", "get") and self.context.text(
                function.child_by_field_name("operator")) == ".":
            return base
        return None

    def _owned(self, node) -> Provenance:
        """The heap block a local of the C++ standard library owns: `std::vector<T> v(n)`
        (n elements of a builtin type), `std::make_unique<T[]>(n)`, `std::make_unique<T>(v)`,
        a `std::unique_ptr` made with `new`; unknown where any use of the local may give it
        another block (`resize`, `push_back`, `reset`, an assignment, a move: anything but
        reading its block and size)."""
        if self.context.language != CPP:
            return UNKNOWN_PROVENANCE
        name = self.context.text(node)
        scope = scope_of(self.context, node)
        declaration = self._declaration(name, node, scope)
        if declaration is None or not declaration[2] or not self._keeps_its_block(name, scope):
            return UNKNOWN_PROVENANCE
        declared, declarator = declaration[0], declaration[1]
        kind = self.context.text(declared.child_by_field_name("type"))
        value = declarator.child_by_field_name("value") \
            if declarator.type == "init_declarator" else None
        given = arguments(value) if value is not None and value.type == "argument_list" \
            else _constructor_arguments(declarator)
        vector = _STD_TEMPLATE.fullmatch(kind)
        if given is not None and vector and kind.split("<")[0].endswith("vector"):
            count = self.value(given[0]) if len(given) in (1, 2) else UNKNOWN
            element = _NEW_SIZES.get(vector.group("element"))
            size = UNKNOWN if element is None or count is UNKNOWN else count * element
            return self._heap(name, size, "std::vector", declarator)
        if given is not None and len(given) == 1:
            value = unwrapped(given[0])  # `std::unique_ptr<T[]> p(new T[n])`
        if value is None:
            return UNKNOWN_PROVENANCE
        if value.type == "new_expression":
            return self._heap(name, self._new_size(value), "new", value)
        made = _MAKE_UNIQUE.fullmatch(self.context.text(value.child_by_field_name("function"))
                                      or "") if value.type == "call_expression" else None
        if made is None:
            return UNKNOWN_PROVENANCE
        element = _NEW_SIZES.get(made.group("element").strip())
        given = arguments(value)
        count = self.value(given[0]) if made.group("array") and len(given) == 1 else \
            1 if not made.group("array") else UNKNOWN
        size = UNKNOWN if element is None or count is UNKNOWN else count * element
        return self._heap(name, size, "std::make_unique", value)

    def _keeps_its_block(self, name: str, scope) -> bool:
        """Whether every use of the local `name` in `scope` reads its block or size, or an
        element (`v.data()`, `v.size()`, `v[i]`): nothing that may reallocate or move it."""
        for _, leaf in self.context.tokens((name,), scope):
            parent = leaf.parent
            if parent is None or parent.type in ("init_declarator", "declaration",
                                                 "function_declarator"):  # its declaration
                continue
            if parent.type == "subscript_expression" and \
                    parent.child_by_field_name("argument") == leaf:
                continue
            if parent.type == "field_expression" and self.context.text(
                    parent.child_by_field_name("field")) in _KEEPS_ITS_BLOCK:
                continue
            return False
        return True

    def _member_value(self, field) -> Provenance:
        """What a pointer member of a local or parameter (`c->buf`, `t->a2a->counters`) holds
        at this use: the value the last `c->buf = value;` before it gives it, where nothing in
        between may change it (`assigned`, the constant evaluator's flow)."""
        value = self.assigned(field) if self.assigned is not None else None
        if value is None:
            found = self._allocated_through(field, stored := [])
            if found is not UNKNOWN_PROVENANCE or stored or (
                    self.arrays is not None and self.arrays(field)):
                return found
            name = self.context.text(field.child_by_field_name("field"))
            self.members_asked.add(name)
            stores = self.members(name) if self.members is not None else None
            return UNKNOWN_PROVENANCE if stores is None else Provenance(
                stores.kind, f"`{' '.join(self.context.text(field).split())}`, {stores.what}",
                whole=stores.whole)
        return self._given(" ".join(self.context.text(field).split()), [self._allocator(value)])

    def _stored(self, node) -> Provenance:
        """What a pointer declared at file scope holds at this use: the value its function
        stored into it earlier, where nothing in between may change it (`assigned`, the
        constant evaluator's `FileScopeRules`)."""
        value = self.assigned(node, True) if self.assigned is not None else None
        if value is None:
            return UNKNOWN_PROVENANCE
        return self._given(self.context.text(node), [self._allocator(value)])

    def _allocated_through(self, place, stored: list | None = None) -> Provenance:
        """What a member or element (`s->buf`, `s->bufs[i]`) holds where the function's last
        allocation before this use stored into it through an out argument
        (`cudaMalloc(&s->bufs[i], n)`, `posix_memalign(&s->buf, 64, n)`) and no statement in
        between writes it or the names it is read through."""
        scope = scope_of(self.context, place)
        if scope is None:
            return UNKNOWN_PROVENANCE
        spelled = "".join(self.context.text(place).split())
        found = next(((allocator, call) for allocator, call, target in reversed(
            self._out_stores(scope)) if target == spelled and call.start_byte < place.start_byte),
            None)
        if found is not None and stored is not None:
            stored.append(found)  # (its function gives it a value)
        if found is None or self._written_between(place, found[1].end_byte):
            return UNKNOWN_PROVENANCE
        return self._given(spelled, [found])

    def _written_between(self, place, start: int) -> bool:
        """Whether anything from `start` to `place` may write `place` or a name it is read
        through: an assignment or increment of one, its address taken, or a call given it
        (`_place_written`)."""
        names = {self.context.text(leaf) for leaf in _leaves(place) if leaf.type in NAMES}
        data = self.context.source.data[start:place.start_byte]
        return any(re.search(rb"(?<![\w.>])" + re.escape(name.encode()) +
                             rb"(?!\w)\s*(?:\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=)|(?:\+\+|--|&)\s*"
                             + re.escape(name.encode()) + rb"(?![\w.\[]|\s*->)|[(,]\s*"
                             + re.escape(name.encode()) + rb"\s*[,)]", data)
                   for name in names) or self._place_written(place, start)

    def _place_written(self, place, start: int) -> bool:
        """Whether `place` itself (`s->buf`, `bufs[i]`) is spelled from `start` to it where it may be
        written: assigned, incremented, its address taken, or given to a call, unless the
        call is of a macro whose definitions in view write none of its arguments there
        (`macro_writes`: `CHECK_NULL(s->buf, ...)`). A spelling the tree does not show as
        such an expression (a macro's text it could not parse) may write it."""
        spelled = "".join(self.context.text(place).split()).encode()
        whole = b"".join(self.context.source.data[start:place.start_byte].split())
        if spelled not in whole:
            return False
        first = next((leaf for leaf in _leaves(place) if leaf.type in NAMES), None)
        if first is None or self.macro_writes is None:
            return True
        seen = 0
        for _, leaf in self.context.tokens((self.context.text(first),),
                                           scope_of(self.context, place)):
            if not start <= leaf.start_byte < place.start_byte:
                continue
            found = leaf
            while found is not None and found.end_byte - found.start_byte < len(spelled):
                found = self.context.parent(found)
            if found is None or "".join(self.context.text(found).split()).encode() != spelled:
                continue
            seen += 1
            if self._may_write(found):
                return True
        return seen < whole.count(spelled)  # (a spelling no expression of the tree holds)

    def _may_write(self, node) -> bool:
        """Whether the expression `node` may be written where it stands (`_place_written`):
        not under a cast (its value, which neither a function nor a macro can assign)."""
        parent = self.context.parent(node)
        while parent is not None and parent.type in ("parenthesized_expression",
                                                     "cast_expression"):
            if parent.type == "cast_expression":
                return False
            node, parent = parent, self.context.parent(parent)
        if parent is None or any(above.type == "ERROR" for above in self.context.ancestors(node)):
            return True
        if parent.type in ("assignment_expression", "update_expression"):
            return parent.child_by_field_name("left") == node or \
                parent.type == "update_expression"
        if parent.type == "pointer_expression":
            return parent.child(0).type == "&"
        if parent.type != "argument_list":
            return False  # (read: compared, indexed, dereferenced, an operand)
        call = self.context.parent(parent)
        name = callee(self.context, call, scoped=False, system_calls=False) \
            if call is not None else ""
        if not name:
            return True
        written = self.macro_writes(name, call, [
            argument.id for argument in arguments(call)].index(node.id))
        return written is None or written

    def _sources(self, name: str, scope) -> list[tuple[str, object]]:
        """(allocator, call or new-expression) of every value `name` is given in `scope`;
        ("", node) for a value that is not an allocation. A null pointer before the other
        values is no memory (`void *p = NULL; if (cudaMalloc(&p, n) != cudaSuccess) ...`: `p`
        is device memory); one after them is a value (`free(p); p = NULL;`). Read once per
        name and scope."""
        key = (name, scope.start_byte, scope.end_byte)
        if key not in self._scope_sources:
            self._scope_sources[key] = self._read_sources(name, scope)
        return self._scope_sources[key]

    def _read_sources(self, name: str, scope) -> list[tuple[str, object]]:
        found = []
        for leaf in self._places(name, scope):
            if leaf.type not in NAMES:
                continue
            for target in self.context.wrapped_by(leaf, leads_to):
                if target.type.endswith("_expression"):
                    break  # `p->f = v`, `p[i] = v`, `*p = v` store into the block
                value = value_given(self.context, target)
                if value is not None and within(value, scope):
                    found.append(self._allocator(value))
        found.extend((allocator, call) for allocator, call, target in self._out_stores(scope)
                     if target == name)
        first = min((node.start_byte for allocator, node in found if not null_pointer(node)),
                    default=None)
        return [(allocator, node) for allocator, node in found
                if not (null_pointer(node) and first is not None and node.start_byte < first)]

    def _out_stores(self, scope) -> list[tuple[str, object, str]]:
        """(allocator, call, what it stores into, spelled without spaces) for each call in
        `scope` of an allocator returning through an argument given `&place` (`cudaMalloc(&p,
        n)`, `posix_memalign(&s->buf, 64, n)`), in order; a macro of the project is named by
        the C library allocator it stands for (read once per scope)."""
        key = (scope.start_byte, scope.end_byte)
        if key not in self._scope_stores:
            found = []
            for allocator, call in self.context.calls(self._out_allocators(scope), scope):
                position = self._out_positions.get(allocator, 0)
                given = arguments(call)
                target = unwrapped(given[position]) if position < len(given) else None
                if target is not None and target.type == "pointer_expression":
                    found.append((_standing_for(self.library, allocator), call, "".join(
                        self.context.text(target.child_by_field_name("argument")).split())))
            self._scope_stores[key] = found
        return self._scope_stores[key]

    def _out_allocators(self, scope) -> list[str]:
        """The allocators returning through an argument that `scope` may call: the known ones
        and the device allocators' wrappers it names (read once per scope, not per address)."""
        key = (scope.start_byte, scope.end_byte)
        if key not in self._scope_allocators:
            data = self.context.source.data
            text = self.context.text(scope) if any(  # (decoded and read only where named)
                data.find(word, *key) >= 0 for word in _WRAPPED_WORDS) else ""
            self._scope_allocators[key] = [
                *self._out_positions,
                *{match.group(0) for pattern in (_DEVICE_WRAPPER, _ALIGNED_WRAPPER)
                  for match in pattern.finditer(text)}]
        return self._scope_allocators[key]

    def _allocator(self, value) -> tuple[str, object]:
        node = unwrapped(value)
        if node.type == "new_expression":
            return "new", node
        if node.type == "call_expression":
            name = callee(self.context, node)
            if name in self.library:
                return self.library[name][0], node
            # a project allocator handing its block through an argument returns a status
            return ("" if max(self.allocators.get(name, -1), self.sized.get(name, (-1,))[0]) >= 0
                    else name), node
        return "", node

    def whole_size(self, node) -> bool:
        """Whether a size is whole pages: a multiple of the page size, or rounded up to it."""
        return self._whole_pages(node) or self._page_sized(node) or self._rounded(node)

    def sized_by(self, name: str, scope, parameters: list[str]) -> int | None:
        """The position of the parameter that is the size of every block the pointer `name`
        is given in `scope` (a null pointer aside), each a page-aligned allocation
        (`posix_memalign(&p, page, size)`) of that parameter, never assigned; else None."""
        sources = [(function, node) for function, node in self._sources(name, scope)
                   if not null_pointer(node)]
        sizes = set()
        for function, node in sources:
            given = self._allocated_with(node)
            positions = _ALIGNED_ALLOCATORS.get(function)
            size = unwrapped(given[positions[1]]) if positions is not None \
                and self._page_aligned_allocation(function, node) else None
            if size is None or size.type != "identifier":
                return None
            sizes.add(self.context.text(size))
        if len(sizes) != 1 or (size := sizes.pop()) not in parameters or \
                self._sources(size, scope):
            return None
        return parameters.index(size)

    def whole_pages_in(self, name: str, scope) -> bool:
        """Whether every block the pointer `name` is given in `scope` (a null pointer aside) is
        page-aligned and spans whole pages of its own."""
        sources = [(function, node) for function, node in self._sources(name, scope)
                   if not null_pointer(node)]
        return bool(sources) and all(self._whole_block(function, node)
                                     for function, node in sources)

    def _whole_block(self, function: str, node) -> bool:
        """Whether an allocation gives whole pages of its own: a map of pages, a page-aligned
        block of a size that is whole pages or rounded up to them, an allocator of the
        project that hands out such blocks."""
        if function in self.allocators or function in _WHOLE_PAGES:
            return True
        if not self._page_aligned_allocation(function, node):
            return False
        size = self._size_given(function, node)
        return size is not None and self.whole_size(size)

    def _size_given(self, function: str, node):
        """The size argument of a call of an allocator that takes one (`valloc`, the aligned
        ones, the project's `sized`), else None."""
        given = self._allocated_with(node)
        position = 0 if function == "valloc" else self.sized[function][1] \
            if function in self.sized else _ALIGNED_ALLOCATORS[function][1] \
            if function in _ALIGNED_ALLOCATORS else None
        return given[position] if position is not None and position < len(given) else None

    def _allocated_with(self, node) -> list:
        """An allocation call's arguments, as the allocator it stands for takes them (a macro
        of the project passes its leading ones alone)."""
        if node.type != "call_expression":
            return []
        given = arguments(node)
        alias = self.library.get(callee(self.context, node))
        return given if alias is None else given[:alias[1]]

    def _page_aligned_allocation(self, function: str, node) -> bool:
        if function in _PAGE_ALLOCATORS:
            return True
        if function in self.sized:
            return self._size_given(function, node) is not None
        positions = _ALIGNED_ALLOCATORS.get(function)
        given = self._allocated_with(node)
        return positions is not None and max(positions) < len(given) and self._page_sized(
            given[positions[0]])

    def _page_sized(self, node, depth: int = 0) -> bool:
        """Whether an expression is the page size or a multiple of it: a known value,
        `sysconf(_SC_PAGESIZE)`, `getpagesize()`, a name that says so (`page_size`,
        `getPageSize()`), or a local given one of these."""
        node = unwrapped(node)
        if self._whole_pages(node):
            return True
        if node.type == "call_expression":
            name = callee(self.context, node)
            if name in _PAGE_SIZE_CALLS:
                return name == "getpagesize" or self.context.text(node.child_by_field_name(
                    "arguments")) in ("(_SC_PAGESIZE)", "(_SC_PAGE_SIZE)")
            return bool(_PAGE_SIZE_NAME.search(name))
        if node.type not in ("identifier", "field_expression"):
            return False
        name = self.context.text(node.child_by_field_name("field") or node)
        if _PAGE_SIZE_NAME.search(name):
            return True
        scope = scope_of(self.context, node)
        sources = self._sources_before(node, scope) if node.type == "identifier" \
            and scope is not None and depth < 2 else []
        return bool(sources) and all(self._page_sized(value, depth + 1) for value in sources)

    def _rounded(self, node, depth: int = 0) -> bool:
        """Whether a size is rounded up to a multiple of the page size: by arithmetic or a
        rounding macro; a local given such a value, or rounded in place before the use
        (`ALIGN_SIZE(size, page);`). With `assume`, a call of a macro of no known definition
        given the page size counts, noted in `assumed`."""
        node = unwrapped(node)
        if node.type == "call_expression" and self._rounding_call(node):
            return True
        if node.type == "identifier" and depth < 2:
            name, scope = self.context.text(node), scope_of(self.context, node)
            if scope is None:
                return False
            if any(self._rounding_call(call, in_place=True, value=position)
                   for start, call, position in self._statement_calls(name, scope)
                   if start < node.start_byte):
                return True
            sources = self._sources_before(node, scope)
            return bool(sources) and all(self._rounded(value, depth + 1) for value in sources)
        operands = _rounded_operands(_normal(self.context.text(node)), {}, self.rounding)
        return operands is not None and any(
            self._page_sized(leaf) for _, leaf in self.context.tokens((operands[1],), node))

    def _sources_before(self, use, scope) -> list:
        """The values the local named at `use` is given before it (a branch of an `#if`
        after it is not what it holds there)."""
        return [value for _, value in self._sources(self.context.text(use), scope)
                if value.start_byte < use.start_byte]

    def _places(self, name: str, scope) -> list:
        """The tokens spelling `name` in `scope`, found once per name and scope."""
        key = (name, scope.start_byte, scope.end_byte)
        if key not in self._scope_places:
            self._scope_places[key] = [leaf for _, leaf in self.context.tokens((name,), scope)]
        return self._scope_places[key]

    def _statement_calls(self, name: str, scope) -> list[tuple[int, object, int]]:
        """(where, call, position) for each token spelling `name` in `scope` that is an
        argument of a call making a statement of its own (`ALIGN_SIZE(size, page);`: a
        statement that may round it up in place), found once per name and scope (each use of
        a size asks again; a misread function of megabytes spells `len` thousands of times)."""
        key = (name, scope.start_byte, scope.end_byte)
        if key not in self._scope_statements:
            found = []
            for leaf in self._places(name, scope):
                listed = self.context.parent(leaf)
                call = self.context.parent(listed) if listed is not None else None
                if listed is None or listed.type != "argument_list" or call is None \
                        or call.type != "call_expression" \
                        or self.context.parent(call).type != "expression_statement":
                    continue
                given = arguments(call)
                found.append((leaf.start_byte, call, given.index(leaf) if leaf in given else -1))
            self._scope_statements[key] = found
        return self._scope_statements[key]

    def _rounding_call(self, call, in_place: bool = False, value: int | None = None) -> bool:
        """A call of a rounding macro (`in_place`: one that assigns its `value` argument)
        whose alignment argument is the page size."""
        name, given = callee(self.context, call), arguments(call)
        if name in self.rounding:
            found = self.rounding[name]
            return found[2] == in_place and (value is None or found[0] == value) \
                and found[1] < len(given) and self._page_sized(given[found[1]])
        if not self.assume or len(given) != 2 or name in _OUT_ALLOCATORS:
            return False
        for alignment in (1, 0):
            if (value is None or value == 1 - alignment) and self._page_sized(given[alignment]):
                self.assumed.add((name, 1 - alignment, alignment, in_place))
                return True
        return False

    def _block_size(self, function: str, node):
        """The bytes a page-aligned allocation from the malloc heap asks for (its last page may
        hold other blocks); UNKNOWN for one that maps whole pages (`mmap`, `pvalloc`, CUDA's
        pinned memory) or whose size is unknown."""
        size = self._size_given(function, node)
        return UNKNOWN if size is None else self.value(size)

    def _heap_size(self, function: str, node):
        """The bytes a malloc-heap allocation asks for; UNKNOWN when unknown."""
        given = self._allocated_with(node)
        if function == "malloc" and len(given) == 1:
            return self.value(given[0])
        if function == "calloc" and len(given) == 2:
            count, size = (self.value(argument) for argument in given)
            return UNKNOWN if UNKNOWN in (count, size) else count * size
        if function in _ALIGNED_ALLOCATORS:
            return self._aligned_size(_ALIGNED_ALLOCATORS[function], given)
        if function == "new":
            return self._new_size(node)
        return UNKNOWN

    def _aligned_size(self, positions: tuple[int, int], given: list):
        """The size of an aligned allocation whose known alignment is less than a page."""
        if max(positions) >= len(given):
            return UNKNOWN
        alignment, size = (self.value(given[index]) for index in positions)
        return UNKNOWN if alignment is UNKNOWN or alignment % self.page == 0 else size

    def _new_size(self, node):
        """`new T[n]` or `new T` of a builtin type T."""
        element = _NEW_SIZES.get(self.context.text(node.child_by_field_name("type")).split(
            "::")[-1])
        declarator = node.child_by_field_name("declarator")
        if element is None:
            return UNKNOWN
        if declarator is None:
            return element
        count = self.value(declarator.named_children[0]) \
            if declarator.named_children else UNKNOWN
        return UNKNOWN if count is UNKNOWN else element * count


# -- declarations ------------------------------------------------------------------------------


def _leaves(node) -> Iterator:
    if node.child_count == 0:
        yield node
    for child in node.children:
        yield from _leaves(child)


def _constructor_arguments(declarator) -> list | None:
    """The arguments of a local object's constructor that tree-sitter-cpp read as a function
    declaration's parameter types (`std::vector<T> v(n);`), where each is a name alone."""
    if declarator.type != "function_declarator":
        return None
    given = []
    for parameter in declarator.child_by_field_name("parameters").named_children:
        kind = parameter.child_by_field_name("type")
        if parameter.type != "parameter_declaration" or kind is None or \
                kind.type != "type_identifier" or parameter.named_child_count != 1:
            return None
        given.append(kind)
    return given


def declarations(context, name: str, region, owners) -> list[tuple]:
    """(owner, declarator) for each declarator of a node of the kinds `owners` declaring
    `name` within `region` (None: the file), in order (`c_declarations.declared`), once per
    file for each question (each registration asks about its names; a search of the file
    per question grew with the file times its registrations: 12 s of a 25 MB file's
    CUR301/CUR302 run went to `buf`, `addr` and the like looked up again and again)."""
    key = ("c-declarations", name, owners,
           None if region is None else (region.start_byte, region.end_byte, region.type))
    return context.shared(key, lambda: declared(context, name, region, owners))


def declarations_in(context, scope, name: str) -> list[tuple]:
    """(declaration, declarator) pairs declaring `name` inside `scope`, in order."""
    return declarations(context, name, scope, ("declaration", "parameter_declaration"))


def null_pointer(value) -> bool:
    """Whether an expression is a null pointer constant: `NULL`, `nullptr`, `0`, `(void *)0`."""
    node = unwrapped(value)
    return node.type == "null" or (node.type == "number_literal" and node.text == b"0")


def value_given(context, target):
    """The value an initializer, assignment or increment gives `target` (the increment itself),
    or None when `target` is not given one."""
    parent = context.parent(target)
    if parent is None:
        return None
    if parent.type == "init_declarator" and parent.child_by_field_name("declarator") == target:
        value = parent.child_by_field_name("value")
    elif parent.type == "assignment_expression" and parent.child_by_field_name("left") == target:
        value = parent.child_by_field_name("right")
    elif parent.type == "update_expression" and parent.child_by_field_name("argument") == target:
        value = parent
    else:
        return None
    return value if value is not None and value.is_named else None


def has_storage(context, declaration, words) -> bool:
    return any(context.text(child) in words for child in declaration.children
               if child.type == "storage_class_specifier")


def _in_method(context, scope) -> bool:
    """Whether the function is a C++ method: defined in a class body or as `Class::name`."""
    if scope is None or scope.type != "function_definition":
        return False
    declarator = function_declarator(scope.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    return (name is not None and name.type == "qualified_identifier") or any(
        found.type == "field_declaration_list" for found in context.ancestors(scope))
