"""Suppression comments, read from the text as flake8 and clang-tidy read them.

Python, shell, Dockerfile, YAML: `# noqa` (everything) or `# noqa: CUR101,CUR102` on the
finding's first line; as in flake8, a code names every code it begins (`# noqa: CUR1`). As in
ruff, `# noqa:` followed by anything but codes (`# noqa: subprocess-fork-path`) is invalid and
suppresses nothing, rather than everything. A
comment line `# noqa-next-line` (or `# noqa-next-line: CUR103`) covers the line below it, for
Dockerfiles and YAML, where a `#` after a value may be part of the value.
C/C++: `NOLINT`, `NOLINT(CUR301)` on the line, `NOLINTNEXTLINE(...)` on the line above,
`NOLINTBEGIN(...)` ... `NOLINTEND(...)` (the same check list) around lines, in `//` or `/* */`
comments. A C/C++ check list holds codes, rule names or globs over either (`CUR3*`),
comma-separated.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Iterator

from msgspec import Struct, field

from cursedlint.findings import Finding, Span
from cursedlint.languages import C, CPP
from cursedlint.patterns import LazyPattern

_NOQA_CODES = r"(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?"
_NOQA = LazyPattern(r"#\s*noqa(?!-)" + _NOQA_CODES, re.IGNORECASE)
_NOQA_NEXT_LINE = LazyPattern(r"^\s*#\s*noqa-next-line" + _NOQA_CODES, re.IGNORECASE)
_NOLINT = re.compile(r"\bNOLINT(?P<kind>NEXTLINE|BEGIN|END)?\b")


class Suppression(Struct):
    """One comment: the lines it covers, what it names (None = everything), where it is."""

    lines: range
    names: tuple[str, ...] | None
    span: Span
    used: bool = field(default=False)
    prefixes: bool = False
    """The names are code prefixes, as flake8 reads `# noqa: CUR1` (a `noqa` comment)."""
    invalid: bool = False
    """A `# noqa:` whose colon is followed by no code list: it names nothing."""

    def covers(self, finding: Finding) -> bool:
        if finding.span.line not in self.lines:
            return False
        if self.names is None:
            return True
        if self.prefixes:
            return any(finding.code.startswith(name.upper()) for name in self.names)
        return any(_names(name, finding.code, finding.name) for name in self.names)

    def unknown_codes(self, known: frozenset[str]) -> list[str]:
        """The cursedlint-style codes (`CUR` and digits) this comment names that no code in
        `known` is (or, for a `noqa` prefix, begins with): typos that suppress nothing."""
        names = [name.upper() for name in self.names or () if re.fullmatch(r"(?i)CUR\d+", name)]
        if self.prefixes:
            return [name for name in names if not any(code.startswith(name) for code in known)]
        return [name for name in names if name not in known]

    def named_codes(self) -> set[str]:
        """The cursedlint codes this comment names explicitly (no globs, no rule names)."""
        return {name.upper() for name in self.names or () if re.fullmatch(r"(?i)CUR\d{3}", name)}


def _names(name: str, code: str, rule: str) -> bool:
    """Whether a C/C++ check-list entry (a code, a rule name, or a glob over either) names the
    rule `code` (`rule`)."""
    return fnmatchcase(code, name.upper()) or fnmatchcase(rule, name)


def _python(lines: list[str]) -> list[Suppression]:
    found = []
    for number, text in enumerate(lines, start=1):
        if "noqa" not in text.lower():
            continue
        match = _NOQA_NEXT_LINE.match(text)
        covered = number + 1 if match else number
        match = match or _NOQA.search(text)
        if match:
            codes = match.group("codes")
            invalid = not codes and text[match.end():].lstrip().startswith(":")
            names = tuple(re.split(r"[,\s]+", codes.strip())) if codes else None
            span = Span(number, match.start() + 1, number, match.end() + 1)
            found.append(Suppression(range(covered, covered + 1), () if invalid else names,
                                     span, prefixes=True, invalid=invalid))
    return found


class Unmatched(Struct, frozen=True):
    """A `NOLINTBEGIN` no `NOLINTEND` closes, or a `NOLINTEND` no `NOLINTBEGIN` opened: it
    suppresses nothing (clang-tidy reports both). `names`: its check list (None: every check)."""

    span: Span
    kind: str
    names: tuple[str, ...] | None

    def concerns(self, rules: dict[str, str]) -> bool:
        """Whether it names every check or one of `rules` (code -> name), so cursedlint's
        findings are what it fails to suppress (not only another tool's)."""
        return self.names is None or any(
            _names(name, code, rule) for name in self.names for code, rule in rules.items())


def _cpp(lines: list[str]) -> list[Suppression | Unmatched]:
    found: list[Suppression | Unmatched] = []
    open_blocks: list[tuple[int, tuple[str, ...] | None, Span]] = []
    for number, text in enumerate(lines, start=1):
        if "NOLINT" not in text:
            continue
        for start, end, kind, checks in _nolints(text):
            names = None if checks is None else tuple(
                part.strip() for part in checks.split(",") if part.strip()
            )
            span = Span(number, start + 1, number, end + 1)
            if kind is None:
                found.append(Suppression(range(number, number + 1), names, span))
            elif kind == "NEXTLINE":
                found.append(Suppression(range(number + 1, number + 2), names, span))
            elif kind == "BEGIN":
                open_blocks.append((number, names, span))
            elif (opened := _last_with(open_blocks, names)) is not None:
                begin, begin_names, begin_span = open_blocks.pop(opened)
                found.append(Suppression(range(begin, number + 1), begin_names, begin_span))
            else:
                found.append(Unmatched(span, "END", names))
    return found + [Unmatched(span, "BEGIN", names) for _, names, span in open_blocks]


def _nolints(text: str) -> Iterator[tuple[int, int, str | None, str | None]]:
    """(start, end, kind, check list) of each NOLINT form of a line, in order; its check list
    runs from `(` to the first `)` (None without one). Once no `)` is left, no later `(` is
    read to the end again (a line of `NOLINT(` took time quadratic in its length)."""
    at, unclosed = 0, len(text)
    while (match := _NOLINT.search(text, at)) is not None:
        end, checks = match.end(), None
        if text.startswith("(", end) and end < unclosed:
            close = text.find(")", end)
            if close < 0:
                unclosed = end
            else:
                checks, end = text[end + 1 : close], close + 1
        yield match.start(), end, match.group("kind"), checks
        at = end


def _last_with(blocks: list, names: tuple[str, ...] | None) -> int | None:
    """The index of the innermost open block whose check list is `names` (clang-tidy closes
    `NOLINTBEGIN(a)` only with `NOLINTEND(a)`)."""
    return next((index for index in range(len(blocks) - 1, -1, -1)
                 if blocks[index][1] == names), None)


def find_suppressions(lines: list[str], language: str) -> list[Suppression | Unmatched]:
    """`# noqa` for Python and the `#`-comment text kinds; NOLINT forms for C/C++ (with the
    block comments left unmatched)."""
    return _cpp(lines) if language in (C, CPP) else _python(lines)


def has_suppression_text(data: bytes) -> bool:
    """Cheap test on raw bytes, so files without any suppression comment are not scanned."""
    return b"NOLINT" in data or b"noqa" in data.lower()


def apply(findings: list[Finding], suppressions: list[Suppression]) -> list[Finding]:
    """The findings no suppression covers; marks the suppressions that covered something.
    (`Unmatched` block comments are not in `suppressions`.)"""
    kept = []
    for finding in findings:
        covering = [s for s in suppressions if s.covers(finding)]
        for suppression in covering:
            suppression.used = True
        if not covering:
            kept.append(finding)
    return kept
