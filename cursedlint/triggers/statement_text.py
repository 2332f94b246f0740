"""What a Python module's bytes say about its statements without a parse, more, never fewer:
the names its `def` or `class` statements bind (`stated_names`), and whether a name occurs
outside its comments (`named_outside_comments`). For the names an index summary can give
(`Indexer.trigger_names`), read from files the summary is then spared for."""

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


def named_outside_comments(data: bytes, names) -> bool:
    """Whether one of `names` (bytes) occurs in `data` as a whole name (no ASCII letter,
    digit or `_` beside it) other than in a comment that is surely one: after a `#` on a line
    that holds no quote (a line with one is read whole: the `#` may be in a string, or a string
    opened above may close after it; without one, the `#` is a comment's or inside a string,
    code either way never)."""
    for name in names:
        at = data.find(name)
        while at != -1:
            end = at + len(name)
            if not (at and _IDENTIFIER_BYTE.match(data, at - 1)) and \
                    not _IDENTIFIER_BYTE.match(data, end):
                start = data.rfind(b"\n", 0, at) + 1
                stop = data.find(b"\n", at)
                line = data[start:] if stop == -1 else data[start:stop]
                hash_at = line.find(b"#")
                if hash_at == -1 or hash_at > at - start or b'"' in line or b"'" in line \
                        or b"\r" in line:
                    return True
            at = data.find(name, at + 1)
    return False


_IDENTIFIER_BYTE = re.compile(rb"[A-Za-z0-9_]")
