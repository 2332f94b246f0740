"""Parse-free facts about Python source bytes: the matchers behind the second looks'
shapes (`second_look`).

Every answer over-approximates: True where the fact may hold, False only where it cannot. Text
the scanner cannot read with certainty (an unterminated or nested-quote string, unbalanced
brackets, names in an encoding other than UTF-8, a call's chain broken by a comment) answers
True, so the file is parsed. Time is linear in the file: sites are found by Aho-Corasick, and
the reading around them is charged to a budget of READING_BUDGET bytes per byte of the file,
past which the answer is True too.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from functools import lru_cache
from itertools import chain
from typing import Iterable, Iterator

from ahocorasick_rs import BytesAhoCorasick

from cursedlint.triggers.byte_search import automaton, windows

MAX_RECEIVERS = 64
"""Distinct names a look searches the file for assignments of (a whole-file search each)."""
READING_BUDGET = 8
"""Bytes a look may read around call sites per byte of the file, before it answers 'may'."""

# String literals (any prefix: the prefix letters stay in the text, harmlessly) and comments.
_STRING_OR_COMMENT = re.compile(
    rb"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*'"
    rb'|"[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*"'
    rb"|#[^\r\n]*",
    re.S,
)
_HASH = ord("#")
_PREFIX_LETTERS = frozenset(b"rRbBuUfF")
_BRACE = re.compile(rb"[{}]")
_OPEN = ord("{")
_NON_ASCII = re.compile(rb"[\x80-\xff]+")
_BLANK_BYTES = frozenset(b" \t\r\n\f")
_DOT, _BACKSLASH, _NEWLINE, _CLOSE = ord("."), ord("\\"), ord("\n"), ord(")")
_NAME_BYTES = frozenset(
    b"_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + bytes(range(0x80, 0x100))
)
_NAME_CHARS = frozenset(bytes([byte]) for byte in _NAME_BYTES)
_OPENINGS, _CLOSINGS = frozenset(b"([{"), frozenset(b")]}")
_COMMA = ord(",")
_ASSIGNMENT = rb"(?<![\w\x80-\xff.])%s\s*(?::[^=:\r\n]*)?%s=(?!=)"
"""An assignment to a name (%s the escaped name, then `:?` to count walrus bindings too); an
annotation holds no `:`, so each search reads a line once."""
_CALL_ENDS = _NAME_BYTES | frozenset(b")]")  # what ends a callee right before its `(`
_ARGUMENT_TOKEN = re.compile(
    rb"(?P<quote>['\"])|(?P<comment>#[^\r\n]*)|(?P<name>[\w\x80-\xff]+)"
    rb"|(?P<mark>[()\[\]{},]|(?<![=!<>:])=(?!=))|(?P<spread>\*\*?)"
)
_QUOTES = (b"'", b'"')
_STRING = re.compile(_STRING_OR_COMMENT.pattern.rpartition(b"|")[0], re.S)  # strings only
_GAP = rb"(?:\s|\\|#[^\r\n]*(?![^\r\n]))*"
"""Blanks, line continuations and comments: each text splits into these in one way only (a
comment runs to its line's end), so a failed match tries no other split."""
_GAP_BYTES = frozenset(b" \t\r\n\f\\")
_NAME_CHAIN = re.compile(rb"%s[\w\x80-\xff]+(?:%s\.%s[\w\x80-\xff]+)*%s" % ((_GAP,) * 4))

_KEYWORDS = frozenset(word.encode() for word in keyword.kwlist)
_IMPORT = re.compile(rb"import(?=[ \t\\(])")  # literal first: a fast scan
_IMPORT_PARENTHESIS = re.compile(rb"[ \t]*\(")
_LOGICAL_LINE_END = re.compile(rb"(?<!\\)(?:\r\n|\r|\n)|;")
_AS_PAIR = re.compile(  # from a name's start only: a long name is read once, not per byte
    rb"(?<![\w\x80-\xff])([\w\x80-\xff]+)[ \t\r\n\f\\]+as[ \t\r\n\f\\]+([\w\x80-\xff]+)")


def _replacement_fields(token: bytes) -> list[bytes] | None:
    """The text inside the top-level `{...}` of an f-string token (quotes included); None when
    its braces do not balance."""
    quote = 3 if token[:3] in (b"'''", b'"""') and len(token) >= 6 else 1
    body = token[quote:-quote]
    braces = [brace.start() for brace in _BRACE.finditer(body)]
    fields, depth, begin, index = [], 0, 0, 0
    while index < len(braces):
        at = braces[index]
        opening = body[at] == _OPEN
        if depth == 0:
            doubled = index + 1 < len(braces) and braces[index + 1] == at + 1
            if doubled and body[at + 1] == body[at]:
                index += 2  # {{ or }} outside a field: a literal brace
                continue
            if not opening:
                return None
            depth, begin = 1, at + 1
        elif opening:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                fields.append(body[begin:at])
        index += 1
    return fields if depth == 0 else None


def has_call_with_arguments(
    data: bytes,
    callees: frozenset[bytes],
    *,
    modules: frozenset[bytes] = frozenset(),
    positional: int | None = None,
    keywords: frozenset[bytes] = frozenset(),
    any_receiver: bool = False,
) -> bool:
    """Whether Python source bytes may hold a call of one of `callees` with at least
    `positional` (> 1) positional arguments before its first keyword argument, or with one of
    `keywords` written as a keyword argument (with neither, any call). A call counts where an
    import table could resolve it: a bare callee, or one ending an attribute chain that begins
    with one of `modules` (with `any_receiver`, on any object); the names a callee or module is
    imported `as` count as it does. Names that are not ASCII are compared as the parser reads
    them (NFKC).

    Call sites are found in the raw bytes, strings and comments included (a site inside one is
    read as if it were code, which can only add answers); from each, the arguments are read
    token by token, strings and comments skipped, up to the closing parenthesis. What cannot be
    read with certainty (an unterminated string, an f-string whose braces do not balance,
    brackets that do not close, more reading than the file's budget) answers True."""
    if not data.isascii() and not _is_utf8(data):
        return True  # names in another encoding: unsure
    aliases = _import_aliases(data, callees | modules)
    names = callees | {alias for name, alias in aliases if name in callees}
    roots = modules | {alias for name, alias in aliases if name in modules}
    candidates = chain(
        _sites(data, frozenset(names)),
        (
            (start, start + len(name))
            for start, name in _non_ascii_names(data)
            if _normal(name) in names
        ) if _may_spell_otherwise(data, names) else (),
    )
    reader = _Reader(data)
    try:
        for start, end in candidates:
            if (start and data[start - 1] in _NAME_BYTES) or data[end : end + 1] in _NAME_CHARS:
                continue  # part of a longer name
            if reader.in_comment(start):
                continue  # commented out
            opening = reader.opening_after(end)
            if opening is None or not (any_receiver or reader.resolvable(start, roots)):
                continue  # not called, or a method of some other object
            if not (positional or keywords) or reader.arguments_match(opening, positional, keywords):
                return True
    except _Unsure:
        return True
    return False


def method_calls(data: bytes, called: bool = True) -> Iterator[tuple[int, str]]:
    """`(dot, name)` for every `.name(` in the bytes (blanks, line continuations and comments
    may stand between the parts, parentheses may close before the call's own: `(x.name)(`),
    outside lines a comment surely holds; the name as the parser reads it (NFKC). With
    `called` False, every `.name`, called or not (an alias may call it later). Past the
    file's reading budget, every later `.` counts as a call named by the name after it."""
    reader = _Reader(data)
    dot = data.find(b".")
    while dot >= 0:
        try:
            call = reader.method_call(dot, called)
        except _Unsure:
            call = reader.name_at(dot + 1)
        if call is not None:
            yield dot, call
        dot = data.find(b".", dot + 1)


def receiver_may_be_made(
    data: bytes, dot: int, imported: frozenset[bytes], assigned: dict[bytes, bool]
) -> bool:
    """Whether the receiver before the `.` at `dot` may be an object the module made: anything
    but a bare name that no assignment in the module binds (a module, a parameter), unless it
    is one of `imported`. `assigned` remembers, per name, whether the module assigns it."""
    end = dot
    while end and data[end - 1] in b" \t":
        end -= 1
    begin = end
    while begin and data[begin - 1] in _NAME_BYTES and end - begin <= 256:
        begin -= 1
    if begin == end or end - begin > 256 or (begin and data[begin - 1] in b".\\"):
        return True  # a chain, a call, a subscript (or an endless name): not read here
    name = data[begin:end]
    if name in imported or not data.isascii() or len(assigned) >= MAX_RECEIVERS:
        return True  # an object a library exports; a name NFKC may spell otherwise; too many
    if name not in assigned:
        assigned[name] = re.search(_ASSIGNMENT % (re.escape(name), b":?"), data) is not None
    return assigned[name]


@lru_cache(maxsize=64)
def _automaton(names: frozenset[bytes]) -> BytesAhoCorasick:
    return automaton(sorted(names))


def _sites(data: bytes, names: frozenset[bytes]) -> Iterator[tuple[int, int]]:
    """Where each of `names` occurs in `data` (as a part of any word), in order; listed a
    window at a time, so a file holding a name millions of times takes little memory."""
    automaton, overlap = _automaton(names), max(map(len, names)) - 1
    for start, end in windows(data, overlap):
        last = end == len(data)
        view = data if start == 0 and last else memoryview(data)[start:end]
        for _, begin, finish in automaton.find_matches_as_indexes(view, overlapping=True):
            if last or start + begin < end - overlap:  # else the next window finds it
                yield start + begin, start + finish


class _Unsure(Exception):
    """The reading budget is spent: the answer is 'may'."""


class _Reader:
    """Reads around call sites in a file's bytes, charging every byte it looks at to a budget
    linear in the file's size (READING_BUDGET per byte, plus a base): text built to make
    every site read far (a line of `.#.#.#`, calls nested in calls) costs at most that, after
    which `_Unsure` is raised and the look answers 'may' (the file is then parsed)."""

    def __init__(self, data: bytes):
        self.data = data
        self.left = READING_BUDGET * len(data) + 65_536
        self.assigned: dict[tuple[bytes, bool], bool] = {}  # (spread name, `**`): may show

    def charge(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise _Unsure

    def gap_end(self, at: int) -> int:
        """Where the blanks, line continuations and comments from `at` end."""
        data, size, start = self.data, len(self.data), at
        while at < size:
            byte = data[at]
            if byte in _GAP_BYTES:
                at += 1
            elif byte == _HASH:
                newline = data.find(b"\n", at)
                at = size if newline < 0 else newline
                self.charge(at - start)
                start = at
            else:
                break
        self.charge(at - start)
        return at

    def opening_after(self, end: int) -> int | None:
        """Just after the `(` that calls the name ending at `end` (`name (`, `(x.name)(`);
        None when no call follows."""
        data = self.data
        at = self.gap_end(end)
        while data[at : at + 1] == b")":
            at = self.gap_end(at + 1)
        return at + 1 if data[at : at + 1] == b"(" else None

    def name_at(self, at: int) -> str | None:
        """The name that starts at `at` after blanks (as the parser reads it), or None."""
        data = self.data
        while at < len(data) and data[at] in _BLANK_BYTES:
            at += 1
        end = at
        while end < len(data) and data[end] in _NAME_BYTES:
            end += 1
        return _normal(data[at:end]).decode("utf-8", "replace") if end > at else None

    def method_call(self, dot: int, called: bool = True) -> str | None:
        """The name of the method called by `.name(` at `dot` (with `called` False, of any
        `.name` there), or None."""
        if self.in_comment(dot):
            return None
        data = self.data
        begin = self.gap_end(dot + 1)
        end = begin
        while end < len(data) and data[end] in _NAME_BYTES:
            end += 1
        self.charge(end - begin)
        if end == begin or (called and self.opening_after(end) is None):
            return None
        return _normal(data[begin:end]).decode("utf-8", "replace")

    def in_comment(self, at: int) -> bool:
        """Whether a `#` before `at` on its line surely starts a comment: the line holds no
        quote before `at` that could put the `#` in a string."""
        start = self.data.rfind(b"\n", 0, at) + 1
        self.charge(at - start)
        line = self.data[start:at]
        return b"#" in line and b"'" not in line and b'"' not in line

    def before_blanks(self, at: int) -> int | None:
        """The index of the last byte before `at` that is no blank or line continuation (-1 at
        the start); None when the blanks cross into a line holding a `#`."""
        data, start = self.data, at
        at -= 1
        crossed = False
        while at >= 0 and (data[at] in _BLANK_BYTES or data[at] == _BACKSLASH):
            crossed = crossed or data[at] == _NEWLINE
            at -= 1
        self.charge(start - at)
        if crossed:
            line_start = data.rfind(b"\n", 0, at + 1) + 1
            self.charge(at + 1 - line_start)
            if b"#" in data[line_start : at + 1]:
                return None
        return at

    def resolvable(self, start: int, roots: frozenset[bytes]) -> bool:
        """Whether the name at `start` is one an import table may resolve: bare, or the last of
        an attribute chain (parentheses around its parts included) whose first name is one of
        `roots`. A chain the bytes do not show plainly (one crossing a line that holds a
        comment) may be."""
        data, begin = self.data, start
        while True:
            at = self.before_blanks(begin)
            if at is None:
                return True  # a comment may hide how the chain goes on
            if at < 0 or data[at] != _DOT:
                if begin == start:
                    return True  # a bare name
                end = begin
                while end < len(data) and data[end] in _NAME_BYTES:
                    end += 1
                return _normal(data[begin:end]) in roots
            at = self.before_blanks(at)
            if at is not None and at >= 0 and data[at] == _CLOSE:
                at = self.inside_parentheses(at)
            if at is None:
                return True
            end = at + 1
            while at >= 0 and data[at] in _NAME_BYTES:
                at -= 1
            self.charge(end - at)
            if at + 1 == end:
                return False  # `f().run`, `x[0].run`, `"text".join`: not a chain of names
            begin = at + 1

    def inside_parentheses(self, close: int) -> int | None:
        """For `(subprocess).run`: where the name chain inside the parentheses closed at
        `close` ends; -1 when they hold no name chain or belong to a call (`f(x).run`); None
        when unsure (parentheses in parentheses)."""
        data = self.data
        opening = data.rfind(b"(", 0, close)
        self.charge(close - opening)
        if opening < 0 or not _NAME_CHAIN.fullmatch(data, opening + 1, close):
            last = self.before_blanks(close)
            return None if last is None or data[last] == _CLOSE else -1  # nested: unsure
        before = self.before_blanks(opening)
        if before is None:
            return None
        same_line = b"\n" not in data[before + 1 : opening]  # (a new statement may start there)
        if before >= 0 and same_line and data[before] in _CALL_ENDS:
            word = before + 1
            while word and data[word - 1] in _NAME_BYTES:
                word -= 1
            if data[word : before + 1] not in _KEYWORDS:
                return -1  # `f(x).run`, `t[0](x).run`: a call's result
        return self.before_blanks(close)

    def spread_may_show(
        self, at: int, double: bool, keywords: frozenset[bytes], needed: int | None
    ) -> bool:
        """Whether the `*` (`double`: `**`) spread whose expression starts at `at` may hold
        arguments the rules can read (`analysis.arguments`): a display or `dict(...)`, written
        there or assigned somewhere in the module to the plain name spread; for `**`, one
        holding one of `keywords`; for `*`, one of at least `needed` elements (a parameter, an
        attribute or another value is unknown to the rules)."""
        data = self.data
        start = self.gap_end(at)
        end = start
        while end < len(data) and data[end] in _NAME_BYTES:
            end += 1
        self.charge(end - start)
        name = data[start:end]
        if name == b"dict" or end == start:
            opening = self.gap_end(end)
            if data[opening : opening + 1] not in (b"{", b"(", b"["):
                return False
            return self.display_holds(opening, double, keywords, needed)
        if data[self.gap_end(end) : self.gap_end(end) + 1] not in (b",", b")"):
            return False
        key = (name, double, needed)
        if key not in self.assigned:
            if len(self.assigned) >= MAX_RECEIVERS or not name.isascii():
                return True
            pattern = _ASSIGNMENT % (re.escape(name), b"") + rb"\s*(?:[{(\[]|dict\s*\()"
            self.charge(len(data))
            self.assigned[key] = any(
                self.display_holds(found.end() - 1, double, keywords, needed)
                for found in re.finditer(pattern, data)
            )
        return self.assigned[key]

    def display_holds(
        self, opening: int, double: bool, words: frozenset[bytes], needed: int | None
    ) -> bool:
        """Whether the brackets opened at `opening` hold one of `words` (`double`), or at least
        `needed` comma-separated items, before they close (True when they do not close)."""
        data, depth, at, commas = self.data, 0, opening, 0
        while at < len(data):
            byte = data[at]
            if byte in _OPENINGS:
                depth += 1
            elif byte in _CLOSINGS:
                depth -= 1
                if depth == 0:
                    break
            elif byte == _COMMA and depth == 1:
                commas += 1
            at += 1
        self.charge(at - opening)
        if at >= len(data):
            return True
        if double:
            region = data[opening:at]
            return any(word in region for word in words)
        return needed is not None and commas + 1 >= needed

    def arguments_match(self, at: int, positional: int | None, keywords: frozenset[bytes]) -> bool:
        """Whether the arguments from `at` (just after a call's `(`) hold `positional`
        positional arguments or one of `keywords` (True where they cannot be read with
        certainty, and for a `*args` or `**kwargs` spread the module may show the contents of:
        a display, or a name the module assigns)."""
        data = self.data
        depth, commas, lambdas, keyword_seen, last_name = 0, 0, False, False, None
        starting = True  # at the start of an argument
        while True:
            token = _ARGUMENT_TOKEN.search(data, at)
            if token is None:
                return True  # the call does not close: unsure
            self.charge(token.end() - at)
            kind, mark, at = token.lastgroup, token.group(), token.end()
            if kind == "spread":
                needed = None if positional is None else positional - commas
                if starting and not depth and self.spread_may_show(
                    at, mark == b"**", keywords, needed
                ):
                    return True
                continue
            starting = kind == "mark" and mark == b"," and not depth
            if kind == "quote" or (kind == "name" and _is_prefix(mark) and data[at : at + 1] in _QUOTES):
                string = _STRING.match(data, token.start() if kind == "quote" else at)
                prefix = b"" if kind == "quote" else mark.lower()
                if string is None or (b"f" in prefix and _replacement_fields(string.group()) is None):
                    return True  # unterminated, or an f-string read wrongly: unsure
                self.charge(string.end() - at)
                at, last_name = string.end(), None
            elif kind == "name":
                last_name = mark
                lambdas = lambdas or mark == b"lambda"  # its defaults' `=` are no keywords
            elif kind == "mark":
                if mark in b"([{":
                    depth += 1
                elif mark in b")]}":
                    depth -= 1
                    if depth < 0:
                        return False  # the call's closing parenthesis
                elif depth:
                    pass
                elif mark == b",":
                    if not keyword_seen:
                        commas += 1
                        if positional is not None and commas >= positional - 1:
                            return True
                elif last_name in keywords:  # `=` right after a name: a keyword argument
                    return True  # (or a lambda's parameter of that name: unsure)
                elif not lambdas:
                    keyword_seen = True
                    if not keywords:
                        return False  # only keyword arguments follow
                last_name = None


def _is_prefix(name: bytes) -> bool:
    """Whether a name right before a quote is a string prefix (`rb`, `f`)."""
    return len(name) <= 2 and all(letter in _PREFIX_LETTERS for letter in name)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _normal(name: bytes) -> bytes:
    """A (UTF-8) name as the parser reads it: NFKC-normalized (PEP 3131)."""
    if name.isascii():
        return name
    return unicodedata.normalize("NFKC", name.decode("utf-8", "replace")).encode("utf-8")


_ASCII_BYTES = bytes(range(0x80))
_ASCII_NAME_CHARS = frozenset("_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _may_spell_otherwise(data: bytes, names: frozenset[bytes]) -> bool:
    """Whether a name holding a non-ASCII character may read (NFKC) as one of `names`: not
    where every one of them is ASCII and no non-ASCII character of the (UTF-8) file decomposes
    (NFKD) into ASCII name characters alone (`ｆ` does; an accented letter keeps its mark, a
    dash or `…` holds no name character), so a composed name keeps a character none of
    `names` has. Asked of the file's distinct non-ASCII characters: the search for names
    around each non-ASCII run was most of a call look's time on files with prose in them."""
    if data.isascii():
        return False
    if not all(name.isascii() for name in names):
        return True
    characters = set(data.translate(None, _ASCII_BYTES).decode("utf-8", "replace"))
    return any(set(unicodedata.normalize("NFKD", character)) <= _ASCII_NAME_CHARS
               for character in characters)


def _non_ascii_names(data: bytes) -> Iterator[tuple[int, bytes]]:
    """Where names holding a non-ASCII byte start, and the names (found from those bytes: a
    regex for such names would backtrack through every ASCII name)."""
    if data.isascii():
        return
    last = -1
    for found in _NON_ASCII.finditer(data):
        begin, end = found.start(), found.end()
        if begin < last:
            continue  # a later non-ASCII run of a name already given
        while begin and data[begin - 1] in _NAME_BYTES:
            begin -= 1
        while end < len(data) and data[end] in _NAME_BYTES:
            end += 1
        last = end
        yield begin, data[begin:end]


def _import_aliases(data: bytes, wanted: frozenset[bytes]) -> list[tuple[bytes, bytes]]:
    """Every `name as alias` of an import statement (`import subprocess as sp`, `from
    subprocess import (Popen as P)`; in strings too, harmlessly) whose name is one of `wanted`
    (as the parser reads names: NFKC), read after each `import` up to its statement's end; an
    `import` inside a statement already read is not read again."""
    pairs = []
    read_to = 0
    for found in _IMPORT.finditer(data):
        if found.start() < read_to:
            continue
        opening = _IMPORT_PARENTHESIS.match(data, found.end())
        if opening:
            end = data.find(b")", opening.end())
        else:
            line_end = _LOGICAL_LINE_END.search(data, found.end())
            end = line_end.start() if line_end else len(data)
        read_to = len(data) if end < 0 else end
        for pair in _AS_PAIR.finditer(data, found.end(), read_to):
            name = _normal(pair.group(1))
            if name in wanted:
                pairs.append((name, _normal(pair.group(2))))
    return pairs


def may_name(data: bytes, names: frozenset[bytes]) -> bool:
    """Whether Python source bytes may name one of `names` in their code: they hold one (in
    any text), a name that is not ASCII may read (NFKC) as one, or they are in another
    encoding. False proves that no name of the parsed module is one of them."""
    return any(name in data for name in names) or not data.isascii() and (
        not _is_utf8(data) or _may_spell_otherwise(data, names))


def has_name(data: bytes, names: Iterable[bytes]) -> bool:
    """Whether one of `names` occurs in `data` as a whole name: neither preceded nor followed by
    a letter, digit, `_` or non-ASCII byte (so `_add_callback` does not hold `add_callback`)."""
    for name in names:
        at = data.find(name)
        while at >= 0:
            end = at + len(name)
            if (at == 0 or data[at - 1] not in _NAME_BYTES) and (
                end == len(data) or data[end] not in _NAME_BYTES
            ):
                return True
            at = data.find(name, at + 1)
    return False
