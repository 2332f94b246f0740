"""The Cython front end: a `.pyx`/`.pxd`/`.pxi` file as Python text of the same lines and
columns, parsed with `ast`, and the facts Python cannot hold (`CythonFacts`).

Chosen by measurement (`benchmarks/RESULTS.md`, 2026-11-28): Cython's own parser read CuPy's
tree at about 4x the time of `ast.parse` per MB, failed on every file with an `include`
(`runtime.pyx`, where CuPy hands Python objects to `cudaLaunchHostFunc`) and gives a tree no
Python rule reads; no maintained tree-sitter Cython wheel exists (the language pack downloads
its grammars at run time). Translating keeps one tree for every Python rule and adds no
dependency.

`translate` rewrites only what is not Python, each edit the same length as what it replaces
and on the same line, so every node keeps the line and column it has in the Cython file:
- `cdef`/`cpdef` functions become `def` (return type, modifiers, `nogil`, `except ...`,
  `noexcept`, `with gil` blanked); C types of parameters are blanked, in `def` too
  (`double[:, ::1] a not None` -> `a`); `cdef class` -> `class`; `property x:` -> `class x:`;
- a C variable declaration `cdef int *p = q, n` becomes `0;` and its declarators
  (`0;     p = q; n`); `cdef:` blocks -> `if 1:` with their lines read as declarations;
- `cdef extern from` blocks, `struct`/`union`/`enum`/`cppclass`/`ctypedef ...:` blocks and
  one-line `ctypedef`s and `include`s become `pass` (extern blocks and `ctypedef`s are read
  for `externs` and `callback_types` first);
- `cimport` -> `import`; `DEF X = v` -> `0;  X = v`; `IF`/`ELIF`/`ELSE` -> `if`/`elif`/`else`;
- casts `<T*>x` and `&x` are blanked (kept in `casts` and `addresses` by the operand's
  position), as are `*` closing a type (`sizeof(int*)`), `new`, and `from ... by n` loops.
`with nogil:`/`with gil:` blocks are Python already (a `With` of the name `nogil`/`gil`).

Not read: the declarations inside extern/struct blocks as Python (they are facts only), the
files an `include` names (their declarations do not reach the including file), the value of
compile-time `DEF`/`IF` (both branches are read), C++ operators (`dereference`, `++`), and
Python 2 syntax (a `print x` statement is a syntax error, CUR001, as in Cython 3).
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import NamedTuple

from msgspec import Struct

from cursedlint.source import parse_python

class CParam(NamedTuple):
    """A parameter of a C function: its C type (empty for an untyped Python object), name,
    and whether it is a C function pointer (`void (*cb)(void*)`, or a type that names one)."""

    type: str
    name: str
    callback: bool


class CFunction(Struct, frozen=True):
    """A `cdef`/`cpdef` function of the module: where its header is, its C parameters, and
    how it meets the GIL (`nogil`: callable without it; `with_gil`: takes it on entry)."""

    name: str
    line: int
    kind: str
    params: tuple[CParam, ...]
    nogil: bool
    with_gil: bool


class CythonFacts(Struct):
    """What the Python tree of a Cython file does not say. Positions are (line, column) in
    the file, as `ast` gives them (columns in UTF-8 bytes of the line)."""

    functions: dict[str, CFunction]
    """cdef/cpdef functions by name (the last of a name wins, as Cython's scoping does)."""
    externs: dict[str, tuple[CParam, ...]]
    """C functions declared in `cdef extern from` blocks (or `cdef extern` lines): name ->
    parameters."""
    callback_types: frozenset[str]
    """`ctypedef` names of C function pointer types (`ctypedef void (*F)(void*)`, or
    `ctypedef G* F` of a function type `ctypedef void G(void*)`)."""
    casts: dict[tuple[int, int], str]
    """Operand position -> the type a `<T>` cast gives it (`void*`, `object`, `HostFn`)."""
    addresses: frozenset[tuple[int, int]]
    """Operand positions of `&x`."""
    declared: dict[tuple[int, str], str]
    """(line of the enclosing function's or class's header, or 0 for the module; name) -> the
    C type declared for a local, parameter, attribute or global (`object` and Python types
    included)."""
    includes: tuple[str, ...]

    def cast_of(self, node: ast.AST) -> str | None:
        """The type a cast gives `node` (`<void*>obj` -> "void*"), or None."""
        return self.casts.get((getattr(node, "lineno", 0), getattr(node, "col_offset", -1)))

    def c_type(self, scope_line: int, name: str) -> str | None:
        """The C type declared for `name` in the function whose header is on `scope_line`
        (0: the module), else at module level; None for an untyped name."""
        return self.declared.get((scope_line, name)) or self.declared.get((0, name))

    def is_callback_type(self, type_text: str) -> bool:
        base = type_text.replace("*", " ").split()
        return bool(base) and base[-1] in self.callback_types

    def is_data_pointer(self, node: ast.AST) -> bool:
        """Whether `node` is cast to a pointer that is not a function's (`<void*>obj`)."""
        cast = self.cast_of(node)
        return cast is not None and cast.endswith("*") and "(*)" not in cast and \
            not self.is_callback_type(cast)


PYTHON_OBJECT_TYPES = frozenset({
    "object", "tuple", "list", "dict", "set", "frozenset", "str", "bytes", "unicode",
    "bytearray", "type",
})
"""C declarations whose value is still a Python object."""

# -- scanning --------------------------------------------------------------------------------------

_TOKENS = re.compile(
    r"""(?P<str>(?<![\w.])[rRbBuUfFcC]{0,2}(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''"""
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))|(?P<com>\#[^\n]*)""",
    re.S,
)


_FIELDS = re.compile(r"(?<!\{)\{(?!\{)([^{}\n]*)\}")


def _masked(text: str) -> str:
    """`text` with string contents as `S` (a newline in a string as NUL: the string stays on
    its logical line) and comments as spaces: what the translation matches against, so that
    nothing inside a string is ever rewritten. Offsets are the text's."""
    def mask(match: re.Match) -> str:
        if match.lastgroup == "com":
            return " " * len(match[0])
        masked = re.sub(r"[^\n]", "S", match[0]).replace("\n", "\0")
        quote = re.search("[\"']", match[0]).start()
        if "f" not in match[0][:quote].lower() or "{" not in match[0]:
            return masked
        fields = [(field.start(1), field.end(1)) for field in _FIELDS.finditer(match[0])]
        pieces, at = [], 0
        for begin, end in fields:  # an f-string's fields are code (casts are rewritten there)
            pieces += [masked[at:begin], match[0][begin:end]]
            at = end
        return "".join(pieces) + masked[at:]
    return _TOKENS.sub(mask, text)


def _logical_lines(masked: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each logical line of the masked text (brackets and
    backslashes join physical lines; a triple-quoted string's newlines are inside a line)."""
    lines, start, depth, position = [], 0, 0, 0
    length = len(masked)
    while position < length:
        end = masked.find("\n", position)
        if end < 0:
            end = length
        segment = masked[position:end]
        depth += sum(map(segment.count, "([{")) - sum(map(segment.count, ")]}"))
        if depth <= 0 and not segment.endswith("\\"):
            lines.append((start, end))
            start, depth = end + 1, 0
        position = end + 1
    if start < length:
        lines.append((start, length))
    return lines


_NAME = r"[A-Za-z_]\w*"
_CAST = re.compile(
    r"<\s*(?:const\s+)?(?P<type>[\w\s.*]*\(\s*\*\s*\)\s*\([^<>()]*\)[\w\s]*|"
    + _NAME + r"(?:\s*\.\s*" + _NAME + r")*(?:\s+" + _NAME + r")*"
    r"(?:\s*\[(?:[^\[\]<>]|\[[^\[\]<>]*\])*\])?"  # template arguments, one level nested
    r"(?:\s*\*+(?:\s*const\b)?)*\s*\??)\s*>(?=\s*[\w(\[<&'\"-])")
_CAST_AFTER = re.compile(
    r"(?:^|[(\[{,=:!+\-*/%&|^~<>]|(?<!\w)(?:return|in|and|or|not|yield|if|else|is|lambda|"
    r"assert|await|del|print))$")
_C_INTEGER_SUFFIX = re.compile(r"(?<=[0-9a-fA-F])(?:[uU]?[lL]{1,2}|[lL]{1,2}[uU]|[uU])\b")
_C_INTEGER = re.compile(
    r"(?<![\w.])(?:0[xX][0-9a-fA-F]+|[0-9]+)(?:[uU]?[lL]{1,2}|[lL]{1,2}[uU]|[uU])\b")
_ADDRESS = re.compile(r"&(?=\s*[A-Za-z_(])")
_TYPE_STAR = re.compile(r"(?<=[\w\]\s*])\*+(?=\s*[,)\]])")
_SIZEOF_WORDS = re.compile(
    r"(?<=\bsizeof\()\s*(?:(?:unsigned|signed|long|short|const|struct|enum|union)\s+)+(?=\w)")
_NEW = re.compile(r"(?<![\w.])new\s+(?=" + _NAME + ")")
_FROM_LOOP = re.compile(r"^(\s*for\s+" + _NAME + r"\s+)from(\s.*?)(\bby\b[^:]*)?:")
_MODIFIERS = frozenset({
    "inline", "public", "api", "readonly", "extern", "static", "const", "volatile", "unsigned",
    "signed", "long", "short", "packed", "nogil",
})
_BLOCK_KINDS = frozenset({"struct", "union", "enum", "cppclass", "fused"})
_EXTERN_FUNCTION = re.compile(
    r"^(?:cdef\s+|cpdef\s+)?(?P<ret>[\w.\s\[\],*&]*?[\w\]*&]\s*\**)\s*(?<!\w)(?P<name>" + _NAME +
    r")\s*\((?P<params>.*)\)")


class _Translation:
    """One file's translation: `out` is the text as a list of characters, edited in place
    (same length, same newlines)."""

    def __init__(self, text: str):
        self.out = list(text)
        if "\r" in text:  # a lone `\r` breaks a line, as in Python (same length: offsets hold)
            text = re.sub("\r(?!\n)", "\n", text)
        self.text = text
        self.masked = _masked(text)
        self.functions: dict[str, CFunction] = {}
        self.externs: dict[str, tuple[CParam, ...]] = {}
        self.raw_externs: list[tuple[str, str]] = []  # (name, parameter text)
        self.callback_types: set[str] = set()
        self.function_types: set[str] = set()
        self.typedef_aliases: list[tuple[str, str]] = []  # (new name, old type)
        self.casts: dict[tuple[int, int], str] = {}
        self.addresses: set[tuple[int, int]] = set()
        self.declared: dict[tuple[int, str], str] = {}
        self.includes: list[str] = []
        self.ascii_lines: dict[int, bool] = {}  # line -> whether it is ASCII (columns: bytes)
        self.line_starts = [0]
        self.line_starts.extend(m.end() for m in re.finditer("\n", text))

    # -- positions ---------------------------------------------------------------------------------
    def position(self, offset: int) -> tuple[int, int]:
        """(line, UTF-8 column) of an offset, as `ast` reports a node that starts there."""
        line = bisect.bisect_right(self.line_starts, offset)
        start = self.line_starts[line - 1]
        ascii_line = self.ascii_lines.get(line)
        if ascii_line is None:
            end = self.text.find("\n", start)
            ascii_line = self.ascii_lines[line] = self.text[start:end if end >= 0 else None] \
                .isascii()
        if ascii_line:
            return line, offset - start
        return line, len(self.text[start:offset].encode("utf-8", "surrogatepass"))

    def put(self, start: int, replacement: str) -> None:
        self.out[start:start + len(replacement)] = replacement

    def blank(self, start: int, end: int, keep: str = "") -> None:
        """Spaces over [start, end), newlines kept; `keep` written at the start (`pass` where
        it does not fit on the first line)."""
        for index in range(start, end):
            if self.text[index] not in "\r\n":
                self.out[index] = " "
        if keep:
            room = self.text.find("\n", start, end)
            room = (end if room < 0 else room) - start
            self.put(start, keep if len(keep) <= room else "pass")


def translate(text: str) -> tuple[str, CythonFacts]:
    """The Python text of Cython `text` (same lines and columns) and the Cython facts."""
    work = _Translation(text)
    masked = work.masked
    scopes: list[tuple[int, int]] = [(-1, 0)]  # (indent, header line) of enclosing defs, classes
    block: tuple[str, int] | None = None  # ("skip" | "declare" | "extern", indent)
    for start, end in _logical_lines(masked):
        line = masked[start:end]
        stripped = line.lstrip()
        if not stripped.strip(" \t\r\\"):
            continue
        indent = len(line) - len(stripped)
        if block is not None:
            if indent > block[1]:
                if block[0] == "declare":
                    if not _c_function(work, start + indent, end, stripped.rstrip(), indent,
                                       scopes, "", 0):
                        _declaration(work, start + indent, end, "", scopes[-1][1])
                    continue
                if block[0] == "extern":
                    _extern_declaration(work, " ".join(stripped.split()))
                work.blank(start, end)
                continue
            block = None
        while scopes[-1][0] >= indent:
            scopes.pop()
        block = _statement(work, start + indent, end, stripped.rstrip(), indent, scopes)
    _resolve_externs(work)
    facts = CythonFacts(
        functions=work.functions, externs=work.externs,
        callback_types=frozenset(work.callback_types), casts=work.casts,
        addresses=frozenset(work.addresses), declared=work.declared,
        includes=tuple(work.includes))
    return "".join(work.out), facts


def parse_cython(text: str) -> tuple[ast.Module, CythonFacts]:
    """The ast of a Cython file's Python translation, and its facts. Raises what
    `parse_python` raises (a SyntaxError's position is the Cython file's)."""
    python, facts = translate(text)
    return parse_python(python), facts


def _statement(work: _Translation, start: int, end: int, line: str, indent: int,
               scopes: list[tuple[int, int]]) -> tuple[str, int] | None:
    """Translate one logical line (`line`: its masked text from the first non-blank, from
    offset `start`); the block it opens whose lines are not Python, if any."""
    head = line.split(None, 1)[0].rstrip(":")
    if head in ("cdef", "cpdef"):
        return _cdef(work, start, end, line, indent, scopes)
    if head == "ctypedef":
        _ctypedef(work, " ".join(line.split()))
        work.blank(start, end, "pass" if not line.endswith(":") else "if 1: pass")
        return ("skip", indent) if line.endswith(":") else None
    if head == "include":
        work.includes.append(work.text[start:end].split(None, 1)[-1].strip().strip("'\""))
        work.blank(start, end, "pass")
        return None
    if head == "cimport":
        work.put(start, "import  ")
    elif head == "from" and " cimport " in line:
        work.put(start + line.index(" cimport "), "  import ")
    elif head == "DEF":
        work.put(start, "0;  ")
    elif head in ("IF", "ELIF", "ELSE"):
        work.put(start, head.lower())
    elif head == "property" and re.match(r"property\s+" + _NAME + r"\s*:", line):
        work.put(start, "class   ")
    elif head in ("def", "async") and "(" in line:
        _function_parameters(work, start, line, None)
        scopes.append((indent, work.position(start)[0]))
    elif head == "class":
        scopes.append((indent, work.position(start)[0]))
    elif head == "for" and " from " in line:
        loop = _FROM_LOOP.match(line)
        if loop:
            work.put(start + loop.start(2) - 4, "in  ")
            if loop[3]:
                work.blank(start + loop.start(3), start + loop.end(3))
    _expressions(work, start, end)
    return None


def _cdef(work: _Translation, start: int, end: int, line: str, indent: int,
          scopes: list[tuple[int, int]]) -> tuple[str, int] | None:
    """A line that starts with `cdef`/`cpdef`: a class, a block of declarations, an extern
    block, a struct-like block, a function (definition or declaration) or variables."""
    keyword = line.split(None, 1)[0].rstrip(":")
    rest = line[len(keyword):]
    words = rest.split()
    position = len(keyword)
    while words and words[0] in ("public", "api", "readonly", "packed") and \
            not words[0].endswith(":"):
        position = line.index(words[0], position) + len(words[0])
        words = words[1:]
    if not words or words[0] == ":" or words[0] in ("public:", "readonly:", "api:"):
        work.blank(start, end, "if 1:")  # `cdef:`, `cdef public:`: a block of declarations
        return ("declare", indent)
    if words[0] == "extern":
        header = " ".join(line.split())
        if header.endswith(":"):
            work.blank(start, end, "if 1: pass")
            return ("extern", indent)
        _extern_declaration(work, re.sub(r"^c?p?def\s+extern\s+(from\s+\S+\s+)?", "", header))
        work.blank(start, end, "pass")
        return None
    if words[0] == "class":
        scopes.append((indent, work.position(start)[0]))  # (its attributes are its own)
        name_at = line.index("class", position)
        work.blank(start, start + name_at + 5, "class")
        bracket = line.find("[", name_at)
        colon = line.rfind(":")
        if bracket > 0 and (colon < 0 or bracket < colon):
            close = line.find("]", bracket)
            work.blank(start + bracket, start + close + 1)
        return None
    if words[0].rstrip(":") in _BLOCK_KINDS or words[0] == "enum:":
        if line.endswith(":"):
            work.blank(start, end, "if 1: pass")
            return ("skip", indent)
        work.blank(start, end, "pass")
        return None
    if not _c_function(work, start, end, line, indent, scopes, keyword, position):
        _declaration(work, start, end, keyword, scopes[-1][1])
    return None


def _c_function(work: _Translation, start: int, end: int, line: str, indent: int,
                scopes: list[tuple[int, int]], keyword: str, position: int) -> bool:
    """A C function's header (`keyword`: `cdef`, `cpdef`, or "" in a `cdef:` block) made a
    `def` (a declaration: `def f():0`, or `pass`); False when `line` declares no function."""
    function = _function_head(line, position)
    if function is None:
        return False
    name_at, open_at, close_at = function
    tail = line[close_at + 1:]
    colon = close_at + 1 + tail.find(":") if ":" in tail else -1
    header_line = work.position(start)[0]
    params = _function_parameters(work, start, line, (open_at, close_at))
    modifiers = " ".join(tail[:colon - close_at - 1].split()) if colon > 0 else tail
    name = line[name_at:open_at].strip()
    work.functions[name] = CFunction(
        name, header_line, keyword or "cdef", params,
        nogil="nogil" in modifiers.split(), with_gil="with gil" in modifiers)
    if colon < 0:  # a declaration: `def f():0` where it fits (it may be decorated)
        work.blank(start, end, f"def {name}():0")
        return True
    work.blank(start, start + name_at, "def")
    work.blank(start + close_at + 1, start + colon)
    _expressions(work, start + colon + 1, end)
    scopes.append((indent, header_line))
    return True


def _function_head(line: str, position: int) -> tuple[int, int, int] | None:
    """(name offset, `(` offset, matching `)` offset) of a C function header after `cdef`;
    None for variables (a function pointer `void (*f)(int)` is one)."""
    index = position
    while True:
        open_at = line.find("(", index)
        if open_at < 0:
            return None
        close_at = _matching(line, open_at)
        if close_at < 0:
            return None
        before = line[position:open_at].rstrip()
        name = re.search(_NAME + "$", before)
        inside = line[open_at + 1:close_at].lstrip()
        if name is None:  # a tuple type `(int, int) f(...)`
            index = close_at + 1
            continue
        if inside.startswith(("*", "&")) or _top_index(line[position:open_at], "=") >= 0:
            return None
        return position + name.start(), open_at, close_at


def _matching(text: str, open_at: int) -> int:
    depth = 0
    for index in range(open_at, len(text)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _top_level(text: str):
    """(index, character) of the characters of `text` outside any bracket."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0:
            yield index, char


def _split_top(text: str, separator: str = ",") -> list[tuple[int, int]]:
    """(start, end) of the parts of `text` between top-level `separator`s."""
    parts, begin = [], 0
    for index, char in _top_level(text):
        if char == separator:
            parts.append((begin, index))
            begin = index + 1
    parts.append((begin, len(text)))
    return parts


def _function_parameters(work: _Translation, start: int, line: str,
                         parens: tuple[int, int] | None) -> tuple[CParam, ...]:
    """Blank the C types of a function's parameters (`int x`, `double[:, ::1] a not None`,
    `void (*cb)(void*)`), recording them; the parameters."""
    if parens is None:
        open_at = line.find("(")
        close_at = _matching(line, open_at)
        if close_at < 0:
            return ()
    else:
        open_at, close_at = parens
    inner = line[open_at + 1:close_at]
    base = start + open_at + 1
    params = []
    header_line = work.position(start)[0]
    for begin, finish in _split_top(inner):
        part = inner[begin:finish]
        if not part.strip():
            continue
        value_at = _top_index(part, "=")
        declarator = part if value_at < 0 else part[:value_at]
        suffix = re.search(r"\s+(?:not|or)\s+None\s*$", declarator)
        if suffix:
            work.blank(base + begin + suffix.start(), base + begin + suffix.end())
            declarator = declarator[:suffix.start()]
        pointer = re.search(r"\(\s*\*\s*(" + _NAME + r")\s*\)", declarator)
        if pointer:  # a function pointer parameter
            name_at, name = pointer.start(1), pointer[1]
            ctype = (declarator[:pointer.start()] + "(*)" + declarator[pointer.end():]).strip()
            work.blank(base + begin, base + begin + len(declarator))
            work.put(base + begin + name_at, name)
            params.append(CParam(" ".join(ctype.split()), name, True))
            work.declared[(header_line, name)] = ctype
            continue
        if ":" in declarator and "[" not in declarator:  # a Python annotation
            name = declarator.split(":")[0].strip().lstrip("*")
            params.append(CParam("", name, False))
            continue
        last = None
        for word in re.finditer(_NAME, declarator):
            if _depth_at(declarator, word.start()) == 0:
                last = word
        if last is None:
            continue
        ctype = declarator[:last.start()].strip()
        if ctype and not ctype.strip("*"):  # `*args`, `**kwargs`
            params.append(CParam("", last[0], False))
            continue
        if ctype:
            work.blank(base + begin, base + begin + last.start())
            array = declarator[last.end():]
            if array.strip().startswith("["):  # `unsigned char mac[6]`: a C array
                work.blank(base + begin + last.end(), base + begin + len(declarator))
                ctype += array.strip()
            work.declared[(header_line, last[0])] = " ".join(ctype.split())
        params.append(CParam(" ".join(ctype.split()), last[0], False))
        if value_at >= 0:
            _expressions(work, base + begin + value_at + 1, base + finish)
    return tuple(params)


def _top_index(text: str, char: str) -> int:
    """The index of the first top-level `char` of `text` (an `=` not part of a comparison);
    -1 when none."""
    for index, current in _top_level(text):
        if current == char and not (char == "=" and (
                text[index + 1:index + 2] == "=" or text[index - 1:index] in "!<>=")):
            return index
    return -1


def _depth_at(text: str, position: int) -> int:
    prefix = text[:position]
    return sum(map(prefix.count, "([{")) - sum(map(prefix.count, ")]}"))


def _declaration(work: _Translation, start: int, end: int, keyword: str,
                 scope_line: int) -> None:
    """`cdef TYPE a = v, *b` (or a line of a `cdef:` block, `keyword` ""): the type becomes
    `0;` and spaces, the declarators stay (`;` between them when one has a value)."""
    line = work.masked[start:end]
    first_value = _top_index(line, "=")
    head = line if first_value < 0 else line[:first_value]
    declarators = _split_top(head)
    first = head[declarators[0][0]:declarators[0][1]]
    name = None
    for word in re.finditer(_NAME, first):
        if _depth_at(first, word.start()) == 0 and word[0] not in ("cdef", "cpdef"):
            name = word
    if name is None:
        return
    ctype = first[len(keyword):name.start()].strip()
    words = [word for word in ctype.replace("*", " ").split() if word not in _MODIFIERS]
    if not words and not keyword:  # no type: not a declaration (a `cdef:` block's Python)
        _expressions(work, start, end)
        return
    if name.start() < 2:
        return
    work.blank(start, start + name.start(), "0;")
    base_type = " ".join(word for word in ctype.split() if word not in ("public", "readonly"))
    parts = _split_top(line)
    has_value = any(_top_index(line[a:b], "=") >= 0 for a, b in parts)
    for index, (begin, finish) in enumerate(parts):
        part = line[begin:finish]
        words = re.findall(_NAME, part.split("=")[0])
        if words:
            stars = part.split("=")[0].count("*")
            work.declared[(scope_line, words[-1])] = base_type + "*" * (stars if index else 0)
        if index:
            if has_value:
                work.put(start + begin - 1, ";")
            star = re.match(r"\s*\*+", part)
            if star:
                work.blank(start + begin, start + begin + star.end())
    _expressions(work, start + name.start(), end)


def _expressions(work: _Translation, start: int, end: int) -> None:
    """Casts, address-of, type stars and `new` in code between two offsets."""
    masked = work.masked
    segment = masked[start:end]
    if "<" in segment:
        for match in _CAST.finditer(segment):
            if not _CAST_AFTER.search(_before(segment, match.start())):
                continue  # `a < b > c`: a comparison
            operand = start + match.end()
            while operand < end and masked[operand] in " \t":
                operand += 1
            work.casts[work.position(operand)] = "".join(match["type"].split())
            at_start = match.start() == 0  # (where a statement starts: `0|` keeps it one)
            work.blank(start + match.start(), start + match.end(), "0|" if at_start else "")
    if "&" in segment:
        for match in _ADDRESS.finditer(segment):
            if not _CAST_AFTER.search(_before(segment, match.start())):
                continue  # `a & b`
            operand = start + match.end()
            while operand < end and masked[operand] in " \t":
                operand += 1
            work.addresses.add(work.position(operand))
            work.put(start + match.start(), " ")
    if "*" in segment:
        for match in _TYPE_STAR.finditer(segment):
            previous = _before(segment, match.start())
            if not previous or previous.endswith((",", "(")):
                continue  # `f(a, *args)`, a keyword-only `*,` on a line of its own
            work.blank(start + match.start(), start + match.end())
    if any(letter in segment for letter in "lLuU"):
        for match in _C_INTEGER.finditer(segment):
            suffix = _C_INTEGER_SUFFIX.search(match[0])
            work.blank(start + match.start() + suffix.start(), start + match.end())
    if "sizeof" in segment:
        for match in _SIZEOF_WORDS.finditer(segment):
            work.blank(start + match.start(), start + match.end())
    if "new" in segment:
        for match in _NEW.finditer(segment):
            work.blank(start + match.start(), start + match.start() + 3)


def _before(segment: str, index: int) -> str:
    """The last few characters before `index` on its line, spaces before `index` skipped
    (empty at the line's start): enough to tell an operator or keyword (`return <int>x`)
    from an operand (`a < b`), read in time bounded by the spaces skipped."""
    at = index
    while at > 0 and segment[at - 1] in " \t":
        at -= 1
    if at == 0 or segment[at - 1] == "\n":
        return ""
    return segment[max(at - 8, segment.rfind("\n", max(0, at - 8), at) + 1, 0):at]


# -- extern declarations ---------------------------------------------------------------------------


def _ctypedef(work: _Translation, line: str) -> None:
    """`ctypedef void (*F)(void*)`, `ctypedef void G(void*)` (a function type), and
    `ctypedef G* F` / `ctypedef F H` (aliases, resolved at the end). `line` is one line."""
    body = _without_name_string(line[len("ctypedef"):].strip())
    body = re.sub(r"(?<!\w)S{2,}\s*$", "", body).strip()  # a name string the translation masked
    pointer = re.search(r"\(\s*\*\s*(" + _NAME + r")\s*\)\s*\(", body)
    if pointer:
        work.callback_types.add(pointer[1])
        return
    function = _function_type(body)
    if function and function[0].strip():
        work.function_types.add(function[1])
        return
    alias = re.match(r"(.*?)\b(" + _NAME + r")\s*$", body)
    if alias and alias[1].strip():
        work.typedef_aliases.append((alias[2], alias[1].strip()))


_CALLED_NAME = re.compile(r"\b(" + _NAME + r")\s*\(")
_FUNCTION_TAIL = re.compile(r"\s*(?:nogil|noexcept|except.*)?")
_EXCEPT_AFTER = re.compile(r"\)\s*except")


def _without_name_string(body: str) -> str:
    """`body` without a C name string at its end (`... 'cudaHostFn_t'`) and the blanks before
    it: what `re.sub(r"\\s*(['\"]).*?\\1\\s*$", "", body)` gives, found from the last
    quote (that pattern tried every quote of a line against every later one: its square)."""
    end = len(body.rstrip())
    if not end or body[end - 1] not in "'\"":
        return body
    opened = body.find(body[end - 1], 0, end - 1)
    return body if opened < 0 else body[:len(body[:opened].rstrip())]


def _function_type(body: str) -> tuple[str, str] | None:
    """(the text before the name, the name) where `body` declares a function type (`void
    G(void*) nogil`), or None: what `(.*?)\\b(NAME)\\s*\\(.*\\)\\s*(?:nogil|noexcept|except.*)?$`
    matches, read from the first `name(` (a later one is followed by fewer `)`: where the
    first fails, all do; the pattern tried each, each to the line's end)."""
    first = _CALLED_NAME.search(body)
    if first is None:
        return None
    opened = first.end()
    closed = body.rfind(")", opened)
    if closed < 0 or not (_FUNCTION_TAIL.fullmatch(body, closed + 1)
                          or _EXCEPT_AFTER.search(body, opened)):
        return None
    return body[:first.start()], first[1]


def _extern_declaration(work: _Translation, line: str) -> None:
    """One declaration of an extern block: a C function's prototype (kept by name), or a
    `ctypedef`."""
    line = re.sub(r"^(?:cdef|cpdef)\s+", "", line)
    line = re.sub(r"(?<=\w)\s+S{2,}(?=\s*\()", "", line)  # a C name, masked: `f "cf"(...)`
    if line.startswith("ctypedef"):
        _ctypedef(work, line)
        return
    match = _EXTERN_FUNCTION.match(line)
    if match is None or match["ret"].strip() in ("", "struct", "enum", "union", "cppclass"):
        return
    params = match["params"]
    if match["name"] in ("struct", "union", "enum"):
        return
    work.raw_externs.append((match["name"], params))


def _resolve_externs(work: _Translation) -> None:
    """The callback types after every alias of the file is known, then the extern functions'
    parameters."""
    changed = True
    while changed:
        changed = False
        for name, old in work.typedef_aliases:
            base = old.replace("*", " ").split()
            is_pointer = "*" in old
            if name in work.callback_types or not base:
                continue
            if base[-1] in work.callback_types and not is_pointer or \
                    base[-1] in work.function_types and is_pointer:
                work.callback_types.add(name)
                changed = True
    for name, text in work.raw_externs:
        params = []
        for begin, finish in _split_top(text):
            part = " ".join(text[begin:finish].split())
            if not part or part == "void" or part == "...":
                continue
            pointer = re.search(r"\(\s*\*\s*(" + _NAME + r")?\s*\)\s*\(", part)
            if pointer:
                params.append(CParam(part, pointer[1] or "", True))
                continue
            words = re.findall(_NAME, part)
            base = [word for word in words if word not in _MODIFIERS]
            typed = base[:-1] if len(base) > 1 and not part.rstrip().endswith("*") else base
            param_name = base[-1] if len(base) > 1 and typed is not base else ""
            ctype = part[:part.rfind(param_name)].strip() if param_name else part
            params.append(CParam(ctype, param_name, bool(typed) and
                                 (typed[-1] in work.callback_types or
                                  typed[-1] in work.function_types and "*" in ctype)))
        work.externs[name] = tuple(params)
