"""Gitignore-style patterns, read as pathspec reads them and compiled to match in linear time
(a pattern may come from a hostile repository's `.gitignore` or configuration): for discovery's
ignore files and the configurations' excludes."""

from __future__ import annotations

import contextlib
import re
import warnings
from typing import Iterable

_STAR = "[^/]*"
_GLOB_TOKEN = re.compile(
    r"(?P<star>\[\^/\]\*)(?![*+?{])"
    r"|(?P<one>(?:\[\^/\]|\\[^/]|\[(?!\^)\]?(?:\\\\|[^\]\\])*\]|[^\\\[\](){}|^$*+?./])(?![*+?{]))"
    r"|(?P<negated>\[\^\]?(?:\\\\|[^\]\\])*\])(?![*+?{])"
    r"|.",
    re.DOTALL,
)
"""The pieces of a pathspec segment regex: `star` (a glob `*`), `one` (a piece matching one
character other than `/`: `?`, a literal, a class), `negated` (a class `[!...]`, which
pathspec lets match `/`), anything else one at a time."""


def linear_regex(regex: str, tag: str) -> str:
    """pathspec's regex for a gitignore pattern, rewritten to match in linear time.

    Each glob `*` becomes `[^/]*`; several in one segment (`*a*a*a*b`, `a*****b`) make the
    regex engine backtrack polynomially in the name's length (a 255-character name takes
    minutes). Adjacent stars become one; a `*` followed by a fixed run of one-character pieces
    and another `*` is made to take the first place where that run matches, and never another
    (fnmatch's atomic emulation: a lazy search in a lookahead, then a backreference): that
    place is the one every match can use, because no piece matches `/` (a negated class
    `[!a]` is made not to, as in git, where pathspec lets it). `tag` keeps the group names of
    one regex apart from another's."""
    if regex.count(_STAR) < 2 and regex.count("[^") == regex.count("[^/]"):
        return regex  # one star at most, no negated class: nothing to rewrite (most patterns)
    tokens = [
        ("one", match.group()[:-1] + "/]") if match.lastgroup == "negated"  # as git: never `/`
        else (match.lastgroup, match.group())
        for match in _GLOB_TOKEN.finditer(regex)
    ]
    out: list[str] = []
    index = 0
    while index < len(tokens):
        kind, text = tokens[index]
        index += 1
        if kind != "star":
            out.append(text)
            continue
        if index < len(tokens) and tokens[index][0] == "star":
            continue  # `**` within a segment: one `*` is the same, without the backtracking
        end = index
        while end < len(tokens) and tokens[end][0] == "one":
            end += 1
        if end == len(tokens) or tokens[end][0] != "star":
            out.append(text)  # the last `*` of its segment: it backtracks over one name only
            continue
        chunk = "".join(piece for _, piece in tokens[index:end])
        name = f"_{tag}_{len(out)}"
        out.append(f"(?=(?P<{name}>{_STAR}?{chunk}))(?P={name})")
        index = end
    return "".join(out)


def glob_rules(lines: Iterable[str], strict: bool = False) -> list[tuple[re.Pattern, bool]]:
    """(regex, include) for each gitignore-style pattern of `lines`, as pathspec reads them,
    compiled to match in linear time (`linear_regex`); `include` is False for `!pattern`.
    A line pathspec cannot read (`foo\\`, `[z-a]`) raises when `strict`, else it is passed
    over, as git passes over a pattern it cannot read."""
    import pathspec

    lines = list(lines)
    with quiet_regex_warnings():
        try:
            patterns = pathspec.GitIgnoreSpec.from_lines(lines).patterns
        except Exception:  # pathspec's error types and re.error: find the lines it can read
            if strict:
                raise
            patterns = [pattern for line in lines for pattern in _readable_patterns(line)]
        return [
            (_linear(pattern.regex, f"p{number}"), pattern.include)
            for number, pattern in enumerate(patterns)
            if pattern.include is not None and pattern.regex is not None
        ]


def _linear(regex: re.Pattern, tag: str) -> re.Pattern:
    """`regex` compiled from `linear_regex` (itself when that changes nothing: most do not)."""
    linear = linear_regex(regex.pattern, tag)
    return regex if linear == regex.pattern else re.compile(linear, regex.flags)


@contextlib.contextmanager
def quiet_regex_warnings():
    """Compile without re's FutureWarning about `[[`: a hostile pattern is no reason to print
    Python warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield


def _readable_patterns(line: str) -> list:
    import pathspec

    try:
        return list(pathspec.GitIgnoreSpec.from_lines([line]).patterns)
    except Exception:
        return []
