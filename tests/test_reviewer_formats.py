"""SARIF, GitLab Code Quality, reviewdog rdjson and JUnit XML through the CLI, each checked
against what its consumer accepts (`report_schemas`: schemas written from the published
specifications)."""

from __future__ import annotations

import json
import os
import posixpath
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema
import pytest

from cursedlint import registry
from cursedlint.cli import main
from cursedlint.formats.reviewers import utf8_column
from engine_rules import TEST_RULES
from report_schemas import GITLAB, RDJSON, SARIF, junit_errors, uri_errors, uri_path

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
    text = report(tmp_path, monkeypatch, capsys, "junit")
    assert junit_errors(text) == []
    root = ElementTree.fromstring(text)
    assert root.tag == "testsuites" and root.get("failures") == "2"
    [suite] = root
    assert float(suite.get("time")) > 0 and suite.get("hostname")
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == ["CUR101 launch.py:6:12",
                                                     "CUR101 launch.py:10:13"]
    assert all(case.find("failure").get("type") == "CUR101" for case in cases)


def test_junit_stays_well_formed_for_a_hostile_file_name(tmp_path, monkeypatch, capsys):
    text = report(tmp_path, monkeypatch, capsys, "junit", name="la\x1bunch\x01.py")
    root = ElementTree.fromstring(text)  # raises on a control character XML 1.0 forbids
    assert root.find("testsuite/testcase").get("classname") == "la\\x1bunch\\x01.py"
    assert junit_errors(text) == []


@pytest.mark.parametrize("fmt", ["gitlab", "rdjson", "junit", "sarif"])
def test_a_clean_run_is_a_valid_report(tmp_path, monkeypatch, capsys, fmt):
    (tmp_path / "ok.py").write_text("print('hi')\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "--no-cache", "--output-format", fmt, "ok.py"]) == 0
    out = capsys.readouterr().out
    if fmt == "junit":  # one passing case, as ruff writes: a report of none reads as broken
        assert junit_errors(out) == []
        [case] = ElementTree.fromstring(out).iter("testcase")
        assert (case.get("name"), len(case)) == ("No errors found", 0)
    else:
        jsonschema.validate(json.loads(out), {"gitlab": GITLAB, "rdjson": RDJSON,
                                              "sarif": SARIF}[fmt])


MIXED = CODE + """

def record(model, x, event):
    threading.Thread(target=poll, args=(event,), daemon=True).start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = model(x)
    return graph, y


def poll(event):
    event.query()
"""
MIXED = "import threading\n\nimport torch\n" + MIXED


@pytest.mark.parametrize("fail_on, exit_code, outcomes", [
    ("warning", 1, ["failure", "failure", "failure"]),
    ("error", 1, ["skipped", "skipped", "failure"]),
])
def test_junit_fails_only_what_fails_the_run(tmp_path, monkeypatch, capsys, fail_on, exit_code,
                                             outcomes):
    """Under --fail-on error a warning is listed as a skipped case (Jenkins and GitLab count
    it, neither fails the report on it), with why; an error fails."""
    (tmp_path / "launch.py").write_text(MIXED)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "--no-cache", "--target-python", "3.12", "--output-format", "junit",
                 "--fail-on", fail_on, "launch.py"]) == exit_code
    text = capsys.readouterr().out
    assert junit_errors(text) == []
    cases = list(ElementTree.fromstring(text).iter("testcase"))
    assert [case.get("name").split()[0] for case in cases] == ["CUR101", "CUR101", "CUR401"]
    assert [case[0].tag for case in cases] == outcomes
    if fail_on == "error":
        assert cases[0][0].text.startswith(
            "warning, not failed by --fail-on error: launch.py:9:12: subprocess.Popen() fork()s")


def test_junit_with_only_warnings_under_fail_on_error_fails_nothing(tmp_path, monkeypatch,
                                                                     capsys):
    (tmp_path / "launch.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "--no-cache", "--target-python", "3.12", "--output-format", "junit",
                 "--fail-on", "error", "launch.py"]) == 0
    text = capsys.readouterr().out
    assert junit_errors(text) == []
    suite = ElementTree.fromstring(text).find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "0", "2")


def test_junit_reports_an_internal_error_as_an_error(tmp_path, monkeypatch, capsys):
    """CUR000 (a rule raised): exit 2, a JUnit <error>, not a finding of the code."""
    shipped = registry.all_rules()
    monkeypatch.setattr(registry, "all_rules", lambda: {**shipped, **TEST_RULES})
    (tmp_path / "boom.py").write_text("import os\nexplode()\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "--no-cache", "--output-format", "junit", "boom.py"]) == 2
    text = capsys.readouterr().out
    assert junit_errors(text) == []
    [case] = ElementTree.fromstring(text).iter("testcase")
    assert case[0].tag == "error" and case[0].get("type") == "CUR000"


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
    assert properties["CUR102"]["precision"] == "high"
    assert properties["CUR101"]["problem.severity"] == "warning"


# -- messages --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "gitlab", "rdjson", "junit"])
def test_no_message_points_to_a_help_its_format_may_not_carry(tmp_path, monkeypatch, capsys,
                                                               fmt):
    """CUR101 with two reasons to fork on 3.9 names the first and counts the other: --concise,
    CI annotations, GitLab's description and flake8 show the message without its help."""
    (tmp_path / "launch.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)

    def output(*flags: str) -> str:
        capsys.readouterr()
        main(["check", "--no-cache", "--target-python", "3.9", *flags, "launch.py"])
        return capsys.readouterr().out

    out = output("--output-format", fmt)
    assert "preexec_fn= is set (and 1 more)" in out
    assert "see help" not in out
    if fmt == "text":
        concise = output("--concise").splitlines()[0]
        assert concise.endswith("preexec_fn= is set (and 1 more)")


# -- where reports say the files are --------------------------------------------------------

SPAWN = 'import subprocess\n\n\ndef sync():\n    subprocess.run(["rsync"], user="nobody")\n'


def repository(tmp_path: Path) -> Path:
    """A git work tree with src/launch.py and tools/spawn.py, each with findings."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, code in (("src/launch.py", CODE), ("tools/spawn.py", SPAWN)):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(code)
    return tmp_path


def paths_in(fmt: str, out: str) -> set[str]:
    """The file paths a report names, as its consumer reads them."""
    if fmt == "github":
        return {line.split("file=")[1].split(",")[0] for line in out.splitlines()}
    if fmt == "gitlab":
        return {issue["location"]["path"] for issue in json.loads(out)}
    if fmt == "junit":
        return {case.get("classname") for case in ElementTree.fromstring(out).iter("testcase")}
    if fmt == "rdjson":
        return {d["location"]["path"] for d in json.loads(out)["diagnostics"]}
    log = json.loads(out)
    assert not uri_errors(log)
    run = log["runs"][0]
    base = uri_path(run["originalUriBaseIds"]["%SRCROOT%"]["uri"]).decode()
    return {base + uri_path(result["locations"][0]["physicalLocation"]["artifactLocation"]
                            ["uri"]).decode() for result in run["results"]}


def check_from(directory: Path, monkeypatch, capsys, *args: str) -> str:
    monkeypatch.chdir(directory)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.12", *args])
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["github", "gitlab", "junit"])
def test_ci_formats_name_files_from_the_repository_root_in_a_subdirectory(
        tmp_path, monkeypatch, capsys, fmt):
    """A CI step run in src/ (`working-directory:`, `cd src &&`) annotates the files that
    exist in the repository, not src/-relative names GitHub and GitLab look up at its root."""
    root = repository(tmp_path)
    out = check_from(root / "src", monkeypatch, capsys, "--output-format", fmt, ".",
                     "../tools/spawn.py")
    assert paths_in(fmt, out) == {"src/launch.py", "tools/spawn.py"}


def test_sarif_uris_resolve_to_the_files_from_a_subdirectory(tmp_path, monkeypatch, capsys):
    """Relative to %SRCROOT%, the repository's root: GitHub takes them as relative to it."""
    root = repository(tmp_path)
    out = check_from(root / "src", monkeypatch, capsys, "--output-format", "sarif", ".",
                     "../tools/spawn.py")
    jsonschema.validate(json.loads(out), SARIF)
    assert paths_in("sarif", out) == {f"{root}/src/launch.py", f"{root}/tools/spawn.py"}
    assert {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in json.loads(out)["runs"][0]["results"]} == {"src/launch.py",
                                                                     "tools/spawn.py"}


def test_rdjson_names_files_as_reviewdog_in_the_same_directory_resolves_them(
        tmp_path, monkeypatch, capsys):
    """reviewdog joins a relative path to its working directory's place in the repository
    (pathutil.NormalizePath with `git rev-parse --show-prefix`): src/ + ../tools/spawn.py."""
    root = repository(tmp_path)
    out = check_from(root / "src", monkeypatch, capsys, "--output-format", "rdjson", ".",
                     "../tools/spawn.py")
    jsonschema.validate(json.loads(out), RDJSON)
    assert {posixpath.normpath(posixpath.join("src/", path))
            for path in paths_in("rdjson", out)} == {"src/launch.py", "tools/spawn.py"}


@pytest.mark.parametrize("fmt, variable", [("github", "GITHUB_WORKSPACE"),
                                           ("sarif", "GITHUB_WORKSPACE"),
                                           ("gitlab", "CI_PROJECT_DIR"),
                                           ("junit", "CI_PROJECT_DIR")])
def test_in_ci_files_are_named_from_the_checkout(tmp_path, monkeypatch, capsys, fmt,
                                                 variable):
    """A configuration in src/ makes src/ the project's root; the job's checkout (where GitHub
    and GitLab resolve paths) still decides, as ruff's gitlab format does with CI_PROJECT_DIR."""
    root = repository(tmp_path)
    (root / "src" / "cursedlint.toml").write_text("")
    monkeypatch.setenv(variable, str(root))
    out = check_from(root / "src", monkeypatch, capsys, "--output-format", fmt, ".")
    expected = f"{root}/src/launch.py" if fmt == "sarif" else "src/launch.py"
    assert paths_in(fmt, out) == {expected}


def test_a_file_outside_the_checkout_is_named_by_its_absolute_path(tmp_path, monkeypatch,
                                                                    capsys):
    root = repository(tmp_path / "repo")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(root / "src"))
    out = check_from(root, monkeypatch, capsys, "--output-format", "github", "tools")
    assert paths_in("github", out) == {f"{root}/tools/spawn.py"}


# -- columns --------------------------------------------------------------------------------

WIDE = 'import subprocess\n\n\ndef sync():\n    x = "é😀"; subprocess.run(["rsync"], user="nobody")\n'


def test_rdjson_columns_count_utf8_bytes_and_sarif_and_github_characters(
        tmp_path, monkeypatch, capsys):
    """reviewdog's Position.column is a count of UTF-8 bytes; SARIF declares
    unicodeCodePoints; GitHub's annotations, like ruff's, count characters."""
    (tmp_path / "wide.py").write_text(WIDE, encoding="utf-8")
    line = WIDE.splitlines()[4]
    before = line[: line.index("subprocess")]
    characters, utf8 = len(before) + 1, len(before.encode()) + 1
    assert (characters, utf8) == (15, 19)

    def output(fmt: str) -> str:
        return check_from(tmp_path, monkeypatch, capsys, "--output-format", fmt, "wide.py")

    [diagnostic] = json.loads(output("rdjson"))["diagnostics"]
    assert diagnostic["location"]["range"] == {"start": {"line": 5, "column": utf8},
                                               "end": {"line": 5, "column": len(line.encode()) + 1}}
    region = json.loads(output("sarif"))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["region"]
    assert (region["startColumn"], region["endColumn"]) == (characters, len(line) + 1)
    assert f",col={characters},endLine=5,endColumn={len(line) + 1}," in output("github")


@pytest.mark.parametrize("line, column, expected", [
    ("abc", 2, 2),
    ("é😀x", 3, 7),  # 2 + 4 bytes before
    ("\udcffa", 2, 2),  # a byte that was not UTF-8 is one byte of the file
    ("ab", 5, 5),  # past the line (its end, or text the report does not have): one a column
    ("", 4, 4),
])
def test_utf8_column(line, column, expected):
    assert utf8_column(line, column) == expected


# -- SARIF against the schema ----------------------------------------------------------------

HEADER = """\
#pragma once
namespace ir {
class Node {};
class NodeMapping {
 public:
  Node* lookupOrDefault(Node* node) const;
};
class Block {
 public:
  Block(const Block& other, NodeMapping& mapping);

 private:
  Node* terminator_ = nullptr;
};
}  // namespace ir
"""
CLONER = """\
#include "ir \u00e9.h"
namespace ir {
Block::Block(const Block& other, NodeMapping& mapping)
    : terminator_(other.terminator_) {}
}  // namespace ir
"""


def test_sarif_with_a_chain_and_a_hostile_file_name_is_valid(tmp_path, monkeypatch, capsys):
    """relatedLocations (the member's declaration in a header) and names a URI must encode:
    a space, `#`, `%`, `?` and a byte that is not UTF-8."""
    name = b"b lock#1%?\xff.cpp"
    try:
        (tmp_path / os.fsdecode(name)).write_text(CLONER, encoding="utf-8")
    except OSError:  # a file system that only takes UTF-8 names (macOS)
        pytest.skip("this file system refuses names that are not UTF-8")
    (tmp_path / "ir é.h").write_text(HEADER, encoding="utf-8")
    log = json.loads(check_from(tmp_path, monkeypatch, capsys, "--output-format", "sarif", "."))
    jsonschema.validate(log, SARIF)
    assert uri_errors(log) == []
    [result] = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    [related] = result["relatedLocations"]
    assert uri_path(location["uri"]) == name
    assert uri_path(related["physicalLocation"]["artifactLocation"]["uri"]) == "ir é.h".encode()
    assert related["physicalLocation"]["region"] == {"startLine": 13}


def test_reports_link_to_no_page_that_does_not_exist(tmp_path, monkeypatch, capsys):
    """There is no published page for cursedlint or its rules: SARIF carries each rule's whole
    documentation as help, and links nowhere; nor does rdjson."""
    log = json.loads(report(tmp_path, monkeypatch, capsys, "sarif"))
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert not any("helpUri" in rule for rule in driver["rules"])
    assert json.loads(report(tmp_path, monkeypatch, capsys, "rdjson"))["source"] == {
        "name": "cursedlint"}
    for fmt in ("sarif", "rdjson", "gitlab", "junit", "json"):
        assert "pypi.org" not in report(tmp_path, monkeypatch, capsys, fmt)
