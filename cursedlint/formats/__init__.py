"""Output formats: `render` turns a run's findings into the text the CLI prints.

One module per format, imported only when chosen (start-up time is the pre-commit hook's
cost); each has a `render` function taking only what that format needs.
Every output ends with a newline, except `github` with no findings (empty).

Files are named as their consumer resolves them (`report_root`): SARIF, `github`, `gitlab` and
`junit` relative to the repository's checkout in CI (GitHub's `GITHUB_WORKSPACE`, GitLab's
`CI_PROJECT_DIR`), else to the project's root, whatever the working directory; `rdjson`
relative to the working directory, which reviewdog, run there, resolves them against.

A fix is written as the text edits it makes, a structural rewrite's too (`fix_edits`); a fix
that cannot be written so is left out, never written without edits.

Text that came from the file system or a C/C++ file may hold bytes that are not UTF-8 (a file
name, a source line), which Python keeps as lone surrogates; every format writes each such byte
as the four characters `\\xNN` (`escape_undecodable`), so that its output is valid UTF-8. SARIF
URIs percent-encode the raw bytes instead, as a URI must. The formats read in a terminal or a
CI log (text, github) also escape control characters but the tab (`printable`): a file name or
a source line holding a newline or an escape sequence can neither fake a line nor command the
terminal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cursedlint.findings import Edit, Finding
    from cursedlint.rule import Rule

FORMATS = ("text", "json", "sarif", "github", "gitlab", "rdjson", "junit")


def render(
    format: str,
    findings: Sequence[Finding],
    rules: Mapping[str, type[Rule]],
    *,
    source_line: Callable[[str, int], str],
    color: bool = False,
    concise: bool = False,
    statistics: bool = False,
    files_checked: int = 0,
    root: str = os.curdir,
    fail_on: str = "warning",
    seconds: float = 0.0,
    quiet: bool = False,
) -> str:
    """Render sorted `findings` in `format` (one of FORMATS).

    `rules` maps code -> Rule class (SARIF rule metadata); `source_line(path, line)` gives a
    line's text (text snippets, fingerprints, UTF-8 columns, structural fixes' edits). `color`
    and `concise` shape the text format only, `statistics` the text and JSON formats,
    `files_checked` text and JUnit, `quiet` (no summary line) text. `root` is the project's root (`report_root`); `fail_on`
    the least severity that fails the run and `seconds` how long it took (JUnit).
    """
    if format == "text":
        from cursedlint.formats import text

        return text.render(
            findings,
            source_line=source_line,
            color=color,
            concise=concise,
            statistics=statistics,
            files_checked=files_checked,
            quiet=quiet,
        )
    if format == "json":
        from cursedlint.formats import json_format

        if statistics:
            return json_format.statistics(findings)
        return json_format.render(findings, source_line)
    if format == "sarif":
        from cursedlint.formats import sarif

        return sarif.render(findings, rules, source_line=source_line, root=report_root(root))
    if format == "github":
        from cursedlint.formats import github

        return github.render(findings, report_root(root))
    if format in ("gitlab", "rdjson", "junit"):
        from cursedlint.formats import reviewers

        if format == "gitlab":
            return reviewers.gitlab(findings, source_line, report_root(root))
        if format == "rdjson":
            return reviewers.rdjson(findings, source_line)
        return reviewers.junit(findings, files_checked, report_root(root), fail_on, seconds)
    raise ValueError(f"unknown output format {format!r}; choose one of {', '.join(FORMATS)}")


_UNDECODABLE = re.compile("[\ud800-\udfff]")
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")


def escape_undecodable(text: str, backslash: str = "\\") -> str:
    """`text` with each byte that was not UTF-8 (a lone surrogate U+DC80..U+DCFF, as
    surrogateescape decoding keeps it) written as `\\xNN`, and any other lone surrogate as
    `\\uNNNN`: text that every encoder accepts. `backslash` is how the backslash is written
    (JSON output passes its escaped form, `\\\\`, to escape inside its string literals)."""
    return _UNDECODABLE.sub(lambda match: _escape(match.group(), backslash), text)


def printable(text: str) -> str:
    """`text` as `escape_undecodable` writes it, with control characters other than the tab
    (C0, DEL, C1) written as `\\xNN` too: safe to print on a terminal, and one line."""
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
    from cursedlint.structural_fixes import as_edit

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
