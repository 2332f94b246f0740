"""The JSON format: an array of findings in the given order, one flat object each. A byte of a
path or a source text that is not UTF-8 reads `\\xNN` in its string (`escape_undecodable`). A
fix carries the text edits it makes (`fix_edits`); one that cannot be written so is null."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from msgspec.structs import asdict

from cursedlint.findings import Edit, Finding, Fix
from cursedlint.formats.shared import escape_undecodable, fix_edits


def render(findings: Sequence[Finding], source_line: Callable[[str, int], str]) -> str:
    objects = [_finding(finding, source_line) for finding in findings]
    return dumps(objects)


def statistics(findings: Sequence[Finding]) -> str:
    """`--statistics`: per code, its name, severity and count, most frequent first."""
    counts: dict[str, list] = {}
    for finding in findings:
        entry = counts.setdefault(finding.code, [finding.name, finding.severity.value, 0])
        entry[2] += 1
    rows = sorted(counts.items(), key=lambda item: (-item[1][2], item[0]))
    return dumps([{"code": code, "name": name, "severity": severity, "count": count}
                  for code, (name, severity, count) in rows])


def dumps(document) -> str:
    """Indented UTF-8 JSON text, each byte that was not UTF-8 escaped: a lone surrogate can
    only stand in a string literal, where `\\\\xNN` is the text `\\xNN`."""
    return escape_undecodable(json.dumps(document, indent=2, ensure_ascii=False), "\\\\") + "\n"


def _finding(finding: Finding, source_line: Callable[[str, int], str]) -> dict:
    edits = fix_edits(finding, source_line) if finding.fix else ()
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "help": finding.help,
        "severity": finding.severity.value,
        "path": finding.path,
        **asdict(finding.span),
        "fix": _fix(finding.fix, edits) if edits else None,
        "related": [asdict(step) for step in finding.related],
    }


def _fix(fix: Fix, edits: Sequence[Edit]) -> dict:
    return {
        "message": fix.message,
        "safe": fix.safe,
        "edits": [{"content": edit.content, **asdict(edit.span)} for edit in edits],
    }
