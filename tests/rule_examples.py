"""Running a rule over one of its own examples, as the docs show it (shared by tests)."""

from __future__ import annotations

import textwrap

from cursedlint.engine import Linter
from cursedlint.findings import Finding
from cursedlint.rule import Example, Rule
from cursedlint.settings import DEFAULT_PAGE_SIZE, Settings

EXTENSIONS = {"python": ".py", "c": ".c", "cpp": ".cpp"}


def example_settings(rule: type[Rule], example: Example) -> Settings:
    overrides = example.settings
    target = overrides.get("target-python")
    return Settings(
        enabled=frozenset({rule.code, "CUR000", "CUR001", "CUR002"}),
        target_python=tuple(map(int, target.split("."))) if target else Settings.target_python,
        page_size=overrides.get("page-size", DEFAULT_PAGE_SIZE),
        rule_options={rule.code: overrides.get("options", {})},
    )


def run_example(rule: type[Rule], example: Example) -> list[Finding]:
    """Lint the example through the whole engine (prefilter included) with only `rule` on."""
    language = rule.example_language(example)
    code = textwrap.dedent(example.code)
    linter = Linter(example_settings(rule, example), {rule.code: rule})
    return linter.lint_bytes(f"example{EXTENSIONS[language]}", code.encode(), language).findings
