"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

https://docs.github.com/actions/reference/workflow-commands-for-github-actions

The runner takes `file=` as relative to the repository's root (GITHUB_WORKSPACE), and an
absolute path under it as that relative path: files are named relative to `report_root` (the
workspace in a job, whatever the step's working directory), absolute outside it. Columns count
characters, as ruff's do (GitHub does not say what unit it counts; it shows annotations by line).
"""

from __future__ import annotations

from collections.abc import Sequence

from cursedlint.findings import Finding
from cursedlint.formats.shared import printable, relative_path

# As @actions/core escapes: data `%`, CR, LF; property values also `:` and `,`.
DATA_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})


def render(findings: Sequence[Finding], root: str) -> str:
    """An annotation per finding, naming its file relative to `root`."""
    return "".join(printable(_command(finding, root)) + "\n" for finding in findings)


def _command(finding: Finding, root: str) -> str:
    """`::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=CODE (name)::message`."""
    span = finding.span
    properties = {
        "file": relative_path(finding.path, root),
        "line": span.line,
        "col": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
        "title": f"{finding.code} ({finding.name})",
    }
    joined = ",".join(
        f"{key}={str(value).translate(PROPERTY_ESCAPES)}" for key, value in properties.items()
    )
    return f"::{finding.severity.value} {joined}::{finding.message.translate(DATA_ESCAPES)}"
