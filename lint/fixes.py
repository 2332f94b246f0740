"""Applying fixes: text edits from findings, only when asked, only when the result still parses.

Edits of one pass that overlap an earlier-accepted edit are left for the next pass (the engine
re-lints the fixed text), so two fixes can never corrupt each other.
"""

from __future__ import annotations

import ast
import os

from cursedlint.findings import Edit, Finding
from cursedlint.languages import PYTHON
from cursedlint.source import _LINE_BREAK, Source


def _offset(source: Source, line: int, column: int) -> int:
    return source.line_starts[line - 1] + column - 1


def fixable(findings: list[Finding], unsafe: bool) -> list[Finding]:
    return [f for f in findings if f.fix is not None and (f.fix.safe or unsafe)]


def line_ending(text: str) -> str:
    """The line ending of the file, as its first line ends: \\r\\n, \\r or \\n (\\n for a file
    of one line)."""
    match = _LINE_BREAK.search(text)
    return match.group() if match else "\n"


def apply(source: Source, findings: list[Finding]) -> tuple[str, int]:
    """The text with the fixes of `findings` applied (non-overlapping ones), and how many. Every
    line break in an edit's content is written as the file's own line ending."""
    newline = line_ending(source.text)
    chosen: list[tuple[int, int, str]] = []
    applied = 0
    for finding in findings:
        edits = [_as_range(source, edit, newline) for edit in finding.fix.edits]
        if any(_overlaps(edit, other) for edit in edits for other in chosen):
            continue
        chosen.extend(edits)
        applied += 1
    text = source.text
    for start, end, content in sorted(chosen, reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _as_range(source: Source, edit: Edit, newline: str) -> tuple[int, int, str]:
    span = edit.span
    return (
        _offset(source, span.line, span.column),
        _offset(source, span.end_line, span.end_column),
        _LINE_BREAK.sub(newline, edit.content),
    )


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return a[0] < b[1] and b[0] < a[1] or (a[0] == a[1] == b[0] == b[1])


def still_parses(text: str, source: Source) -> bool:
    """A fix must leave code that parses: Python re-parses with ast; C/C++ may not gain
    tree-sitter error nodes."""
    if source.language == PYTHON:
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False
        return True
    from cursedlint.c_context import parse

    before = parse(source.data, source.language).root_node
    after = parse(source.encode(text), source.language).root_node
    return after.has_error <= before.has_error


def write_atomically(path: str, data: bytes) -> None:
    """Replace the file's content without a window in which it is half written."""
    import tempfile  # only --fix writes files

    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".cursedlint-fix-")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
