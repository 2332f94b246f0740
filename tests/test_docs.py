"""The README's rule table and docs/rules/ are generated from the registry and stay in sync."""

from __future__ import annotations

from pathlib import Path

from cursedlint import docs
from cursedlint.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent


def test_readme_and_rule_pages_match_the_registry():
    stale = docs.sync(str(ROOT), all_rules(), write=False)
    assert not stale, f"regenerate with `python -m cursedlint.docs`: {stale}"


def test_readme_commands_are_the_ones_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = next(line for line in ci.splitlines() if line.startswith("python3 -m venv"))
    assert f"```sh\n{test_command}\n```" in readme
    assert ("```sh\npython3 -m venv ~/.cursedlint && ~/.cursedlint/bin/pip install -q . && "
            "~/.cursedlint/bin/cursedlint check path/to/code\n```") in readme


def test_rule_page_holds_every_section_and_the_examples():
    rule = all_rules()["CUR101"]
    page = docs.markdown(rule)
    for heading in ("What it does", "Why it is cursed", "Example", "Fix", "References",
                    "Options", "Flagged", "Not flagged"):
        assert f"## {heading}" in page
    assert textwrap_first_line(rule.invalid[0]) in page


def textwrap_first_line(example) -> str:
    code = example if isinstance(example, str) else example.code
    return next(line.strip() for line in code.splitlines() if line.strip())


def test_examples_show_the_settings_they_run_under():
    """An example flagged only under a configuration says which, above its code."""
    page = docs.markdown(all_rules()["CUR101"])
    flagged = page.split("## Flagged")[1].split("## Not flagged")[0]
    assert flagged.startswith('\nWith `target-python = "3.12"` and '
                              '`[rules.CUR101] libc = "macos"`:\n\n```python')
    plain = docs.markdown(all_rules()["CUR402"]).split("## Flagged")[1]
    assert "\nWith " not in plain.split("```")[0]  # default settings: nothing said


def test_the_version_has_a_changelog_entry_and_the_readme_pins_its_tag():
    """pre-commit's `rev:` pins a tag: the version shipped is described and shown."""
    import cursedlint

    version = cursedlint.__version__
    assert f"\n## {version}\n" in (ROOT / "CHANGELOG.md").read_text()
    assert f"rev: v{version}" in (ROOT / "README.md").read_text()
