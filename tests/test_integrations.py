"""cursedlint inside the tools users run it from: real flake8 and real pre-commit, in
subprocesses, on files and repositories written by the tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

FORKING = """\
import os
import subprocess


def upload(src, dst):
    subprocess.run(["s5cmd", "cp", src, dst], preexec_fn=os.setsid){comment}
"""
CLEAN = """\
import subprocess


def upload(src, dst):
    command = ["/usr/bin/s5cmd", "cp", src, dst]
    subprocess.run(command, start_new_session=True, close_fds=False)
"""


def run(command: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=600, **kwargs
    )


def flake8(tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    return run([str(BIN / "flake8"), *options, "."], tmp_path)


def test_flake8_reports_the_finding_with_its_code(tmp_path):
    (tmp_path / "upload.py").write_text(FORKING.format(comment=""))
    result = flake8(tmp_path, "--select", "CUR")
    assert result.returncode == 1, result.stderr
    (line,) = result.stdout.splitlines()
    assert line.startswith("./upload.py:6:5: CUR101 ")


def test_flake8_noqa_and_extend_ignore(tmp_path):
    (tmp_path / "upload.py").write_text(FORKING.format(comment="  # noqa: CUR101"))
    assert flake8(tmp_path, "--select", "CUR").stdout == ""
    (tmp_path / "upload.py").write_text(FORKING.format(comment=""))
    result = flake8(tmp_path, "--select", "CUR,E", "--extend-ignore", "CUR")
    assert result.returncode == 0 and result.stdout == ""


def test_flake8_clean_file_and_default_plugins_together(tmp_path):
    (tmp_path / "upload.py").write_text(CLEAN)
    result = flake8(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_flake8_file_that_does_not_parse_does_not_crash_the_plugin(tmp_path):
    (tmp_path / "broken.py").write_text("import subprocess\nsubprocess.run(['ls'\n")
    (tmp_path / "upload.py").write_text(FORKING.format(comment=""))
    result = flake8(tmp_path, "--select", "CUR,E9")
    assert "Traceback" not in result.stderr
    assert "./broken.py:2" in result.stdout and "E999" in result.stdout
    assert "./upload.py:6:5: CUR101" in result.stdout


@pytest.mark.parametrize("config", ["pyproject.toml", "cursedlint.toml"])
def test_flake8_survives_a_version_number_past_int_s_limit(tmp_path, config):
    """5,000 digits in requires-python (any project may have it) or target-python: once three
    tracebacks ended flake8's run with no finding of any plugin."""
    huge = "3." + "9" * 5000
    (tmp_path / config).write_text(
        f'[project]\nname = "x"\nrequires-python = ">={huge}"\n' if config == "pyproject.toml"
        else f'target-python = "{huge}"\n')
    (tmp_path / "upload.py").write_text(FORKING.format(comment=""))
    (tmp_path / "other.py").write_text("import os\n")
    result = flake8(tmp_path, "--select", "CUR,E,F")
    assert "Traceback" not in result.stderr and result.returncode == 1, result.stderr
    found = sorted(line.split(" ")[:2] for line in result.stdout.splitlines())
    if config == "cursedlint.toml":  # a configuration the CLI refuses: each file says so
        refused = [line for line in found if line[1] == "CUR000"]
        assert refused == [["./other.py:1:1:", "CUR000"], ["./upload.py:1:1:", "CUR000"]]
        assert "target-python" in result.stdout
        found = [line for line in found if line not in refused]
    assert found == [["./other.py:1:1:", "F401"], ["./upload.py:6:5:", "CUR101"]]


CLONER_FIXTURE = REPO / "tests" / "rules" / "CUR501" / "tinyir"


@pytest.mark.integration
def test_pre_commit_hook_fails_on_a_hazard_and_passes_clean_code(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is needed for pre-commit")
    environment = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    project = tmp_path / "project"
    project.mkdir()
    run(["git", "init", "-q"], project, env=environment, check=True)
    (project / "upload.py").write_text(FORKING.format(comment=""))
    (project / "clean.py").write_text(CLEAN)
    (project / "notes.txt").write_text("subprocess.run(['s5cmd'])\n")
    shutil.copytree(CLONER_FIXTURE, project / "tinyir")
    run(["git", "add", "."], project, env=environment, check=True)

    def try_repo(*files: str) -> subprocess.CompletedProcess:
        command = [str(BIN / "pre-commit"), "try-repo", str(REPO), "cursedlint", "--files", *files]
        return run(command, project, env=environment)

    failing = try_repo("upload.py", "clean.py", "notes.txt")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "upload.py:6:5: CUR101" in failing.stdout
    assert "clean.py" not in failing.stdout.split("Failed")[-1]

    passing = try_repo("clean.py", "notes.txt")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout

    # only the .cpp is handed over: its header is found through the project index
    cloning = try_repo("tinyir/src/container.cpp")
    assert cloning.returncode == 1, cloning.stdout + cloning.stderr
    assert "container.cpp:21:3: CUR501" in cloning.stdout
    assert "note: tinyir/include/tinyir/container.h:28: `" in cloning.stdout


@pytest.mark.integration
def test_the_readme_install_command_installs_and_runs(tmp_path):
    """The README's first command, as a newcomer copies it in a clone: an environment of
    its own, this checkout installed into it, a check of the rules' cases (findings: exit 1)."""
    readme = (REPO / "README.md").read_text()
    [command] = [line for line in readme.splitlines()
                 if line.startswith("python3 -m venv ~/.cursedlint")]
    command = command.replace("~/.cursedlint", str(tmp_path / "env"))
    checkout = tmp_path / "checkout"  # the build leaves build/ behind: not in this checkout
    shutil.copytree(REPO, checkout, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*cache*", ".whl"))
    result = run(["bash", "-c", command], checkout)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "tests/rules/CUR101/" in result.stdout and " CUR101 " in result.stdout
    assert result.stdout.splitlines()[-1].startswith("Found ")
    installed = {str(path.relative_to(site)) for site in (tmp_path / "env").glob("lib/*/site-packages")
                 for path in (site / "cursedlint").rglob("*.py")}
    tracked = subprocess.run(["git", "ls-files", "cursedlint"], cwd=REPO, capture_output=True,
                             text=True)
    if tracked.returncode == 0:  # every module of the checkout is in the wheel, and no other
        assert installed == {name for name in tracked.stdout.splitlines() if name.endswith(".py")}


@pytest.mark.integration
@pytest.mark.parametrize("args", [[], ["--output-format", "json"]], ids=["no-args", "json-args"])
def test_pre_commit_hook_takes_file_names_like_options_as_files(tmp_path, args):
    """The manifest's entry, run by real pre-commit on files named like options, with and
    without the hook's own `args:` (which pre-commit puts between the entry and the names)."""
    import yaml

    if shutil.which("git") is None:
        pytest.skip("git is needed for pre-commit")
    [manifest] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = {key: manifest[key] for key in ("id", "name", "types", "require_serial")}
    hook.update(language="system", args=args,
                entry=manifest["entry"].replace("cursedlint", str(BIN / "cursedlint"), 1))
    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    project = tmp_path / "project"
    project.mkdir()
    run(["git", "init", "-q"], project, env=environment, check=True)
    (project / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    (project / "upload.py").write_text(FORKING.format(comment=""))
    (project / "--stdin-filename=a.py").write_text("x = 1\n")
    (project / "--output-file=pwned.py").write_text("x = 1\n")
    (project / "--exit-zero").write_text("#!/usr/bin/env python3\n" + CLEAN)
    (project / "--exit-zero").chmod(0o755)
    (project / "sync-weights").write_text("#!/usr/bin/env python3\n" + FORKING.format(comment=""))
    (project / "train.dockerfile").write_text("FROM base\nENV RDMAV_FORK_SAFE=1\n")
    run(["git", "add", "."], project, env=environment, check=True)
    result = run([str(BIN / "pre-commit"), "run", "--all-files"], project, env=environment)
    assert result.returncode == 1 and "Failed" in result.stdout, result.stdout + result.stderr
    if args:
        assert '"path": "upload.py"' in result.stdout and '"line": 6' in result.stdout
    else:
        assert "upload.py:6:5: CUR101" in result.stdout and "Checked 7 files" in result.stdout
        # the files the command line lints and identify tags no kind of (a script that is
        # not executable, a lower-case .dockerfile) reach the hook too
        assert "sync-weights:7:5: CUR101" in result.stdout
        assert "train.dockerfile:2:" in result.stdout
    assert not (project / "pwned.py").exists()
