"""--diff-base in a temporary git repository, as a pull request's CI runs it: only findings on
lines the branch added or changed, or whose chain passes through one, are reported."""

from __future__ import annotations

import subprocess

import pytest

from cursedlint.cli import main

OLD = """\
import os
import subprocess


def launch(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)
"""


def git(root, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(root), *arguments], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "HOME": str(root),
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                        "PATH": "/usr/bin:/bin:/usr/local/bin"})


@pytest.fixture
def repository(tmp_path, monkeypatch):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "launch.py").write_text(OLD)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "old")
    git(tmp_path, "checkout", "-q", "-b", "feature")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lines_reported(capsys, *flags: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(["check", "--no-cache", "--concise", "--target-python", "3.12", *flags])
    out = capsys.readouterr().out
    return status, [line.split(" ")[0] for line in out.splitlines()[:-1]]


def test_only_what_the_branch_changed_is_reported(repository, capsys):
    (repository / "launch.py").write_text(
        OLD + "\n\ndef launch_group(cmd):\n    return subprocess.Popen(cmd, preexec_fn=os.setpgrp)\n")
    git(repository, "commit", "-qam", "new launcher")
    (repository / "tools.py").write_text(OLD)  # untracked: every line is new
    assert lines_reported(capsys)[1] == ["launch.py:6:12:", "launch.py:10:12:", "tools.py:6:12:"]
    assert lines_reported(capsys, "--diff-base", "main") == (
        1, ["launch.py:10:12:", "tools.py:6:12:"])


def test_an_unchanged_branch_reports_nothing(repository, capsys):
    assert lines_reported(capsys, "--diff-base", "main") == (0, [])


def test_a_change_to_a_line_of_the_chain_reports_the_finding(repository, capsys):
    """A helper of another module changed: the unchanged call that the finding is reported at
    is shown, since its chain passes through the change."""
    (repository / "pkg").mkdir()
    (repository / "pkg" / "__init__.py").write_text("")
    (repository / "pkg" / "kernels.py").write_text(
        "from numba import cuda\n\n\ndef best_block(kernel, memory_for):\n"
        "    context = cuda.current_context()\n    return 1\n")
    (repository / "pkg" / "run.py").write_text(
        "from .kernels import best_block\n\n\ndef plan(kernel):\n"
        "    return best_block(kernel, lambda size: 0)\n")
    git(repository, "add", ".")
    git(repository, "commit", "-qm", "helpers")
    git(repository, "branch", "-f", "main")
    (repository / "pkg" / "kernels.py").write_text(
        "from numba import cuda\n\n\ndef best_block(kernel, memory_for):\n"
        "    context = cuda.current_context()\n"
        "    return context.get_max_potential_block_size(kernel, memory_for, 0, 1024)\n")
    status, found = lines_reported(capsys, "--diff-base", "main", "pkg")
    assert (status, found) == (1, ["pkg/run.py:5:31:"])


def test_a_bad_reference_is_a_usage_error(repository, capsys):
    capsys.readouterr()
    assert main(["check", "--no-cache", "--diff-base", "no-such-branch"]) == 2
    assert "--diff-base no-such-branch:" in capsys.readouterr().err
    assert main(["check", "--no-cache", "--diff-base=-x"]) == 2  # never an option of git
