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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from cursedlint.formats.shared import report_root

if TYPE_CHECKING:
    from cursedlint.findings import Finding
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
