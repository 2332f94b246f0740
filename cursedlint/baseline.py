"""Baselines for legacy code: the findings of a run recorded by fingerprint, so that later runs
report only new ones.

A finding's fingerprint (also SARIF's `partialFingerprints`) is the hash of its code, its file,
the text of its line with whitespace normalised, and how many earlier findings of the file
share all three: it survives edits elsewhere in the file, moved lines, `--jobs` and platforms.
Here the file is named relative to the baseline's own directory, with `/` separators. A
baseline is JSON, decoded against its declared shape: anything else is refused with a message.
A repository's configuration may name it, so it is read only from a regular file (a symbolic
link to one is followed) and up to `BASELINE_BYTES`.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import msgspec

from cursedlint.findings import Finding
from cursedlint.project.safe_files import read_regular

VERSION = 1
BASELINE_BYTES = 1 << 30
"""The largest baseline read: about 8 million findings (1M take 135 MB, 3 s and 0.56 GB)."""


class Entry(msgspec.Struct, frozen=True):
    fingerprint: str
    code: str
    path: str
    line: int


class Baseline(msgspec.Struct, frozen=True):
    version: int
    findings: list[Entry]


class BaselineError(Exception):
    """The baseline file cannot be read or is not a baseline."""


def fingerprint(code: str, location: str, line_text: str, occurrence: int) -> str:
    """Stable across edits elsewhere in the file (see the module docstring)."""
    key = f"{code}\0{location}\0{' '.join(line_text.split())}\0{occurrence}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def fingerprinted(findings: Sequence[Finding], location: Callable[[str], str],
                  source_line: Callable[[str, int], str]) -> Iterator[tuple[Finding, str]]:
    """Each finding (in order) with its fingerprint; `location(path)` names its file."""
    occurrences: Counter[tuple[str, str, str]] = Counter()
    for finding in findings:
        key = (finding.code, location(finding.path),
               " ".join(source_line(finding.path, finding.line).split()))
        yield finding, fingerprint(*key, occurrences[key])
        occurrences[key] += 1


def _location(baseline_path: str) -> Callable[[str], str]:
    directory = os.path.dirname(os.path.abspath(baseline_path))
    return lambda path: os.path.relpath(os.path.abspath(path), directory).replace(os.sep, "/")


def write(path: str, findings: Sequence[Finding],
          source_line: Callable[[str, int], str]) -> int:
    """Record the findings in the baseline file at `path` (replacing it); how many."""
    location = _location(path)
    entries = [Entry(mark, finding.code, location(finding.path), finding.line)
               for finding, mark in fingerprinted(findings, location, source_line)]
    data = msgspec.json.format(msgspec.json.encode(Baseline(VERSION, entries)), indent=1)
    try:
        with open(path, "wb") as handle:
            handle.write(data + b"\n")
    except OSError as error:
        raise BaselineError(f"cannot write the baseline {path!r}: {error.strerror or error}")
    return len(entries)


def new_findings(path: str, findings: Sequence[Finding],
                 source_line: Callable[[str, int], str]) -> tuple[list[Finding], int]:
    """The findings the baseline at `path` does not hold, and how many it held."""
    try:
        data = read_regular(path, BASELINE_BYTES, follow_symlinks=True)
    except OSError as error:  # a RefusedFile's strerror is its reason
        raise BaselineError(f"cannot read the baseline {path!r}: {error.strerror or error}")
    try:
        baseline = msgspec.json.decode(data, type=Baseline)
    except msgspec.DecodeError as error:
        raise BaselineError(f"{path!r} is not a cursedlint baseline: {error}") from None
    if baseline.version != VERSION:
        raise BaselineError(f"{path!r}: baseline version {baseline.version} is not {VERSION}")
    known = Counter(entry.fingerprint for entry in baseline.findings)
    kept = []
    for finding, mark in fingerprinted(findings, _location(path), source_line):
        if known[mark]:
            known[mark] -= 1
        else:
            kept.append(finding)
    return kept, len(findings) - len(kept)
