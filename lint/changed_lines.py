"""The lines a change touched, for reviewing only what a pull request introduced: `git diff`
from the merge base of a reference and HEAD to the working tree (committed, staged and
unstaged changes), plus the files git does not track yet (every line of them)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence

from cursedlint.findings import Finding

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)
_NEW_FILE = re.compile(r"^\+\+\+ b/(.*)$", re.M)
_EVERY_LINE = None  # a new, untracked file: all its lines are changed


class DiffError(Exception):
    """The reference or the repository cannot be read with git."""


def _git(root: str, *arguments: str) -> str:
    try:
        done = subprocess.run(["git", "-C", root, *arguments], capture_output=True, timeout=120,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise DiffError(f"git could not run: {error}") from None
    if done.returncode:
        raise DiffError(done.stderr.decode("utf-8", "replace").strip() or
                        f"git {arguments[0]} failed")
    return done.stdout.decode("utf-8", "surrogateescape")


def changed_lines(reference: str, start: str = ".") -> dict[str, set[int] | None]:
    """Absolute path -> the line numbers added or changed since the merge base of
    `reference` and HEAD (None: the whole file is new and untracked)."""
    if reference.startswith("-"):
        raise DiffError(f"not a reference: {reference!r}")
    root = _git(os.path.abspath(start), "rev-parse", "--show-toplevel").strip()
    base = _git(root, "merge-base", reference, "HEAD").strip()
    diff = _git(root, "diff", "--no-color", "--no-ext-diff", "--unified=0", "--no-renames",
                base, "--")
    changed: dict[str, set[int] | None] = {}
    for section in re.split(r"^diff --git ", diff, flags=re.M)[1:]:
        name = _NEW_FILE.search(section)
        if name is None:  # deleted
            continue
        lines = changed.setdefault(os.path.realpath(os.path.join(root, name.group(1))), set())
        for start_line, count in _HUNK.findall(section):
            first, length = int(start_line), int(count) if count else 1
            lines.update(range(first, first + length))
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    for name in filter(None, untracked.split("\0")):
        changed[os.path.realpath(os.path.join(root, name))] = _EVERY_LINE
    return changed


def on_changed_lines(findings: Sequence[Finding],
                     changed: dict[str, set[int] | None]) -> list[Finding]:
    """The findings located on a changed line, or with a step of their chain on one."""
    def touched(path: str, line: int) -> bool:
        lines = changed.get(os.path.realpath(path), set())
        return lines is _EVERY_LINE or line in lines

    return [finding for finding in findings
            if touched(finding.path, finding.line)
            or any(touched(step.path, step.line) for step in finding.related)]
