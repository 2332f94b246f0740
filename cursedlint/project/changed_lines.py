"""The lines a change touched, for reviewing only what a pull request introduced: `git diff`
from the merge base of a reference and HEAD to the working tree (committed, staged and
unstaged changes), plus the files git does not track yet (every line of them).

git runs in the repository of the linted paths, whatever the working directory, and its
output is pinned against the user's and the repository's configuration: prefixes, colour,
external diff and text conversion, relative paths, the context of hunks, quoted names (git
C-quotes a name with a control character, a quote or a backslash) and the fsmonitor hook
that a tree's own `.git/config` could name."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence

from cursedlint.findings import Finding

_GIT = ("git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false",
        "-c", "diff.relative=false", "-c", "diff.suppressBlankEmpty=false")
_DIFF = ("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-renames",
         "--unified=0", "--src-prefix=a/", "--dst-prefix=b/")
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ESCAPE = re.compile(rb'\\([0-7]{3}|[abtnvfr"\\])')
_ESCAPED = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f",
            b"r": b"\r", b'"': b'"', b"\\": b"\\"}
_SHALLOW_HINT = ("this is a shallow clone: fetch more history (git fetch --unshallow, or "
                 "fetch-depth: 0 in actions/checkout)")
_EVERY_LINE = None  # a new, untracked file: all its lines are changed


class DiffError(Exception):
    """The reference or the repository cannot be read with git."""


def _run(root: str, *arguments: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([*_GIT, "-C", root, *arguments], capture_output=True,
                              timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise DiffError(f"git could not run: {error}") from None


def _git(root: str, *arguments: str) -> str:
    """git's output, or DiffError with the line of its message that says what failed."""
    done = _run(root, *arguments)
    if done.returncode:
        raise DiffError(_first_error(done.stderr.decode("utf-8", "replace"))
                        or f"git {arguments[0]} failed")
    return done.stdout.decode("utf-8", "surrogateescape")


def _first_error(stderr: str) -> str:
    """The line of git's message that says what failed (git adds hints and usage after it)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return next((line for line in lines if line.startswith(("fatal:", "error:"))),
                lines[0] if lines else "")


def repository_of(paths: Sequence[str]) -> str:
    """The top directory of the one git work tree that holds every path; DiffError when a
    path is in none, or the paths are in different ones. git answers for the first path, and
    for another only when its directory is not under that top without a `.git` on the way
    (a nested repository or a submodule; saves a git per directory)."""
    root = os.path.realpath(_toplevel(paths[0]))
    inside = {root}
    for path in paths[1:]:
        directory, walked = os.path.realpath(_directory(path)), []
        while not (directory in inside or os.path.dirname(directory) == directory
                   or os.path.lexists(os.path.join(directory, ".git"))):
            walked.append(directory)
            directory = os.path.dirname(directory)
        if directory not in inside:
            other = os.path.realpath(_toplevel(path))
            if other != root:
                raise DiffError(f"the linted paths are in different git repositories: "
                                f"{paths[0]!r} is in {root!r}, {path!r} in {other!r}")
        inside.update(walked, [directory])
    return root


def _toplevel(path: str) -> str:
    directory = _directory(path)
    try:
        return _git(directory, "rev-parse", "--show-toplevel").removesuffix("\n")
    except DiffError as error:
        raise DiffError(f"{directory!r}: {error}") from None


def _directory(path: str) -> str:
    return path if os.path.isdir(path) else os.path.dirname(path) or os.curdir


def changed_lines(reference: str, paths: Sequence[str]) -> dict[str, set[int] | None]:
    """Absolute path -> the line numbers added or changed since the merge base of
    `reference` and HEAD (None: the whole file is new and untracked), in the repository of
    the linted `paths`."""
    if reference.startswith("-"):
        raise DiffError(f"not a reference: {reference!r}")
    root = repository_of(paths)
    found = _run(root, "merge-base", reference, "HEAD")
    if found.returncode:  # exit 1 and nothing said: no common commit
        problem = (_first_error(found.stderr.decode("utf-8", "replace"))
                   or f"{reference} and HEAD have no common ancestor")
        if _git(root, "rev-parse", "--is-shallow-repository").strip() == "true":
            problem += f"; {_SHALLOW_HINT}"
        raise DiffError(problem)
    base = found.stdout.decode("ascii", "replace").strip()
    changed: dict[str, set[int] | None] = {}
    for section in re.split(r"^diff --git ", _git(root, *_DIFF, base, "--"), flags=re.M)[1:]:
        header, *hunks = re.split(r"^(?=@@ )", section, flags=re.M)
        name = _new_name(header)
        if name is not None:  # None: deleted, or no lines changed (a mode, an empty file)
            lines = changed.setdefault(os.path.realpath(os.path.join(root, name)), set())
            for hunk in hunks:
                lines.update(_added(hunk))
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    for name in filter(None, untracked.split("\0")):
        changed[os.path.realpath(os.path.join(root, name))] = _EVERY_LINE
    return changed


def _new_name(header: str) -> str | None:
    """The path after `+++ b/` in a file's patch header, unquoted; None for `/dev/null` or
    no such line. git ends a name that holds a space with a tab (for patch(1))."""
    line = next((line for line in header.split("\n") if line.startswith("+++ ")), None)
    if line is None or line == "+++ /dev/null":
        return None
    name = line[4:].removesuffix("\t")
    if name.startswith('"'):  # C-quoted: octal bytes (UTF-8) and backslash escapes
        quoted = name[1:-1].encode("utf-8", "surrogateescape")
        name = _ESCAPE.sub(lambda escape: _ESCAPED.get(escape[1]) or bytes([int(escape[1], 8)]),
                           quoted).decode("utf-8", "surrogateescape")
    return name.removeprefix("b/")


def _added(hunk: str) -> set[int]:
    """The new-side numbers of a hunk's added lines, counted through its body, so that
    context lines (GIT_DIFF_OPTS, diff.interHunkContext) are never taken as changed."""
    header, _, body = hunk.partition("\n")
    number = int(_HUNK.match(header).group(1))
    added = set()
    for line in body.split("\n"):
        if line.startswith("+"):
            added.add(number)
        if line.startswith(("+", " ")):
            number += 1
    return added


def on_changed_lines(findings: Sequence[Finding],
                     changed: dict[str, set[int] | None]) -> list[Finding]:
    """The findings located on a changed line, or with a step of their chain on one."""
    def touched(path: str, line: int) -> bool:
        lines = changed.get(os.path.realpath(path), set())
        return lines is _EVERY_LINE or line in lines

    return [finding for finding in findings
            if touched(finding.path, finding.line)
            or any(touched(step.path, step.line) for step in finding.related)]
