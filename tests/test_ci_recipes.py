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
