"""Start-up: what a run over Python files leaves unimported and uncompiled (measured costs in
the README's Speed section), and the lazily compiled pattern that helps."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from cursedlint.rule import LazyPattern

SPAWNING = """\
import subprocess


def build(target):
    return subprocess.run(["make", target], preexec_fn=lambda: None)
"""


def _run_and_report(tmp_path, script: str) -> dict:
    """Run `cursedlint check --no-cache` on one Python file in a fresh interpreter; `script`
    then prints, as JSON, what the test asks of that interpreter."""
    (tmp_path / "build.py").write_text(SPAWNING)
    code = ("import contextlib, io, json, sys\n"
            "from cursedlint.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['check', '--no-cache', {str(tmp_path / 'build.py')!r}])\n" + script)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    return json.loads(result.stdout)


def test_a_python_run_imports_none_of_the_modules_only_other_runs_need(tmp_path):
    report = _run_and_report(tmp_path, (
        "names = ['dataclasses', 'hashlib', 'difflib', 'traceback', 'tree_sitter',\n"
        "         'libcst', 'cursedlint.c.context', 'cursedlint.analysis.c_constants']\n"
        "print(json.dumps([name for name in names if name in sys.modules]))\n"))
    assert report == []


def test_a_warm_run_imports_none_of_what_only_a_lint_or_a_gathering_reads(tmp_path):
    """A warm run over a plain file, in a project marked by an empty cursedlint.toml, reads
    the result cache and the index store: it imports no TOML parser (the file is empty), no
    tokenizer (nothing is decoded), no JSON (no question is asked of facts to come), and none
    of the C/C++ thread analyses or the statement reader (no file is summarized)."""
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "steps.py").write_text(
        '"""Plain steps."""\n\n\ndef total(values: list[int]) -> int:\n    return sum(values)\n')
    names = ["tomllib", "tokenize", "json", "cursedlint.triggers.statement_text",
             "cursedlint.analysis.c_openmp", "cursedlint.project.cache"]
    code = ("import contextlib, io, sys\n"
            "from cursedlint.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['check', 'steps.py'])\n"
            f"print(' '.join(name for name in {names!r} if name in sys.modules))\n")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                           text=True, check=True, timeout=60).stdout.strip() for _ in range(2)]
    assert (tmp_path / ".cursedlint_cache").is_dir()
    assert runs[1] == "cursedlint.project.cache"  # warm: the cache read, nothing else named


def test_a_python_run_compiles_no_shell_yaml_or_c_pattern(tmp_path):
    report = _run_and_report(tmp_path, (
        "names = ['process_spawning.text', 'process_spawning.native', 'graph_capture.cpp']\n"
        "print(json.dumps([f'cursedlint.rules.{name}' in sys.modules for name in names]))\n"))
    assert report == [False] * 3  # their patterns are not even imported


def test_a_lazy_pattern_answers_as_the_compiled_one():
    text = "export RDMAV_FORK_SAFE=1; IBV_FORK_SAFE=0 make"
    source, flags = r"(?P<key>[A-Z_]+)=(?P<value>\d)", 0
    lazy, compiled = LazyPattern(source, flags), re.compile(source, flags)
    assert "search" not in vars(lazy)  # nothing compiled yet
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.search(text)["key"] == "RDMAV_FORK_SAFE"
    assert lazy.match(text) is None and lazy.fullmatch("A=1") is not None
    assert lazy.findall(text) == compiled.findall(text)
    assert lazy.sub("-", text) == compiled.sub("-", text)
    assert lazy.split(text) == compiled.split(text)
    assert lazy.pattern == source


def test_a_lazy_pattern_compiles_once_and_keeps_its_flags():
    lazy = LazyPattern(rb"^env:", re.MULTILINE | re.IGNORECASE)
    assert lazy.findall(b"jobs:\nENV:\n  Env: 1\n") == [b"ENV:"]
    first = vars(lazy)["findall"]
    lazy.search(b"env:")
    assert vars(lazy)["findall"] is first


def test_a_msgspec_that_needs_typing_extensions_is_imported_as_usual():
    """The start-up hides `typing_extensions` from msgspec's import (msgspec falls back); a
    msgspec that imports it unconditionally must still load, not stop the run."""
    code = (
        "import importlib.abc, sys\n"
        "class Needs(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'msgspec':\n"
        "            import typing_extensions  # what such a msgspec does first\n"
        "sys.meta_path.insert(0, Needs())\n"
        "from cursedlint import cli\n"
        "cli._import_msgspec_without_typing_extensions()\n"
        "import msgspec\n"
        "print(msgspec.Struct.__name__, 'typing_extensions' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ["Struct", "True"]


def test_a_python_run_imports_none_of_the_msgspec_modules_it_does_not_read(tmp_path):
    report = _run_and_report(tmp_path, (
        "names = ['msgspec.inspect', 'msgspec.json', 'msgspec.toml', 'msgspec.yaml', 'inspect']\n"
        "print(json.dumps([name for name in names if name in sys.modules]))\n"))
    assert report == []


def test_msgspec_entered_without_its_init_still_gives_all_it_has():
    code = (
        "import sys\n"
        "from cursedlint import cli\n"
        "cli._import_msgspec_without_typing_extensions()\n"
        "import msgspec\n"
        "class Point(msgspec.Struct):\n"
        "    xs: list = msgspec.field(default_factory=list)\n"
        "point = msgspec.msgpack.decode(msgspec.msgpack.encode(Point([1])), type=Point)\n"
        "print(point.xs, Point().xs, msgspec.structs.replace(point, xs=[2]).xs,\n"
        "      'msgspec.json' in sys.modules, msgspec.json.encode(point).decode(),\n"
        "      msgspec.__version__ == sys.modules['msgspec._version'].__version__,\n"
        "      hasattr(msgspec, 'no.such'), type(msgspec).__name__)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ["[1]", "[]", "[2]", "False", '{"xs":[1]}', "True",
                                     "False", "module"]
