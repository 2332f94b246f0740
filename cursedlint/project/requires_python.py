"""The lowest Python a project says it supports: `[project] requires-python` of its
`pyproject.toml`, read as a PEP 440 version specifier set (ruff takes its default target the
same way). Written by hand: `packaging` is not a dependency, and only the release part of
versions matters here (no pre-, post- or dev-releases)."""

from __future__ import annotations

from typing import Callable

from cursedlint.patterns import LazyPattern

_CLAUSE = LazyPattern(r"\s*(===|~=|==|!=|<=|>=|<|>)\s*([0-9]{1,9}(?:\.[0-9]{1,9})*)(\.\*)?\s*")
"""A clause; a release number has at most 9 digits (int() refuses over 4,300: a bad clause)."""
_PATCHES = range(100)  # the micro releases tried for each minor version


class BadSpecifier(ValueError):
    """The text is not a version specifier set this reader understands."""


def lowest_allowed(specifiers: str, candidates: tuple[tuple[int, int], ...]) -> tuple[int, int] | None:
    """The first of `candidates` (major, minor), in order, of which some micro release
    satisfies every clause of `specifiers` (`">=3.9, !=3.9.1, <4"`); None when none does."""
    tests = [_clause(text) for text in specifiers.split(",") if text.strip()]
    if not tests:
        raise BadSpecifier(f"no version clause in {specifiers!r}")
    for major, minor in candidates:
        if any(all(test((major, minor, patch)) for test in tests) for patch in _PATCHES):
            return major, minor
    return None


def _clause(text: str) -> Callable[[tuple[int, ...]], bool]:
    match = _CLAUSE.fullmatch(text)
    if match is None:
        raise BadSpecifier(f"not a version clause: {text.strip()!r}")
    operator, written, wildcard = match.groups()
    version = tuple(int(part) for part in written.split("."))
    if wildcard and operator not in ("==", "!="):
        raise BadSpecifier(f"a wildcard only follows == or !=: {text.strip()!r}")
    if operator in ("==", "!=", "==="):
        equal = (lambda v: v[:len(version)] == version) if wildcard else \
            (lambda v: _padded(v, version) == _padded(version, v))
        return equal if operator != "!=" else (lambda v: not equal(v))
    if operator == "~=":
        if len(version) < 2:
            raise BadSpecifier(f"~= needs two release numbers: {text.strip()!r}")
        prefix = version[:-1]
        return lambda v: _padded(v, version) >= _padded(version, v) and v[:len(prefix)] == prefix
    compare = {"<": tuple.__lt__, "<=": tuple.__le__, ">": tuple.__gt__, ">=": tuple.__ge__}
    return lambda v: compare[operator](_padded(v, version), _padded(version, v))


def _padded(version: tuple[int, ...], other: tuple[int, ...]) -> tuple[int, ...]:
    """`version` with zeros up to `other`'s length (3.9 compares as 3.9.0)."""
    return version + (0,) * (len(other) - len(version))
