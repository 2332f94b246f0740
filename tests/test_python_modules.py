"""Module naming and import resolution (`cursedlint.analysis.python_modules`)."""

from __future__ import annotations

import ast

import pytest

from cursedlint.analysis.python_modules import (
    Imported, ModuleTable, is_package, module_name, resolve, script_name, written_imports,
)


@pytest.fixture
def tree(tmp_path):
    """A `src/` layout: src/app/{__init__,env}.py, src/app/io/{__init__,files}.py, and a script
    beside the package."""
    for path in ("src/app/__init__.py", "src/app/env.py", "src/app/io/__init__.py",
                 "src/app/io/files.py", "src/run.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    return tmp_path


def test_module_names_follow_the_packages_above_the_file(tree):
    assert module_name(str(tree / "src/app/env.py")) == "app.env"
    assert module_name(str(tree / "src/app/io/files.py")) == "app.io.files"
    assert module_name(str(tree / "src/app/__init__.py")) == "app"
    assert module_name(str(tree / "src/app/io/__init__.py")) == "app.io"
    assert module_name(str(tree / "src/run.py")) == "run"
    assert is_package(str(tree / "src/app/io/__init__.py"))
    assert not is_package(str(tree / "src/app/io/files.py"))


def test_a_directory_without_init_inside_a_package_is_a_namespace_package(tree):
    """`app/engine/` holds no `__init__.py`: Python imports `app.engine.runner`; a script's
    siblings import it as `runner` from its own directory. The table knows both names."""
    (tree / "src/app/engine").mkdir()
    runner = tree / "src/app/engine/runner.py"
    runner.write_text("class Runner: pass\n")
    assert module_name(str(runner)) == "app.engine.runner"
    assert script_name(str(runner)) == "runner"
    assert script_name(str(tree / "src/app/env.py")) == "app.env"
    table = ModuleTable([str(runner), str(tree / "src/app/env.py")])
    assert table.split("app.engine.runner.Runner") == (str(runner), ["Runner"])
    assert table.split("runner.Runner") == (str(runner), ["Runner"])


def written(text: str) -> dict[str, str]:
    return written_imports(ast.parse(text), text)


def test_imports_as_written():
    assert written(
        "import os.path\nimport app.env as env\nfrom app import IS_MAC as MAC\n"
        "from ..env import IS_WINDOWS\nfrom . import io\nfrom .io import *\n"
    ) == {"os": "os", "env": "app.env", "MAC": "app:IS_MAC",
          "IS_WINDOWS": "..env:IS_WINDOWS", "io": ".:io"}


@pytest.mark.parametrize("text", [
    "from app.env import IS_MAC\nIS_MAC = False\n",  # bound again
    "from app.env import IS_MAC\nfrom app.compat import IS_MAC\n",  # imported twice
    "from app.env import IS_MAC\n\ndef force():\n    global IS_MAC\n    IS_MAC = True\n",
    "from app.env import IS_MAC\n\ndef force():\n    global DEBUG, IS_MAC; IS_MAC = True\n",
    "from app.env import IS_MAC\n\ndef force(): x = 1; global IS_MAC\n",
    "try:\n    from app.env import IS_MAC\nexcept ImportError:\n    IS_MAC = False\n",
])
def test_a_name_bound_more_than_once_is_no_single_import(text):
    assert "IS_MAC" not in written(text)


@pytest.mark.parametrize("source, importer, package, expected", [
    ("app.env", "tool", False, Imported("app.env")),
    ("app:IS_MAC", "tool", False, Imported("app", "IS_MAC")),
    (".env:IS_MAC", "app.launcher", False, Imported("app.env", "IS_MAC")),
    (".:env", "app.launcher", False, Imported("app", "env")),
    ("..env:IS_MAC", "app.io.files", False, Imported("app.env", "IS_MAC")),
    # a package's __init__ is its own package
    (".env:IS_MAC", "app", True, Imported("app.env", "IS_MAC")),
    ("..env:IS_MAC", "app.io", True, Imported("app.env", "IS_MAC")),
    # above the top package, or relative in a module of no package
    ("..env:IS_MAC", "app", True, None),
    ("...:x", "app.io.files", False, None),
    (".env:IS_MAC", "run", False, None),
])
def test_resolve(source, importer, package, expected):
    assert resolve(source, importer, package) == expected


def test_definitions_follow_re_exports_and_drop_ambiguous_modules(tree):
    (tree / "tools").mkdir()
    (tree / "tools/run.py").write_text("")
    paths = [str(tree / path) for path in
             ("src/app/__init__.py", "src/app/env.py", "src/app/io/files.py",
              "src/run.py", "tools/run.py")]
    imports = {paths[0]: {"IS_MAC": ".env:IS_MAC", "MAC": "app:IS_MAC", "LOOP": "app:LOOP"}}
    table = ModuleTable(paths)
    assert "run" not in table.paths  # two files claim it
    definition = lambda dotted: table.definition(dotted, lambda path: imports.get(path, {}))
    assert definition("app.env.IS_MAC") == (paths[1], "IS_MAC")
    assert definition("app.IS_MAC") == (paths[1], "IS_MAC")
    assert definition("app.MAC") == (paths[1], "IS_MAC")  # two re-exports
    assert definition("app.LOOP") is None  # re-exports itself, forever
    assert definition("app.env.os.name") is None  # an attribute of a name
    assert definition("run.IS_MAC") is None
    assert definition("numpy.IS_MAC") is None
