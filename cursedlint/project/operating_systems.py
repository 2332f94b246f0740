"""The operating systems a project says it runs on: the `Operating System ::` trove classifiers
of its packaging metadata, as written in `[project] classifiers` of `pyproject.toml` (read by
`config`), `classifiers` of `setup.cfg`'s `[metadata]`, and a literal `classifiers=[...]` of a
`setup.py`'s `setup(...)` call, parsed with `ast`, never run. A value written any other way
(`file:`, a name, a computed list) counts as none."""

from __future__ import annotations

import ast
from typing import Any, Iterable

from cursedlint.patterns import LazyPattern

_PREFIX = "Operating System ::"
_WINDOWS = "Operating System :: Microsoft :: Windows"
_WINDOWS_TEXT = LazyPattern(rb"Operating System\s*::\s*Microsoft\s*::\s*Windows")
_OTHER_TEXT = LazyPattern(rb"Operating System\s*::(?!\s*Microsoft\s*::\s*Windows)")


def may_say_windows_only(texts: Iterable[bytes]) -> bool:
    """Whether packaging files may declare Windows alone, by their text, before any parse:
    one names a Windows classifier and none another operating system (in a comment too: the
    project is then checked as before). Most projects' files fail it, and nothing is parsed."""
    texts = tuple(texts)
    return (any(_WINDOWS_TEXT.search(text) for text in texts)
            and not any(_OTHER_TEXT.search(text) for text in texts))


def os_classifiers(classifiers: Any) -> tuple[str, ...]:
    """The `Operating System ::` classifiers among `classifiers` (a list of strings, or
    anything else: none), spaced as the trove list spells them."""
    if not isinstance(classifiers, (list, tuple)):
        return ()
    spaced = (" :: ".join(part.strip() for part in item.split("::"))
              for item in classifiers if isinstance(item, str))
    return tuple(item for item in spaced if item.startswith(_PREFIX))


def windows_only(classifiers: Iterable[str]) -> bool:
    """Whether operating-system classifiers name Windows alone: at least one, and each a
    `Microsoft :: Windows` one (`OS Independent`, `POSIX`, `Unix`, `MacOS`, Linux: no)."""
    classifiers = tuple(classifiers)
    return bool(classifiers) and all(
        item == _WINDOWS or item.startswith(_WINDOWS + " ::") for item in classifiers)


def setup_cfg_classifiers(text: str) -> tuple[str, ...]:
    """The OS classifiers of a `setup.cfg`'s `[metadata]` (none where it does not parse)."""
    import configparser  # (only here: its import costs a one-file run a millisecond)

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return ()
    value = parser.get("metadata", "classifiers", fallback="")
    return os_classifiers([line for line in value.splitlines() if line.strip()])


def setup_py_classifiers(text: str) -> tuple[str, ...]:
    """The OS classifiers of a `setup.py`'s `setup(...)` calls (`setup` or `*.setup`; none
    where it does not parse)."""
    from cursedlint.source import parse_python

    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ()
    found: tuple[str, ...] = ()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _names_setup(node.func):
            for keyword in node.keywords:
                if keyword.arg == "classifiers":
                    found += os_classifiers(_literal(keyword.value))
    return found


def _names_setup(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "setup"
            or isinstance(func, ast.Attribute) and func.attr == "setup")


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
