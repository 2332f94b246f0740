"""Running a rule over one of its own examples, as the docs show it (shared by tests)."""

from __future__ import annotations

import textwrap
from typing import Callable

from msgspec.structs import replace

from cursedlint.engine import Linter
from cursedlint.findings import Finding
from cursedlint.rule import Example, Rule
from cursedlint.config import build_settings, config_from_mapping
from cursedlint.settings import Settings

FILE_NAMES = {
    "python": "example.py",
    "c": "example.c",
    "cpp": "example.cpp",
    "shell": "example.sh",
    "dockerfile": "Dockerfile",
    "yaml": "example.yaml",
}


def example_settings(rule: type[Rule], example: Example) -> Settings:
    """The example's settings, validated as a configuration file's would be."""
    table = {key: value for key, value in example.settings.items() if key != "options"}
    table["rules"] = {rule.code: example.settings.get("options", {})}
    rules = {rule.code: rule}
    config = config_from_mapping(table, rules, path=f"<{rule.code} example>")
    enabled = frozenset({rule.code, "CUR000", "CUR001", "CUR002"})
    return replace(build_settings(config, rules), enabled=enabled)


def run_example(rule: type[Rule], example: Example) -> list[Finding]:
    """Lint the example through the whole engine (prefilter included) with only `rule` on."""
    language = rule.example_language(example)
    code = textwrap.dedent(example.code)
    linter = Linter(example_settings(rule, example), {rule.code: rule})
    return linter.lint_bytes(FILE_NAMES[language], code.encode(), language).findings


def check_fixture(path: str, lint: Callable[[str], list[Finding]]) -> None:
    """An annotated fixture file produces exactly the findings its markers announce."""
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    expected = Example(code).expected()
    assert expected, "every fixture marks the findings it expects"
    assert sorted((f.line, f.code, f.severity) for f in lint(code)) == sorted(expected)
