"""What the consumers of cursedlint's reports accept, for tests to validate real output against.

The JSON schemas are written here from the published specifications, not copied:
- SARIF: the part of the OASIS SARIF 2.1.0 schema (sarif-schema-2.1.0.json, Draft 4) that
  cursedlint writes, with its constraints (`replacements` and `artifactChanges` non-empty, the
  regions' lower bounds, the level and columnKind enums). Objects allow only the properties
  cursedlint writes, so that a misspelt one fails too. No package on PyPI that is kept up
  ships the OASIS file (sarif-tools and sarif-om do not; the one that does is a single
  release of a new project), and codeql-action validates uploads with that same schema.
- GitLab: the "Code Quality report format" table of GitLab's documentation.
- reviewdog: proto/rdf's DiagnosticResult (its jsonschema/ is generated from the .proto).
JUnit XML has no published schema of its own; `junit_errors` checks what Jenkins' JUnit schema
(junit-4.xsd of its dtkit model) allows and what Jenkins and GitLab count.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from urllib.parse import unquote_to_bytes

_MESSAGE = {"type": "object", "required": ["text"], "additionalProperties": False,
            "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}}}
_PROPERTIES = {"type": "object", "properties": {
    "tags": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}}}
_ARTIFACT_LOCATION = {"type": "object", "required": ["uri"], "additionalProperties": False,
                      "properties": {"uri": {"type": "string"},
                                     "uriBaseId": {"type": "string"}}}
_REGION = {"type": "object", "required": ["startLine"], "additionalProperties": False,
           "properties": {name: {"type": "integer", "minimum": 1}
                          for name in ("startLine", "startColumn", "endLine", "endColumn")}}
_PHYSICAL_LOCATION = {"type": "object", "required": ["artifactLocation"],
                      "additionalProperties": False,
                      "properties": {"artifactLocation": _ARTIFACT_LOCATION, "region": _REGION}}
_LOCATION = {"type": "object", "additionalProperties": False, "properties": {
    "id": {"type": "integer", "minimum": -1},
    "message": _MESSAGE,
    "physicalLocation": _PHYSICAL_LOCATION}}
_REPLACEMENT = {"type": "object", "required": ["deletedRegion"], "additionalProperties": False,
                "properties": {"deletedRegion": _REGION, "insertedContent": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"text": {"type": "string"}}}}}
_FIX = {"type": "object", "required": ["artifactChanges"], "additionalProperties": False,
        "properties": {
            "description": _MESSAGE,
            "artifactChanges": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {
                "type": "object", "required": ["artifactLocation", "replacements"],
                "additionalProperties": False,
                "properties": {"artifactLocation": _ARTIFACT_LOCATION,
                               "replacements": {"type": "array", "minItems": 1,
                                                "items": _REPLACEMENT}}}},
            "properties": _PROPERTIES}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
_RULE = {"type": "object", "required": ["id"], "additionalProperties": False, "properties": {
    "id": {"type": "string"},
    "name": {"type": "string"},
    "shortDescription": _MESSAGE,
    "fullDescription": _MESSAGE,
    "help": _MESSAGE,
    "helpUri": {"type": "string"},
    "defaultConfiguration": {"type": "object", "additionalProperties": False,
                             "properties": {"level": _LEVEL}},
    "properties": _PROPERTIES}}
_RESULT = {"type": "object", "required": ["message"], "additionalProperties": False,
           "properties": {
               "ruleId": {"type": "string"},
               "ruleIndex": {"type": "integer", "minimum": -1},
               "level": _LEVEL,
               "message": _MESSAGE,
               "locations": {"type": "array", "items": _LOCATION},
               "relatedLocations": {"type": "array", "uniqueItems": True, "items": _LOCATION},
               "partialFingerprints": {"type": "object",
                                       "additionalProperties": {"type": "string"}},
               "fixes": {"type": "array", "uniqueItems": True, "items": _FIX}}}
SARIF = {
    "type": "object", "required": ["version", "runs"], "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {
            "type": "object", "required": ["tool"], "additionalProperties": False,
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "additionalProperties": False,
                         "properties": {"driver": {
                             "type": "object", "required": ["name"],
                             "additionalProperties": False,
                             "properties": {"name": {"type": "string"},
                                            "version": {"type": "string"},
                                            "informationUri": {"type": "string"},
                                            "rules": {"type": "array", "uniqueItems": True,
                                                      "items": _RULE}}}}},
                "originalUriBaseIds": {"type": "object",
                                       "additionalProperties": _ARTIFACT_LOCATION},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "results": {"type": "array", "items": _RESULT}}}}},
}

_URI_REFERENCE = re.compile(r"([A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*")


def uri_errors(log: dict) -> list[str]:
    """The artifact URIs of a SARIF log that are not RFC 3986 URI references (the schema's
    `uri-reference` format, which jsonschema checks only with an optional package), or whose
    base is not a directory URI that `originalUriBaseIds` defines."""
    run = log["runs"][0]
    bases = run.get("originalUriBaseIds", {})
    errors = [f"base {name}: {base['uri']}" for name, base in bases.items()
              if not base["uri"].startswith("file:///") or not base["uri"].endswith("/")]
    locations = [location["physicalLocation"]["artifactLocation"]
                 for result in run["results"]
                 for location in (*result["locations"], *result.get("relatedLocations", ()))]
    locations += [change["artifactLocation"] for result in run["results"]
                  for fix in result.get("fixes", ()) for change in fix["artifactChanges"]]
    for location in locations:
        uri = location["uri"]
        path = uri.removeprefix("file://")
        if not _URI_REFERENCE.fullmatch(path) or ("uriBaseId" in location) == uri.startswith(
                "file:"):
            errors.append(uri)
        elif "uriBaseId" in location and location["uriBaseId"] not in bases:
            errors.append(f"{uri}: no base {location['uriBaseId']}")
    return errors


def uri_path(uri: str) -> bytes:
    """The path bytes a SARIF artifact URI (relative or file://) names."""
    return unquote_to_bytes(uri.removeprefix("file://"))


GITLAB = {"type": "array", "items": {
    "type": "object",
    "required": ["description", "check_name", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string"},
        "check_name": {"type": "string"},
        "fingerprint": {"type": "string", "minLength": 1},
        "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
        "location": {"type": "object", "required": ["path", "lines"], "properties": {
            "path": {"type": "string"},
            "lines": {"type": "object", "required": ["begin"],
                      "properties": {"begin": {"type": "integer", "minimum": 1},
                                     "end": {"type": "integer", "minimum": 1}}}}},
    }}}

_POSITION = {"type": "object", "properties": {"line": {"type": "integer", "minimum": 1},
                                              "column": {"type": "integer", "minimum": 1}}}
_RANGE = {"type": "object", "required": ["start"],
          "properties": {"start": _POSITION, "end": _POSITION}, "additionalProperties": False}
_RD_LOCATION = {"type": "object", "required": ["path"],
                "properties": {"path": {"type": "string"}, "range": _RANGE},
                "additionalProperties": False}
_SEVERITY = {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]}
RDJSON = {
    "type": "object",
    "properties": {
        "source": {"type": "object", "required": ["name"],
                   "properties": {"name": {"type": "string"}, "url": {"type": "string"}}},
        "severity": _SEVERITY,
        "diagnostics": {"type": "array", "items": {
            "type": "object", "required": ["message", "location"],
            "properties": {
                "message": {"type": "string"},
                "location": _RD_LOCATION,
                "severity": _SEVERITY,
                "source": {"type": "object"},
                "code": {"type": "object", "required": ["value"],
                         "properties": {"value": {"type": "string"},
                                        "url": {"type": "string"}}},
                "suggestions": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["range", "text"],
                    "properties": {"range": _RANGE, "text": {"type": "string"}}}},
                "original_output": {"type": "string"},
                "related_locations": {"type": "array", "items": {
                    "type": "object", "properties": {"message": {"type": "string"},
                                                     "location": _RD_LOCATION}}},
            },
            "additionalProperties": False}},
    },
    "additionalProperties": False,
}


_JUNIT_ATTRIBUTES = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, set()),
    "testsuite": ({"name", "tests", "failures", "errors", "time", "disabled", "skipped",
                   "timestamp", "hostname", "id", "package"}, {"name", "tests"}),
    "properties": (set(), set()),
    "property": ({"name", "value"}, {"name", "value"}),
    "testcase": ({"name", "assertions", "time", "classname", "status"}, {"name"}),
    "failure": ({"type", "message"}, set()),
    "error": ({"type", "message"}, set()),
    "skipped": (set(), set()),
    "system-out": (set(), set()),
    "system-err": (set(), set()),
}
_JUNIT_CHILDREN = {  # in this order, each (name, at most one)
    "testsuites": [("testsuite", False)],
    "testsuite": [("properties", True), ("testcase", False), ("system-out", True),
                  ("system-err", True)],
    "properties": [("property", False)],
    "testcase": [("skipped", True), ("error", False), ("failure", False), ("system-out", False),
                 ("system-err", False)],
}
_COUNT = re.compile(r"[0-9]+")
_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")


def junit_errors(text: str) -> list[str]:
    """What Jenkins' JUnit schema or its and GitLab's reading find wrong in a JUnit report:
    elements, attributes and their order; counts that are not numbers, or that disagree with
    the test cases (tests, failures, errors, skipped, per suite and in all); a report with no
    test case (consumers take it for a failed upload)."""
    root = ElementTree.fromstring(text)
    errors = [] if root.tag == "testsuites" else [f"root <{root.tag}>"]
    for element in root.iter():
        allowed, required = _JUNIT_ATTRIBUTES.get(element.tag, (None, set()))
        if allowed is None:
            errors.append(f"<{element.tag}>")
            continue
        errors += [f"<{element.tag}> {name}=" for name in set(element.attrib) - allowed]
        errors += [f"<{element.tag}> without {name}=" for name in required - set(element.attrib)]
        children = _JUNIT_CHILDREN.get(element.tag, [])
        order = [name for name, _ in children]
        tags = [child.tag for child in element]
        if tags != sorted(tags, key=lambda tag: order.index(tag) if tag in order else -1) or \
                any(tag not in order for tag in tags):
            errors.append(f"<{element.tag}> holds {tags}")
        errors += [f"<{element.tag}> holds {tags.count(name)} <{name}>"
                   for name, single in children if single and tags.count(name) > 1]
        if element.tag in ("failure", "error", "skipped") and len(element):
            errors.append(f"<{element.tag}> holds elements")
        for name in ("tests", "failures", "errors", "skipped", "disabled"):
            if name in element.attrib and not _COUNT.fullmatch(element.get(name)):
                errors.append(f"<{element.tag}> {name}={element.get(name)!r}")
        if "time" in element.attrib and not _SECONDS.fullmatch(element.get("time")):
            errors.append(f"<{element.tag}> time={element.get('time')!r}")
        if "timestamp" in element.attrib and not _TIMESTAMP.fullmatch(element.get("timestamp")):
            errors.append(f"<{element.tag}> timestamp={element.get('timestamp')!r}")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counted = {"tests": len(cases),
                   **{f"{name}s" if name != "skipped" else name:
                      sum(1 for case in cases if case.find(name) is not None)
                      for name in ("failure", "error", "skipped")}}
        for name, count in counted.items():
            totals[name] += count
            if suite.get(name, "0") != str(count):
                errors.append(f"suite {suite.get('name')}: {name}={suite.get(name)}, {count} cases are")
    for name in ("tests", "failures", "errors"):
        if root.get(name) not in (None, str(totals[name])):
            errors.append(f"<testsuites> {name}={root.get(name)}, {totals[name]} in its suites")
    if not totals["tests"]:
        errors.append("no test case")
    return errors
