"""Rule documentation as users read it: `cursedlint rule CODE`, `cursedlint rules`, the README
table and SARIF help all come from the rule classes, so they cannot drift apart."""

from __future__ import annotations

import textwrap
from typing import Mapping

from cursedlint.rule import Notice, Rule

LANGUAGE_NAMES = {"python": "Python", "c": "C", "cpp": "C++"}
TABLE_START = "<!-- rules-table:start -->"
TABLE_END = "<!-- rules-table:end -->"


def languages_text(rule: type[Rule]) -> str:
    return ", ".join(LANGUAGE_NAMES.get(language, language) for language in rule.languages)


def markdown(rule: type[Rule]) -> str:
    """The rule's full documentation: sections, options and examples, as Markdown."""
    parts = [
        f"# {rule.code} `{rule.name}`",
        f"{rule.summary}. Severity: {rule.severity.value}. Languages: {languages_text(rule)}.",
    ]
    for heading, body in rule.doc_sections().items():
        parts.append(f"## {heading}\n{body}")
    if rule.options:
        lines = [f"## Options (`[tool.cursedlint.rules.{rule.code}]`)"]
        for option_name, option in rule.options.items():
            choices = f" One of: {', '.join(map(repr, option.choices))}." if option.choices else ""
            lines.append(f"- `{option_name}` (default `{option.default!r}`): {option.help}{choices}")
        parts.append("\n".join(lines))
    for kind, title in (("invalid", "Flagged"), ("valid", "Not flagged")):
        examples = rule.examples(kind)
        if examples:
            blocks = [
                f"```{_fence_language(rule.example_language(example))}\n"
                f"{textwrap.dedent(example.code).strip()}\n```"
                for example in examples
            ]
            parts.append(f"## {title}\n" + "\n\n".join(blocks))
    return "\n\n".join(parts) + "\n"


def _fence_language(language: str) -> str:
    return {"cpp": "cpp", "c": "c"}.get(language, language)


def rules_table(rules: Mapping[str, type[Rule]]) -> str:
    """The Markdown table of every rule that the README carries."""
    rows = ["| Code | Name | Languages | Severity | What it finds |", "|---|---|---|---|---|"]
    for code, rule in rules.items():
        kind = "notice" if issubclass(rule, Notice) else rule.severity.value
        rows.append(
            f"| {code} | `{rule.name}` | {languages_text(rule)} | {kind} | {rule.summary} |"
        )
    return "\n".join(rows) + "\n"


def rules_listing(rules: Mapping[str, type[Rule]]) -> str:
    """One line per rule for the terminal."""
    width = max((len(rule.name) for rule in rules.values()), default=0)
    return "".join(
        f"{code}  {rule.name:<{width}}  {languages_text(rule):<16}  {rule.summary}\n"
        for code, rule in rules.items()
    )
