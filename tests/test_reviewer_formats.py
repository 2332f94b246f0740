"""SARIF, GitLab Code Quality, reviewdog rdjson and JUnit XML through the CLI, each checked
against what its consumer accepts (`report_schemas`: schemas written from the published
specifications)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import jsonschema
import pytest

from cursedlint.cli import main
from report_schemas import GITLAB, RDJSON

CODE = """\
import os
import subprocess


def launch(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)


def launch_all(cmds):
    return [subprocess.Popen(c, preexec_fn=os.setsid) for c in cmds]
"""


def report(tmp_path, monkeypatch, capsys, fmt: str, name: str = "launch.py") -> str:
    (tmp_path / name).write_text(CODE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.12", "--output-format", fmt, name])
    return capsys.readouterr().out


def test_gitlab_code_quality(tmp_path, monkeypatch, capsys):
    issues = json.loads(report(tmp_path, monkeypatch, capsys, "gitlab"))
    jsonschema.validate(issues, GITLAB)
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"])
            for i in issues] == [("CUR101", "launch.py", 6), ("CUR101", "launch.py", 10)]
    assert len({issue["fingerprint"] for issue in issues}) == 2


def test_rdjson_for_reviewdog(tmp_path, monkeypatch, capsys):
    result = json.loads(report(tmp_path, monkeypatch, capsys, "rdjson"))
    jsonschema.validate(result, RDJSON)
    first = result["diagnostics"][0]
    assert first["code"] == {"value": "CUR101"} and first["severity"] == "WARNING"
    assert first["location"]["range"]["start"] == {"line": 6, "column": 12}


def test_rdjson_suggests_a_text_fix(tmp_path, monkeypatch, capsys):
    (tmp_path / "sync.py").write_text(
        'import subprocess\n\n\ndef sync():\n    subprocess.run(["rsync", "-a", "x", "y"], close_fds=False)\n')
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.9", "--output-format", "rdjson",
          "sync.py"])
    result = json.loads(capsys.readouterr().out)
    jsonschema.validate(result, RDJSON)
    [diagnostic] = result["diagnostics"]
    assert [s["text"] for s in diagnostic["suggestions"]] == [
        'shutil.which("rsync")', "import shutil\n"]


def test_junit_for_ci_reports(tmp_path, monkeypatch, capsys):
    root = ElementTree.fromstring(report(tmp_path, monkeypatch, capsys, "junit"))
    assert root.tag == "testsuites" and root.get("failures") == "2"
    [suite] = root
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == ["CUR101 launch.py:6:12",
                                                     "CUR101 launch.py:10:13"]
    assert all(case.find("failure").get("type") == "CUR101" for case in cases)


def test_junit_stays_well_formed_for_a_hostile_file_name(tmp_path, monkeypatch, capsys):
    text = report(tmp_path, monkeypatch, capsys, "junit", name="la\x1bunch\x01.py")
    root = ElementTree.fromstring(text)  # raises on a control character XML 1.0 forbids
    assert root.find("testsuite/testcase").get("classname") == "la\\x1bunch\\x01.py"


@pytest.mark.parametrize("fmt", ["gitlab", "rdjson", "junit"])
def test_a_clean_run_is_a_valid_empty_report(tmp_path, monkeypatch, capsys, fmt):
    (tmp_path / "ok.py").write_text("print('hi')\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "--no-cache", "--output-format", fmt, "ok.py"]) == 0
    out = capsys.readouterr().out
    if fmt == "junit":
        assert ElementTree.fromstring(out).get("tests") == "0"
    else:
        jsonschema.validate(json.loads(out), GITLAB if fmt == "gitlab" else RDJSON)


def test_statistics_as_json(tmp_path, monkeypatch, capsys):
    (tmp_path / "launch.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.12", "--output-format", "json",
          "--statistics", "launch.py"])
    assert json.loads(capsys.readouterr().out) == [
        {"code": "CUR101", "name": "subprocess-fork-path", "severity": "warning", "count": 2}]


def test_sarif_rules_carry_precision_and_problem_severity(tmp_path, monkeypatch, capsys):
    rules = json.loads(report(tmp_path, monkeypatch, capsys, "sarif"))["runs"][0]["tool"][
        "driver"]["rules"]
    properties = {rule["id"]: rule["properties"] for rule in rules}
    assert properties["CUR101"]["precision"] == "high"
    assert properties["CUR102"]["precision"] == "medium"
    assert properties["CUR101"]["problem.severity"] == "warning"
