"""Rule documentation as users read it: `cursedlint rule CODE`, `cursedlint rules`, the README
table and SARIF help all come from the rule classes, so they cannot drift apart."""

from __future__ import annotations

import textwrap
from typing import Mapping

from cursedlint.rule import Rule

LANGUAGE_NAMES = {
    "python": "Python",
    "cython": "Cython",
    "c": "C",
    "cpp": "C++",
    "shell": "shell",
    "dockerfile": "Dockerfile",
    "yaml": "YAML",
}
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
                _settings_line(rule, example) +
                f"```{_fence_language(rule.example_language(example))}\n"
                f"{textwrap.dedent(example.code).strip()}\n```"
                for example in examples
            ]
            parts.append(f"## {title}\n" + "\n\n".join(blocks))
    return "\n\n".join(parts) + "\n"


def _settings_line(rule: type[Rule], example) -> str:
    """What an example runs under when not the defaults (the configuration it needs), as the
    line before its code: `With target-python = "3.8" and [rules.CUR101] libc = "macos":`."""
    if not example.settings:
        return ""
    parts = [f"{key} = {_toml(value)}" for key, value in example.settings.items()
             if key != "options"]
    parts += [f"[rules.{rule.code}] {name} = {_toml(value)}"
              for name, value in example.settings.get("options", {}).items()]
    return "With " + " and ".join(f"`{part}`" for part in parts) + ":\n\n"


def _toml(value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(_toml, value)) + "]"
    return str(value)


def _fence_language(language: str) -> str:
    return {"shell": "sh"}.get(language, language)


def rules_table(rules: Mapping[str, type[Rule]]) -> str:
    """The Markdown table of every rule that the README carries, each with the severity its
    findings have (the linter's notices too: a syntax error is an error)."""
    rows = ["| Code | Name | Languages | Severity | What it finds |", "|---|---|---|---|---|"]
    for code, rule in rules.items():
        rows.append(
            f"| [{code}](docs/rules/{code}.md) | `{rule.name}` | {languages_text(rule)} | "
            f"{rule.severity.value} | {rule.summary} |"
        )
    return "\n".join(rows) + "\n"


def rules_listing(rules: Mapping[str, type[Rule]]) -> str:
    """One line per rule for the terminal."""
    width = max((len(rule.name) for rule in rules.values()), default=0)
    language_width = max((len(languages_text(rule)) for rule in rules.values()), default=0)
    return "".join(
        f"{code}  {rule.name:<{width}}  {languages_text(rule):<{language_width}}  {rule.summary}\n"
        for code, rule in rules.items()
    )


def sync(root: str, rules: Mapping[str, type[Rule]], write: bool) -> list[str]:
    """Compare (or, with `write`, update) the README's rule table and `docs/rules/CODE.md`
    with what the registry says. Returns the paths that differ(ed)."""
    import os

    expected = {
        os.path.join(root, "docs", "rules", f"{code}.md"): markdown(rule)
        for code, rule in rules.items()
    }
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as handle:
        current = handle.read()
    before, _, rest = current.partition(TABLE_START)
    _, _, after = rest.partition(TABLE_END)
    expected[readme] = f"{before}{TABLE_START}\n{rules_table(rules)}{TABLE_END}{after}"
    stale = []
    for path, text in expected.items():
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except FileNotFoundError:
            pass
        stale.append(path)
        if write:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
    return stale


if __name__ == "__main__":  # python -m cursedlint.docs [--check]: regenerate the rule docs
    import sys

    from cursedlint.registry import all_rules

    stale = sync(".", all_rules(), write="--check" not in sys.argv)
    for path in stale:
        print(f"{'stale' if '--check' in sys.argv else 'updated'}: {path}")
    raise SystemExit(1 if stale and "--check" in sys.argv else 0)
