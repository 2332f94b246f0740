"""Gitignore-style patterns as git reads them (gitignore(5)), translated to regexes that match in
linear time (a pattern may come from a hostile repository's `.gitignore` or configuration): for
discovery's ignore files and the configurations' excludes.

Translated here rather than by pathspec: importing pathspec 1.x (its matching backends) took 12
to 20 ms of every run that reads a `.gitignore`, about a tenth of a pre-commit run on one file,
and its regexes had to be rewritten for linear time anyway (`linear_regex`). The tests compare
what is ignored with `git check-ignore` itself."""

from __future__ import annotations

import contextlib
import re
import warnings
from typing import Iterable, Iterator

from cursedlint.patterns import LazyPattern

_STAR = "[^/]*"
_GLOB_TOKEN = LazyPattern(
    r"(?P<star>\[\^/\]\*)(?![*+?{])"
    r"|(?P<one>(?:\[\^/\]|\\[^/]|\[(?!\^)\]?(?:\\\\|[^\]\\])*\]|[^\\\[\](){}|^$*+?./])(?![*+?{]))"
    r"|(?P<negated>\[\^\]?(?:\\\\|[^\]\\])*\])(?![*+?{])"
    r"|.",
    re.DOTALL,
)
"""The pieces of a name's regex (`_glob_regex`): `star` (a glob `*`), `one` (a piece matching one
character other than `/`: `?`, a literal, a class), `negated` (a class `[!...]`, which as a
regex class would match `/`), anything else one at a time."""


def linear_regex(regex: str, tag: str) -> str:
    """A gitignore pattern's regex (`pattern_regex`), rewritten to match in linear time.

    Each glob `*` becomes `[^/]*`; several in one segment (`*a*a*a*b`, `a*****b`) make the
    regex engine backtrack polynomially in the name's length (a 255-character name takes
    minutes). Adjacent stars become one; a `*` followed by a fixed run of one-character pieces
    and another `*` is made to take the first place where that run matches, and never another
    (fnmatch's atomic emulation: a lazy search in a lookahead, then a backreference): that
    place is the one every match can use, because no piece matches `/` (a negated class
    `[!a]` is made not to, as in git, where a regex class would let it). `tag` keeps the group names of
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
    """(regex, include) for each gitignore-style pattern of `lines` (`translated_rules`),
    compiled. A line that cannot be read as a pattern (`foo\\`, `[z-a]`) raises ValueError when
    `strict`, else it is passed over, as git passes over a pattern it cannot read."""
    rules = []
    with quiet_regex_warnings():
        for source, include in translated_rules(lines, strict):
            try:
                rules.append((re.compile(source), include))
            except re.error as error:
                if strict:
                    raise ValueError(str(error)) from None
    return rules


def translated_rules(lines: Iterable[str], strict: bool = False) -> Iterator[tuple[str, bool]]:
    """(regex source, include) for each gitignore-style pattern of `lines` (`pattern_regex`),
    made to match in linear time (`linear_regex`), not compiled; `include` is False for
    `!pattern`. A line git cannot read raises ValueError when `strict`, else is passed over (a
    source that does not compile is the caller's to pass over)."""
    for number, line in enumerate(lines):
        try:
            translated = pattern_regex(line)
        except (ValueError, re.error) as error:
            if strict:
                raise ValueError(str(error)) from None
            continue
        if translated is not None:
            yield linear_regex(translated[0], f"p{number}"), translated[1]


DIRECTORY_MARK = "slash"
"""The group of a pattern's regex that matches the `/` after the name it matched: a match
whose mark is before the path's end matched a directory above the path, not the path."""
_MARK = f"(?P<{DIRECTORY_MARK}>/)"
_MARK_OR_END = f"(?:{_MARK}|$)"


def pattern_regex(line: str) -> tuple[str, bool] | None:
    """The regex of one line of a `.gitignore` (gitignore(5)), and False for a negated one
    (`!pattern`, which re-includes); None for a line that matches nothing (blank, a comment,
    `/`, a range git passes over). The regex matches a path relative to the file's directory,
    `/`-separated, with a trailing `/` for a directory: the entry itself, or a path below a
    directory it matches (see `DIRECTORY_MARK`). Raises ValueError where git cannot read the
    line (a backslash escaping nothing, a pattern of slashes only)."""
    body = line if line.endswith("\\ ") else line.rstrip()  # trailing spaces unless escaped
    if not body or body.startswith("#") or body == "/":
        return None
    include = not body.startswith("!")
    segments = [_STARS if _only_stars(part) else part  # (`***` is `**` to git too)
                for part in (body if include else body[1:]).split("/")]
    directory_only = not segments[-1]  # `name/`: directories only
    if directory_only:
        del segments[-1]
    if segments and not segments[0]:  # a leading `/`: from the file's directory only
        del segments[0]
    elif len(segments) == 1 and segments[0] != _STARS:  # no `/`: a name at any depth
        segments.insert(0, _STARS)
    if not segments or not all(segments):
        raise ValueError(f"the pattern {line!r} names nothing between slashes")
    segments = [part for index, part in enumerate(segments)
                if not (part == _STARS and index and segments[index - 1] == _STARS)]
    try:
        return "".join(_segment_regexes(segments, directory_only)), include
    except _NoRange:
        return None


_STARS = "**"
_GLUED_STARS = LazyPattern(r"([^*?\[\\]+)\*\*+")
"""A name whose only wildcards are two or more stars after a literal start (`build**`)."""
_ANY_DIRECTORY = f"^(?:.+/)?[^/]+{_MARK}"


def _only_stars(part: str) -> bool:
    return len(part) > 1 and not part.strip("*")


def _segment_regexes(segments: list[str], directory_only: bool) -> Iterator[str]:
    """The regex of a pattern's `/`-separated parts: `**` as git reads it (any directories
    before, zero or more between, anything inside after), and the first wildcard of a pattern
    with a `/`, when it is stars glued to a literal start (`/build**`, `docs/api**`), as git
    reads it too: anything, `/` included, at the end, else zero or more directories (git
    matches the literal start first, then the rest as a pattern of its own, which that `**`
    then begins)."""
    if segments == [_STARS]:  # every path; with a trailing `/`, every directory
        yield _ANY_DIRECTORY if directory_only else "."
        return
    glued = segments[0] != _STARS  # (no wildcard before it yet)
    slash = False  # whether a `/` goes before the next name
    index = 0
    while index < len(segments):
        segment, index = segments[index], index + 1
        last = index == len(segments)
        if segment == _STARS:
            if index == 1:
                yield "^(?:.+/)?"  # any directories above
            elif not last:
                yield "(?:/.+)?"  # zero or more directories between
            else:
                yield "/.+" + (_MARK if directory_only else "")  # anything inside, not itself
            glued = False
            continue
        if index == 1:
            yield "^"
        if slash:
            yield "/"
        slash = True
        prefix = _GLUED_STARS.fullmatch(segment) if glued else None
        if prefix is not None:  # as a leading `**` (which a `/**` after it adds nothing to):
            while index < len(segments) and segments[index] == _STARS:
                index += 1
            last = index == len(segments)  # anything, or zero or more directories
            yield re.escape(prefix[1]) + (".*" + (_MARK if directory_only else "")
                                          if last else "(?:.*/)?")
            glued = slash = False
            continue
        glued = glued and not any(char in segment for char in "*?[\\")
        yield "[^/]+" if segment == "*" else _glob_regex(segment)
        if last:  # the entry itself, or a path below it
            yield _MARK if directory_only else _MARK_OR_END


class _NoRange(ValueError):
    """A `[` that no `]` closes: git passes over the pattern."""


def _glob_regex(glob: str) -> str:
    """The regex of one name's glob: `*` and `?` within the name, `[...]` classes (`[!...]`
    and `[^...]` negated), `\\` escaping the next character."""
    out = []
    index, end = 0, len(glob)
    while index < end:
        char = glob[index]
        index += 1
        if char == "\\":
            if index == end:
                raise ValueError(f"a backslash escapes nothing at the end of {glob!r}")
            out.append(re.escape(glob[index]))
            index += 1
        elif char == "*":
            out.append(_STAR)
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = index + (index < end and glob[index] in "!^")
            close += close < end and glob[close] == "]"  # a `]` first is one of the class
            close = glob.find("]", close)
            if close == -1:
                raise _NoRange(glob)
            negated = glob[index] in "!^"
            members = glob[index + negated:close].replace("\\", "\\\\")
            out.append(f"[{'^' if negated else ''}{members}]")
            index = close + 1
        else:
            out.append(re.escape(char))
    return "".join(out)


@contextlib.contextmanager
def quiet_regex_warnings():
    """Compile without re's FutureWarning about `[[`: a hostile pattern is no reason to print
    Python warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield
