"""The human format: ruff-like findings with an underlined source snippet and their help (each
paragraph printed once per run), a concise one-line-per-finding variant, or a table of counts
per code; then a summary line. Bytes of a path, message or source line that are not UTF-8,
and control characters but the tab, show as `\\xNN` (`printable`)."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence

from cursedlint.findings import Finding, Severity
from cursedlint.formats.shared import printable

TAB_WIDTH = 4

BOLD = "1"
SEVERITY_COLOR = {Severity.ERROR: "31", Severity.WARNING: "33"}  # red, yellow


def render(
    findings: Sequence[Finding],
    *,
    source_line: Callable[[str, int], str],
    color: bool,
    concise: bool,
    statistics: bool,
    files_checked: int,
    quiet: bool = False,
) -> str:
    """The findings, then the summary line (not with `quiet`, as ruff's `-q`)."""
    if statistics:
        blocks = _statistics(findings)
    elif concise:
        blocks = [_header(finding, color) for finding in findings]
    else:
        helped: dict[str, Finding] = {}
        blocks = [_full(finding, source_line, color, helped) for finding in findings]
    summary = "" if quiet else _summary(findings, files_checked) + "\n"
    return "".join(block + "\n" for block in blocks) + summary


def _summary(findings: Sequence[Finding], files_checked: int) -> str:
    """'Found 3 problems (2 errors, 1 warning).' or 'All checks passed!', plus the file count."""
    checked = f" Checked {_plural(files_checked, 'file')}." if files_checked else ""
    if not findings:
        return "All checks passed!" + checked
    counts = Counter(finding.severity for finding in findings)
    kinds = ", ".join(
        _plural(counts[severity], severity.value) for severity in Severity if counts[severity]
    )
    return f"Found {_plural(len(findings), 'problem')} ({kinds})." + checked + _fixable(findings)


def _fixable(findings: Sequence[Finding]) -> str:
    """' 2 fixable with --fix (1 more with --unsafe-fixes).', or nothing."""
    safe = sum(1 for finding in findings if finding.fix and finding.fix.safe)
    unsafe = sum(1 for finding in findings if finding.fix and not finding.fix.safe)
    if not (safe or unsafe):
        return ""
    more = f" ({unsafe} more with --unsafe-fixes)" if unsafe else ""
    return f" {safe} fixable with --fix{more}."


def _header(finding: Finding, color: bool) -> str:
    """`path:line:col: CODE message`."""
    path = _paint(printable(finding.path), BOLD, color)
    code = _paint(finding.code, f"{BOLD};{SEVERITY_COLOR[finding.severity]}", color)
    return f"{path}:{finding.line}:{finding.column}: {code} {printable(finding.message)}"


def _full(finding: Finding, source_line: Callable[[str, int], str], color: bool,
          helped: dict[str, Finding]) -> str:
    """The header, the line with the span underlined in a line-number gutter (when it has
    text), the chain, the
    help (why, and where the rule's doc is), the fix's help. A help already printed with an
    earlier finding (`helped`: help text -> that finding) is named, not printed again: the
    paragraph, 400 characters and more, said once per run."""
    line = source_line(finding.path, finding.line)
    span = finding.span
    end_column = span.end_column if span.end_line == span.line else len(line) + 1
    start = _width(line[: span.column - 1])
    carets = "^" * max(_width(line[: end_column - 1]) - start, 1)
    number = str(span.line)
    gutter = " " * len(number)
    rows = [_header(finding, color), f"{gutter} |"]
    if line:  # a whole-file notice (a file too large to read into lines) has none to show
        rows += [
            f"{number} | {_shown(line)}".rstrip(),
            f"{gutter} | {' ' * start}{_paint(carets, SEVERITY_COLOR[finding.severity], color)}",
            f"{gutter} |",
        ]
    rows += [
        f"{gutter} = note: {printable(step.path)}:{step.line}: {printable(step.note)}"
        for step in finding.related
    ]
    if finding.help:
        first = helped.setdefault(finding.help, finding)
        said = printable(finding.help) if first is finding else \
            f"as for {printable(first.path)}:{first.line} above"
        rows.append(f"{gutter} = help: {said} (cursedlint rule {finding.code})")
    if finding.fix:
        rows.append(f"{gutter} = help: {printable(finding.fix.message)}")
    return "\n".join(rows) + "\n"


def _statistics(findings: Sequence[Finding]) -> list[str]:
    """One row per code: count, code, rule name; most frequent first, then by code."""
    counts = Counter((finding.code, finding.name) for finding in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = len(str(max(counts.values(), default=0)))
    return [f"{count:>{width}}  {code}  {name}" for (code, name), count in rows]


def _shown(text: str) -> str:
    """A source text as printed: `printable`, then tabs expanded."""
    return printable(text).expandtabs(TAB_WIDTH)


def _width(text: str) -> int:
    """Terminal columns of `text` as printed (`_shown`): wide (CJK) characters take two,
    combining marks none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
        for char in _shown(text)
    )


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{style}m{text}\x1b[0m" if color else text


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
