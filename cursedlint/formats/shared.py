"""What the formats share: text made safe to write (`escape_undecodable`, `printable`), paths
as a report's consumer resolves them (`report_root`, `relative_path`) and a fix as its text
edits (`fix_edits`); see the package's docstring."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from cursedlint.patterns import LazyPattern

if TYPE_CHECKING:
    from cursedlint.findings import Edit, Finding


_UNDECODABLE = LazyPattern("[\ud800-\udfff]")
_UNPRINTABLE = LazyPattern("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")


def escape_undecodable(text: str, backslash: str = "\\") -> str:
    """`text` with each byte that was not UTF-8 (a lone surrogate U+DC80..U+DCFF, as
    surrogateescape decoding keeps it) written as `\\xNN`, and any other lone surrogate as
    `\\uNNNN`: text that every encoder accepts. `backslash` is how the backslash is written
    (JSON output passes its escaped form, `\\\\`, to escape inside its string literals)."""
    return _UNDECODABLE.sub(lambda match: _escape(match.group(), backslash), text)


def printable(text: str) -> str:
    """`text` as `escape_undecodable` writes it, with control characters other than the tab
    (C0, DEL, C1) written as `\\xNN` too: safe to print on a terminal, and one line."""
    if text.isprintable():  # (none of those: most paths, without compiling the pattern)
        return text
    return _UNPRINTABLE.sub(lambda match: _escape(match.group(), "\\"), text)


def _escape(char: str, backslash: str) -> str:
    point = ord(char)
    if 0xDC80 <= point <= 0xDCFF:  # the byte surrogateescape kept
        point -= 0xDC00
    return f"{backslash}x{point:02x}" if point < 0x100 else f"{backslash}u{point:04x}"


CHECKOUT_VARIABLES = ("GITHUB_WORKSPACE", "CI_PROJECT_DIR")
"""Where GitHub Actions and GitLab CI check the repository out: they take a relative path in an
annotation, a code scanning alert or a Code Quality report as relative to it."""


def report_root(root: str) -> str:
    """The directory reports name files relative to: the CI checkout (CHECKOUT_VARIABLES), else
    `root`, the project's root."""
    for variable in CHECKOUT_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]
    return root


def as_given(path: str) -> str:
    """A path as a message names a file: relative to the working directory when within it,
    else as it is."""
    relative = os.path.relpath(path)
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def relative_path(path: str, base: str) -> str:
    """`path` relative to the directory `base`, with `/` separators; absolute where it lies
    outside `base` (resolving symbolic links too, as the working directory is resolved)."""
    for resolve in (os.path.abspath, os.path.realpath):
        absolute, directory = resolve(path), resolve(base)
        try:
            if os.path.commonpath([absolute, directory]) == directory:
                return os.path.relpath(absolute, directory).replace(os.sep, "/")
        except ValueError:  # on another drive (Windows)
            break
    return os.path.abspath(path).replace(os.sep, "/")


def fix_edits(finding: Finding, source_line: Callable[[str, int], str]) -> tuple[Edit, ...]:
    """The text edits of `finding`'s fix: its edits, and each structural rewrite as the edit it
    makes of the call's lines (`structural_fixes.as_edit`; libcst is imported only then).
    Empty when a rewrite cannot be made of them: the format then leaves the fix out."""
    fix = finding.fix
    if not fix.rewrites:
        return fix.edits
    from cursedlint.engine.structural_fixes import as_edit

    edits = list(fix.edits)
    for rewrite in fix.rewrites:
        span = rewrite.span
        lines = [source_line(finding.path, line) for line in range(span.line, span.end_line + 1)]
        lines[-1] = lines[-1][: span.end_column - 1]
        lines[0] = lines[0][span.column - 1 :]
        try:
            edits.append(as_edit("\n".join(lines), rewrite))
        except ValueError:  # not the call the finding saw (NotACall)
            return ()
    return tuple(edits)
