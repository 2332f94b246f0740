"""The formats reviewers' tools read: GitLab Code Quality (`gitlab`), reviewdog's Diagnostic
Format (`rdjson`, for pull-request comments through reviewdog) and JUnit XML (`junit`, for CI
test reports). Each follows its published specification:
- GitLab: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
- reviewdog: https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (jsonschema/)
- JUnit XML: the Ant/Jenkins `junit` report (testsuites > testsuite > testcase > failure), with
  the attributes the strict schemas ask for (`time`, `timestamp`, `hostname`).

GitLab and JUnit name files relative to `report_root` (GitLab's `CI_PROJECT_DIR` in a job).
reviewdog takes a relative path as relative to the directory it runs in (it prepends that
directory's place in the repository), so rdjson names files relative to the working directory;
its columns count UTF-8 bytes, as reviewdog's `Position.column` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from xml.sax.saxutils import escape, quoteattr

from cursedlint.baseline import fingerprinted
from cursedlint.findings import Finding, Severity, Span
from cursedlint.formats.shared import escape_undecodable, fix_edits, printable, relative_path
from cursedlint.formats.json_format import dumps

_GITLAB_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major"}


def gitlab(findings: Sequence[Finding], source_line: Callable[[str, int], str],
           root: str) -> str:
    """A Code Quality report: an array of issues with a stable fingerprint each."""
    def path_of(path: str) -> str:
        return relative_path(path, root)

    issues = [{
        "description": f"{finding.code} {finding.message}",
        "check_name": finding.code,
        "fingerprint": mark,
        "severity": _GITLAB_SEVERITY[finding.severity],
        "location": {"path": path_of(finding.path),
                     "lines": {"begin": finding.span.line, "end": finding.span.end_line}},
    } for finding, mark in fingerprinted(findings, path_of, source_line)]
    return dumps(issues)


def _from_cwd(path: str) -> str:
    """`path` relative to the working directory (as rdjson names files), `/`-separated."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return relative.replace(os.sep, "/")


def utf8_column(line: str, column: int) -> int:
    """The 1-based character `column` of `line` as a 1-based count of UTF-8 bytes (a byte that
    was not UTF-8 counts one, as in the file; a column past the known text, one a column)."""
    before = line[: column - 1]
    try:
        size = len(before.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:  # a lone surrogate that no byte stood for: as UTF-8 writes it
        size = len(before.encode("utf-8", "surrogatepass"))
    return size + column - len(before)


def _range(path: str, span: Span, source_line: Callable[[str, int], str]) -> dict:
    return {"start": {"line": span.line,
                      "column": utf8_column(source_line(path, span.line), span.column)},
            "end": {"line": span.end_line,
                    "column": utf8_column(source_line(path, span.end_line), span.end_column)}}


def rdjson(findings: Sequence[Finding], source_line: Callable[[str, int], str]) -> str:
    """A DiagnosticResult: each finding with its range, code, suggested fix and chain."""
    diagnostics = []
    for finding in findings:
        diagnostic = {
            "message": finding.explained,
            "location": {"path": _from_cwd(finding.path),
                         "range": _range(finding.path, finding.span, source_line)},
            "severity": finding.severity.value.upper(),
            "code": {"value": finding.code},  # its doc: `cursedlint rule CODE`
        }
        edits = fix_edits(finding, source_line) if finding.fix else ()
        if edits:
            diagnostic["suggestions"] = [
                {"range": _range(finding.path, edit.span, source_line), "text": edit.content}
                for edit in edits]
        if finding.related:
            diagnostic["related_locations"] = [{
                "message": step.note,
                "location": {"path": _from_cwd(step.path),
                             "range": {"start": {"line": step.line}}},
            } for step in finding.related]
        diagnostics.append(diagnostic)
    return dumps({"source": {"name": "cursedlint"}, "diagnostics": diagnostics})


def junit(findings: Sequence[Finding], files_checked: int, root: str, fail_on: str,
          seconds: float) -> str:
    """One test suite: a test case per finding, failed where the finding fails the run
    (`fail_on`), skipped where it does not (a warning under `--fail-on error`: listed and
    counted, not failed), in error for an internal error (CUR000, exit 2); one passing case
    when there is no finding (as ruff). `seconds`: how long the run took. Elements and
    attributes are those of Jenkins' JUnit schema (skipped holds only text)."""
    import socket
    import time

    from cursedlint.notices import InternalError  # (loaded with the rules already)

    cases, counts = [], {"failure": 0, "skipped": 0, "error": 0}
    for finding in findings:  # XML 1.0 has no control characters: `printable` escapes them
        path = printable(relative_path(finding.path, root))
        message = printable(finding.message)
        where = f"{path}:{finding.line}:{finding.column}"
        body = f"{where}: {message}" + (f"\n{printable(finding.help)}" if finding.help else "")
        if finding.code == InternalError.code:
            outcome = "error"
        elif fail_on == "warning" or finding.severity == Severity.ERROR:
            outcome = "failure"
        else:
            outcome = "skipped"
        counts[outcome] += 1
        if outcome == "skipped":
            note = f"{finding.severity.value}, not failed by --fail-on {fail_on}: {body}"
            result = f"<skipped>{escape(note)}</skipped>"
        else:
            result = (f"<{outcome} type={quoteattr(finding.code)} message={quoteattr(message)}>"
                      f"{escape(body)}</{outcome}>")
        cases.append(f"    <testcase classname={quoteattr(path)} "
                     f"name={quoteattr(f'{finding.code} {where}')} time=\"0\">\n"
                     f"      {result}\n    </testcase>\n")
    if not cases:
        cases.append('    <testcase classname="cursedlint" name="No errors found" time="0"/>\n')
    totals = (f'tests="{len(cases)}" failures="{counts["failure"]}" errors="{counts["error"]}" '
              f'time="{seconds:.3f}"')
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")  # local time without offset, as Ant writes it
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuites name="cursedlint" {totals}>\n'
            f'  <testsuite name="cursedlint" {totals} skipped="{counts["skipped"]}" '
            f'timestamp="{stamp}" hostname={quoteattr(printable(socket.gethostname()))}>\n'
            f'    <properties><property name="files_checked" value="{files_checked}"/>'
            f'</properties>\n{"".join(cases)}  </testsuite>\n</testsuites>\n')
    return escape_undecodable(text)
