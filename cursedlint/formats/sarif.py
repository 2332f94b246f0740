"""SARIF 2.1.0 for code scanning (GitHub, IDE viewers): one run, every rule described, each
with its whole documentation as help (there is no page to link to: no `informationUri` or
`helpUri`).

Paths inside the report root (`formats.report_root`: the CI checkout, else the project's root)
become URI references relative to `%SRCROOT%`, which `originalUriBaseIds` sets to that root:
GitHub takes a relative URI as relative to the repository's root, whatever directory the
command ran in. Other paths become absolute `file://` URIs. Both percent-encode the path's
bytes, so a name that is not UTF-8 keeps its bytes (`%FF`). Columns count Unicode code
points, as Finding's do, so the run says `columnKind: unicodeCodePoints`. A fix is written as
its text edits (`fix_edits`); one that cannot be is left out (`replacements` is never empty).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import cursedlint
from cursedlint import docs
from cursedlint.baseline import fingerprinted
from cursedlint.findings import Edit, Finding, Fix, Span, Step
from cursedlint.formats.shared import fix_edits, relative_path
from cursedlint.formats.json_format import dumps

if TYPE_CHECKING:
    from cursedlint.rule import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "cursedlint/v1"


def render(
    findings: Sequence[Finding],
    rules: Mapping[str, type[Rule]],
    *,
    source_line: Callable[[str, int], str],
    root: str,
) -> str:
    """The log; `root` is the directory `%SRCROOT%` names."""
    descriptors = _descriptors(findings, rules)
    rule_index = {descriptor["id"]: index for index, descriptor in enumerate(descriptors)}
    run = {
        "tool": {
            "driver": {
                "name": "cursedlint",
                "version": cursedlint.__version__,
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(Path(os.path.abspath(root)))}},
        "columnKind": "unicodeCodePoints",
        "results": list(_results(findings, rule_index, root, source_line)),
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return dumps(log)


def _descriptors(findings: Sequence[Finding], rules: Mapping[str, type[Rule]]) -> list[dict]:
    """A reportingDescriptor for every rule given and every code found, sorted by code. A code
    without a Rule class gets only its id and name."""
    names = {finding.code: finding.name for finding in findings}
    return [
        _descriptor(rules[code]) if code in rules else {"id": code, "name": names[code]}
        for code in sorted(set(rules) | set(names))
    ]


def _descriptor(rule: type[Rule]) -> dict:
    documentation = docs.markdown(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc_sections().get("What it does", rule.summary)},
        "help": {"text": documentation, "markdown": documentation},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"tags": ["reliability", *rule.languages], "precision": rule.precision,
                       "problem.severity": rule.severity.value},
    }


def _results(
    findings: Sequence[Finding],
    rule_index: Mapping[str, int],
    root: str,
    source_line: Callable[[str, int], str],
) -> Iterator[dict]:
    locations: dict[str, dict] = {}

    def uri(path: str) -> str:
        if path not in locations:
            locations[path] = _artifact_location(path, root)
        return locations[path]["uri"]

    for finding, fingerprint in fingerprinted(findings, uri, source_line):
        edits = fix_edits(finding, source_line) if finding.fix else ()
        yield _result(finding, rule_index[finding.code], locations[finding.path], fingerprint,
                      root, edits)


def _result(finding: Finding, rule_index: int, location: dict, fingerprint: str, root: str,
            edits: Sequence[Edit]) -> dict:
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": finding.severity.value,
        "message": {"text": finding.explained},
        "locations": [
            {"physicalLocation": {"artifactLocation": location, "region": _region(finding.span)}}
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }
    if finding.related:
        result["relatedLocations"] = [
            _related(index, step, root) for index, step in enumerate(finding.related, 1)
        ]
    if edits:
        result["fixes"] = [_fix(finding.fix, edits, location)]
    return result


def _related(index: int, step: Step, root: str) -> dict:
    """One step of the finding's chain as a SARIF related location."""
    return {
        "id": index,
        "message": {"text": step.note},
        "physicalLocation": {
            "artifactLocation": _artifact_location(step.path, root),
            "region": {"startLine": step.line},
        },
    }


def _artifact_location(path: str, root: str) -> dict:
    """`path` relative to `root` as a percent-encoded URI reference based on %SRCROOT%, or an
    absolute file:// URI when it lies outside `root`."""
    relative = relative_path(path, root)
    if os.path.isabs(relative):
        return {"uri": Path(relative).as_uri()}
    return {"uri": quote(os.fsencode(relative)), "uriBaseId": SRCROOT}


def _directory_uri(directory: Path) -> str:
    """A directory's file:// URI with the trailing slash that base URIs need."""
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _region(span: Span) -> dict:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _fix(fix: Fix, edits: Sequence[Edit], location: dict) -> dict:
    return {
        "description": {"text": fix.message},
        "artifactChanges": [
            {
                "artifactLocation": location,
                "replacements": [
                    {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.content}}
                    for edit in edits
                ],
            }
        ],
        "properties": {"safe": fix.safe},
    }
