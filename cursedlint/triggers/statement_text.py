"""What a Python module's bytes say about its statements without a parse, more, never fewer:
the names its `def` or `class` statements bind (`stated_names`), and whether a name occurs in
its code, not in comments or docstrings (`named_in_code`). For the names an index summary can
give (`Indexer.trigger_names`), read from files the summary is then spared for."""

from __future__ import annotations

import keyword
import re

_KEYWORDS = frozenset(word.encode() for word in keyword.kwlist)
_BOM = b"\xef\xbb\xbf"
_ASYNC = re.compile(rb"[ \t\f]*async[ \t\f]+")


def stated_names(pattern, data: bytes) -> list[bytes]:
    """The names `pattern` (a `def` or `class` keyword, then the name as group 1) finds where
    the keyword begins a physical line (after indentation, a byte order mark or `async`), as
    every such statement does (none can follow `;` or `:` on its line), and the name is no
    keyword. (A comment's or docstring's "the default for", "a subclass of" binds nothing.)"""
    return [match[1] for match in pattern.finditer(data)
            if match[1] not in _KEYWORDS and _begins_line(data, match.start())]


def _begins_line(data: bytes, at: int) -> bool:
    start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
    prefix = data[start:at]
    if start == 0 and prefix.startswith(_BOM):
        prefix = prefix[len(_BOM):]
    return not prefix.strip(b" \t\f") or _ASYNC.fullmatch(prefix) is not None


def named_in_code(data: bytes, names) -> bool:
    """Whether one of `names` (bytes) occurs in `data` as a whole name (no byte of an
    identifier beside it) other than in a comment or a string literal that is not formatted
    (`_Prose`: the docstrings and comments where modules write about what they do not call).
    A name in an f-string counts."""
    found = sorted(at for name in names for at in _whole(data, name))
    if not found:
        return False
    prose = _Prose(data)
    for at in found:
        if not prose.holds(at):
            return True
    return False


def _whole(data: bytes, name: bytes):
    at = data.find(name)
    while at != -1:
        if not (at and _IDENTIFIER_BYTE.match(data, at - 1)) and \
                not _IDENTIFIER_BYTE.match(data, at + len(name)):
            yield at
        at = data.find(name, at + 1)


_IDENTIFIER_BYTE = re.compile(rb"[A-Za-z0-9_\x80-\xff]")
_TOKEN = re.compile(rb"#|\"\"\"|\'\'\'|\"|\'")
_IN_FIELD = re.compile(rb"[\"'#{}()\[\]:!\\\n\r]")
_PREFIX = re.compile(rb"[rRbBuUfFtT]{1,3}$")


class _Unsure(Exception):
    """The bytes are not read as Python reads them from here (a syntax error, or a shape this
    reading does not follow): what follows counts as code."""


class _Prose:
    """The comments and unformatted string literals of a module's bytes, read in order as
    Python's tokenizer reads them (each `#` outside a string to the line's end; a string from
    its opening quote, with its prefix, to the first unescaped closing one; an f-string's
    replacement fields as code, their strings read in turn), as far as a position asked
    about. Where the reading is unsure, everything after counts as code: it never takes code
    for prose."""

    def __init__(self, data: bytes):
        self.data = data
        self.spans: list[tuple[int, int]] = []  # (start, end) of prose, in order
        self.read = 0  # where the reading has got to (code there)
        self.unsure = False

    def holds(self, at: int) -> bool:
        """Whether position `at` is inside a comment or an unformatted string literal."""
        while self.read <= at and not self.unsure:
            self._next()
        for start, end in reversed(self.spans):
            if start <= at < end:
                return True
            if end <= at:
                return False
        return False

    def _next(self) -> None:
        data = self.data
        match = _TOKEN.search(data, self.read)
        if match is None:
            self.read = len(data) + 1
            return
        start = match.start()
        try:
            if match[0] == b"#":
                end = _line_end(data, start)
                self.spans.append((start, end))
            else:
                formatted = _formatted(data, start)
                end = self._string_end(match.end(), match[0], formatted)
                if not formatted:
                    self.spans.append((start, end))
        except _Unsure:
            self.unsure = True
            return
        self.read = end

    def _string_end(self, at: int, quote: bytes, formatted: bool) -> int:
        """The position after the string's closing `quote`, its content starting at `at`."""
        data, single, pattern = self.data, len(quote) == 1, _CLOSING[quote, formatted]
        while True:
            match = pattern.search(data, at)
            if match is None:
                raise _Unsure
            found, at = match[0], match.end()
            if found == b"\\":
                at += 1
            elif found in (b"\n", b"\r"):
                if single:
                    raise _Unsure
            elif found == b"{":
                if data[at:at + 1] == b"{":
                    at += 1
                else:
                    at = self._field_end(at)
            else:
                return at

    def _field_end(self, at: int) -> int:
        """The position after an f-string replacement field's `}`, its expression starting at
        `at`: brackets counted, strings read in turn; a format spec (after a `:` or `!` outside
        brackets) is text with fields of its own."""
        data, depth = self.data, 0
        while True:
            match = _IN_FIELD.search(data, at)
            if match is None:
                raise _Unsure
            found, at = match[0], match.end()
            if found in (b"(", b"[", b"{"):
                depth += 1
            elif found in (b")", b"]"):
                depth -= 1
            elif found == b"}":
                if depth == 0:
                    return at
                depth -= 1
            elif found in (b'"', b"'"):
                quote = data[at - 1:at + 2] if data[at - 1:at + 2] in (b'"""', b"'''") \
                    else found
                at = self._string_end(at - 1 + len(quote), quote, _formatted(data, at - 1))
            elif found in (b":", b"!") and depth == 0:
                return self._spec_end(at)
            elif found in (b"#", b"\\"):
                raise _Unsure
            # (a line's end inside brackets of a triple-quoted f-string is code)

    def _spec_end(self, at: int) -> int:
        """The position after the `}` closing a replacement field whose conversion or format
        spec starts at `at` (text, with fields of its own)."""
        data = self.data
        while True:
            match = _IN_SPEC.search(data, at)
            if match is None:
                raise _Unsure
            found, at = match[0], match.end()
            if found == b"}":
                return at
            if found == b"{":
                at = self._field_end(at)
            else:
                raise _Unsure


_IN_SPEC = re.compile(rb"[{}\"'\\\n\r]")
_CLOSING = {(quote, formatted): re.compile(rb"[\\\n\r%s]|%s" % (b"{" * formatted, re.escape(quote)))
            for quote in (b'"', b"'", b'"""', b"'''") for formatted in (False, True)}
"""What a string's reading stops at: an escape, a line's end, its closing quote (and where
formatted, a replacement field)."""


def _formatted(data: bytes, quote_at: int) -> bool:
    """Whether the string whose quote is at `quote_at` is an f-string or t-string (a prefix
    holding `f` or `t`); unsure where letters that make no prefix lead to it."""
    prefix = _PREFIX.search(data, max(0, quote_at - 3), quote_at)
    if prefix is None:
        return False
    start = prefix.start()
    while start < quote_at and start and _IDENTIFIER_BYTE.match(data, start - 1):
        start += 1  # (`if"x"`, `elif"x"`: a keyword's letters, no prefix)
    return any(letter in b"fFtT" for letter in data[start:quote_at])


def _line_end(data: bytes, at: int) -> int:
    ends = [end for end in (data.find(b"\n", at), data.find(b"\r", at)) if end != -1]
    return min(ends) if ends else len(data)
