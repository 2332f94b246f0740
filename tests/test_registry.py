"""The registry's table of rule modules (`RULE_MODULES`) against the rules themselves, and a
run importing only the rule modules of its files' languages."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import cursedlint.rules as package
from cursedlint import notices
from cursedlint.languages import LANGUAGES, PYTHON
from cursedlint.registry import RULE_MODULES, RegistryError, Rules, all_rules, collect, find_rule


def test_the_table_names_every_rule_module_with_its_rules_and_languages():
    modules = [info.name for info in pkgutil.iter_modules(package.__path__)]
    assert sorted(modules) == sorted(RULE_MODULES)
    everything = collect([notices] + [importlib.import_module(f"{package.__name__}.{name}")
                                      for name in modules])  # (names unique across modules)
    assert dict(all_rules()) == everything
    assert all_rules().names == {code: rule.name for code, rule in everything.items()}
    for name, entry in RULE_MODULES.items():
        rules = collect([importlib.import_module(f"{package.__name__}.{name}")])
        assert {code: rule.name for code, rule in rules.items()} == entry.names
        assert entry.languages == frozenset().union(*(rule.languages for rule in rules.values()))


def test_a_module_whose_rules_differ_from_the_table_is_refused(monkeypatch):
    import cursedlint.registry as registry

    changed = {**RULE_MODULES, "cloners": RULE_MODULES["cloners"]._replace(
        names={"CUR501": "pointer-copied-around-cloner"})}
    monkeypatch.setattr(registry, "RULE_MODULES", changed)
    with pytest.raises(RegistryError):
        Rules()["CUR501"]


def test_the_rules_of_some_languages_are_those_that_check_them():
    rules = Rules()
    python = rules.checking([PYTHON])
    assert set(python) == {code for code, rule in all_rules().items()
                           if rule.__module__ == "cursedlint.notices"
                           or rule.__module__.split(".")[2] in (
                               "graph_capture", "native_callbacks", "process_spawning")}
    assert "CUR601" not in python and "CUR301" not in python and "CUR101" in python
    assert "CUR601" in rules and len(rules) == len(rules.names)  # (every code known)
    assert rules.checking(LANGUAGES) == dict(all_rules())
    assert find_rule("cma-failure-aborts", rules).code == "CUR601"


def test_a_run_over_a_python_file_imports_no_c_only_rule_module(tmp_path):
    (tmp_path / "cursedlint.toml").write_text('[rules.CUR301]\n')
    (tmp_path / "train.py").write_text(
        "import multiprocessing as mp\nimport torch\n\n\ndef main():\n    torch.zeros(1).cuda()\n"
        "    mp.Process(target=print).start()  # noqa: CUR601\n")
    probe = ("import sys\nfrom cursedlint.cli import main\ncode = main(['check', '--exit-zero', "
             "'--ignore', 'CUR5', 'train.py'])\nprint(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split())
    assert "cursedlint.rules.process_spawning" in imported
    assert {"cursedlint.rules.cloners", "cursedlint.rules.cross_process_memory"} & imported \
        == set()
