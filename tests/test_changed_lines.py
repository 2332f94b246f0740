"""--diff-base in a temporary git repository, as a pull request's CI runs it: only findings on
lines the branch added or changed, or whose chain passes through one, are reported; git runs
in the linted paths' repository, whatever the working directory and the user's git config."""

from __future__ import annotations

import json
import os
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
def home(tmp_path, monkeypatch):
    """The user's home, for their ~/.gitconfig: empty unless a test writes one."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return home


@pytest.fixture
def repository(tmp_path, monkeypatch, home):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "launch.py").write_text(OLD)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "old")
    git(root, "checkout", "-q", "-b", "feature")
    monkeypatch.chdir(root)
    return root


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


def paths_reported(capsys, *arguments: str) -> tuple[int, list[str], str]:
    """The exit code, the paths of the findings (exactly, from the JSON report) and stderr."""
    capsys.readouterr()
    status = main(["check", "--no-cache", "--output-format", "json", "--target-python", "3.12",
                   *arguments])
    out, err = capsys.readouterr()
    return status, sorted(finding["path"] for finding in json.loads(out or "[]")), err


def test_git_runs_in_the_linted_paths_repository_not_the_working_directory(repository, capsys):
    """From another repository that also has a `main`, the branch's findings are still
    reported (its `main` once answered: "All checks passed", exit 0)."""
    (repository / "tools.py").write_text(OLD)
    git(repository, "add", ".")
    git(repository, "commit", "-qm", "tools")
    other = repository.parent / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    git(other, "commit", "-q", "--allow-empty", "-m", "other")
    os.chdir(other)
    assert paths_reported(capsys, "--diff-base", "main", str(repository))[:2] == (
        1, [str(repository / "tools.py")])
    os.chdir(repository.parent)  # no repository here
    assert paths_reported(capsys, "--diff-base", "main", "repo")[:2] == (1, ["repo/tools.py"])


@pytest.mark.parametrize("linted, problem", [
    (["repo", "other"], "the linted paths are in different git repositories: "),
    (["repo/launch.py", "repo/vendored/lib.py"], "'repo/vendored/lib.py' in "),
    (["repo/launch.py", "plain"], "'plain': fatal: not a git repository"),
])
def test_paths_in_two_repositories_or_none_are_refused(repository, capsys, linted, problem):
    for other in (repository.parent / "other", repository / "vendored"):
        other.mkdir()
        git(other, "init", "-q", "-b", "main")
    (repository / "vendored" / "lib.py").write_text(OLD)
    (repository.parent / "plain").mkdir()
    os.chdir(repository.parent)
    status, found, err = paths_reported(capsys, "--diff-base", "main", *linted)
    assert (status, found) == (2, [])
    assert err.startswith("cursedlint: error: --diff-base main: ") and problem in err
    assert err.count("\n") == 1


ODD_NAMES = ["é_accent.py", "tab\tname.py", "new\nline.py", 'quote"d.py', "back\\slash.py",
             "sp ace.py", "sp ace\ttab.py", "\\x.py"]


@pytest.mark.parametrize("gitconfig", [
    "",
    "[core]\n\tquotePath = true\n",
    "[diff]\n\tmnemonicPrefix = true\n",
    "[diff]\n\tnoprefix = true\n",
    "[color]\n\tdiff = always\n\tui = always\n",
    "[diff]\n\trelative = true\n\tinterHunkContext = 20\n\tsuppressBlankEmpty = true\n"
    "\trenames = copies\n\texternal = false\n",
])
def test_names_git_quotes_and_the_users_git_config_lose_no_finding(repository, home, capsys,
                                                                   gitconfig):
    """A branch adds files whose names git C-quotes (or ends with a tab: a space) and changes
    a line of a tracked file; whatever the user's ~/.gitconfig, each is reported (quoted names,
    and with mnemonicPrefix or noprefix every tracked file, were dropped)."""
    for name in ODD_NAMES:
        (repository / name).write_text(OLD)
    (repository / "launch.py").write_text(OLD.replace("os.setsid", "os.setpgrp"))
    git(repository, "add", ".")
    git(repository, "commit", "-qm", "odd names")
    (home / ".gitconfig").write_text(gitconfig)
    os.chdir(repository / "..")
    status, found, _ = paths_reported(capsys, "--diff-base", "main", "repo")
    assert status == 1
    assert found == sorted(f"repo/{name}" for name in [*ODD_NAMES, "launch.py"])


def test_unchanged_lines_between_changes_are_not_taken_as_changed(repository, home, capsys,
                                                                   monkeypatch):
    """Context that diff.interHunkContext or GIT_DIFF_OPTS adds to hunks is not changed: the
    finding on the unchanged line 7, between two changes, is not reported."""
    (home / ".gitconfig").write_text("[diff]\n\tinterHunkContext = 20\n")
    monkeypatch.setenv("GIT_DIFF_OPTS", "--unified=20")
    two = OLD + "\n\ndef launch_again(cmd):\n    return subprocess.Popen(cmd, preexec_fn=os.setsid)\n"
    (repository / "launch.py").write_text(two)
    git(repository, "commit", "-qam", "two")
    git(repository, "branch", "-f", "main")
    (repository / "launch.py").write_text("# changed\n" + two[:-len("setsid)\n")] + "setpgrp)\n")
    assert lines_reported(capsys)[1] == ["launch.py:7:12:", "launch.py:11:12:"]
    assert lines_reported(capsys, "--diff-base", "main") == (1, ["launch.py:11:12:"])


def test_the_trees_own_fsmonitor_hook_is_not_run(repository, capsys):
    """A tree that arrives with its .git (an archive) may name a core.fsmonitor program: git
    runs it on a diff, cursedlint's git does not."""
    witness = repository.parent / "ran"
    hook = repository.parent / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{witness}'\n")
    hook.chmod(0o755)
    git(repository, "config", "core.fsmonitor", str(hook))
    subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=repository, capture_output=True)
    if not witness.exists():
        pytest.skip("this git does not run a core.fsmonitor hook on a diff")
    witness.unlink()
    assert lines_reported(capsys, "--diff-base", "main") == (0, [])
    assert not witness.exists()


def test_a_shallow_clone_without_the_merge_base_says_to_fetch_more(repository, capsys):
    (repository / "tools.py").write_text(OLD)
    git(repository, "add", ".")
    git(repository, "commit", "-qm", "tools")
    clone = repository.parent / "clone"
    git(repository.parent, "clone", "-q", "--depth", "1", "-b", "feature",
        f"file://{repository}", str(clone))
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:main")
    os.chdir(clone)
    status, found, err = paths_reported(capsys, "--diff-base", "main")
    assert (status, found) == (2, [])
    assert err == ("cursedlint: error: --diff-base main: main and HEAD have no common ancestor; "
                   "this is a shallow clone: fetch more history (git fetch --unshallow, or "
                   "fetch-depth: 0 in actions/checkout)\n")
