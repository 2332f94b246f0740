"""Constant evaluation of C/C++ expressions, shared by rules.

`CConstants(context).evaluate(node)` is the integer value of an expression node of the file's
tree-sitter tree and `sizeof(node)` the value of a `sizeof` expression, both for the LP64 data
model of Linux on x86-64 and aarch64. Where the answer depends on something this file does not
show (a header, a caller, the target), the answer is UNKNOWN, never a guess.

Values follow C's rules, not Python's: literal types, integer promotions and the usual
arithmetic conversions, unsigned wrap-around, truncating division; signed overflow (undefined)
is UNKNOWN, and so is anything that differs between x86-64 and aarch64 (the signedness of
`char` and `wchar_t`). Conversions to a narrower signed type wrap, as GCC and Clang define. In
C++ an operator whose operand has an unknown type, or is an enumerator of a scoped enum or of
one whose operator the file overloads, may call a user's function: UNKNOWN.

Names resolve as the compiler would within this file: an object-like macro defined before the
use wins (every definition before the use must agree; a body such as `1 + 2` is taken whole
only where its text would be, so `N * 2` is UNKNOWN; a definition inside `#ifndef N` is
UNKNOWN, N may come from elsewhere), then the innermost block, parameters, and in C++ the
enclosing classes and namespaces. A name gets a value from an enumerator, a `const` or
`constexpr` variable with an initializer, or a local variable initialised once and never
assigned, incremented or address-taken after its declaration. Not seen: a C++ function
changing a local it takes by non-const reference, a macro changing its argument, and a member
of a class from an unseen header shadowing a file-scope constant in its out-of-line methods.

`evaluate(node, assignments=True)` also gives a local, a parameter or a member path on one
(`s->a.b`) the value of the last statement `path = value;` before the node in a block
around it, unless something in between may change it (a write to it, a prefix or a member of
the same name; a call mentioning the root; a label or `case`; a loop around the use; its
address taken anywhere in the function). A pointer kept from before the assignment and written
through by a call not given the root is not seen.

Declarations, macros and writes of a name are found from the tokens spelling it (a byte search
of the file, then a short climb from each token), never by a walk of the whole file, so a file of
millions of nodes costs what the names evaluated in it need; what one function does to its
variables is read by one walk of that function, once.

Struct, union and class sizes use natural alignment. Bit-fields, packing, alignment attributes,
`#if` inside the body, base classes, virtual members, members tree-sitter cannot read (macros)
and a macro-like name after the closing brace (`} __packed;`) make the layout UNKNOWN.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left
from collections import defaultdict
from functools import cached_property
from itertools import islice
from typing import Any, Iterator, NamedTuple

from cursedlint.analysis.c_macros import function_scope
from cursedlint.c_context import children, descendants, parse
from cursedlint.python_consteval import UNKNOWN

_MAX_DEPTH = 150  # nested expressions, macro expansions and typedef chains
_MAX_STEPS = 20_000  # expressions visited by one public call


class _GiveUp(Exception):
    """An evaluation went too deep or too long; the public methods answer UNKNOWN."""


# -- types ---------------------------------------------------------------------------------


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
    """A struct, union or class; its layout is computed on demand by `owner`, the evaluator of
    the file (or header) that defines it."""

    node: Any
    owner: Any


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


# -- values ----------------------------------------------------------------------------------


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


# -- the tree --------------------------------------------------------------------------------

# Declarations a name is found in, from the token spelling it: the owner of a declarator -> kind.
_DECLARATOR_OWNERS = {
    "c": {"declaration": "var", "parameter_declaration": "param", "type_definition": "typedef"},
    "cpp": {"declaration": "var", "parameter_declaration": "param", "type_definition": "typedef",
            "field_declaration": "member", "optional_parameter_declaration": "param",
            "variadic_parameter_declaration": "param", "for_range_loop": "param"},
}
_TAG_OWNERS = {
    "c": frozenset({"struct_specifier", "union_specifier", "enum_specifier"}),
    "cpp": frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}),
}
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "variadic_type_parameter_declaration"})
_DECLARING = frozenset({  # what a declared name's parent may be, besides declarators
    *_DECLARATOR_OWNERS["cpp"], *_TAG_OWNERS["cpp"], *_TYPE_PARAMETERS, "enumerator",
    "optional_type_parameter_declaration", "alias_declaration", "structured_binding_declarator",
})
_ATTRIBUTES = ("(attribute_specifier) (attribute_declaration) (alignas_qualifier)"
               " (ms_declspec_modifier)")
_ATTRIBUTE_QUERY = f"[{_ATTRIBUTES}] @found"
_LAYOUT_BREAKERS = {  # anything inside a struct body that makes its layout unknown
    "c": f"[{_ATTRIBUTES} (preproc_if) (preproc_ifdef) (preproc_call)] @found",
    "cpp": f'[{_ATTRIBUTES} (preproc_if) (preproc_ifdef) (preproc_call) (base_class_clause)'
           f' "virtual"] @found',
}

_BLOCKS = frozenset({
    "compound_statement", "for_statement", "for_range_loop", "if_statement", "while_statement",
    "switch_statement", "catch_clause", "lambda_expression", "function_definition",
    "template_declaration",
})
_RECORDS = frozenset({"struct_specifier", "union_specifier", "class_specifier"})
_NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type",
                    "qualified_identifier", "destructor_name", "operator_name"})
_POINTERS = frozenset({"pointer_declarator", "abstract_pointer_declarator"})
_ARRAYS = frozenset({"array_declarator", "abstract_array_declarator"})
_FUNCTIONS = frozenset({"function_declarator", "abstract_function_declarator"})
_NOT_DATA_MEMBERS = frozenset({
    "comment", "access_specifier", "function_definition", "type_definition",
    "alias_declaration", "using_declaration", "friend_declaration", "template_declaration",
    "static_assert_declaration",
})
# A macro body of these kinds means the same whether or not it is parenthesised at its use.
_UNIT_BODIES = frozenset({
    "number_literal", "char_literal", "string_literal", "identifier", "qualified_identifier",
    "true", "false", "parenthesized_expression", "call_expression", "sizeof_expression",
    "alignof_expression", "unary_expression", "cast_expression", "compound_literal_expression",
})
# Where any macro body is a whole expression, as if parenthesised.
_WHOLE_EXPRESSION_PARENTS = frozenset({
    "argument_list", "parenthesized_expression", "init_declarator", "enumerator",
    "return_statement", "expression_statement", "initializer_list", "initializer_pair",
    "condition_clause", "template_argument_list", "case_statement", "array_declarator",
    "abstract_array_declarator", "subscript_argument_list", "bitfield_clause",
})
_COMPARISONS = {
    "<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__,
    "==": int.__eq__, "!=": int.__ne__,
}
_ARITHMETIC = {
    "+": int.__add__, "-": int.__sub__, "*": int.__mul__,
    "&": int.__and__, "|": int.__or__, "^": int.__xor__,
}
_JUMP_TARGETS = frozenset({"labeled_statement", "case_statement"})
_CALLS = frozenset({"call_expression", "argument_list"})  # argument_list: C++ constructors, new
_MODIFYING = frozenset({"assignment_expression", "update_expression", "pointer_expression",
                        "gnu_asm_output_operand", "init_declarator"})
_READ_BY_WRITES = _MODIFYING | _JUMP_TARGETS | _CALLS | {"compound_statement", "lambda_expression"}
_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_PREPROC_TESTS_NAME = frozenset({"preproc_ifdef", "preproc_elifdef"})
_PREPROC_TESTS_CONDITION = frozenset({"preproc_if", "preproc_elif"})
_CONTINUATION = re.compile(rb"\\\r?\n")
_IDENTIFIERS = re.compile(rb"[A-Za-z_]\w*")
_WORDS = re.compile(rb"\w+")
_MACRO_NAME = re.compile(r"\s*([A-Za-z_]\w*)")
_MACRO_DIRECTIVES = ("#define", "#undef")
_PRAGMA = re.compile(rb"#pragma(?![\w$])")
_DEFINITION = re.compile(rb"\s*([A-Za-z_]\w*)(\(?)(.*)", re.DOTALL)


def _items(node) -> Iterator:
    """The named children of `node` that are not comments (no list of a wide node is made)."""
    return (child for child in children(node) if child.type != "comment")


def _named_children(node) -> list:
    return list(_items(node))


def _only_child(node):
    first = list(islice(_items(node), 2))
    return first[0] if len(first) == 1 else None


def _inner_declarator(node):
    inner = node.child_by_field_name("declarator")
    if inner is not None or node.type in _POINTERS or node.type in _ARRAYS:
        return inner
    return next((child for child in _named_children(node)
                 if child.type not in ("attribute_declaration", "attribute_specifier",
                                       "type_qualifier")), None)


def _declared_names(declarator) -> list:
    """The name nodes a declarator declares: one, or several for a structured binding."""
    node = declarator
    while node is not None and node.type not in _NAMES:
        if node.type == "structured_binding_declarator":
            return [child for child in node.named_children if child.type == "identifier"]
        node = _inner_declarator(node)
    return [node] if node is not None else []


def _split_name(node) -> tuple[str, tuple[str, ...]] | None:
    """(name, qualifier) of an identifier or `a::b::name`; qualifier ("", ...) for `::name`;
    None for names with template arguments or other forms."""
    parts: list[str] = []
    while node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is None:
            parts.append("")
        elif scope.type in ("namespace_identifier", "type_identifier"):
            parts.append(scope.text.decode())
        else:
            return None
        node = node.child_by_field_name("name")
        if node is None:
            return None
    if node.type not in _NAMES:
        return None
    return node.text.decode(), tuple(parts)


def _is_plain(declarator) -> bool:
    """Whether a declarator declares a plain object: no pointer, array, function, reference."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator.type in _NAMES


def _definition(define) -> tuple[bytes, bytes | None]:
    """(name, body) of an object-like macro definition; body None for an #undef, a
    function-like or an empty macro. tree-sitter reads some #defines as preproc_call."""
    if define.type == "preproc_def":
        value = define.child_by_field_name("value")
        return define.child_by_field_name("name").text, value.text if value else None
    argument = define.child_by_field_name("argument")
    if define.type != "preproc_call" or argument is None:
        return b"", None  # #undef, function-like
    match = _DEFINITION.match(argument.text)
    if (define.child_by_field_name("directive").text != b"#define" or match is None
            or match[2] or not match[3].strip()):
        return b"", None
    return match[1], match[3]


def _tests_own_name(context, define, name: bytes) -> bool:
    """Whether a definition sits in an #if/#ifdef/#ifndef branch that tests its own name."""
    for ancestor in context.ancestors(define):
        test = (ancestor.child_by_field_name("name") if ancestor.type in _PREPROC_TESTS_NAME
                else ancestor.child_by_field_name("condition")
                if ancestor.type in _PREPROC_TESTS_CONDITION else None)
        if test is not None and name in _IDENTIFIERS.findall(test.text):
            return True
    return False


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


class _Env(NamedTuple):
    """Where an expression is evaluated: `anchor`, a node of the file's tree, places it for
    name lookup and macro visibility; `expanding` holds the macros being expanded there;
    `assignments`: locals and field paths take the value set earlier in the function."""

    anchor: Any
    expanding: frozenset = frozenset()
    assignments: bool = False


class _Def:
    """One declaration of a name. `kind`: var, param, member, typedef, typeparam, enumerator,
    tag; `node` is its declarator (or name), `owner` the declaration holding it. `scope` is
    computed on first lookup: (innermost block or None, the namespace/class paths it lives in),
    or None when the declaration is a prototype's parameter, visible nowhere."""

    __slots__ = ("kind", "node", "owner", "name", "qualifier", "scope")

    def __init__(self, kind: str, node, owner, name: str, qualifier: tuple[str, ...]):
        self.kind, self.node, self.owner = kind, node, owner
        self.name, self.qualifier = name, qualifier
        self.scope: Any = _UNRESOLVED


_UNRESOLVED = object()


class _Named:
    """What a file does with one name: its ordinary declarations and its struct/union/class/enum
    tags (`_Def`s, in order), its #define and #undef lines (in order), and where it is
    assigned, incremented or has its address taken."""

    __slots__ = ("declared", "tags", "macros", "modified")

    def __init__(self, declared: list, tags: list, macros: list, modified: list):
        self.declared, self.tags, self.macros, self.modified = declared, tags, macros, modified


class _Target(NamedTuple):
    """An lvalue written or whose address is taken, as `_may_alias` and `_escapes` read it (see
    `_access`), with its last member when it is a member access (`s.a.b`: "b")."""

    root: str | None
    members: tuple[str, ...]
    exact: bool
    field: str | None


class _Writes(NamedTuple):
    """What one function does to its variables, read by one walk of it and kept as offsets and
    names, not nodes (a function may hold millions of writes). `assignments`: field path ->
    (target start, statement end, block start, block end, assignment) of the statements
    `path = value;` of its blocks, in order; `labels`: where labels and `case`s start, in order;
    `taken`: `_Target`s whose address is taken (`&x`, `int& r = x`); `written`: (start,
    `_Target`) of the other writes, in order, and `in_lambdas` those of them inside a lambda;
    `calls`: (start, end) of calls and argument lists, in order."""

    assignments: dict
    labels: list
    taken: list
    written: list
    in_lambdas: list
    calls: list


class CConstants:
    """The constant evaluator of one C/C++ file (a `CContext`); it reads the file's
    declarations, macros and types once, on first use. `extra`: the evaluators of headers that
    precede the file's text (its includes, in order); a name the file does not declare or
    define gets the value or type those that declare it agree on. `names`: the identifiers the
    file's text holds (a header asked about every name its includer looks up skips the search
    for those it does not hold)."""

    def __init__(self, context, extra=(), names: frozenset[bytes] | None = None):
        self.context = context
        self.extra = tuple(extra)
        self.names = names  # the identifiers of the file's text, when known: others need no search
        # what the text does with each name: the same for every evaluator of this context (a
        # header's, seen after different headers by different includers)
        self._named: dict[str, _Named] = context.shared("c-consteval-named", dict)
        self.cpp = context.language == "cpp"
        self._truth = _BOOL if self.cpp else _INT  # the type of comparisons and `!`
        self._memo: dict[tuple, Any] = {}
        self._macro_bodies: dict[int, Any] = {}
        self._depth = self._steps = 0
        self._busy = 0  # computations under way in _cached

    # -- public --------------------------------------------------------------------------------

    def evaluate(self, node, assignments: bool = False) -> Any:
        """The integer value of an expression node, or UNKNOWN. `assignments`: a local or a
        field path (`s->a.b`) also takes the value that the last `name = value;` statement
        before the node gives it (see `_assigned_value`)."""
        return self._answer(lambda: self._eval(node, _Env(node, assignments=assignments)).value)

    def sizeof(self, node) -> Any:
        """The value of a sizeof_expression node, or UNKNOWN."""
        if node.type != "sizeof_expression":
            return UNKNOWN
        return self._answer(lambda: self._sizeof(node, _Env(node)))

    def _answer(self, compute) -> Any:
        self._depth = self._steps = self._busy = 0
        try:
            return compute()
        except (_GiveUp, RecursionError):  # Python's stack ends first where each level of
            return UNKNOWN  # nesting (records in records, typedef chains) takes many frames

    def _ask(self, other: CConstants, compute) -> Any:
        """compute() on another evaluator (a header's) within this evaluation's limits."""
        if other is self:
            return compute()
        other._depth, other._steps, other._busy = self._depth, self._steps, 0
        try:
            return compute()
        finally:
            self._steps = other._steps

    def _enter(self) -> None:
        self._depth += 1
        self._steps += 1
        if self._depth > _MAX_DEPTH or self._steps > _MAX_STEPS:
            raise _GiveUp

    def _cached(self, key: tuple, compute, busy: Any) -> Any:
        """compute() once per key; a recursive request for the same key while it runs (a type
        or constant defined through itself) gets `busy`."""
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = busy
        self._busy += 1
        try:
            self._memo[key] = result = compute()
        except (_GiveUp, RecursionError):
            del self._memo[key]
            raise
        finally:
            self._busy -= 1
        return result

    # -- expressions ---------------------------------------------------------------------------

    def _eval(self, node, env: _Env) -> _Value:
        self._enter()
        try:
            handler = _EXPRESSIONS.get(node.type)
            return handler(self, node, env) if handler else _NOTHING
        finally:
            self._depth -= 1

    def _number(self, node, env: _Env) -> _Value:
        sign, value = _integer_literal(self.context.text(node))
        return self._unary_operation(sign, value) if sign else value

    def _character(self, node, env: _Env) -> _Value:
        return _character_literal(self.context.text(node), self.cpp)

    def _boolean(self, node, env: _Env) -> _Value:
        return _Value(int(node.type == "true"), self._truth)

    def _inner(self, node, env: _Env) -> _Value:
        """( expression ) and __extension__ expression."""
        inner = _only_child(node)
        return self._eval(inner, env) if inner is not None else _NOTHING

    def _unary(self, node, env: _Env) -> _Value:
        operand = self._eval(node.child_by_field_name("argument"), env)
        return self._unary_operation(node.child_by_field_name("operator").type, operand)

    def _unary_operation(self, operator: str, operand: _Value) -> _Value:
        if self._overloadable(operator, operand):
            return _NOTHING
        value, kind = operand
        if operator == "!":
            return _Value(UNKNOWN if value is UNKNOWN else int(value == 0), self._truth)
        kind = _promote(kind)
        if kind is None or value is UNKNOWN or operator not in ("+", "-", "~"):
            return _Value(UNKNOWN, kind)
        result = value if operator == "+" else -value if operator == "-" else ~value
        return _Value(kind.result(result), kind)

    def _binary(self, node, env: _Env) -> _Value:
        operator = node.child_by_field_name("operator").type
        left = self._eval(node.child_by_field_name("left"), env)
        right = self._eval(node.child_by_field_name("right"), env)
        if self._overloadable(operator, left, right):
            return _NOTHING
        if operator in ("&&", "||"):
            return self._logical(operator, left, right)
        if operator in ("<<", ">>"):
            return self._shift(operator, left, right)
        kind = _common(left.type, right.type)
        result_type = self._truth if operator in _COMPARISONS else kind
        if kind is None or left.value is UNKNOWN or right.value is UNKNOWN:
            return _Value(UNKNOWN, result_type)
        a, b = kind.convert(left.value), kind.convert(right.value)
        if operator in _COMPARISONS:
            return _Value(int(_COMPARISONS[operator](a, b)), result_type)
        if operator in _ARITHMETIC:
            return _Value(kind.result(_ARITHMETIC[operator](a, b)), kind)
        if operator not in ("/", "%") or b == 0:
            return _Value(UNKNOWN, kind)
        quotient = kind.result(_truncating_division(a, b))
        if quotient is UNKNOWN or operator == "/":
            return _Value(quotient, kind)
        return _Value(a - b * quotient, kind)

    def _logical(self, operator: str, left: _Value, right: _Value) -> _Value:
        """&& and ||: a known operand that decides the result makes the other irrelevant."""
        deciding = operator == "||"  # the truth value that decides
        values = [operand.value for operand in (left, right) if operand.value is not UNKNOWN]
        if any((value != 0) == deciding for value in values):
            return _Value(int(deciding), self._truth)
        return _Value(int(not deciding) if len(values) == 2 else UNKNOWN, self._truth)

    def _overloadable(self, operator: str, *operands: _Value) -> bool:
        """Whether a C++ operator may call a user's overload, which is not followed: an operand
        of unknown type (a class?), a scoped enumerator, an enumerator where the file declares
        an overload of the operator."""
        if not self.cpp:
            return False
        kinds = [operand.type for operand in operands]
        if None in kinds:
            return True
        enums = {kind.enum for kind in kinds} - {""}
        return "scoped" in enums or bool(enums and operator in self._overloads)

    @cached_property
    def _overloads(self) -> set[str]:
        """The operators this file overloads (`operator|` -> "|")."""
        found = (self.context.parent(keyword) for _, keyword in self.context.tokens(("operator",)))
        own = {self.context.text(node)[len("operator"):].strip() for node in found
               if node.type == "operator_name"}
        return own.union(*(header._overloads for header in self.extra))

    def _shift(self, operator: str, left: _Value, right: _Value) -> _Value:
        kind = _promote(left.type)
        count = right.value
        if kind is None or left.value is UNKNOWN or count is UNKNOWN:
            return _Value(UNKNOWN, kind)
        if not 0 <= count < kind.bits:
            return _Value(UNKNOWN, kind)
        if operator == ">>":
            return _Value(left.value >> count, kind)  # arithmetic for negatives, as GCC does
        if kind.signed and left.value < 0:
            return _Value(UNKNOWN, kind)
        return _Value(kind.result(left.value << count), kind)

    def _conditional(self, node, env: _Env) -> _Value:
        condition = self._eval(node.child_by_field_name("condition"), env).value
        consequence = node.child_by_field_name("consequence")
        if consequence is None:  # GNU `a ?: b`
            return _NOTHING
        branches = (self._eval(consequence, env),
                    self._eval(node.child_by_field_name("alternative"), env))
        kind = _common(branches[0].type, branches[1].type)
        if kind is None or condition is UNKNOWN:
            return _Value(UNKNOWN, kind)
        return _Value(kind.convert(branches[0 if condition else 1].value), kind)

    def _cast(self, node, env: _Env) -> _Value:
        target = self._descriptor_type(node.child_by_field_name("type"), env.anchor)
        return _converted(target, self._eval(node.child_by_field_name("value"), env))

    def _call(self, node, env: _Env) -> _Value:
        """C++ `static_cast<T>(x)` and functional casts `T(x)`; other calls are UNKNOWN."""
        argument = _only_child(node.child_by_field_name("arguments"))
        target = self._cast_target(node.child_by_field_name("function"), env)
        if target is None or argument is None:
            return _NOTHING
        return _converted(target, self._eval(argument, env))

    def _cast_target(self, function, env: _Env) -> Any:
        if not self.cpp:
            return None
        if function.type == "template_function":
            name = function.child_by_field_name("name")
            arguments = _named_children(function.child_by_field_name("arguments"))
            if self.context.text(name) != "static_cast" or len(arguments) != 1:
                return None
            return self._descriptor_type(arguments[0], env.anchor)
        if function.type in ("primitive_type", "sized_type_specifier"):
            return self._base_type(function, env.anchor)
        if function.type in ("identifier", "qualified_identifier"):
            name = _split_name(function)
            return self._named_type(*name, env.anchor) if name else None
        return None

    def _compound_literal(self, node, env: _Env) -> _Value:
        """`(int){4}` in C, `int{4}` in C++."""
        type_node = node.child_by_field_name("type")
        if type_node.type == "type_descriptor":
            target = self._descriptor_type(type_node, env.anchor)
        else:
            target = self._base_type(type_node, env.anchor)
        items = list(islice(_items(node.child_by_field_name("value")), 2))
        if not items:
            return _converted(target, _Value(0, _INT))
        return _converted(target, self._eval(items[0], env)) if len(items) == 1 else _NOTHING

    def _sizeof_value(self, node, env: _Env) -> _Value:
        return _Value(self._sizeof(node, env), _ULONG)

    def _alignof_value(self, node, env: _Env) -> _Value:
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return _Value(UNKNOWN, _ULONG)
        return _Value(self._align(self._descriptor_type(type_node, env.anchor)), _ULONG)

    def _name_value(self, node, env: _Env) -> _Value:
        split = _split_name(node)
        if split is None:
            return _NOTHING
        name, qualifier = split
        bodies = self._expansions(node, name, qualifier, env)
        if bodies is not None:
            inner = env._replace(expanding=env.expanding | {name})
            return _single({self._eval(body, inner) for body in bodies}, _NOTHING)
        if env.assignments and not qualifier:
            assigned = self._assigned_value(node, env)
            if assigned is not None:
                return assigned
        return self._derived(name, qualifier, env.anchor, "names", "value", _NOTHING)

    def _member_value(self, node, env: _Env) -> _Value:
        """`s->a.b`: known only from an assignment earlier in the function."""
        assigned = self._assigned_value(node, env) if env.assignments else None
        return _NOTHING if assigned is None else assigned

    # -- values set earlier in the function ----------------------------------------------------

    def _assigned_value(self, node, env: _Env) -> _Value | None:
        """The value of a local, parameter or field path of one (`s->a.b`) at `env.anchor`, as
        the last statement `path = value;` before it sets it: a statement of a block that
        encloses the anchor, in the same function. None without such a statement; UNKNOWN when
        something may change the path in between (see `_disturbed`). Not seen: changes through
        a pointer stored before the assignment by a call that did not receive the root."""
        path = _field_path(node)
        function = self._enclosing_function(env.anchor)
        if path is None or function is None or any(
                self._is_macro(part, env.anchor) for part in path):
            return None
        root = self._local_root(path[0], env.anchor, function)
        assignment = self._last_assignment(path, env.anchor, function) if root else None
        if assignment is None:
            return None
        if (self._local_root(path[0], assignment, function) is not root
                or self._disturbed(path, assignment, env.anchor, function)):
            return _NOTHING
        right = assignment.child_by_field_name("right")
        value = self._eval(right, _Env(assignment, assignments=True))
        kind = self._def_type(root) if len(path) == 1 else self._field_type(node, env)
        return _converted(kind, value)

    def _local_root(self, name: str, anchor, function) -> _Def | None:
        """The variable or parameter `name` names at `anchor` if it belongs to `function`."""
        key, defs = self._lookup(name, (), anchor, "names")
        if not isinstance(key, _Def) or defs != [key] or key.kind not in ("var", "param"):
            return None
        block = self._scope(key)[0]
        inside = function.start_byte <= block.start_byte and block.end_byte <= function.end_byte
        volatile = any(self.context.text(child) == "volatile" for child in key.owner.children)
        reference = any(node.type == "reference_declarator"
                        for node in _declarator_chain(key.node))
        return key if inside and not volatile and not reference else None

    def _last_assignment(self, path: tuple, anchor, function):
        """The last statement `path = value;` before `anchor` in a block enclosing it."""
        assignments = self._writes(function).assignments.get(path, [])
        at = anchor.start_byte
        for index in range(bisect_left(assignments, (at,)) - 1, -1, -1):
            _, statement_end, block_start, block_end, assignment = assignments[index]
            if block_start <= at < block_end and statement_end <= at:
                return assignment
        return None

    def _disturbed(self, path: tuple, assignment, anchor, function) -> bool:
        """Whether the path may change between the assignment and its use at `anchor`: a label
        or `case` in between (a jump past the assignment); its or a prefix's address taken
        anywhere in the function; in between, a write to it, to a prefix of it, to a member of
        the same name (an alias), through a pointer or subscript, or to a variable whose address
        is taken, or a call mentioning the root or such a variable. "In between" extends to the
        end of loops around the use that do not hold the assignment, and takes in the bodies
        of lambdas."""
        start, end = assignment.end_byte, self._region_end(assignment, anchor, function)
        writes = self._writes(function)
        label = bisect_left(writes.labels, start)
        if label < len(writes.labels) and writes.labels[label] < anchor.start_byte:
            return True
        escaped = {target.root for target in writes.taken} - {None}
        if any(_may_alias(target, path) for target in writes.taken):
            return True
        first, last = (bisect_left(writes.written, position, key=lambda item: item[0])
                       for position in (start, end))
        for target in [target for _, target in writes.written[first:last]] + writes.in_lambdas:
            if _may_alias(target, path) or _escapes(target, path, escaped):
                return True
        names = {name.encode() for name in escaped | {path[0]}}
        return self._calls_mention(writes.calls, start, end, anchor, names)

    def _calls_mention(self, calls: list, start: int, end: int, anchor, names: set) -> bool:
        """Whether a call starting in [start, end) and not holding `anchor` mentions one of
        `names`. A call inside one already read is not read again."""
        read_until = start
        for call_start, call_end in calls[bisect_left(calls, (start,)):]:
            if call_start >= end:
                return False
            if call_start < read_until or call_start <= anchor.start_byte < call_end:
                continue
            text = self.context.source.data[call_start:call_end]
            if names.intersection(_IDENTIFIERS.findall(text)):
                return True
            read_until = call_end
        return False

    def _writes(self, function) -> _Writes:
        """What `function` does to its variables (see `_Writes`), read once."""
        key = ("writes", function.id)
        if key not in self._memo:
            self._memo[key] = self._read_writes(function)
        return self._memo[key]

    def _read_writes(self, function) -> _Writes:
        assignments: dict[tuple, list] = defaultdict(list)
        labels, taken, written, in_lambdas, calls = [], [], [], [], []
        lambda_ends: list[int] = []  # of the lambdas around the node
        for node in descendants(function):
            kind = node.type
            if kind not in _READ_BY_WRITES:
                continue
            while lambda_ends and node.start_byte >= lambda_ends[-1]:
                lambda_ends.pop()
            if kind == "compound_statement":
                for statement in children(node):
                    for assignment in _plain_assignments(statement):
                        target = assignment.child_by_field_name("left")
                        path = _field_path(target)
                        if path is not None:
                            assignments[path].append((target.start_byte, statement.end_byte,
                                                      node.start_byte, node.end_byte, assignment))
            elif kind in _JUMP_TARGETS:
                labels.append(node.start_byte)
            elif kind in _CALLS:
                calls.append((node.start_byte, node.end_byte))
            elif kind == "lambda_expression":
                lambda_ends.append(node.end_byte)
            node = self._modified_target(node)
            if node is None:
                continue
            target = _target_of(node)
            if kind in ("pointer_expression", "init_declarator"):
                taken.append(target)
            else:
                written.append((node.start_byte, target))
                if lambda_ends:
                    in_lambdas.append(target)
        for found in assignments.values():
            found.sort(key=lambda item: item[0])  # a nested block's come after its own
        written.sort(key=lambda item: item[0])
        return _Writes(dict(assignments), labels, taken, written, in_lambdas, calls)

    def _modified_target(self, node):
        """What `node` writes or takes the address of: the left of an assignment, the operand of
        `++`/`--` or of `&`, an asm output, what a C++ reference is bound to; else None."""
        kind = node.type
        if kind == "assignment_expression":
            target = node.child_by_field_name("left")
        elif kind in ("update_expression", "pointer_expression"):
            if kind == "pointer_expression" and node.child_by_field_name("operator").type != "&":
                return None
            target = node.child_by_field_name("argument")
        elif kind == "gnu_asm_output_operand":
            target = node.child_by_field_name("value")
        elif kind == "init_declarator" and self.cpp:
            declarator = node.child_by_field_name("declarator")
            if declarator is None or declarator.type != "reference_declarator":
                return None
            target = node.child_by_field_name("value")
        else:
            return None
        return target if target is not None and target.is_named else None

    def _enclosing_function(self, node):
        """The function, lambda or macro-defined function body that is or holds `node`, or
        None."""
        return function_scope(self.context, node)

    def _region_end(self, assignment, anchor, function) -> int:
        """Where changes that may reach the use end: the use, or the end of the outermost loop
        around it that does not hold the assignment (the next iteration sees them)."""
        end = anchor.start_byte
        for node in self.context.ancestors(anchor):
            if node == function:
                break
            if node.type in _LOOPS and not node.start_byte <= assignment.start_byte < node.end_byte:
                end = node.end_byte
        return end

    # -- names ---------------------------------------------------------------------------------

    def _name(self, name: str) -> _Named:
        """What the file does with `name` (see `_Named`), found from the places spelling it
        (one byte search per name) and a short climb from each."""
        if name not in self._named:
            named, macros = _Named([], [], [], []), {}
            held = self.names is None or name.encode() in self.names
            for start, end, node in self.context.hits((name,)) if held else ():
                owner = self.context.parent(node)
                if owner is None:
                    continue
                if (node.start_byte, node.end_byte) == (start, end):
                    if (owner.type in ("preproc_def", "preproc_function_def")
                            and owner.child_by_field_name("name") == node):
                        macros[owner.id] = owner
                    self._token_named(node, owner, named)
                elif (node.type == "preproc_arg" and owner.type == "preproc_call"
                      and self.context.text(owner.child_by_field_name("directive"))
                      in _MACRO_DIRECTIVES):  # a #define tree-sitter read as a directive
                    defined = _MACRO_NAME.match(self.context.text(node))
                    if defined and defined[1] == name:
                        macros[owner.id] = owner
            named.macros = sorted(macros.values(), key=lambda node: node.start_byte)
            self._named[name] = named
        return self._named[name]

    def _token_named(self, leaf, owner, named: _Named) -> None:
        """Add what the token `leaf` (its parent `owner`) declares or modifies."""
        if leaf.type == "identifier":
            node, parent = leaf, owner
            while parent is not None:
                if self._modified_target(parent) == node:
                    named.modified.append(leaf.start_byte)  # `x = 1`, `(x)++`, `&x`
                if parent.type != "parenthesized_expression" or _only_child(parent) != node:
                    break
                node, parent = parent, self.context.parent(parent)
        node = leaf
        while owner.type == "qualified_identifier" and owner.child_by_field_name("name") == node:
            node, owner = owner, self.context.parent(owner)  # `ns::name` is declared whole
            if owner is None:
                return
        if owner.type in _DECLARING or _declarator_like(owner.type):
            split = _split_name(node)
            if split is not None:
                self._declarations_named(node, owner, split, named.declared, named.tags)

    def _declarations_named(self, node, owner, split: tuple, names: list, tags: list) -> None:
        """Append what declares the name node `node` (its parent `owner`; name and qualifier
        `split`), if anything: a declarator of a declaration, parameter, typedef or member; an
        enumerator; a tag with a body; a C++ alias or template type parameter."""
        kind = owner.type
        if kind in _TAG_OWNERS[self.context.language]:
            if (owner.child_by_field_name("name") == node
                    and owner.child_by_field_name("body") is not None):
                tags.append(_Def("tag", node, owner, *split))
            return
        if kind == "enumerator" and owner.child_by_field_name("name") == node:
            names.append(_Def("enumerator", node, owner, *split))
            return
        if self.cpp and (kind in _TYPE_PARAMETERS and node.type == "type_identifier" or kind in (
                "optional_type_parameter_declaration", "alias_declaration")
                and owner.child_by_field_name("name") == node):
            names.append(_Def("typedef" if kind == "alias_declaration" else "typeparam", node,
                              owner, *split))
            return
        owners = _DECLARATOR_OWNERS[self.context.language]
        for declarator in self.context.wrapped_by(node, _leads_to):
            owner = self.context.parent(declarator)
            if (owner is not None and owner.type in owners
                    and self.context.field_of(declarator) == "declarator"
                    and any(found == node for found in _declared_names(declarator))):
                kind = owners[owner.type]
                if self.context.parent(node).type == "structured_binding_declarator":
                    kind = "param"  # bound to parts of an unknown value
                names.append(_Def(kind, declarator, owner, *split))

    @cached_property
    def _pragma_pack(self) -> bool:
        """Whether the file has a `#pragma pack`, which makes every layout unknown."""
        for _, directive in self.context.tokens(_PRAGMA):
            call = self.context.parent(directive)
            argument = call.child_by_field_name("argument") if call is not None else None
            if (directive.type == "preproc_directive" and call.type == "preproc_call"
                    and argument is not None
                    and self.context.text(argument).lstrip().startswith("pack")):
                return True
        return False

    def _header_macro(self, name: str) -> bool:
        return any(header._name(name).macros for header in self.extra)

    def _is_macro(self, name: str, anchor) -> bool:
        return self._header_macro(name) or any(
            event.start_byte < anchor.start_byte for event in self._name(name).macros)

    def _expansions(self, node, name: str, qualifier: tuple, env: _Env) -> list | None:
        """The bodies of the macro `name` as used at `node`: None when it is not a macro
        there, [] when it cannot be expanded exactly (function-like, #undef, empty, a body
        whose meaning depends on the text around its use)."""
        if name in env.expanding:
            return None  # a macro is not expanded inside its own expansion
        bodies = [header._macro_body(event) for header in self.extra
                  for event in header._name(name).macros]
        bodies += [self._macro_body(event) for event in self._name(name).macros
                   if event.start_byte < env.anchor.start_byte]
        if not bodies:
            return None
        if qualifier or None in bodies:
            return []
        if all(body.type in _UNIT_BODIES for body in bodies) or _is_whole_expression(node):
            return bodies
        return []

    def _macro_body(self, define):
        """The expression an object-like macro expands to, parsed alone, or None."""
        if define.id not in self._macro_bodies:
            self._macro_bodies[define.id] = self._parse_body(define)
        return self._macro_bodies[define.id][1]

    def _parse_body(self, define) -> tuple:
        """(tree, expression): the tree is kept so that the expression's nodes stay valid."""
        name, text = _definition(define)
        if text is None or _tests_own_name(self.context, define, name):
            return None, None  # `#ifndef N / #define N 4`: N may come from elsewhere
        text = _CONTINUATION.sub(b" ", text)
        if _beyond_steps(text):
            return None, None  # parsing it would cost far more than evaluating may
        source = b"int __cursedlint_macro__ = (" + text + b"\n);"
        tree = parse(source, self.context.language)
        declaration = _only_child(tree.root_node)
        if tree.root_node.has_error or declaration is None or declaration.type != "declaration":
            return None, None
        initializer = declaration.child_by_field_name("declarator").child_by_field_name("value")
        if (initializer is None or initializer.type != "parenthesized_expression"
                or initializer.end_byte != len(source) - 1):
            return None, None  # the body does not stand alone: `1) + (2`
        return tree, _only_child(initializer)

    def _lookup(self, name: str, qualifier: tuple, anchor, tables: str) -> tuple[Any, list]:
        """(key, declarations) that `name` refers to at `anchor`: the innermost visible
        block-scoped one, else those of the innermost enclosing namespace or class declaring
        it. Equal keys mean equal declarations. `tables`: "names", "tags" or "types"."""
        blocks, paths = self._declarations(tables, name)
        if not qualifier:
            visible = [(block.start_byte, definition.owner.start_byte, definition)
                       for block, definition in blocks
                       if block.start_byte <= anchor.start_byte < block.end_byte
                       and definition.owner.start_byte <= anchor.start_byte]
            if visible:
                best = max(visible, key=lambda item: item[:2])[2]
                return best, [best]
        return self._in_paths(tables, name, self._targets(qualifier, anchor) if paths else ())

    def _targets(self, qualifier: tuple, anchor) -> list[tuple]:
        """The namespace/class paths a (qualified) name used at `anchor` may live in, innermost
        first."""
        if qualifier[:1] == ("",):
            return [qualifier[1:]]
        usage = self._scope_path(anchor)
        return [usage[:depth] + qualifier for depth in range(len(usage), -1, -1)]

    def _in_paths(self, tables: str, name: str, targets) -> tuple[Any, list]:
        """(key, declarations) of `name` in the first of `targets` declaring it."""
        paths = self._declarations(tables, name)[1]
        for target in targets:
            if target in paths:
                return (tables, name, target), paths[target]
        return None, []

    def _found(self, name: str, qualifier: tuple, anchor, tables: str) -> list[tuple]:
        """[(evaluator, key, declarations)] `name` refers to at `anchor`: the file's, or where
        the file has none, those of each header declaring it (at the header's end)."""
        key, defs = self._lookup(name, qualifier, anchor, tables)
        if defs or not self.extra:
            return [(self, key, defs)]
        targets = self._targets(qualifier, anchor)
        found = [(header, *header._in_paths(tables, name, targets)) for header in self.extra]
        return [item for item in found if item[2]]

    def _derived(self, name: str, qualifier: tuple, anchor, tables: str, purpose: str,
                 default: Any) -> Any:
        """The value ("value"), type ("type") or sizeof type ("sizeof") of what `name` names
        at `anchor`, agreed by all its declarations, else `default`."""
        answers = {self._ask(owner, lambda: owner._agreed(
            (purpose, key), defs, getattr(owner, _DERIVE[purpose]), default))
            for owner, key, defs in self._found(name, qualifier, anchor, tables)}
        return _single(answers, default)

    def _declarations(self, tables: str, name: str) -> tuple[list, dict]:
        """The declarations of a name sorted out once: [(block, declaration)] of block-scoped
        ones and {namespace/class path: [declaration]} of the others."""
        key = ("declarations", tables, name)
        if key not in self._memo:
            named = self._name(name)
            names, tags = named.declared, named.tags
            sources = {"names": (names,), "tags": (tags,),
                       "types": (names, tags) if self.cpp else (names,)}
            blocks, paths = [], defaultdict(list)
            for table in sources[tables]:
                for definition in table:
                    scope = self._scope(definition)
                    if scope is not None and scope[0] is not None:
                        blocks.append((scope[0], definition))
                    elif scope is not None:
                        for path in scope[1]:
                            paths[path].append(definition)
            self._memo[key] = blocks, dict(paths)
        return self._memo[key]

    def _agreed(self, key: tuple, defs: list, derive, default: Any) -> Any:
        """What derive(declaration) gives for all of `defs` if they agree, else `default`.
        Memoised by the lookup key, unless another definition is being worked out meanwhile
        (an enumerator used inside its own enum has a value but not its final type yet)."""
        if key in self._memo:
            return self._memo[key]
        result = _single({derive(d) for d in defs}, default) if defs else default
        if not self._busy:
            self._memo[key] = result
        return result

    def _scope(self, definition: _Def) -> Any:
        if definition.scope is _UNRESOLVED:
            definition.scope = self._compute_scope(definition)
        return definition.scope

    def _compute_scope(self, definition: _Def) -> Any:
        owner = definition.owner
        if definition.kind == "param":
            block = self._parameter_block(owner)
            return (block, frozenset()) if block is not None else None
        block = next((found for found in self.context.ancestors(owner)
                      if found.type in _BLOCKS), None)
        if block is not None:
            return block, frozenset()
        path = self._scope_path(owner)
        if definition.kind != "enumerator" or not self.cpp:
            return None, frozenset({path + definition.qualifier})
        enum = owner.parent.parent
        enum_name = enum.child_by_field_name("name")
        if enum_name is None:
            return None, frozenset({path})
        scoped = any(child.type in ("class", "struct") for child in enum.children)
        named = path + (self.context.text(enum_name),)
        return None, frozenset({named} if scoped else {path, named})

    def _parameter_block(self, owner):
        """The function, lambda, catch clause, loop or template a parameter belongs to; None for
        a prototype's parameter."""
        if owner.type == "for_range_loop":
            return owner
        holder = owner.parent
        if holder.type == "template_parameter_list":
            return holder.parent
        if holder.type != "parameter_list":
            return None
        holder = holder.parent
        if holder.type == "catch_clause":
            return holder
        while holder is not None and holder.type.endswith("declarator"):
            holder = holder.parent
        if holder is not None and holder.type in ("function_definition", "lambda_expression"):
            return holder
        return None

    def _scope_path(self, node) -> tuple[str, ...]:
        """The C++ namespaces and classes `node` is in, outermost first (always () in C)."""
        if not self.cpp:
            return ()
        parts: list[str] = []  # innermost first
        child = node
        for ancestor in self.context.ancestors(node):
            kind = ancestor.type
            if kind == "namespace_definition":
                name = ancestor.child_by_field_name("name")
                if name is not None:
                    parts.extend(reversed(self.context.text(name).replace(" ", "").split("::")))
            elif kind in _RECORDS and child.type == "field_declaration_list":
                name = ancestor.child_by_field_name("name")
                if name is not None:
                    parts.append(self.context.text(name))
            elif kind == "function_definition":  # `void C::f() {...}` is in C's scope
                names = _declared_names(ancestor.child_by_field_name("declarator"))
                split = _split_name(names[0]) if names else None
                if split and split[1][:1] != ("",):
                    parts.extend(reversed(split[1]))
            child = ancestor
        return tuple(reversed(parts))

    def _def_value(self, definition: _Def) -> _Value:
        if definition.kind == "enumerator":
            return self._enumerator_value(definition.owner)
        if definition.kind in ("var", "member"):
            return self._cached(("variable", definition.node.id),
                                lambda: self._variable_value(definition), _NOTHING)
        if definition.kind == "param":
            kind = self._def_type(definition)
            return _Value(UNKNOWN, kind if isinstance(kind, _Int) else None)
        return _NOTHING

    def _variable_value(self, definition: _Def) -> _Value:
        owner = definition.owner
        declared = self._def_type(definition)
        unknown = _Value(UNKNOWN, declared if isinstance(declared, _Int) else None)
        specifiers = {self.context.text(child) for child in owner.children
                      if child.type in ("type_qualifier", "storage_class_specifier")}
        constant = bool(specifiers & {"const", "constexpr"})
        initializer = self._initializer(definition)
        if initializer is not None and initializer.type in ("initializer_list", "argument_list"):
            initializer = _only_child(initializer)  # int n{4}, int n(4)
        if (initializer is None or "volatile" in specifiers or not _is_plain(definition.node)
                or (definition.kind == "member" and not (constant and "static" in specifiers))):
            return unknown
        if not constant and (self._scope(definition)[0] is None or self._is_modified(definition)):
            return unknown
        value = self._eval(initializer, _Env(owner))
        if owner.child_by_field_name("type").type == "placeholder_type_specifier":
            return value  # auto: the initializer's type
        return _converted(declared, value)

    def _initializer(self, definition: _Def):
        node, owner = definition.node, definition.owner
        if node.type == "init_declarator":
            return node.child_by_field_name("value")
        if definition.kind == "member" and len(owner.children_by_field_name("declarator")) == 1:
            return owner.child_by_field_name("default_value")
        return None

    def _is_modified(self, definition: _Def) -> bool:
        """Whether a local may change after its declaration (by name: a shadowing local's
        changes count too)."""
        block = self._scope(definition)[0]
        return any(definition.node.start_byte <= position < block.end_byte
                   for position in self._name(definition.name).modified)

    def _enumerator_value(self, enumerator) -> _Value:
        enumerators = enumerator.parent
        values = self._cached(("enumerators", enumerators.id),
                              lambda: self._enumerator_values(enumerators), None)
        if values is None:  # used inside its own enum: the value so far, with its type then
            return self._memo.get(("enumerator", enumerator.id), _NOTHING)
        value = values.get(enumerator.id, _NOTHING)
        if not self.cpp:
            return value
        enum = enumerators.parent
        scoped = any(child.type in ("class", "struct") for child in enum.children)
        kind = self._fixed_type(enum) or self._cached(
            ("promoted", enumerators.id), lambda: _promoted_enum_type(values.values()), None)
        return _Value(value.value, kind and kind._replace(enum="scoped" if scoped else "unscoped"))

    def _enumerator_values(self, enumerators) -> dict[int, _Value]:
        """Enumerator id -> value, in order; each is also memoised as it is computed, for the
        enumerators after it that refer to it."""
        fixed = self._fixed_type(enumerators.parent)
        values, previous = {}, _Value(-1, _INT)
        for enumerator in _items(enumerators):
            if enumerator.type != "enumerator":
                if not _adds_nothing(enumerator):
                    previous = _NOTHING  # an #if, #include or unreadable text may add enumerators
                continue
            explicit = enumerator.child_by_field_name("value")
            if explicit is not None:
                value = self._eval(explicit, _Env(enumerator))
            elif previous.value is UNKNOWN:
                value = _NOTHING
            else:
                value = _Value(previous.value + 1, previous.type)
            if fixed is not None:
                value = _converted(fixed, value)
            elif value.value is UNKNOWN:
                value = _NOTHING
            elif not self.cpp or value.type is None or not value.type.holds(value.value):
                value = _Value(value.value, _INT if _INT.holds(value.value) else None)
            values[enumerator.id] = self._memo[("enumerator", enumerator.id)] = value
            previous = value
        return values

    def _fixed_type(self, enum) -> _Int | None:
        """The underlying type written in `enum E : uint8_t`, or None."""
        base = enum.child_by_field_name("base") or enum.child_by_field_name("underlying_type")
        if base is None:
            return None
        kind = self._cached(("fixed", enum.id), lambda: self._base_type(base, enum), None)
        return kind if isinstance(kind, _Int) else None

    # -- types ---------------------------------------------------------------------------------

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
        fields = self._ask(record.owner, lambda: record.owner._fields(record.node))
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
                    else _Record(owner, self))
        if definition.kind != "typedef":
            return _NO_TYPE
        if owner.type == "alias_declaration":
            return self._descriptor_type(owner.child_by_field_name("type"), owner)
        return self._cached(("typedef", definition.node.id),
                            lambda: self._typedef_type(definition), _NO_TYPE)

    def _typedef_type(self, definition: _Def) -> Any:
        owner = definition.owner
        if owner.has_error or self.context.captures(_ATTRIBUTE_QUERY, owner):
            return _NO_TYPE  # aligned or packed typedefs
        return self._declared_type(owner.child_by_field_name("type"), definition.node, owner)

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
                return _Record(node, self) if kind in _RECORDS else self._enum_type(node)
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

    # -- layouts -------------------------------------------------------------------------------

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
            return self._ask(record.owner, lambda: record.owner._layout(record.node))
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
        breakers = _LAYOUT_BREAKERS[self.context.language]
        if (fields is None or self._packed or self.context.captures(breakers, record)
                or self._attribute_macro_after(record)):
            return UNKNOWN, UNKNOWN
        if not fields:  # C leaves empty structs undefined; C++ gives them one byte
            return (1, 1) if self.cpp else (UNKNOWN, UNKNOWN)
        union = record.type == "union_specifier"
        offset, alignment = 0, 1
        for _, kind in fields:
            size, align = self._size(kind), self._align(kind)
            if size is UNKNOWN or align is UNKNOWN:
                return UNKNOWN, UNKNOWN
            offset = max(offset, size) if union else _round_up(offset, align) + size
            alignment = max(alignment, align)
        return _round_up(offset, alignment), alignment

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
            return [(None, _Record(type_node, self))] if type_node.type in _RECORDS else []
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


def _field_path(node) -> tuple[str, ...] | None:
    """(root, member, ...) of a name or a member access chain on one (`s->a.b`), else None."""
    root, members, exact = _access(node)
    return (root, *members) if root is not None and exact else None


def _access(node) -> tuple[str | None, tuple[str, ...], bool]:
    """(root name or None, members, exact) of an lvalue: `exact` is False where the access goes
    through a subscript, a dereference or a cast, which may reach any member."""
    members: list[str] = []  # last first
    exact = True
    while True:
        if node.type == "field_expression":
            members.append(node.child_by_field_name("field").text.decode())
        elif node.type in ("subscript_expression", "pointer_expression", "cast_expression"):
            exact = False
        elif node.type != "parenthesized_expression" or _only_child(node) is None:
            break
        node = (node.child_by_field_name("argument") or node.child_by_field_name("value")
                or _only_child(node))
    root = node.text.decode() if node.type == "identifier" else None
    return root, tuple(reversed(members)), exact


def _target_of(node) -> _Target:
    root, members, exact = _access(node)
    field = node.child_by_field_name("field") if node.type == "field_expression" else None
    return _Target(root and sys.intern(root), tuple(map(sys.intern, members)), exact,
                   field.text.decode() if field is not None else None)


def _may_alias(target: _Target, path: tuple) -> bool:
    """Whether writing to (or through the address of) `target` may change `path`: the same
    root and not a different member, or a member of the same name of another object."""
    if target.root == path[0]:
        return not target.exact or all(a == b for a, b in zip(target.members, path[1:]))
    return len(path) > 1 and target.field == path[-1]


def _escapes(target: _Target, path: tuple, escaped: set) -> bool:
    """Whether a write to `target`, not on the path's root, may reach memory other names see:
    it goes through a pointer or subscript, or its variable's address is taken (`escaped`)."""
    return target.root != path[0] and (not target.exact or target.root in escaped)


def _declarator_chain(declarator) -> list:
    """The declarator and those inside it, down to the name."""
    chain = []
    while declarator is not None and declarator.type not in _NAMES:
        chain.append(declarator)
        declarator = _inner_declarator(declarator)
    return chain


def _plain_assignments(statement) -> list:
    """The assignment of a statement `target = value;`: [assignment], else []."""
    if statement.type != "expression_statement":
        return []
    return [expression for expression in children(statement)
            if expression.type == "assignment_expression"
            and expression.child_by_field_name("operator").type == "="]


def _leads_to(parent, child) -> bool:
    """Whether the names the declarator `parent` declares are found through `child` (see
    _declared_names)."""
    if parent.type == "structured_binding_declarator":
        return child.type == "identifier"
    return _declarator_like(parent.type) and _inner_declarator(parent) == child


def _declarator_like(kind: str) -> bool:
    """Whether a node of this kind may stand between a declaration and the name it declares."""
    return kind.endswith("declarator") or kind in ("template_function", "operator_cast")


def _promoted_enum_type(values) -> _Int | None:
    """The type C++ promotes an enum without fixed underlying type to: the first of int,
    unsigned, long, unsigned long that holds all of its values."""
    numbers = [value.value for value in values]
    if UNKNOWN in numbers:
        return None
    return next((kind for kind in (_INT, _UINT, _LONG, _ULONG)
                 if all(kind.holds(number) for number in numbers)), None)


def _looks_like_macro(name: str) -> bool:
    """A reserved (`__x`, `_X`) or all-capitals identifier: not a program's variable."""
    return name.startswith("__") or (name[:1] == "_" and name[1:2].isupper()) or name.isupper()


def _round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _target(kind) -> Any:
    """What a pointer points to, or an array's element."""
    if isinstance(kind, _Pointer):
        return kind.target
    if isinstance(kind, _Array):
        return kind.element
    return _NO_TYPE


def _converted(target, operand: _Value) -> _Value:
    """A value converted to an integer type (a cast, an initialization)."""
    if not isinstance(target, _Int):
        return _NOTHING
    return _Value(target.convert(operand.value), target)


def _single(found: set, default: Any) -> Any:
    """The one answer all definitions agree on, else `default`."""
    return next(iter(found)) if len(found) == 1 else default


def _is_whole_expression(node) -> bool:
    """Whether an expression stands where any expression text would be read as a whole."""
    parent = node.parent
    if parent is None or parent.type in _WHOLE_EXPRESSION_PARENTS:
        return True
    return parent.type == "subscript_expression" and parent.child_by_field_name("index") == node


_DERIVE = {"value": "_def_value", "type": "_def_as_type", "sizeof": "_def_type"}

_EXPRESSIONS = {
    "number_literal": CConstants._number,
    "char_literal": CConstants._character,
    "true": CConstants._boolean,
    "false": CConstants._boolean,
    "parenthesized_expression": CConstants._inner,
    "extension_expression": CConstants._inner,
    "unary_expression": CConstants._unary,
    "binary_expression": CConstants._binary,
    "conditional_expression": CConstants._conditional,
    "cast_expression": CConstants._cast,
    "call_expression": CConstants._call,
    "compound_literal_expression": CConstants._compound_literal,
    "sizeof_expression": CConstants._sizeof_value,
    "alignof_expression": CConstants._alignof_value,
    "identifier": CConstants._name_value,
    "field_expression": CConstants._member_value,
    "qualified_identifier": CConstants._name_value,
}
