"""The JSON format: an array of findings in the given order, one flat object each."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from cursedlint.findings import Finding, Fix


def render(findings: Sequence[Finding]) -> str:
    objects = [_finding(finding) for finding in findings]
    return json.dumps(objects, indent=2, ensure_ascii=False) + "\n"


def _finding(finding: Finding) -> dict:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity.value,
        "path": finding.path,
        **dataclasses.asdict(finding.span),
        "fix": _fix(finding.fix) if finding.fix else None,
    }


def _fix(fix: Fix) -> dict:
    return {
        "message": fix.message,
        "safe": fix.safe,
        "edits": [{"content": edit.content, **dataclasses.asdict(edit.span)} for edit in fix.edits],
    }
