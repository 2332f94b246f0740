"""A file to lint: its bytes, decoded text, language and a line index.

Reading never raises for bad input: binary files are recognised (and skipped by the engine),
undecodable or unreadable files become a `SourceError` that the engine reports as CUR002.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import io
import itertools
import os
import re
import stat
import warnings
from array import array
from functools import cached_property

from msgspec import Struct

from cursedlint.findings import Span

BINARY_SNIFF_BYTES = 8000  # git's heuristic: a NUL byte in the first 8000 bytes means binary


class SourceError(Exception):
    """The file cannot be read or decoded; `line`/`column` locate a decode error if known."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def looks_binary(data: bytes) -> bool:
    return data.find(b"\0", 0, BINARY_SNIFF_BYTES) >= 0  # (a slice would copy the bytes)


def read_bytes(path: str) -> bytes:
    """The file's bytes. Only regular files are read: a FIFO or device would block or never end."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(descriptor, "rb", buffering=0) as handle:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise SourceError("cannot read file: not a regular file")
            return handle.read()
    except OSError as error:
        reason = error.strerror or str(error)
        raise SourceError(f"cannot read file: {reason}") from None


class FileBytes:
    """Bytes of files read before linting (by the project index and the look at which
    indexers a run needs), kept within `budget` bytes so each file is read once per run;
    forked workers inherit them. `read(path, keep=False)` serves a kept file without adding."""

    def __init__(self, budget: int):
        self.budget = budget
        self._kept: dict[str, bytes] = {}

    def forget(self) -> None:
        """Drop the kept bytes (files may have been written since)."""
        self.budget += sum(map(len, self._kept.values()))
        self._kept.clear()

    def keep(self, path: str, data: bytes) -> None:
        """Keep bytes read for a file's lint (whose kept tree holds them anyway), within the
        budget: the index need not read the file again."""
        if path not in self._kept and len(data) <= self.budget:
            self._kept[path] = data
            self.budget -= len(data)

    def read(self, path: str, keep: bool = True) -> bytes:
        data = self._kept.get(path)
        if data is None:
            data = read_bytes(path)
            if keep and len(data) <= self.budget:
                self._kept[path] = data
                self.budget -= len(data)
        return data


def _python_encoding(data: bytes) -> str:
    """The encoding PEP 263 declares (BOM or coding cookie), as the interpreter would use."""
    import tokenize  # (a run that decodes no Python file, a warm one, never imports it)

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot decode file: {error.msg}") from None
    return encoding


def _decode_error(data: bytes, encoding: str, error: UnicodeDecodeError) -> SourceError:
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    byte = data[error.start : error.start + 1].hex()
    return SourceError(
        f"cannot decode file as {encoding}: invalid byte 0x{byte} at line {line}, byte {column}",
        line,
        column,
    )


def decode(data: bytes, language: str) -> tuple[str, str]:
    """The text and its encoding. Python (and Cython, read as Cython reads it) follows PEP 263
    strictly, as CPython reads the file: a leading BOM is the encoding's (utf-8-sig), a second
    one is text (a syntax error, which `Source.encode` writes back); C/C++ is UTF-8 with bad bytes kept as surrogate escapes
    (compilers accept any bytes in comments and strings, and a fix must write them back
    unchanged)."""
    if language not in ("python", "cython"):
        return data.decode("utf-8", errors="surrogateescape"), "utf-8"
    encoding = _python_encoding(data)
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except LookupError:
        raise SourceError(f"cannot decode file: unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as error:
        raise _decode_error(data, encoding, error) from None
    return text, encoding


def parse_python(text: str, mode: str = "exec") -> ast.AST:
    """The ast of a Python file's `text`, parsed with nothing printed and no file opened. The
    file name given to CPython is "", which names no file: to show a syntax error's line,
    CPython opens the file its file name names, and that open blocks on a FIFO. Warnings are
    ignored: a SyntaxWarning would be printed with its line read raw from that file (escape
    sequences and all), and `python -W error` would make it a syntax error. Raises what
    `ast.parse` raises; a SyntaxError's `lineno` and `offset` locate the error in `text`.
    `mode="eval"` parses an expression (a string condition)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename="", mode=mode)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Source(Struct, dict=True):
    """One file's content. `path` is how the user named it; `text` is the decoded content."""

    path: str
    data: bytes
    text: str
    language: str
    encoding: str = "utf-8"

    @classmethod
    def from_text(cls, path: str, text: str, language: str) -> "Source":
        return cls(path, text.encode("utf-8"), text, language)

    def encode(self, text: str) -> bytes:
        """`text` in this file's encoding (C/C++ bytes that were not UTF-8 come back as they were)."""
        return text.encode(self.encoding, errors="surrogateescape")

    @classmethod
    def from_bytes(cls, path: str, data: bytes, language: str) -> "Source":
        """Decode `data`; raises SourceError when it cannot be decoded."""
        text, encoding = decode(data, language)
        return cls(path, data, text, language, encoding)

    @cached_property
    def line_starts(self) -> array:
        """Character offset of the start of each line (index 0 is line 1); 8 bytes a line."""
        return array("Q", itertools.chain((0,), (match.end() for match in
                                                 _LINE_BREAK.finditer(self.text))))

    @cached_property
    def lines(self) -> list[str]:
        """The lines, split only at \\n, \\r\\n and \\r as Python and C compilers count them
        (`str.splitlines` also splits at form feeds and Unicode separators)."""
        return _LINE_BREAK.split(self.text)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line break ('' past the end), cut from the
        text at its start (a list of the lines of a 50 MB C file, for the few its findings
        name, took 1 s and 130 MB)."""
        starts = self.line_starts
        if not 0 < line <= len(starts):
            return ""
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[starts[line - 1]:end].rstrip("\r\n")  # (no line holds either)

    def offset_to_position(self, offset: int) -> tuple[int, int]:
        """A character offset as a (line, column) pair, both 1-based."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def char_column(self, line: int, byte_column: int) -> int:
        """Convert a 0-based UTF-8 byte column (ast, tree-sitter) to a 1-based char column."""
        text = self.line_text(line)
        if text.isascii():
            return byte_column + 1
        prefix = text.encode("utf-8", errors="surrogateescape")[:byte_column]
        return len(prefix.decode("utf-8", errors="surrogateescape")) + 1

    def span_from_bytes(self, line: int, byte_col: int, end_line: int, end_byte_col: int) -> Span:
        """A Span from 1-based lines and 0-based UTF-8 byte columns."""
        return Span(
            line,
            self.char_column(line, byte_col),
            end_line,
            self.char_column(end_line, end_byte_col),
        )
