"""The formats reviewers' tools read: GitLab Code Quality (`gitlab`), reviewdog's Diagnostic
Format (`rdjson`, for pull-request comments through reviewdog) and JUnit XML (`junit`, for CI
test reports). Each follows its published specification:
- GitLab: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
- reviewdog: https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (jsonschema/)
- JUnit XML: the Ant/Jenkins `junit` report (testsuites > testsuite > testcase > failure).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape, quoteattr

from cursedlint.baseline import fingerprinted
from cursedlint.findings import Finding, Severity, Span
from cursedlint.formats import escape_undecodable, fix_edits, printable
from cursedlint.formats.json_format import dumps

SOURCE_URL = "https://pypi.org/project/cursedlint/"  # as SARIF's informationUri
_GITLAB_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major"}


def _relative(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return relative.replace(os.sep, "/")


def gitlab(findings: Sequence[Finding], source_line: Callable[[str, int], str]) -> str:
    """A Code Quality report: an array of issues with a stable fingerprint each."""
    issues = [{
        "description": f"{finding.code} {finding.message}",
        "check_name": finding.code,
        "fingerprint": mark,
        "severity": _GITLAB_SEVERITY[finding.severity],
        "location": {"path": _relative(finding.path),
                     "lines": {"begin": finding.span.line, "end": finding.span.end_line}},
    } for finding, mark in fingerprinted(findings, _relative, source_line)]
    return dumps(issues)


def _range(span: Span) -> dict:
    return {"start": {"line": span.line, "column": span.column},
            "end": {"line": span.end_line, "column": span.end_column}}


def rdjson(findings: Sequence[Finding], source_line: Callable[[str, int], str]) -> str:
    """A DiagnosticResult: each finding with its range, code, suggested fix and chain."""
    diagnostics = []
    for finding in findings:
        diagnostic = {
            "message": finding.explained,
            "location": {"path": _relative(finding.path), "range": _range(finding.span)},
            "severity": finding.severity.value.upper(),
            "code": {"value": finding.code},  # its doc: `cursedlint rule CODE`
        }
        edits = fix_edits(finding, source_line) if finding.fix else ()
        if edits:
            diagnostic["suggestions"] = [{"range": _range(edit.span), "text": edit.content}
                                         for edit in edits]
        if finding.related:
            diagnostic["related_locations"] = [{
                "message": step.note,
                "location": {"path": _relative(step.path),
                             "range": {"start": {"line": step.line}}},
            } for step in finding.related]
        diagnostics.append(diagnostic)
    return dumps({"source": {"name": "cursedlint", "url": SOURCE_URL},
                  "diagnostics": diagnostics})


def junit(findings: Sequence[Finding], files_checked: int) -> str:
    """One test suite; a failing test case per finding (named by code and place)."""
    count = len(findings)
    cases = []
    for finding in findings:  # XML 1.0 has no control characters: `printable` escapes them
        path, message = printable(_relative(finding.path)), printable(finding.message)
        where = f"{path}:{finding.line}:{finding.column}"
        body = f"{where}: {message}" + (f"\n{printable(finding.help)}" if finding.help else "")
        cases.append(
            f"    <testcase classname={quoteattr(path)} "
            f"name={quoteattr(f'{finding.code} {where}')}>\n"
            f"      <failure type={quoteattr(finding.code)} "
            f"message={quoteattr(message)}>{escape(body)}"
            "</failure>\n    </testcase>\n")
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuites name="cursedlint" tests="{count}" failures="{count}" errors="0">\n'
            f'  <testsuite name="cursedlint" tests="{count}" failures="{count}" errors="0" '
            f'skipped="0">\n'
            f'    <properties><property name="files_checked" value="{files_checked}"/>'
            f'</properties>\n{"".join(cases)}  </testsuite>\n</testsuites>\n')
    return escape_undecodable(text)
