"""C and C++ types for the constant evaluator: the integer types of LP64 (promotions, the
usual arithmetic conversions, literal types), pointers, arrays and records, and `TypeRules`:
the type of an expression or a declaration, sizes, alignments and record layouts."""

from __future__ import annotations

import re
import weakref
from functools import cached_property
from itertools import islice
from typing import Any, NamedTuple

from cursedlint.analysis.c_constants.syntax import (
    _ARRAYS, _ATTRIBUTE_QUERY, _FUNCTIONS, _LAYOUT_BREAKERS, _NAMES, _NOT_DATA_MEMBERS, _POINTERS,
    _RECORDS, _WORDS, _Def, _Env, _declared_names, _inner_declarator, _is_plain, _items,
    _looks_like_macro, _named_children, _only_child, _single, _split_name,
)
from cursedlint.c.context import children
from cursedlint.python.consteval import UNKNOWN


_PACKED = re.compile(r"__attribute__\(\((?:packed|__packed__)\)\)")
"""An attribute specifier that says packed and nothing else (blanks removed)."""


class _GiveUp(Exception):
    """An evaluation went too deep or too long; the public methods answer UNKNOWN."""


class _Int(NamedTuple):
    """An integer type. `signed` is None where the targets or compilers differ (plain `char`,
    `wchar_t`, enums without a fixed underlying type): only values in [0, 2**(bits-1)) fit."""

    bits: int
    signed: bool | None
    boolean: bool = False
    enum: str = ""  # "scoped" or "unscoped" for a C++ enumerator: operators may be overloaded

    @property
    def size(self) -> int:
        return self.bits // 8

    align = size

    def holds(self, value: int) -> bool:
        if self.boolean:
            return value in (0, 1)
        if self.signed is False:
            return 0 <= value < 1 << self.bits
        low = -(1 << (self.bits - 1)) if self.signed else 0
        return low <= value < 1 << (self.bits - 1)

    def convert(self, value: Any) -> Any:
        """`value` converted to this type, or UNKNOWN."""
        if value is UNKNOWN:
            return UNKNOWN
        if self.boolean:
            return int(value != 0)
        if self.signed is None:
            return value if self.holds(value) else UNKNOWN
        value &= (1 << self.bits) - 1
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def result(self, value: int) -> Any:
        """An arithmetic result in this promoted type: unsigned wraps, signed overflow is UB."""
        if not self.signed:
            return value & ((1 << self.bits) - 1)
        return value if self.holds(value) else UNKNOWN


class _Scalar(NamedTuple):
    """A non-integer scalar (floating point, nullptr_t): a size, never an integer value."""

    size: int

    @property
    def align(self) -> int:
        return self.size


class _Pointer(NamedTuple):
    target: Any  # the pointee type
    size = 8
    align = 8


class _Array(NamedTuple):
    element: Any
    count: Any  # int or UNKNOWN


class _Record(NamedTuple):
    """A struct, union or class; its layout is computed on demand by `owner()`, the evaluator
    of the file (or header) that defines it. (A weak reference: the evaluator keeps its records
    in its caches, and a cycle through them would hold the file's tree until the cyclic
    collector ran. The file's evaluator holds its headers' evaluators, so an owner outlives
    every evaluation that meets its records.)"""

    node: Any
    owner: weakref.ref


class _Opaque(NamedTuple):
    """A type without a known size: void, functions, anything unresolved."""

    what: str
    size = UNKNOWN
    align = UNKNOWN


_NO_TYPE = _Opaque("unknown")
_FUNCTION = _Opaque("function")

_BOOL = _Int(8, False, boolean=True)
_CHAR = _Int(8, None)
_S8, _U8, _S16, _U16 = _Int(8, True), _Int(8, False), _Int(16, True), _Int(16, False)
_INT, _UINT, _LONG, _ULONG = _Int(32, True), _Int(32, False), _Int(64, True), _Int(64, False)
_S128, _U128 = _Int(128, True), _Int(128, False)
_WCHAR = _Int(32, None)  # signed on x86-64, unsigned on aarch64

_BUILTIN_TYPES = {
    "char": _CHAR, "short": _S16, "int": _INT, "long": _LONG, "signed": _INT, "unsigned": _UINT,
    "bool": _BOOL, "_Bool": _BOOL, "wchar_t": _WCHAR, "char8_t": _U8, "char16_t": _U16,
    "char32_t": _UINT, "__int128": _S128, "__int128_t": _S128, "__uint128_t": _U128,
    "float": _Scalar(4), "double": _Scalar(8), "nullptr_t": _Scalar(8),
    "size_t": _ULONG, "ssize_t": _LONG, "ptrdiff_t": _LONG, "intptr_t": _LONG,
    "uintptr_t": _ULONG, "intmax_t": _LONG, "uintmax_t": _ULONG, "off_t": _LONG,
    "off64_t": _LONG, "loff_t": _LONG, "time_t": _LONG, "clock_t": _LONG, "suseconds_t": _LONG,
    "useconds_t": _UINT, "pid_t": _INT, "uid_t": _UINT, "gid_t": _UINT, "id_t": _UINT,
    "mode_t": _UINT, "key_t": _INT, "dev_t": _ULONG, "ino_t": _ULONG, "ino64_t": _ULONG,
    "socklen_t": _UINT, "in_addr_t": _UINT, "in_port_t": _U16, "sa_family_t": _U16,
    "sig_atomic_t": _INT, "wint_t": _UINT, "u_char": _U8, "u_short": _U16, "u_int": _UINT,
    "u_long": _ULONG, "ushort": _U16, "uint": _UINT, "ulong": _ULONG,
    # glibc's and the kernel's own spellings, which headers use
    "__off_t": _LONG, "__off64_t": _LONG, "__ssize_t": _LONG, "__time_t": _LONG,
    "__pid_t": _INT, "__uid_t": _UINT, "__gid_t": _UINT, "__mode_t": _UINT,
    "__socklen_t": _UINT, "__kernel_size_t": _ULONG, "__kernel_ssize_t": _LONG,
    "__kernel_long_t": _LONG, "__kernel_ulong_t": _ULONG, "__kernel_pid_t": _INT,
    "__kernel_sa_family_t": _U16,
}


def _fixed_width_types() -> dict[str, _Int]:
    """int8_t .. uint64_t with their least/fast variants and glibc and Linux spellings."""
    table = {}
    for bits, signed, unsigned in ((8, _S8, _U8), (16, _S16, _U16), (32, _INT, _UINT),
                                   (64, _LONG, _ULONG)):
        for name in (f"int{bits}_t", f"int_least{bits}_t", f"__int{bits}_t", f"__s{bits}"):
            table[name] = signed
        for name in (f"uint{bits}_t", f"uint_least{bits}_t", f"__uint{bits}_t",
                     f"u_int{bits}_t", f"__u{bits}"):
            table[name] = unsigned
        if bits > 8:
            table[f"__be{bits}"] = table[f"__le{bits}"] = unsigned
        # glibc's int_fast16_t, int_fast32_t are long on 64-bit targets
        fast = (signed, unsigned) if bits == 8 else (_LONG, _ULONG)
        table[f"int_fast{bits}_t"], table[f"uint_fast{bits}_t"] = fast
    return table


_BUILTIN_TYPES.update(_fixed_width_types())


def _promote(kind: _Int | None) -> _Int | None:
    """The integer promotion of a type; None when it differs between targets."""
    if kind is None:
        return None
    kind = kind._replace(enum="")
    if kind.boolean or kind.bits < 32:
        return _INT
    return kind if kind.signed is not None else None


def _common(left: _Int | None, right: _Int | None) -> _Int | None:
    """The usual arithmetic conversions of two integer types."""
    left, right = _promote(left), _promote(right)
    if left is None or right is None:
        return None
    if left.signed == right.signed:
        return left if left.bits >= right.bits else right
    unsigned, signed = (right, left) if left.signed else (left, right)
    return unsigned if unsigned.bits >= signed.bits else signed


def _sized_type(node) -> Any:
    """`unsigned long`, `long double`, `signed char`, ...: a sized_type_specifier."""
    words = [child.type for child in node.children if child.type != "comment"]
    base = node.child_by_field_name("type")
    base = base.text.decode() if base is not None else "int"
    longs = words.count("long")
    if base == "double":
        return _Scalar(16) if longs else _Scalar(8)
    if base == "char":
        return _U8 if "unsigned" in words else _S8 if "signed" in words else _CHAR
    if base == "__int128":
        return _U128 if "unsigned" in words else _S128
    if base != "int":
        return _NO_TYPE
    return _Int(16 if "short" in words else 64 if longs else 32, "unsigned" not in words)


def _promoted_enum_type(values) -> _Int | None:
    """The type C++ promotes an enum without fixed underlying type to: the first of int,
    unsigned, long, unsigned long that holds all of its values."""
    numbers = [value.value for value in values]
    if UNKNOWN in numbers:
        return None
    return next((kind for kind in (_INT, _UINT, _LONG, _ULONG)
                 if all(kind.holds(number) for number in numbers)), None)


def _round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


class TypeRules:
    """Types of expressions and declarations, sizes and alignments, and the layout of
    structs, unions and classes (LP64, natural alignment)."""

    def _fixed_type(self, enum) -> _Int | None:
        """The underlying type written in `enum E : uint8_t`, or None."""
        base = enum.child_by_field_name("base") or enum.child_by_field_name("underlying_type")
        if base is None:
            return None
        kind = self._cached(("fixed", enum.id), lambda: self._base_type(base, enum), None)
        return kind if isinstance(kind, _Int) else None

    def _sizeof(self, node, env: _Env) -> Any:
        if any(child.type == "..." for child in node.children):
            return UNKNOWN  # sizeof...(pack)
        type_node = node.child_by_field_name("type")
        if type_node is not None:
            return self._size(self._descriptor_type(type_node, env.anchor))
        return self._size(self._expression_type(node.child_by_field_name("value"), env))

    def _expression_type(self, node, env: _Env) -> Any:
        """The type of an expression, as `sizeof` sees it (no promotion, no array decay)."""
        self._enter()
        try:
            return self._expression_type_of(node, env)
        finally:
            self._depth -= 1

    def _expression_type_of(self, node, env: _Env) -> Any:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = _only_child(node)
            return self._expression_type(inner, env) if inner is not None else _NO_TYPE
        if kind in ("identifier", "qualified_identifier"):
            return self._name_type(node, env)
        if kind == "pointer_expression":
            operand = self._expression_type(node.child_by_field_name("argument"), env)
            if node.child_by_field_name("operator").type != "&":
                return _target(operand)
            if self.cpp and (operand is _NO_TYPE or isinstance(operand, _Record)
                             and "&" in self._overloads):
                return _NO_TYPE  # operator& may be overloaded
            return _Pointer(operand)
        if kind == "field_expression":
            return self._field_type(node, env)
        if kind == "subscript_expression":
            return _target(self._expression_type(node.child_by_field_name("argument"), env))
        if kind in ("string_literal", "concatenated_string"):
            length = self._string_length(node)
            return _Array(_CHAR, length + 1) if length is not UNKNOWN else _NO_TYPE
        if kind == "cast_expression":
            return self._descriptor_type(node.child_by_field_name("type"), env.anchor)
        return self._eval(node, env).type or _NO_TYPE

    def _name_type(self, node, env: _Env) -> Any:
        split = _split_name(node)
        if split is None:
            return _NO_TYPE
        name, qualifier = split
        bodies = self._expansions(node, name, qualifier, env)
        if bodies is not None:
            inner = env._replace(expanding=env.expanding | {name})
            return _single({self._expression_type(body, inner) for body in bodies}, _NO_TYPE)
        found = self._found(name, qualifier, env.anchor, "types")
        if not any(definition.kind in ("var", "param", "member", "enumerator")
                   for _, _, defs in found for definition in defs):
            return self._named_type(name, qualifier, env.anchor)
        return self._derived(name, qualifier, env.anchor, "types", "sizeof", _NO_TYPE)

    def _field_type(self, node, env: _Env) -> Any:
        """The type of `s.field` or `p->field`."""
        record = self._expression_type(node.child_by_field_name("argument"), env)
        if node.child_by_field_name("operator").type == "->":
            record = _target(record)
        name = self.context.text(node.child_by_field_name("field"))
        if not isinstance(record, _Record) or self._is_macro(name, env.anchor):
            return _NO_TYPE
        return self._member_type(record, name)

    def _member_type(self, record: _Record, name: str) -> Any:
        owner = record.owner()
        fields = self._ask(owner, lambda: owner._fields(record.node))
        for member, kind in fields or ():
            if member == name:
                return kind
            if member is None:  # an anonymous struct or union: its members are the parent's
                self._enter()
                try:
                    found = self._member_type(kind, name)
                finally:
                    self._depth -= 1
                if found is not _NO_TYPE:
                    return found
        return _NO_TYPE

    def _def_type(self, definition: _Def) -> Any:
        """What `sizeof(name)` measures for a declaration: the type of a variable, parameter,
        member or enumerator, or the type a type name names."""
        kind = definition.kind
        if kind == "enumerator":
            return self._enumerator_value(definition.owner).type or _NO_TYPE
        if kind not in ("var", "param", "member"):
            return self._def_as_type(definition)
        owner = definition.owner
        type_node = owner.child_by_field_name("type")
        initializer = self._initializer(definition) if kind != "param" else None
        if type_node is None:
            return _NO_TYPE
        if type_node.type == "placeholder_type_specifier":
            if initializer is None or not _is_plain(definition.node):
                return _NO_TYPE
            deduced = self._expression_type(initializer, _Env(owner))
            return _Pointer(deduced.element) if isinstance(deduced, _Array) else deduced
        declared = self._declared_type(type_node, definition.node, owner, initializer)
        if kind == "param" and isinstance(declared, _Array):
            return _Pointer(declared.element)
        return _Pointer(declared) if kind == "param" and declared is _FUNCTION else declared

    def _def_as_type(self, definition: _Def) -> Any:
        """The type a typedef, alias, struct/union/class or enum name names; _NO_TYPE for
        anything else."""
        owner = definition.owner
        if definition.kind == "tag":
            return (self._enum_type(owner) if owner.type == "enum_specifier"
                    else _Record(owner, weakref.ref(self)))
        if definition.kind != "typedef":
            return _NO_TYPE
        if owner.type == "alias_declaration":
            return self._descriptor_type(owner.child_by_field_name("type"), owner)
        return self._cached(("typedef", definition.node.id),
                            lambda: self._typedef_type(definition), _NO_TYPE)

    def _typedef_type(self, definition: _Def) -> Any:
        owner = definition.owner
        type_node = owner.child_by_field_name("type")
        record = type_node if type_node is not None and type_node.type in _RECORDS else None
        if owner.has_error or any(  # (a record's own attributes are its layout's to read)
                record is None or not record.start_byte <= node.start_byte < record.end_byte
                for nodes in self.context.captures(_ATTRIBUTE_QUERY, owner).values()
                for node in nodes):
            return _NO_TYPE  # aligned or packed typedefs
        return self._declared_type(type_node, definition.node, owner)

    def _descriptor_type(self, node, anchor) -> Any:
        """The type of a type_descriptor (`unsigned long`, `struct s *`, `char[4]`)."""
        if node is None or node.type != "type_descriptor":
            return _NO_TYPE
        return self._declared_type(node.child_by_field_name("type"),
                                   node.child_by_field_name("declarator"), anchor)

    def _declared_type(self, type_node, declarator, anchor, initializer=None) -> Any:
        """The type a declarator gives its name, from the declaration's type specifier:
        `*p[4]` of int is an array of 4 pointers to int."""
        result = self._base_type(type_node, anchor)
        while declarator is not None:
            kind = declarator.type
            if kind in _POINTERS:
                result = _Pointer(result)
            elif kind in _ARRAYS:
                result = _Array(result, self._array_count(declarator, result, anchor, initializer))
            elif kind in _FUNCTIONS:
                result = _FUNCTION
            elif kind in _NAMES:
                break
            declarator = _inner_declarator(declarator)
        return result

    def _array_count(self, declarator, element, anchor, initializer) -> Any:
        size = declarator.child_by_field_name("size")
        if size is not None:
            count = self._eval(size, _Env(anchor)).value
            return count if count is not UNKNOWN and count >= 0 else UNKNOWN
        inner = declarator.child_by_field_name("declarator")
        if initializer is None or inner is None or inner.type not in _NAMES:
            return UNKNOWN
        if initializer.type in ("string_literal", "concatenated_string"):
            length = self._string_length(initializer)
            return length + 1 if length is not UNKNOWN else UNKNOWN
        if initializer.type != "initializer_list" or not isinstance(element,
                                                                     (_Int, _Scalar, _Pointer)):
            return UNKNOWN  # aggregates may elide braces: {1, 2, 3, 4} can be 2 structs
        count = 0
        for item in _items(initializer):
            if item.type in ("initializer_pair", "string_literal"):
                return UNKNOWN
            count += 1
        return count or UNKNOWN

    def _string_length(self, node) -> Any:
        """Bytes of a narrow string literal, without the terminating NUL."""
        if node.type == "concatenated_string":
            lengths = [self._string_length(part) for part in _named_children(node)]
            return UNKNOWN if UNKNOWN in lengths else sum(lengths)
        if node.type != "string_literal" or not node.text.startswith(b'"'):
            return UNKNOWN
        length = 0
        for part in children(node):
            if part.type == "string_content":
                length += len(part.text)
            elif part.type == "escape_sequence" and part.text[1:2] not in b"uUN":
                length += 1
            else:
                return UNKNOWN
        return length

    def _base_type(self, node, anchor) -> Any:
        """The type a type specifier names."""
        kind = node.type
        if kind in ("primitive_type", "type_identifier", "qualified_identifier"):
            split = _split_name(node)
            return self._named_type(*split, anchor) if split else _NO_TYPE
        if kind == "sized_type_specifier":
            return _sized_type(node)
        if kind in _RECORDS or kind == "enum_specifier":
            if node.child_by_field_name("body") is not None:
                return (_Record(node, weakref.ref(self)) if kind in _RECORDS
                        else self._enum_type(node))
            return self._tag_type(node, anchor)
        return _NO_TYPE  # auto, decltype, templates, typeof, macros tree-sitter cannot read

    def _named_type(self, name: str, qualifier: tuple, anchor) -> Any:
        """The type a type name names at `anchor`: builtins first (the data model is fixed),
        then the file's typedefs, aliases and (C++) classes."""
        if self._is_macro(name, anchor):
            return _NO_TYPE
        if qualifier in ((), ("std",), ("", "std")) and name in _BUILTIN_TYPES:
            return _BUILTIN_TYPES[name]
        self._enter()
        try:
            return self._derived(name, qualifier, anchor, "types", "type", _NO_TYPE)
        finally:
            self._depth -= 1

    def _tag_type(self, node, anchor) -> Any:
        """`struct s`, `union u`, `enum e` without a body: the definition it names."""
        name = node.child_by_field_name("name")
        split = _split_name(name) if name is not None else None
        if split is None or self._is_macro(split[0], anchor):
            return _NO_TYPE
        return self._derived(*split, anchor, "tags", "type", _NO_TYPE)

    def _enum_type(self, enum) -> Any:
        """An enum's integer type: the fixed underlying type, or as wide as its values need
        (the signedness of that type is the compiler's choice, so it stays unknown)."""
        fixed = self._fixed_type(enum)
        if fixed is not None:
            return fixed
        body = enum.child_by_field_name("body")
        if body is None:
            return _NO_TYPE
        values = self._cached(("enumerators", body.id), lambda: self._enumerator_values(body),
                              None)
        if values is None:
            return _NO_TYPE
        numbers = [value.value for value in values.values()] or [0]
        if UNKNOWN in numbers:
            return _NO_TYPE
        low, high = min(numbers), max(numbers)
        for kind in (_INT, _UINT, _LONG, _ULONG):
            if kind.holds(low) and kind.holds(high):
                return _Int(kind.bits, None)
        return _NO_TYPE

    def _size(self, kind) -> Any:
        count = 1
        while isinstance(kind, _Array):  # `int a[2][3]...`: arrays of arrays, as deep as written
            if kind.count is UNKNOWN:
                return UNKNOWN
            count, kind = count * kind.count, kind.element
        size = self._record_layout(kind)[0] if isinstance(kind, _Record) else kind.size
        return UNKNOWN if size is UNKNOWN else size * count

    def _align(self, kind) -> Any:
        while isinstance(kind, _Array):
            kind = kind.element
        return self._record_layout(kind)[1] if isinstance(kind, _Record) else kind.align

    def _record_layout(self, record: _Record) -> tuple:
        """(size, alignment) of a record of this file or of a header; a `#pragma pack` in
        either makes it unknown."""
        if self._packed:
            return UNKNOWN, UNKNOWN
        self._enter()  # a record inside a record inside ...
        try:
            owner = record.owner()
            return self._ask(owner, lambda: owner._layout(record.node))
        finally:
            self._depth -= 1

    @cached_property
    def _packed(self) -> bool:
        return self._pragma_pack or any(header._packed for header in self.extra)

    def _layout(self, record) -> tuple:
        """(size, alignment) of a struct, union or class, or (UNKNOWN, UNKNOWN)."""
        return self._cached(("layout", record.id), lambda: self._compute_layout(record),
                            (UNKNOWN, UNKNOWN))

    def _compute_layout(self, record) -> tuple:
        fields = self._fields(record)
        packed = self._packing(record)
        if fields is None or packed is None or self._packed or self._attribute_macro_after(record):
            return UNKNOWN, UNKNOWN
        if not fields:  # C leaves empty structs undefined; C++ gives them one byte
            return (1, 1) if self.cpp else (UNKNOWN, UNKNOWN)
        union = record.type == "union_specifier"
        offset, alignment = 0, 1
        for _, kind in fields:
            size, align = self._size(kind), 1 if packed else self._align(kind)
            if size is UNKNOWN or align is UNKNOWN:
                return UNKNOWN, UNKNOWN
            offset = max(offset, size) if union else _round_up(offset, align) + size
            alignment = max(alignment, align)
        return _round_up(offset, alignment), alignment

    def _packing(self, record) -> bool | None:
        """Whether the record is packed: False, laid out naturally; True, GCC's
        `__attribute__((packed))` on the record itself (`struct __attribute__((packed)) s {...}`,
        `struct s {...} __attribute__((__packed__))`: its members one after another without
        padding, alignment 1); None, unknown (any other attribute, an attribute of a member,
        `#if` in the body, base classes, virtual members)."""
        found = self.context.captures(_LAYOUT_BREAKERS[self.context.language], record)
        if not found:
            return False
        nodes = [node for captured in found.values() for node in captured]
        return True if all(node.type == "attribute_specifier" and node.parent == record
                           and _PACKED.fullmatch("".join(self.context.text(node).split()))
                           for node in nodes) else None

    def _attribute_macro_after(self, record) -> bool:
        """Whether `struct s {...} NAME;` may hide an attribute: tree-sitter reads a macro such
        as `__packed` or `PACKED` there as a variable's name. Taken as a macro: a name #defined
        in this file, and for variables a reserved (`__x`, `_X`) or all-capitals name."""
        holder = record.parent
        if holder is None or holder.type not in ("declaration", "type_definition"):
            return False
        if holder.has_error:
            return True
        for declarator in holder.children_by_field_name("declarator"):
            for name in _declared_names(declarator):
                text = self.context.text(name)
                if self._name(text).macros or self._header_macro(text):
                    return True
                if holder.type == "declaration" and _looks_like_macro(text):
                    return True
        return False

    def _fields(self, record) -> list | None:
        """[(name, type)] of the data members in order (name None for an anonymous struct or
        union member); None when a member cannot be read."""
        return self._cached(("fields", record.id), lambda: self._read_fields(record), None)

    def _read_fields(self, record) -> list | None:
        body = record.child_by_field_name("body")
        if record.has_error or body is None:
            return None
        members = _named_children(body)
        fields = []
        for index, member in enumerate(members):
            if member.type in _NOT_DATA_MEMBERS or self._is_special_member(member, record):
                continue
            found = None
            if member.type == "field_declaration":
                found = self._data_members(member, index == len(members) - 1)
            if found is None:
                return None  # a macro or something else tree-sitter could not read
            fields.extend(found)
        return fields

    def _is_special_member(self, member, record) -> bool:
        """A C++ constructor, destructor or conversion operator (declared without a type);
        a macro call such as `DECLARE(x);` reads the same but has another name."""
        declarator = member.child_by_field_name("declarator")
        if member.type != "declaration" or declarator is None:
            return False
        if declarator.type == "operator_cast":
            return True
        names = _declared_names(declarator)
        record_name = record.child_by_field_name("name")
        return bool(names) and (names[0].type == "destructor_name" or (
            record_name is not None and names[0].text == record_name.text))

    def _data_members(self, member, last: bool) -> list | None:
        """[(name, type)] a field declaration adds to the layout, or None when unreadable."""
        if any(self.context.text(child) == "static" for child in member.children
               if child.type == "storage_class_specifier"):
            return []
        type_node = member.child_by_field_name("type")
        declarators = member.children_by_field_name("declarator")
        if not declarators:
            if type_node.type not in _RECORDS and type_node.type != "enum_specifier":
                return None
            if type_node.child_by_field_name("name") or not type_node.child_by_field_name("body"):
                return []  # a nested type, not a member
            return ([(None, _Record(type_node, weakref.ref(self)))] if type_node.type in _RECORDS
                    else [])
        found = []
        for declarator in declarators:
            names = _declared_names(declarator)
            if declarator.type == "function_declarator" and names and names[0].type in _NAMES:
                if not self.cpp:
                    return None
                continue  # a method
            name = self.context.text(names[0]) if names else None
            found.append((name, self._member_declared_type(member, type_node, declarator, last)))
        return found

    def _member_declared_type(self, member, type_node, declarator, last: bool) -> Any:
        if any(child.type == "bitfield_clause" for child in member.children):
            return _NO_TYPE
        node = declarator
        while node is not None and node.type not in _NAMES:
            if node.type in ("reference_declarator", "abstract_reference_declarator"):
                return _NO_TYPE
            node = _inner_declarator(node)
        kind = self._declared_type(type_node, declarator, member)
        flexible = (declarator.type == "array_declarator" and last
                    and declarator.child_by_field_name("size") is None)
        return _Array(kind.element, 0) if flexible else kind


_MAX_DEPTH = 150  # nested expressions, macro expansions and typedef chains


_MAX_STEPS = 20_000  # expressions visited by one public call


class _Value(NamedTuple):
    """An expression's value (int or UNKNOWN) and integer type (None when not known)."""

    value: Any
    type: _Int | None


_NOTHING = _Value(UNKNOWN, None)


_INTEGER = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)"
                      r"([uU]?)(ll|LL|[lLzZ]?)([uU]?)")


_CHARACTER = re.compile(r"(L|u8|u|U)?'(.+)'", re.DOTALL)


_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27, "\\": 92,
            "'": 39, '"': 34, "?": 63}


_CHARACTER_TYPES = {"L": _WCHAR, "u8": _U8, "u": _U16, "U": _UINT}


def _literal_types(base: int, unsigned: bool, length: str) -> tuple[_Int, ...]:
    """The types an integer literal may take, first fitting wins (C11 6.4.4.1, LP64)."""
    if length == "z":
        return (_ULONG,) if unsigned else (_LONG,)
    if unsigned:
        return (_ULONG,) if length else (_UINT, _ULONG)
    if base == 10:
        return (_LONG,) if length else (_INT, _LONG)
    return (_LONG, _ULONG) if length else (_INT, _UINT, _LONG, _ULONG)


_LONGEST_DIGITS = 128
"""The most significant digits an integer literal of any type has (128 bits, in binary)."""


def _integer_literal(text: str) -> tuple[str, _Value]:
    """(sign, value) of an integer literal; tree-sitter keeps a leading sign in the literal."""
    match = _INTEGER.fullmatch(text.replace("'", ""))
    if match is None or (match[3] and match[5]):
        return "", _NOTHING
    sign, digits, length = match[1], match[2], match[4].lower()
    if digits[:2].lower() in ("0x", "0b"):
        base, digits = (16 if digits[1] in "xX" else 2), digits[2:]
    else:
        base = 8 if len(digits) > 1 and digits[0] == "0" else 10
    if len(digits.lstrip("0")) > _LONGEST_DIGITS:  # no type holds it (and int() has a limit)
        return "", _NOTHING
    value = int(digits, base)
    types = _literal_types(base, bool(match[3] or match[5]), length)
    kind = next((kind for kind in types if kind.holds(value)), None)
    return sign, (_Value(value, kind) if kind else _NOTHING)


def _character_literal(text: str, cpp: bool) -> _Value:
    """A one-character literal of the ASCII range; others depend on the target or encoding."""
    match = _CHARACTER.fullmatch(text)
    if match is None:
        return _NOTHING
    prefix, body = match.groups()
    if body.startswith("\\"):
        escape = body[1:]
        if escape in _ESCAPES:
            value = _ESCAPES[escape]
        elif re.fullmatch(r"[0-7]{1,3}", escape):
            value = int(escape, 8)
        elif re.fullmatch(r"x[0-9a-fA-F]+", escape):
            value = int(escape[1:], 16)
        else:
            return _NOTHING
    elif len(body) == 1:
        value = ord(body)
    else:
        return _NOTHING  # multi-character literals are implementation-defined
    if value > 127:
        return _NOTHING
    kind = _CHARACTER_TYPES[prefix] if prefix else _CHAR if cpp else _INT
    return _Value(value, kind)


def _adds_nothing(directive) -> bool:
    """Whether a preprocessor line inside a declaration list declares nothing there."""
    if directive.type in ("preproc_def", "preproc_function_def"):
        return True
    return directive.type == "preproc_call" and directive.child_by_field_name(
        "directive").text in (b"#define", b"#undef", b"#pragma", b"#error", b"#warning")


def _beyond_steps(text: bytes) -> bool:
    """Whether an expression of these bytes holds more words than one evaluation may visit
    expressions: each name or number in it is one (a cast or sizeof puts a few type words
    beside one), and evaluation gives up after _MAX_STEPS."""
    return next(islice(_WORDS.finditer(text), 4 * _MAX_STEPS, None), None) is not None


def _truncating_division(left: int, right: int) -> int:
    quotient = abs(left) // abs(right)
    return quotient if (left < 0) == (right < 0) else -quotient


def _converted(target, operand: _Value) -> _Value:
    """A value converted to an integer type (a cast, an initialization)."""
    if not isinstance(target, _Int):
        return _NOTHING
    return _Value(target.convert(operand.value), target)


def _target(kind) -> Any:
    """What a pointer points to, or an array's element."""
    if isinstance(kind, _Pointer):
        return kind.target
    if isinstance(kind, _Array):
        return kind.element
    return _NO_TYPE
