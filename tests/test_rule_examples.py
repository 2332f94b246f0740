"""Every shipped rule is documented and its own examples are its tests: each invalid example
produces exactly the findings its `# error: CODE` markers announce, each valid example none."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.registry import all_rules
from cursedlint.rule import DOC_SECTIONS, Notice, trigger_alternatives, triggered_by

from harness import check_example, example_settings

RULES = [rule for rule in all_rules().values() if not issubclass(rule, Notice)]
CASES = [
    pytest.param(rule, kind, index, example, id=f"{rule.code}-{kind}-{index}")
    for rule in RULES
    for kind in ("valid", "invalid")
    for index, example in enumerate(rule.examples(kind))
]


@pytest.mark.parametrize("rule", all_rules().values(), ids=lambda rule: rule.code)
def test_rule_is_documented(rule):
    sections = rule.doc_sections()
    assert list(sections) == list(DOC_SECTIONS), f"{rule.code} needs exactly {DOC_SECTIONS}"
    assert all(sections.values()), f"{rule.code} has an empty section"
    assert rule.summary and not rule.summary.endswith(".")
    if not issubclass(rule, Notice):
        assert rule.examples("valid") and rule.examples("invalid"), "needs both kinds of example"


@pytest.mark.parametrize("rule, kind, index, example", CASES)
def test_example(rule, kind, index, example):
    announced = [marker for marker in example.expected() if marker.severity is not None]
    if kind == "invalid":
        assert announced, "an invalid example must mark its findings with `# error: CODE`"
    else:
        assert not announced, "a valid example must not carry finding markers"
    check_example(rule, example)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_triggers_cover_invalid_examples(rule):
    """A trigger word list (or a second look) that missed an invalid example would hide real
    findings. Each example is judged under its own settings."""
    for example in rule.examples("invalid"):
        settings = example_settings(rule, example)
        options = rule.resolved_options(settings.rule_options.get(rule.code))
        alternatives = trigger_alternatives(rule.triggers_for(options))
        words = set().union(*alternatives)
        assert triggered_by(alternatives, {word for word in words if word in example.code})
        code = textwrap.dedent(example.code)
        language = rule.example_language(example)
        assert rule.may_fire(code.encode(), options, settings.target_python, language)
