"""Baselines through the CLI as a user runs them: record the findings of legacy code, then see
only new ones, stable across moved lines and --jobs; a fixed finding leaves the baseline on
the next write; a file that is not a baseline is refused with a message."""

from __future__ import annotations

import json

import pytest

from cursedlint import baseline
from cursedlint.cli import main

LEGACY = """\
import os
import subprocess


def launch(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)


def launch_quietly(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setpgrp, stdout=subprocess.DEVNULL)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "launch.py").write_text(LEGACY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *flags: str) -> tuple[int, list[str], str]:
    capsys.readouterr()
    status = main(["check", "--no-cache", "--target-python", "3.12", "--concise", *flags])
    out, err = capsys.readouterr()
    return status, [line.split(" ")[0] for line in out.splitlines()[:-1]], err


def test_a_baselined_project_reports_only_its_new_findings(project, capsys):
    status, _, err = check(capsys, "--write-baseline", "cursedlint-baseline.json")
    assert status == 0 and "wrote 2 finding(s) to the baseline" in err
    status, found, err = check(capsys, "--baseline", "cursedlint-baseline.json")
    assert (status, found) == (0, []) and "2 finding(s) in the baseline" in err
    source = project / "tools" / "launch.py"
    source.write_text('"""Launchers."""\n\n' + LEGACY + "\n\ndef again(cmd):\n"
                      "    return subprocess.Popen(cmd, preexec_fn=os.setsid)\n")
    status, found, _ = check(capsys, "--baseline", "cursedlint-baseline.json")
    assert (status, found) == (1, ["tools/launch.py:16:12:"])  # the new one only


def test_the_configuration_names_the_baseline(project, capsys):
    check(capsys, "--write-baseline", "baseline.json")
    (project / "cursedlint.toml").write_text('baseline = "baseline.json"\n')
    status, found, _ = check(capsys)
    assert (status, found) == (0, [])


def test_a_fixed_finding_leaves_the_baseline_on_the_next_write(project, capsys):
    check(capsys, "--write-baseline", "b.json")
    assert len(json.loads((project / "b.json").read_text())["findings"]) == 2
    source = project / "tools" / "launch.py"
    source.write_text(LEGACY.replace("preexec_fn=os.setpgrp", "process_group=0"))
    check(capsys, "--write-baseline", "b.json")
    [entry] = json.loads((project / "b.json").read_text())["findings"]
    assert (entry["code"], entry["path"], entry["line"]) == ("CUR101", "tools/launch.py", 6)


def test_the_baseline_is_the_same_for_every_jobs_count_and_directory(project, capsys):
    check(capsys, "--jobs", "1", "--write-baseline", "one.json")
    check(capsys, "--jobs", "2", "--write-baseline", "two.json")
    assert (project / "one.json").read_bytes() == (project / "two.json").read_bytes()
    capsys.readouterr()
    status = main(["check", "--no-cache", "--target-python", "3.12", "--baseline",
                   str(project / "one.json"), str(project / "tools")])
    assert status == 0  # linted by absolute path: the same fingerprints


@pytest.mark.parametrize("content", [b"", b"[]", b'{"version": 1}', b"\xff\xfe",
                                     b'{"version": 2, "findings": []}'])
def test_a_file_that_is_not_a_baseline_is_refused(project, capsys, content):
    (project / "bad.json").write_bytes(content)
    capsys.readouterr()
    status = main(["check", "--no-cache", "--baseline", "bad.json"])
    err = capsys.readouterr().err
    assert status == 2 and "bad.json" in err and "Traceback" not in err


def test_a_linked_baseline_is_followed(project, capsys):
    """The baseline is a file the user names: a link to it is read (to a regular file only:
    tests/test_hostile_reads.py)."""
    (project / "baselines").mkdir()
    check(capsys, "--write-baseline", "baselines/2026.json")
    (project / "baselines" / "current.json").symlink_to("2026.json")
    status, found, err = check(capsys, "--baseline", "baselines/current.json")
    assert (status, found) == (0, []) and "2 finding(s) in the baseline" in err


def test_a_baseline_over_the_limit_is_refused_unread(project, capsys, monkeypatch):
    check(capsys, "--write-baseline", "b.json")
    monkeypatch.setattr(baseline, "BASELINE_BYTES", 100)
    status, _, err = check(capsys, "--baseline", "b.json")
    assert (status, err) == (2, "cursedlint: error: cannot read the baseline 'b.json': is larger "
                                "than 100 bytes\n")
