"""Each rule's cases, under `tests/rules/CODE/`: a case is one file, or a directory holding a
project of several files (a finding that needs facts from another module, another layout).
The markers of its files say what the rule finds (the grammar of `rule.markers`); a project is
linted whole, then each file with markers alone, as a pre-commit run names it. The case runs
its rule and every rule its markers name, and each of them must find exactly what is marked (a
case about one rule may mark another's findings and look-alikes too). A project directory may
hold a `cursedlint.toml` (target-python, page-size, rule options), read as `cursedlint check`
reads it. A file `NAME.fixed` beside `NAME` is what `check --fix` (safe fixes) makes of it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from msgspec.structs import replace

from cursedlint.cli import main
from cursedlint.config import build_settings, load_config
from cursedlint.registry import all_rules
from cursedlint.rule import markers
from cursedlint.settings import Settings

from harness import check_fixture, check_project, project_files

CASES = Path(__file__).parent / "rules"
FIXED = ".fixed"
CONFIG = "cursedlint.toml"


def _cases() -> list:
    """pytest params (code, case path), named CODE/case."""
    return [pytest.param(code.name, case, id=f"{code.name}/{case.name}")
            for code in sorted(CASES.iterdir()) if code.is_dir()
            for case in sorted(code.iterdir()) if not case.name.endswith(FIXED)]


def _fixed(case: Path) -> list[Path]:
    return sorted(case.rglob(f"*{FIXED}")) if case.is_dir() else \
        [case.with_name(case.name + FIXED)] if case.with_name(case.name + FIXED).exists() else []


def _marked(root: Path) -> list[str]:
    return [os.path.relpath(path, root) for path, _ in project_files(str(root))
            if markers(Path(path).read_text(encoding="utf-8"))]


def _rules(code: str, case: Path) -> dict[str, type]:
    """The case's rule and every rule a marker of its files names."""
    files = [case] if case.is_file() else [Path(path) for path, _ in project_files(str(case))]
    codes = {code} | {marker.code for path in files
                      for marker in markers(path.read_text(encoding="utf-8"))}
    return {name: all_rules()[name] for name in sorted(codes)}


def _settings(case: Path, rules: dict[str, type]) -> Settings | None:
    """The settings of the case's `cursedlint.toml`, with exactly `rules` enabled; None
    without one (the harness's defaults)."""
    if not (case / CONFIG).is_file():
        return None
    settings = build_settings(load_config(str(case / CONFIG), rules), rules)
    return replace(settings, enabled=frozenset(rules))


def test_every_case_belongs_to_a_rule():
    assert _cases() and {param.values[0] for param in _cases()} <= set(all_rules())


@pytest.mark.parametrize("code, case", _cases())
def test_a_rule_finds_what_its_case_marks(code, case):
    rules = _rules(code, case)
    if case.is_file():
        check_fixture(str(case), rules)
        return
    settings = _settings(case, rules)
    check_project(case, None, rules, settings=settings)  # the whole project
    for path in _marked(case):  # each marked file named alone
        check_project(case, None, rules, paths=[path], settings=settings)


@pytest.mark.parametrize("code, case", [param for param in _cases() if _fixed(param.values[1])])
def test_the_fix_of_a_case_gives_its_fixed_text(tmp_path, capsys, code, case):
    copy = tmp_path / case.name
    (shutil.copytree if case.is_dir() else shutil.copyfile)(case, copy)
    assert main(["check", "--no-cache", "--fix", "--select", code, str(copy)]) in (0, 1)
    capsys.readouterr()
    for expected in _fixed(case):
        written = copy / expected.relative_to(case).with_suffix("") if case.is_dir() else copy
        assert written.read_text() == expected.read_text(), written
