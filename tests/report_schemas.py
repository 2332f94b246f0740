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
"""

from __future__ import annotations

import re
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
