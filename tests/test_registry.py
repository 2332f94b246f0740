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
from cursedlint.registry import (
    RULE_MODULES, RegistryError, Rules, all_rules, collect, fact_readers, find_rule, module_entry,
)


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
        assert entry.facts == {code: tuple(indexer.name for indexer in rule.indexers())
                               for code, rule in rules.items() if rule.indexers()}
        assert module_entry(rules) == entry


def test_a_module_whose_rules_differ_from_the_table_is_refused(monkeypatch):
    import cursedlint.registry as registry

    changed = {**RULE_MODULES, "cloners": RULE_MODULES["cloners"]._replace(
        names={"CUR501": "pointer-copied-around-cloner"})}
    monkeypatch.setattr(registry, "RULE_MODULES", changed)
    with pytest.raises(RegistryError):
        Rules()["CUR501"]


def test_a_module_whose_rules_read_other_facts_than_the_table_says_is_refused(monkeypatch):
    import cursedlint.registry as registry

    entry = RULE_MODULES["native_callbacks"]
    changed = {**RULE_MODULES, "native_callbacks": entry._replace(
        facts={**entry.facts, "CUR202": ("callback-helpers",)})}
    monkeypatch.setattr(registry, "RULE_MODULES", changed)
    with pytest.raises(RegistryError):
        Rules()["CUR202"]


def test_the_readers_of_facts_are_told_without_importing_a_rule_module():
    """`fact_readers` answers from the table, for the languages asked, what the rules say
    of themselves once imported (`Rule.indexers`); for rules made for a test, None."""
    code = ("import sys\nfrom cursedlint.registry import all_rules, fact_readers\n"
            "readers = fact_readers(all_rules(), ['python'])\n"
            "print(sorted(readers), [n for n in sys.modules if n.startswith('cursedlint.rules.')])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("] [")[1].strip() == "]"  # no rule module imported
    python = fact_readers(all_rules(), [PYTHON])
    assert python == {code: tuple(indexer.name for indexer in rule.indexers())
                      for code, rule in all_rules().checking([PYTHON]).items()
                      if rule.indexers()}
    assert "CUR601" not in python and python["CUR102"] == ("start-methods", "cuda-reach")
    assert fact_readers(dict(all_rules()), [PYTHON]) is None


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


def test_a_cached_run_imports_only_the_rule_modules_of_the_facts_its_results_ask_for(tmp_path):
    """A warm run over a whole project takes every result from the cache; the facts pass
    then needs only the rules that read the facts those results asked for (a capture around
    another module's function asks for `cuda-reach`: the capture rules and CUR102 read it),
    told by the registry's table: no C-only rule module for a C file whose result is cached,
    and no rule module at all where no result asks for facts."""
    (tmp_path / "cursedlint.toml").write_text("")
    (tmp_path / "helpers.py").write_text("def step(model, batch):\n    return model(batch)\n")
    (tmp_path / "train.py").write_text(
        "import torch\n\nfrom helpers import step\n\n\ndef capture(model, batch):\n"
        "    graph = torch.cuda.CUDAGraph()\n    with torch.cuda.graph(graph):\n"
        "        step(model, batch)\n    return graph\n")
    (tmp_path / "sums.c").write_text(
        "int total(const int *values, int count) {\n    int sum = 0;\n"
        "    for (int i = 0; i < count; i++)\n        sum += values[i];\n    return sum;\n}\n")
    probe = ("import sys\nfrom cursedlint.cli import main\ncode = main(['check', '.'])\n"
             "print(code, *sorted(name for name in sys.modules\n"
             "                    if name.startswith('cursedlint.rules.') and name.count('.') == 2))")

    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, check=True)
        return done.stdout.splitlines()[-1].split()

    cold = run()
    assert cold[0] == "0" and {"cursedlint.rules.cross_process_memory",
                               "cursedlint.rules.rdma_registration"} <= set(cold)
    assert run() == ["0", "cursedlint.rules.graph_capture", "cursedlint.rules.process_spawning"]
    (tmp_path / "train.py").unlink()
    run()  # (the cache holds the other files' results)
    assert run() == ["0"]
