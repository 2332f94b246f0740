"""Recall of cursedlint on fixed real bugs of its families (regression sets of issues 31 and 32).

    python benchmarks/regressions.py [LIST] [--set {c,py}] [--only NAME ...] [--mirrors DIR]
        [--cursedlint EXE] [--window N] [--whole] [--keep DIR]

Two sets: `--set c` (the default) reads benchmarks/c_regressions.toml, the C/C++ bugs of issue
31; `--set py` reads benchmarks/py_regressions.toml, the Python and Cython bugs of issue 32.
LIST, when given, replaces the set's file. Each holds one `[[bug]]` per fix: name, source
(owner/name), before (the fix's parent), after (the fix), family (the CUR code expected), site
(path:line of the buggy call in the before tree) and reference.

For each bug, both trees are checked out from the mirror (MIRRORS/owner+name/repo, read only,
through real_code.py's helpers) into a temporary directory, and from each tree's root the
installed cursedlint is run on the site's file alone, as a user would on a named file (it
draws facts from what that file reaches in the project around it):

    cursedlint check --no-cache --output-format json --exit-zero PATH

With `--whole`, the whole tree is linted instead (`.` in place of PATH) and the site's file's
findings are read from it: what the named-file mode should match.

"found before" means a finding of the bug's rule family (CUR301/CUR302 count for each other,
as do CUR101/CUR102, CUR201/CUR202 and CUR401-CUR404) within WINDOW lines (default 2) of the site in the before tree,
placed there or with a step of its chain there (a capture in another file whose chain ends at
the site's sync: seen with `--whole`, since a named run reports only the named file's
findings). "silent after" means no such finding near the site's place in the after tree: the site's line is
carried through the fix's diff of that file (a line inside a changed hunk maps to the whole
new hunk). A bug counts as caught when both hold. A row may also give `message`, a regular
expression for the first line of its bug's finding (`only: EPERM`, the values a fallback
leaves out): where the fix leaves another bug at the same call (fixed later, a row of its
own), a finding there counts for the row only when its first line matches. The script prints one row per bug and
recall per family, and always exits 0 (it is a measurement); a missing mirror or commit is
reported in its row.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_code  # noqa: E402  (its checkout helpers: the mirror is only read)

KEYS = {"name", "source", "before", "after", "family", "site", "reference"}
OPTIONAL = {"message"}
FAMILIES = {"CUR101": "process spawning", "CUR102": "process spawning", "CUR103": "fork-protection",
            "CUR201": "native callbacks", "CUR202": "native callbacks",
            "CUR301": "registration", "CUR302": "registration",
            "CUR401": "capture", "CUR402": "capture", "CUR403": "capture", "CUR404": "capture",
            "CUR501": "cloner", "CUR502": "cloner", "CUR601": "cross-process memory"}
SETS = {"c": "c_regressions.toml", "py": "py_regressions.toml"}
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def load(path: str) -> list[dict]:
    with open(path, "rb") as handle:
        bugs = tomllib.load(handle).get("bug", [])
    for bug in bugs:
        if not KEYS <= set(bug) <= KEYS | OPTIONAL:
            sys.exit(f"{path}: bug {bug.get('name')!r}: keys "
                     f"{sorted((set(bug) - OPTIONAL) ^ KEYS)} missing or unknown")
    return bugs


def codes_of(family: str) -> set[str]:
    """The codes that count for a bug whose expected code is `family`."""
    kind = FAMILIES.get(family)
    return {code for code, other in FAMILIES.items() if other == kind} if kind else {family}


def mapped_range(repository: str, before: str, after: str, path: str, line: int) -> tuple[int, int]:
    """The lines of `path` in `after` where the site's line of `before` went."""
    diff = subprocess.run(["git", "--git-dir", repository, "diff", "-U0", before, after, "--", path],
                          capture_output=True, text=True, errors="replace").stdout
    shift = 0
    for text in diff.splitlines():
        match = HUNK.match(text)
        if not match:
            continue
        old_start, old_count = int(match.group(1)), int(match.group(2) or 1)
        new_start, new_count = int(match.group(3)), int(match.group(4) or 1)
        if old_count and old_start <= line < old_start + old_count:
            return new_start, new_start + max(new_count, 1) - 1
        # Unified diff: a count of 0 names the line before the empty side.
        first_old_after = old_start + old_count if old_count else old_start + 1
        first_new_after = new_start + new_count if new_count else new_start + 1
        if first_old_after <= line:
            shift = first_new_after - first_old_after
    return line + shift, line + shift


def lint(executable: str, tree: str, path: str, whole: bool = False) -> list[dict] | str:
    """cursedlint's findings on `path`, run from the tree's root on `path` (or, `whole`, on
    the whole tree); a string when it failed."""
    command = [executable, "check", "--no-cache", "--output-format", "json", "--exit-zero",
               "." if whole else path]
    run = subprocess.run(command, cwd=tree, capture_output=True, text=True, errors="replace")
    try:
        findings = json.loads(run.stdout)
    except json.JSONDecodeError:
        return f"cursedlint exit {run.returncode}: {run.stderr.strip()[-300:]}"
    return [finding for finding in findings if os.path.normpath(path) in places(finding)]


def places(finding: dict) -> dict[str, list[int]]:
    """The paths a finding names, with their lines: its own place and its chain's steps."""
    named: dict[str, list[int]] = {}
    for place in [finding, *finding.get("related", ())]:
        named.setdefault(os.path.normpath(place["path"]), []).append(place["line"])
    return named


def near(findings: list[dict], codes: set[str], path: str, low: int, high: int, window: int,
         message: str = "") -> list[dict]:
    """The findings of `codes` placed, or with a step of their chain, within `window` lines of
    lines low..high of `path`."""
    return [finding for finding in findings if finding["code"] in codes
            and any(low - window <= line <= high + window
                    for line in places(finding).get(os.path.normpath(path), ()))
            and re.search(message, finding["message"].partition("\n")[0])]


def measure(bug: dict, executable: str, mirrors: str, scratch: str, window: int,
            whole: bool = False) -> dict:
    row = {"name": bug["name"], "family": bug["family"], "before": None, "after": None,
           "note": "", "found": [], "left": []}
    path, _, line = bug["site"].rpartition(":")
    line = int(line)
    try:
        repository = real_code.git_dir(bug["source"], mirrors)
    except real_code.Missing as missing:
        row["note"] = f"missing mirror: {missing}"
        return row
    for commit in (bug["before"], bug["after"]):
        probe = subprocess.run(["git", "--git-dir", repository, "cat-file", "-e", f"{commit}^{{commit}}"],
                               capture_output=True)
        if probe.returncode:
            row["note"] = f"commit {commit} not in {repository}"
            return row
    codes = codes_of(bug["family"])
    for side, commit in (("before", bug["before"]), ("after", bug["after"])):
        tree = os.path.join(scratch, f"{bug['name']}-{side}")
        shutil.rmtree(tree, ignore_errors=True)
        absent = real_code.check_out(repository, commit, tree)
        if path in absent:
            row["note"] += f" {side}: {path} absent from the mirror;"
            continue
        findings = lint(executable, tree, path, whole)
        if isinstance(findings, str):
            row["note"] += f" {side}: {findings};"
            continue
        if side == "before":
            hits = near(findings, codes, path, line, line, window, bug.get("message", ""))
            row["before"] = bool(hits)
            row["found"] = [label(f, path) for f in hits]
            row["elsewhere"] = sorted({label(f, path) for f in findings if f["code"] in codes} - set(row["found"]))
        else:
            low, high = mapped_range(repository, bug["before"], bug["after"], path, line)
            hits = near(findings, codes, path, low, high, window, bug.get("message", ""))
            row["after"] = not hits
            row["left"] = [label(f, path) for f in hits]
        shutil.rmtree(tree, ignore_errors=True)
    return row


def label(finding: dict, path: str) -> str:
    """CODE@LINE for a finding in the site's file; CODE@PATH:LINE (its place) for one whose
    chain reaches the site from another file."""
    if os.path.normpath(finding["path"]) == os.path.normpath(path):
        return f"{finding['code']}@{finding['line']}"
    return f"{finding['code']}@{finding['path']}:{finding['line']}"


def yes(value) -> str:
    return "-" if value is None else ("yes" if value else "no")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("list", nargs="?", default=None, help="the set's list file, replaced")
    parser.add_argument("--set", choices=sorted(SETS), default="c", help="which regression set (default: c)")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--mirrors", default=real_code.DEFAULT_MIRRORS)
    parser.add_argument("--cursedlint", default=real_code.default_executable())
    parser.add_argument("--window", type=int, default=2)
    parser.add_argument("--whole", action="store_true",
                        help="lint each whole tree, not the site's file alone")
    parser.add_argument("--keep", default=None, help="check out under this directory (not removed)")
    args = parser.parse_args()
    bugs = [bug for bug in load(args.list or os.path.join(HERE, SETS[args.set]))
            if not args.only or bug["name"] in args.only]
    scratch = args.keep or tempfile.mkdtemp(prefix=f"cursedlint-{args.set}-regressions-")
    os.makedirs(scratch, exist_ok=True)
    rows = []
    print("| bug | family | found before | silent after | before-tree findings of the family at the site / elsewhere in the file | note |")
    print("|---|---|---|---|---|---|")
    try:
        for bug in bugs:
            row = measure(bug, args.cursedlint, args.mirrors, scratch, args.window, args.whole)
            rows.append(row)
            detail = ", ".join(row["found"]) or "none"
            if row.get("elsewhere"):
                detail += " / " + ", ".join(row["elsewhere"])
            if row["left"]:
                row["note"] += " after: still " + ", ".join(row["left"])
            print(f"| {row['name']} | {row['family']} | {yes(row['before'])} | {yes(row['after'])} "
                  f"| {detail} | {row['note'].strip()} |", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print()
    print("| family | bugs | found before | caught (found before and silent after) |")
    print("|---|---|---|---|")
    groups = collections.defaultdict(list)
    for row in rows:
        groups[FAMILIES.get(row["family"], row["family"])].append(row)
    for family, members in sorted(groups.items()):
        found = sum(1 for row in members if row["before"])
        caught = sum(1 for row in members if row["before"] and row["after"])
        print(f"| {family} | {len(members)} | {found}/{len(members)} | {caught}/{len(members)} |")
    total = len(rows)
    print(f"| all | {total} | {sum(1 for r in rows if r['before'])}/{total} | "
          f"{sum(1 for r in rows if r['before'] and r['after'])}/{total} |")
    sys.exit(0)


if __name__ == "__main__":
    main()
