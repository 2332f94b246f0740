"""The CI recipes as shipped: the composite action's steps run by bash as GitHub's runner runs
them (inputs and step outputs substituted, GITHUB_OUTPUT read back), on a scratch repository.
The install step is the one thing replaced: its environment is this test's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
FORKING = "import os\nimport subprocess\n\nsubprocess.Popen(['/bin/ls'], preexec_fn=os.setsid)\n"


def action():
    return yaml.safe_load((ROOT / "action.yml").read_text())


def run_action(workspace: Path, tmp: Path, inputs: dict[str, str]) -> tuple[list, dict, str]:
    """The action's bash steps in order: (the `uses:` steps it would run, with their inputs;
    every step's outputs; the annotations printed). Raises on a step that fails."""
    spec = action()
    values = {name: str(entry.get("default", "")) for name, entry in spec["inputs"].items()}
    values.update(inputs)
    runner_temp = tmp / "runner"
    (runner_temp / "cursedlint" / "bin").mkdir(parents=True)
    os.symlink(Path(sys.executable).parent / "cursedlint",
               runner_temp / "cursedlint" / "bin" / "cursedlint")
    outputs: dict[str, dict[str, str]] = {}

    def expand(text: str) -> str:
        def value(match):
            kind, *rest = match.group(1).split(".")
            if kind == "inputs":
                return values[rest[0]]
            if kind == "steps":
                return outputs.get(rest[0], {}).get(rest[2], "")
            raise AssertionError(f"unknown expression {match.group(0)}")
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", value, text)

    uses, printed, status = [], "", None
    for step in spec["runs"]["steps"]:
        condition = step.get("if", "")
        if "inputs.upload-sarif == 'true'" in condition and values["upload-sarif"] != "true":
            continue
        if "steps.lint.outputs.sarif-file != ''" in condition \
                and not outputs.get("lint", {}).get("sarif-file"):
            continue
        if "uses" in step:
            uses.append((step["uses"], {k: expand(str(v)) for k, v in step["with"].items()}))
            continue
        if step["name"].startswith("Install"):
            continue  # the environment is the test's own (linked above)
        output_file = tmp / f"output-{len(outputs)}"
        output_file.write_text("")
        env = {**os.environ, "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(output_file),
               "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_WORKSPACE": str(workspace)}
        env.update({k: expand(str(v)) for k, v in step.get("env", {}).items()})
        done = subprocess.run(["bash", "-e", "-c", expand(step["run"])], cwd=workspace, env=env,
                              capture_output=True, text=True, timeout=120)
        printed += done.stdout
        status = done.returncode
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1)
                                       for line in output_file.read_text().splitlines())
        if step["name"].startswith("Exit"):
            break
        assert done.returncode == 0, done.stderr
    return uses, {**outputs, "exit": status}, printed


@pytest.fixture
def workspace(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "launch.py").write_text(FORKING)
    (repo / "src" / "clean.py").write_text("x = 1\n")
    return repo


def test_one_run_gives_the_sarif_report_annotations_and_the_exit_code(workspace, tmp_path):
    uses, outputs, printed = run_action(workspace, tmp_path, {"category": "cursedlint-src"})
    assert printed.startswith("::warning file=src/launch.py,line=4,")
    sarif = outputs["lint"]["sarif-file"]
    log = json.loads(Path(sarif).read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["CUR101"]
    assert uses == [("github/codeql-action/upload-sarif@v3",
                     {"sarif_file": sarif, "category": "cursedlint-src"})]
    assert outputs["exit"] == 1  # the finding fails the job after the upload


def test_a_clean_tree_passes_and_still_uploads_an_empty_report(workspace, tmp_path):
    (workspace / "src" / "launch.py").unlink()
    uses, outputs, printed = run_action(workspace, tmp_path, {"upload-sarif": "true"})
    assert printed == "" and outputs["exit"] == 0
    assert uses and uses[0][1]["category"] == "cursedlint"


def test_a_usage_error_uploads_nothing_and_fails(workspace, tmp_path):
    uses, outputs, _ = run_action(workspace, tmp_path, {"args": "--select CUR999"})
    assert uses == [] and outputs["exit"] == 2


def test_the_action_does_not_change_the_callers_python():
    """actions/setup-python in a composite action changes the Python of the caller's later
    steps: the action runs the Python it is given instead."""
    assert not any("setup-python" in step.get("uses", "") for step in action()["runs"]["steps"])


def readme_yaml_with(key: str) -> dict:
    """The README's YAML block whose top-level keys include `key`."""
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return next(block for block in map(yaml.safe_load, blocks) if key in block)


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def test_the_gitlab_recipe_reports_the_merge_requests_findings_as_code_quality(tmp_path):
    """The README's job, its script run line by line as GitLab's runner would, in a clone of
    a repository whose main branch already holds a finding and whose merge request adds one."""
    job = readme_yaml_with("cursedlint")["cursedlint"]
    assert job["variables"]["GIT_DEPTH"] == "0"
    assert job["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    install, *script = job["script"]
    assert re.search(r"pip install .*cursedlint\.git@v\d+\.\d+\.\d+", install)

    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / "old.py").write_text(FORKING)
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "main")
    project = tmp_path / "project"
    git(tmp_path, "clone", "-q", str(origin), str(project))
    git(project, "checkout", "-qb", "feature")
    (project / "pkg").mkdir()
    (project / "pkg" / "new.py").write_text(FORKING)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "feature")

    env = {**os.environ, "CI_PROJECT_DIR": str(project), "CI_PIPELINE_SOURCE": "merge_request_event",
           "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    statuses = []
    for line in script:
        done = subprocess.run(["bash", "-c", line], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120)
        statuses.append(done.returncode)
    assert statuses == [0, 1], done.stderr  # the job fails on the new finding
    assert "pkg/new.py:4:1: CUR101" in done.stdout and "old.py" not in done.stdout
    report = json.loads((project / "gl-code-quality-report.json").read_text())
    assert [(issue["check_name"], issue["location"]["path"]) for issue in report] == [
        ("CUR101", "pkg/new.py")]
