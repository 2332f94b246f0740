"""Lints pinned commits of public repositories with the installed cursedlint, as a new user
would (every rule on, default settings, no cache), and writes what it found for review by hand.

    python benchmarks/real_code.py [LIST] [--only NAME ...] [--out DIR] [--cursedlint EXE]
        [--mirrors DIR] [--jobs N] [--keep] [--compare OLD_FINDINGS_JSON]

LIST (default: benchmarks/real_code.toml beside this script) holds one `[[repository]]` table
per entry:

    [[repository]]
    name = "numba"                  # the row's name (unique)
    source = "numba/numba"          # owner/name, found as MIRRORS/owner+name/repo, or a path
                                    # to any git directory or clone
    commit = "5340f052d01403b12480fa19e596200ee0d0e131"   # full hash: the tree that is linted
    paths = ["numba"]               # optional: subdirectories to lint (default: the whole tree)
    note = "..."                    # optional, shown nowhere but in the list

or, for a tree that is not a git commit (an unpacked wheel), `name` and `directory`:

    [[repository]]
    name = "torch-wheel-py"
    directory = "/tmp/cursedlint-bench/torch/py"   # linted in place, only read (--no-cache)

Nothing is fetched: each commit must already be in its local repository (the `fetch` tool of
the sessions puts mirrors under /work/.mirror; elsewhere, `git clone --mirror` and point
`source` or `--mirrors` at it; an entry whose repository or directory is missing is skipped,
named, and makes the script exit 1 after the others). For each entry the script checks the
commit out into a temporary directory through a temporary index (the repository itself is only
read), runs

    cursedlint check --no-cache --output-format json --exit-zero -v PATHS

there (EXE defaults to this checkout's `.venv/bin/cursedlint`, else `cursedlint` on PATH) and
removes the tree (`--keep` leaves it under OUT/trees); a `directory` entry is linted where it
is. It prints a Markdown table, one row per repository: files linted, files parsed (the others hold no rule's trigger word), findings by
code, wall seconds, and the files the repository lacks (a mirror may leave its largest blobs
out; they are not written, so not linted, and named on stderr); and writes into OUT (default:
$TMPDIR/cursedlint-real-code):

- `summary.md`: that table;
- `findings.json`: every finding as {repository, commit, path (relative to the tree), line,
  column, code, message (its first sentence), source (the line's text)}, sorted, to be judged
  by reading the code around it (`git -C MIRROR show COMMIT:PATH`);
- `raw/NAME.json`: cursedlint's own JSON report of each repository, whole messages included.

`--compare OLD_FINDINGS_JSON` also prints the findings that appeared and disappeared since an
earlier run's `findings.json` (matched on repository, path, line and code), which is how a rule
change is checked against the reviewed baseline in benchmarks/real_code_review.md.
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
import time

try:
    import tomllib
except ImportError:  # Python 3.10: cursedlint depends on tomli there
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_MIRRORS = "/work/.mirror"
SUMMARY_LINE = re.compile(r"^(\d+) files: (\d+) parsed and checked, .* s$")  # printed by -v
FIRST_SENTENCE = re.compile(r"^(.*?[.!?])(?=\s|$)", re.DOTALL)
KEYS = ("name", "source", "commit", "directory", "paths", "note")


def load_list(path: str) -> list[dict]:
    """The entries of the list file, each checked for the keys it must and may have."""
    with open(path, "rb") as handle:
        entries = tomllib.load(handle).get("repository", [])
    names = set()
    for entry in entries:
        in_place = "directory" in entry
        required = {"name", "directory"} if in_place else {"name", "source", "commit"}
        excluded = {"source", "commit"} if in_place else {"directory"}
        unknown = set(entry) - set(KEYS) | set(entry) & excluded
        missing = required - set(entry)
        if unknown or missing:
            sys.exit(f"{path}: entry {entry.get('name')!r}: unknown or conflicting keys {sorted(unknown)}, "
                     f"missing keys {sorted(missing)}")
        if entry["name"] in names:
            sys.exit(f"{path}: the name {entry['name']!r} appears twice")
        names.add(entry["name"])
    return entries


class Missing(Exception):
    """An entry whose repository or directory is not on this machine: skipped, and named."""


def git_dir(source: str, mirrors: str) -> str:
    """The local repository of `source`: a path as given, else owner/name under the mirrors."""
    if os.path.isdir(source):
        return source
    owner, _, name = source.partition("/")
    path = os.path.join(mirrors, f"{owner}+{name}", "repo")
    if not os.path.isdir(path):
        raise Missing(f"no local repository for {source!r} (looked for {path}); fetch or clone it first")
    return path


def tree_of(entry: dict, trees: str, mirrors: str) -> tuple[str, list[str]]:
    """The directory to lint for `entry` (its commit checked out under `trees`, or its
    `directory` as it is) and the paths the repository lacks."""
    if "directory" in entry:
        if not os.path.isdir(entry["directory"]):
            raise Missing(f"no directory {entry['directory']!r}")
        return entry["directory"], []
    tree = os.path.join(trees, entry["name"])
    shutil.rmtree(tree, ignore_errors=True)
    return tree, check_out(git_dir(entry["source"], mirrors), entry["commit"], tree)


def check_out(repository: str, commit: str, tree: str) -> list[str]:
    """The files of `commit` written into `tree` through a temporary index, so the repository
    (a bare mirror) is only read and no export-ignore attribute drops a file. Returns the paths
    whose blobs the repository lacks (a mirror may leave its largest files out): not written."""
    os.makedirs(tree)
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tree, ".git-index"))
    git = ["git", "--git-dir", repository, "--work-tree", tree]
    read = subprocess.run(git + ["read-tree", commit], env=env, capture_output=True, text=True)
    if read.returncode:
        sys.exit(f"{repository}: cannot read commit {commit}: {read.stderr.strip()}")
    absent = absent_blobs(repository, commit)
    checkout = subprocess.run(git + ["checkout-index", "--all", "--force"], env=env,
                              capture_output=True, text=True, errors="replace")
    if checkout.returncode and not absent:
        sys.exit(f"git checkout-index failed in {tree}:\n{checkout.stderr[-2000:]}")
    os.remove(env["GIT_INDEX_FILE"])
    return absent


def absent_blobs(repository: str, commit: str) -> list[str]:
    """The paths of `commit` whose blobs are not in the repository."""
    listing = subprocess.run(["git", "--git-dir", repository, "ls-tree", "-r", "-z", commit],
                             check=True, capture_output=True).stdout.split(b"\0")
    blobs = [entry.split(b"\t", 1) for entry in listing if b" blob " in entry.split(b"\t", 1)[0]]
    query = b"".join(head.split()[2] + b"\n" for head, _ in blobs)
    answers = subprocess.run(["git", "--git-dir", repository, "cat-file", "--batch-check"],
                             input=query, check=True, capture_output=True).stdout.splitlines()
    return [path.decode(errors="replace") for (_, path), answer in zip(blobs, answers)
            if answer.endswith(b" missing")]


def lint(executable: str, tree: str, paths: list[str], jobs: int | None,
         report: str) -> tuple[list[dict], dict]:
    """The findings cursedlint reports on `paths` of `tree` (run from inside it, as a user
    would; its whole JSON report is left in `report`) and the counts of its verbose summary
    line, with the run's wall seconds."""
    command = [executable, "check", "--no-cache", "--output-format", "json", "--exit-zero", "-v",
               "--output-file", report, *(["--jobs", str(jobs)] if jobs else []), *paths]
    started = time.perf_counter()
    run = subprocess.run(command, cwd=tree, capture_output=True, text=True, errors="replace")
    seconds = time.perf_counter() - started
    summary = next((SUMMARY_LINE.match(line) for line in reversed(run.stderr.splitlines())
                    if SUMMARY_LINE.match(line)), None)
    if run.returncode not in (0, 2) or summary is None or not os.path.exists(report):
        sys.exit(f"cursedlint failed in {tree} (exit {run.returncode}):\n{run.stderr[-4000:]}")
    if run.returncode == 2:  # an internal error or an unreadable path: reported, not fatal
        print(f"warning: cursedlint exited 2 in {tree}:\n{run.stderr[-2000:]}", file=sys.stderr)
    with open(report, encoding="utf-8") as handle:
        findings = json.load(handle)
    files, parsed = int(summary.group(1)), int(summary.group(2))
    return findings, {"files": files, "parsed": parsed, "seconds": seconds}


def first_sentence(message: str) -> str:
    match = FIRST_SENTENCE.match(message)
    return match.group(1) if match else message


def source_line(tree: str, path: str, line: int) -> str:
    try:
        with open(os.path.join(tree, path), encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    return text.strip()
    except OSError:
        pass
    return ""


def review_records(entry: dict, tree: str, findings: list[dict]) -> list[dict]:
    """One flat record per finding, its path relative to the tree, for findings.json."""
    records = []
    for finding in findings:
        path = os.path.relpath(os.path.join(tree, finding["path"]), tree)
        records.append({
            "repository": entry["name"],
            "commit": entry.get("commit", "-"),
            "path": path,
            "line": finding["line"],
            "column": finding["column"],
            "code": finding["code"],
            "message": first_sentence(finding["message"]),
            "source": source_line(tree, path, finding["line"]),
        })
    return records


def table(rows: list[dict]) -> str:
    """The Markdown table: one row per repository, counts by code."""
    lines = ["| repository | commit | files | parsed | absent | findings | by code | seconds |",
             "|---|---|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        by_code = ", ".join(f"{code} {count}" for code, count in sorted(row["codes"].items())) or "-"
        lines.append(f"| {row['name']} | {row['commit'][:10]} | {row['files']} | {row['parsed']} | {row['absent']} | "
                     f"{sum(row['codes'].values())} | {by_code} | {row['seconds']:.1f} |")
    return "\n".join(lines) + "\n"


def finding_key(record: dict) -> tuple:
    """What identifies a finding across runs of the same pinned commits."""
    return record["repository"], record["path"], record["line"], record["code"]


def compare(old_path: str, records: list[dict]) -> str:
    """The findings added and removed since an earlier findings.json, for the repositories
    both runs linted."""
    with open(old_path, encoding="utf-8") as handle:
        old = json.load(handle)
    linted = {record["repository"] for record in records}
    old_keys = {finding_key(record): record for record in old if record["repository"] in linted}
    new_keys = {finding_key(record): record for record in records}
    lines = []
    for sign, keys, other in (("+", new_keys, old_keys), ("-", old_keys, new_keys)):
        for found in sorted(set(keys) - set(other)):
            record = keys[found]
            lines.append(f"{sign} {record['repository']} {record['path']}:{record['line']} "
                         f"{record['code']} {record['message']}")
    return "\n".join(lines) + "\n" if lines else "no change\n"


def default_executable() -> str:
    local = os.path.join(REPO, ".venv", "bin", "cursedlint")
    return local if os.path.exists(local) else shutil.which("cursedlint") or "cursedlint"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("list", nargs="?", default=os.path.join(HERE, "real_code.toml"))
    parser.add_argument("--only", nargs="+", metavar="NAME", help="lint these entries only")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "cursedlint-real-code"))
    parser.add_argument("--cursedlint", default=default_executable(), metavar="EXE")
    parser.add_argument("--mirrors", default=DEFAULT_MIRRORS)
    parser.add_argument("--jobs", type=int, help="passed to cursedlint (default: its own)")
    parser.add_argument("--keep", action="store_true", help="keep the trees under OUT/trees")
    parser.add_argument("--compare", metavar="OLD_FINDINGS_JSON")
    args = parser.parse_args()
    args.out = os.path.abspath(args.out)  # cursedlint runs inside each tree
    if os.sep in args.cursedlint:
        args.cursedlint = os.path.abspath(args.cursedlint)

    entries = [e for e in load_list(args.list) if not args.only or e["name"] in args.only]
    if args.only and len(entries) != len(set(args.only)):
        sys.exit(f"unknown names among {args.only}")
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    trees = os.path.join(args.out, "trees") if args.keep else tempfile.mkdtemp(prefix="real-code-")
    rows, records, skipped = [], [], []
    try:
        for entry in entries:
            try:
                tree, absent = tree_of(entry, trees, args.mirrors)
            except Missing as missing:
                print(f"{entry['name']}: skipped: {missing}", file=sys.stderr)
                skipped.append(entry["name"])
                continue
            if absent:
                print(f"{entry['name']}: {len(absent)} files absent from the repository, not "
                      f"linted: {', '.join(absent[:10])}{' ...' if len(absent) > 10 else ''}",
                      file=sys.stderr)
            report = os.path.join(args.out, "raw", entry["name"] + ".json")
            findings, counts = lint(args.cursedlint, tree, entry.get("paths") or ["."], args.jobs, report)
            codes = collections.Counter(finding["code"] for finding in findings)
            rows.append({"name": entry["name"], "commit": entry.get("commit", "-"), "codes": codes,
                         "absent": len(absent), **counts})
            records += review_records(entry, tree, findings)
            print(f"{entry['name']}: {len(findings)} findings, {counts['seconds']:.1f} s", file=sys.stderr)
            if not args.keep and "directory" not in entry:
                shutil.rmtree(tree)
    finally:
        if not args.keep:
            shutil.rmtree(trees, ignore_errors=True)
    records.sort(key=lambda r: (r["repository"], r["path"], r["line"], r["column"], r["code"]))
    summary = table(rows)
    with open(os.path.join(args.out, "summary.md"), "w", encoding="utf-8") as handle:
        handle.write(summary)
    with open(os.path.join(args.out, "findings.json"), "w", encoding="utf-8") as handle:
        json.dump(records, handle, indent=1, ensure_ascii=False)
    print(summary)
    if args.compare:
        print(compare(args.compare, records))
    if skipped:  # the table is of the others: say so, and fail
        sys.exit(f"skipped, not on this machine: {', '.join(skipped)}")


if __name__ == "__main__":
    main()
