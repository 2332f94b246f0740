"""The import table: names in a module resolved to the dotted names they were imported as.

`resolved` walks the module as the engine does (imports met during the walk extend the table)
and returns `context.qualified_name(...)` of each argument of each `probe(...)` call.
"""

from __future__ import annotations

import ast

import pytest

from cursedlint.python.context import PythonContext
from cursedlint.python.imports import ImportTable
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(text: str) -> PythonContext:
    return PythonContext(Source.from_text("m.py", text, "python"), Settings(enabled=frozenset()),
                         ast.parse(text))


def resolved(text: str) -> list[str | None]:
    context = context_of(text)
    found: list[str | None] = []

    class Recorder:
        def visit_Call(self, node: ast.Call) -> None:
            if isinstance(node.func, ast.Name) and node.func.id == "probe":
                found.extend(context.qualified_name(argument) for argument in node.args)

    def fail(rule, error):
        raise error

    context.walk([Recorder()], fail)
    return found


@pytest.mark.parametrize(
    ("imports", "expression", "expected"),
    [
        ("import subprocess", "subprocess.Popen", "subprocess.Popen"),
        ("import subprocess as sp", "sp.Popen", "subprocess.Popen"),
        ("import subprocess as sp", "sp", "subprocess"),
        ("from subprocess import Popen", "Popen", "subprocess.Popen"),
        ("from subprocess import Popen as P", "P", "subprocess.Popen"),
        ("from subprocess import run, check_output as co", "co", "subprocess.check_output"),
        ("import os.path", "os.path.join", "os.path.join"),
        ("import os.path", "os.getcwd", "os.getcwd"),
        ("import os.path as osp", "osp.join", "os.path.join"),
        ("from os import path", "path.join", "os.path.join"),
        ("import multiprocessing.pool as mpp", "mpp.Pool.map", "multiprocessing.pool.Pool.map"),
        ("import torch.multiprocessing as mp", "mp.spawn", "torch.multiprocessing.spawn"),
        ("from os import open", "open", "os.open"),  # an import shadows the builtin
    ],
)
def test_aliases(imports, expression, expected):
    assert resolved(f"{imports}\nprobe({expression})\n") == [expected]


@pytest.mark.parametrize(
    ("imports", "expression"),
    [
        ("from . import subprocess", "subprocess.Popen"),
        ("from .helpers import run", "run"),
        ("from ..util import spawn as run", "run"),
        ("from subprocess import *", "Popen"),
        ("import subprocess", "sub.Popen"),
        ("import subprocess", "make_runner().Popen"),
        ("import subprocess", "runners[0]"),
    ],
)
def test_relative_star_and_unknown_names_resolve_to_none(imports, expression):
    assert resolved(f"{imports}\nprobe({expression})\n") == [None]


def test_builtins():
    assert resolved("probe(open, print, str.join, exec)\n") == [
        "builtins.open", "builtins.print", "builtins.str.join", "builtins.exec"]


def test_imports_under_module_level_blocks():
    text = """
import sys
try:
    import ujson as json
except ImportError:
    json = None
if sys.platform == "win32":
    from subprocess import STARTUPINFO
else:
    from os import posix_spawn
with open("setup.cfg"):
    import configparser as cp
probe(json.loads, STARTUPINFO, posix_spawn, cp.ConfigParser)
"""
    assert resolved(text) == ["ujson.loads", "subprocess.STARTUPINFO", "os.posix_spawn",
                              "configparser.ConfigParser"]


def test_try_except_fallback_resolves_to_the_binding_met_last():
    text = """
try:
    from subprocess32 import Popen
except ImportError:
    from subprocess import Popen
probe(Popen)
"""
    assert resolved(text) == ["subprocess.Popen"]


def test_module_imports_are_known_in_functions_defined_before_them():
    text = """
def launch():
    return probe(sp.run)
import subprocess as sp
"""
    assert resolved(text) == ["subprocess.run"]


def test_imports_inside_functions():
    text = """
def launch(argv):
    import subprocess as sp
    from shlex import quote as q
    probe(sp.Popen, q)
"""
    assert resolved(text) == ["subprocess.Popen", "shlex.quote"]


def test_a_later_module_import_rebinds_during_the_walk():
    text = """
import subprocess as sp
probe(sp.run)
import shlex as sp
probe(sp.quote)
"""
    assert resolved(text) == ["subprocess.run", "shlex.quote"]


def test_shadowed_builtins_are_not_builtins():
    text = """
def open(path):
    return path
exec = print
probe(open, exec)
"""
    assert resolved(text) == [None, None]


def test_function_imports_stay_in_their_function():
    text = """
def quoting():
    import shlex as sp
    return sp.quote("x")
def launch(sp):
    return probe(sp.run)
"""
    assert resolved(text) == [None]


def test_module_level_table_ends_with_the_last_import():
    context = context_of("import subprocess as sp\nimport shlex as sp\n")
    assert context.imports.names["sp"] == "shlex"


def test_import_table_directly():
    table = ImportTable()
    table.add_module_level(ast.parse(
        "import shutil as sh\nfrom subprocess import Popen\nimport os.path\n"))
    assert table.qualified_name(ast.parse("sh.which", mode="eval").body) == "shutil.which"
    assert table.qualified_name(ast.parse("Popen", mode="eval").body) == "subprocess.Popen"
    assert table.qualified_name(ast.parse("len", mode="eval").body) == "builtins.len"
    assert table.qualified_name(ast.parse("f()", mode="eval").body) is None
    assert table.imports_module("subprocess")
    assert table.imports_module("os")
    assert not table.imports_module("sub")
    assert table.local_name("shutil.which") == "sh.which"
    assert table.local_name("subprocess.Popen") == "Popen"
    assert table.local_name("os.path.join") == "os.path.join"
    assert table.local_name("multiprocessing.Pool") is None


def test_among_answers_only_for_the_names_asked_about():
    text = "import subprocess\ndef launch(open):\n    subprocess.run(open)\n"
    context = context_of(text)
    call = context.tree.body[1].body[0].value
    context.walk([], lambda rule, error: None)
    assert context.qualified_name(call.func, among={"subprocess.run"}) == "subprocess.run"
    assert context.qualified_name(call.func, among={"subprocess.Popen"}) is None
    assert context.qualified_name(call.args[0], among={"builtins.open"}) is None  # shadowed


def test_text_of_a_node_is_its_source_segment():
    """`text_of` (used for fixes and messages) agrees with `ast.get_source_segment`, across
    non-ASCII text, several lines and \\r\\n line ends."""
    text = 'x = "é" + f(\r\n    "π",\r\n    b)  # ü\rprobe(["/bin/ls", "ä"])\n'
    context = context_of(text)
    nodes = [node for node in ast.walk(context.tree) if hasattr(node, "end_col_offset")]
    assert len(nodes) > 8
    for node in nodes:
        assert context.text_of(node) == ast.get_source_segment(text, node)


def test_a_later_import_changes_a_remembered_name():
    """The table remembers each expression's name, and forgets it when an import is added."""
    tree = ast.parse("def build():\n    run(['make'])\n")
    callee = tree.body[0].body[0].value.func
    table = ImportTable()
    table.add_module_level(tree)
    assert table.qualified_name(callee) == table.qualified_name(callee) is None
    table.add(ast.parse("from subprocess import run").body[0])
    assert table.qualified_name(callee) == "subprocess.run"
    table.add(ast.parse("from asyncio.subprocess import create_subprocess_exec as run").body[0])
    assert table.qualified_name(callee) == "asyncio.subprocess.create_subprocess_exec"
