"""Text from the linted tree that is not what it should be: file names and lines that hold line
breaks and escape sequences (in `--diff`, the notes of `--fix` and Python's warnings), a file
that starts with two BOMs, and a syntax error in a file whose name is a FIFO. The linter prints
no raw name or line that could fake output or command the terminal, lints what CPython sees,
and never opens the file again to show an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

import pytest

from cursedlint.engine import fixes
from cursedlint.cli import main
from cursedlint.source import Source

SPAWNING = (b"import os\nimport subprocess\n\n\ndef start(cmd):\n"
            b"    return subprocess.Popen(cmd, preexec_fn=os.setsid)\n")
FIXED = SPAWNING.replace(b"preexec_fn=os.setsid", b"start_new_session=True")
FORGING = "nl\n+++ evil.py\n@@ -1 +1 @@\n+pwned.py"  # a name that reads as a diff's next hunk
ESCAPING = "esc\x1b[2J\x1b[31mRED.py"  # clears the screen, then prints red


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cpython_says(data: bytes) -> tuple[str, int, int]:
    """The message, line and column of the syntax error CPython reports for a file of `data`."""
    with pytest.raises(SyntaxError) as error:
        compile(data, "<bytes>", "exec")
    return error.value.msg, error.value.lineno, error.value.offset


# -- names and lines in --diff -----------------------------------------------------------------
DIFF_LINE_STARTS = ("--- ", "+++ ", "@@ ", " ", "+", "-", "\\ No newline at end of file")


def test_diff_headers_quote_names_so_that_no_name_starts_a_line(project, capsys):
    for name in (FORGING, ESCAPING, "plain.py"):
        (project / name).write_bytes(SPAWNING)
    code, out, _ = cli(capsys, "--diff", ".")
    assert code == 1 and "\x1b" not in out
    lines = out.split("\n")  # the lines as git and patch read them
    assert lines.pop() == "" and all(line.startswith(DIFF_LINE_STARTS) for line in lines)
    headers = [line for line in lines if line.startswith(("--- ", "+++ "))]
    assert sorted(headers) == sorted([
        '--- "a/nl\\n+++ evil.py\\n@@ -1 +1 @@\\n+pwned.py"\t',  # a tab: the name has a space
        '+++ "b/nl\\n+++ evil.py\\n@@ -1 +1 @@\\n+pwned.py"\t',
        '--- "a/esc\\033[2J\\033[31mRED.py"', '+++ "b/esc\\033[2J\\033[31mRED.py"',
        "--- a/plain.py", "+++ b/plain.py",
    ])


def test_a_name_that_is_not_utf8_is_quoted_byte_by_byte():
    header = fixes.unified_diff(os.fsdecode(b"bad\xff.py"), "a\n", "b\n").split("\n")[:2]
    assert header == ['--- "a/bad\\377.py"', '+++ "b/bad\\377.py"']


# Lines git reads as one: a form feed and a stray CR inside them, an escape sequence in a
# comment, CRLF endings, and a last line without a line break.
ODD_LINES = {
    "feed.py": SPAWNING.replace(b"\n\n\ndef", b"\n\x0c\n\ndef"),
    "stray_cr.py": SPAWNING.replace(b"(cmd):", b"(cmd):  # moved\r    # here"),
    "crlf.py": SPAWNING.replace(b"\n", b"\r\n"),
    "colour.py": SPAWNING.replace(b"\n\n\ndef", b"\n\n# \x1b[31mred\x1b[0m\ndef"),
    "no_newline.py": SPAWNING.rstrip(b"\n"),
}
NAMES = {"tab\tname.py": SPAWNING, 'quote"back\\slash.py': SPAWNING,
         "with space.py": SPAWNING, "\u202eyp.evil.py": SPAWNING, "caf\u00e9.py": SPAWNING}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("files", [ODD_LINES, NAMES], ids=["lines", "names"])
def test_git_apply_of_the_diff_makes_what_fix_makes(project, capsys, files):
    """`cursedlint check --diff | git apply` changes each file as `--fix` does, whatever its
    name and lines."""
    tree, applied = project / "tree", project / "applied"
    tree.mkdir()
    for name, data in files.items():
        (tree / name).write_bytes(data)
    shutil.copytree(tree, applied)
    os.chdir(tree)
    code, diff, _ = cli(capsys, "--diff", ".")
    assert code == 1
    result = subprocess.run(["git", "apply", "-p1"], cwd=applied, capture_output=True,
                            input=diff.encode("utf-8", "surrogateescape"), timeout=60)
    assert result.returncode == 0, result.stderr
    code, _, err = cli(capsys, "--fix", ".")
    assert code == 0 and f"fixed {len(files)} problem(s) in {len(files)} file(s)" in err
    for name in files:
        assert (applied / name).read_bytes() == (tree / name).read_bytes() != files[name]
    assert sorted(os.listdir(applied)) == sorted(files)


# -- the notes of --fix ------------------------------------------------------------------------
def test_fix_notes_escape_the_names_they_print(project, capsys):
    path = project / ESCAPING
    path.write_bytes(SPAWNING)
    path.chmod(0o444)
    code, _, err = cli(capsys, "--fix", ".")
    assert code == 1 and "\x1b" not in err
    assert ("esc\\x1b[2J\\x1b[31mRED.py: fixes not written: the file is read-only (mode "
            "0444); make it writable (chmod u+w) to have them applied") in err


# -- Python's warnings -------------------------------------------------------------------------
# `0x1for` is a SyntaxWarning ("invalid hexadecimal literal"); Python would print it with its
# line, read from the file again: here a comment that sets the terminal's title and clears it.
WARNING_LINE = b"x = [0x1for y in range(3)]  # \x1b]0;pwned-title\x07\x1b[2J\n"


def test_parsing_prints_no_syntax_warning(project):
    (project / "esc.py").write_bytes(SPAWNING + WARNING_LINE)
    result = subprocess.run([sys.executable, "-m", "cursedlint", "check", "--no-cache",
                             "--output-format", "json", "esc.py"],
                            capture_output=True, timeout=60)
    assert result.returncode == 1 and b"CUR101" in result.stdout
    assert result.stderr == b""


def test_parses_warn_of_nothing_even_where_warnings_are_errors(project, capsys):
    """Under `-W error` a SyntaxWarning makes the parse fail: the file is still linted (and
    fixed) as Python runs it."""
    path = project / "esc.py"
    path.write_bytes(SPAWNING + WARNING_LINE)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code, out, _ = cli(capsys, "--concise", "esc.py")
        assert code == 1 and "esc.py:6:12: CUR101" in out
        warnings.simplefilter("error")
        code, _, err = cli(capsys, "--fix", "esc.py")
        assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert seen == []
    assert path.read_bytes() == FIXED + WARNING_LINE


# -- two BOMs ----------------------------------------------------------------------------------
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("head", [b"", b"# -*- coding: latin-1 -*-\n"], ids=["utf-8", "latin-1"])
def test_a_second_bom_is_the_syntax_error_cpython_reports(project, capsys, head):
    data = BOM + BOM + head + SPAWNING
    path = project / "twice.py"
    path.write_bytes(data)
    message, line, column = cpython_says(data)
    assert message == "invalid non-printable character U+FEFF"
    code, out, _ = cli(capsys, "--concise", "--fix", "twice.py")
    assert code == 1
    assert f"twice.py:{line}:{column}: CUR001 syntax error: {message};" in out
    assert "CUR101" not in out and path.read_bytes() == data


def test_the_text_keeps_a_second_bom_and_writes_it_back():
    data = BOM + BOM + SPAWNING
    source = Source.from_bytes("twice.py", data, "python")
    assert source.text.startswith("\ufeffimport os") and source.encode(source.text) == data


def test_a_fix_keeps_the_one_bom_of_a_file(project, capsys):
    path = project / "once.py"
    path.write_bytes(BOM + SPAWNING)
    code, _, err = cli(capsys, "--fix", "once.py")
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert path.read_bytes() == BOM + FIXED


# -- a syntax error's line is never read from the file -----------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_syntax_error_in_a_fifo_named_by_stdin_filename_does_not_hang(project):
    os.mkfifo(project / "pipe.py")
    broken = b'import os, subprocess\nsubprocess.Popen(["x"], preexec_fn=os.setsid\ndef (\n'
    result = subprocess.run([sys.executable, "-m", "cursedlint", "check", "--no-cache",
                             "--concise", "--stdin-filename", "pipe.py"],
                            input=broken, capture_output=True, timeout=30)  # it hung before
    assert result.returncode == 1, result.stderr
    message, line, column = cpython_says(broken)
    assert f"pipe.py:{line}:{column}: CUR001 syntax error: {message}; no rule could check " \
           "this file" in result.stdout.decode()
