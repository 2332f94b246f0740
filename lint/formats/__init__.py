"""Output formats: `render` turns a run's findings into the text the CLI prints.

One module per format, imported only when chosen (start-up time is the pre-commit hook's
cost); each has a `render` function taking only what that format needs.
Every output ends with a newline, except `github` with no findings (empty).

Text that came from the file system or a C/C++ file may hold bytes that are not UTF-8 (a file
name, a source line), which Python keeps as lone surrogates; every format writes each such byte
as the four characters `\\xNN` (`escape_undecodable`), so that its output is valid UTF-8. SARIF
URIs percent-encode the raw bytes instead, as a URI must.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cursedlint.findings import Finding
    from cursedlint.rule import Rule

FORMATS = ("text", "json", "sarif", "github")


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
) -> str:
    """Render sorted `findings` in `format` (one of FORMATS).

    `rules` maps code -> Rule class (SARIF rule metadata); `source_line(path, line)` gives a
    line's text (text snippets, SARIF fingerprints). `color`, `concise`, `statistics` and
    `files_checked` shape the text format only.
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
        )
    if format == "json":
        from cursedlint.formats import json_format

        return json_format.render(findings)
    if format == "sarif":
        from cursedlint.formats import sarif

        return sarif.render(findings, rules, source_line=source_line)
    if format == "github":
        from cursedlint.formats import github

        return github.render(findings)
    raise ValueError(f"unknown output format {format!r}; choose one of {', '.join(FORMATS)}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_undecodable(text: str, backslash: str = "\\") -> str:
    """`text` with each byte that was not UTF-8 (a lone surrogate U+DC80..U+DCFF, as
    surrogateescape decoding keeps it) written as `\\xNN`, and any other lone surrogate as
    `\\uNNNN`: text that every encoder accepts. `backslash` is how the backslash is written
    (JSON output passes its escaped form, `\\\\`, to escape inside its string literals)."""

    def escape(match: re.Match) -> str:
        point = ord(match.group())
        return f"{backslash}x{point - 0xDC00:02x}" if 0xDC80 <= point <= 0xDCFF else f"{backslash}u{point:04x}"

    return _SURROGATE.sub(escape, text)
