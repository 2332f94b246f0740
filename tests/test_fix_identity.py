"""`--fix` keeps a file what it was: its line endings, the file a symlink leads to (within the
linted paths and the project only), hard links, owner, mode and extended attributes; it leaves
read-only files alone, and a write that fails (read-only directory, full disk) leaves the file
intact with a message and exit 2."""

from __future__ import annotations

import os

import pytest

from cursedlint import fixes
from cursedlint.cli import main

# CUR101's unsafe fix resolves "ls" with shutil.which and inserts an `import shutil` line.
LINES = ["import subprocess", 'subprocess.run(["ls"], close_fds=False)', ""]
FIXED_LINES = ["import shutil", "import subprocess",
               'subprocess.run([shutil.which("ls")], close_fds=False)', ""]
ORIGINAL = "\n".join(LINES).encode()
FIXED = "\n".join(FIXED_LINES).encode()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project whose configuration (its root) targets Python 3.8, where the call forks."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "cursedlint.toml").write_text('target-python = "3.8"\n')
    monkeypatch.chdir(root)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return root


def fix(capsys, *paths: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", "--fix", "--unsafe-fixes", *(paths or ["."])])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def backups(directory) -> list[str]:
    return [name for name in os.listdir(directory) if name.startswith(".cursedlint-fix-")]


# -- line endings ------------------------------------------------------------------------------
@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"], ids=["crlf", "cr", "lf"])
def test_inserted_lines_end_as_the_file_does(project, capsys, newline):
    path = project / "launch.py"
    path.write_bytes(newline.join(LINES).encode())
    code, _, err = fix(capsys)
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert path.read_bytes() == newline.join(FIXED_LINES).encode()


def test_line_ending_is_the_first_lines():
    assert fixes.line_ending("a\r\nb\nc\r") == "\r\n"
    assert fixes.line_ending("a\rb\r\n") == "\r"
    assert fixes.line_ending("no line break") == "\n"
