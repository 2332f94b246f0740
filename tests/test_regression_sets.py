"""The regression sets of real fixed bugs (`benchmarks/regressions.py`, its C/C++ and Python
lists): every entry names a full fix and its parent, a site and a known rule family, and the
site's line is carried through the fix's diff to the right place of the after tree."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")


@pytest.fixture(scope="module")
def regressions():
    sys.path.insert(0, BENCHMARKS)  # it imports real_code from beside itself
    spec = importlib.util.spec_from_file_location("benchmark_regressions",
                                                  os.path.join(BENCHMARKS, "regressions.py"))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(BENCHMARKS)


@pytest.mark.parametrize("name", ["c", "py"])
def test_every_entry_of_a_set_names_a_fix_a_site_and_a_family(regressions, name):
    bugs = regressions.load(os.path.join(BENCHMARKS, regressions.SETS[name]))
    assert len(bugs) >= 12
    assert len({bug["name"] for bug in bugs}) == len(bugs)
    for bug in bugs:
        assert re.fullmatch(r"[0-9a-f]{40}", bug["before"]) and re.fullmatch(r"[0-9a-f]{40}", bug["after"])
        assert bug["family"] in regressions.FAMILIES, bug["name"]
        assert re.fullmatch(r"[^:]+:[1-9][0-9]*", bug["site"]), bug["name"]
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", bug["source"]), bug["name"]
        assert bug["reference"].startswith("https://"), bug["name"]


def test_codes_of_one_family_count_for_each_other(regressions):
    assert regressions.codes_of("CUR202") == {"CUR201", "CUR202"}
    assert regressions.codes_of("CUR102") == {"CUR101", "CUR102"}
    assert regressions.codes_of("CUR402") == {"CUR401", "CUR402", "CUR403", "CUR404"}
    assert regressions.codes_of("CUR103") == {"CUR103"}  # fork protection stays its own family
    assert regressions.codes_of("CUR999") == {"CUR999"}


def test_a_finding_counts_at_the_site_its_chain_reaches(regressions):
    """A capture in one module whose chain ends at the sync in the site's file counts there; a
    finding elsewhere whose chain passes other lines, or another family's, does not."""
    capture = {"code": "CUR402", "path": "serve/runner.py", "line": 40, "message": "m",
               "related": [{"path": "serve/model.py", "line": 12, "note": "calls"},
                           {"path": "serve/attention.py", "line": 134, "note": ".item()"}]}
    elsewhere = dict(capture, related=[{"path": "serve/attention.py", "line": 90, "note": "x"}])
    spawning = dict(capture, code="CUR102")
    codes = regressions.codes_of("CUR402")
    found = regressions.near([capture, elsewhere, spawning], codes, "serve/attention.py",
                             133, 133, 2)
    assert found == [capture]
    assert regressions.label(capture, "serve/attention.py") == "CUR402@serve/runner.py:40"
    assert regressions.near([capture], codes, "serve/runner.py", 40, 40, 0) == [capture]


def _git(repository, *arguments) -> str:
    return subprocess.run(["git", "-C", repository, *arguments], check=True, capture_output=True,
                          text=True, env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                              GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")).stdout


def _commit(repository, message) -> str:
    _git(repository, "commit", "-q", "-am", message)
    return _git(repository, "rev-parse", "HEAD").strip()


def test_a_site_is_carried_through_the_fix_diff(regressions, tmp_path):
    repository = str(tmp_path)
    _git(repository, "init", "-q")
    lines = [f"line {number}\n" for number in range(1, 21)]
    (tmp_path / "lib.py").write_text("".join(lines))
    _git(repository, "add", "lib.py")
    before = _commit(repository, "before")
    # The fix adds two lines near the top and rewrites line 12 as three lines.
    fixed = lines[:3] + ["added a\n", "added b\n"] + lines[3:11] + ["fix 1\n", "fix 2\n", "fix 3\n"] + lines[12:]
    (tmp_path / "lib.py").write_text("".join(fixed))
    after = _commit(repository, "fix")
    git_dir = os.path.join(repository, ".git")

    assert regressions.mapped_range(git_dir, before, after, "lib.py", 2) == (2, 2)  # above every hunk
    assert regressions.mapped_range(git_dir, before, after, "lib.py", 8) == (10, 10)  # shifted by 2
    assert regressions.mapped_range(git_dir, before, after, "lib.py", 12) == (14, 16)  # the new hunk
    assert regressions.mapped_range(git_dir, before, after, "lib.py", 18) == (22, 22)  # shifted by 4
