"""The README's rule table and docs/rules/ are generated from the registry and stay in sync."""

from __future__ import annotations

import re
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
    main = ("python3 -m venv ~/.cursedlint && ~/.cursedlint/bin/pip install -q . && "
            "~/.cursedlint/bin/cursedlint check ")
    (path,) = re.findall(f"```sh\n{re.escape(main)}(\\S+)\n```", readme)
    assert (ROOT / path).is_dir(), "the main command lints a path a fresh clone has"


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


def test_the_version_has_a_changelog_entry_and_the_readme_pins_the_last_release():
    """A release (`X.Y.Z`) has a dated changelog entry; between releases the tree says
    `X.Y.Z.devN` and the next version's entry is "unreleased", so no tree after a release
    claims its number. pre-commit's `rev:` in the README pins the newest released tag."""
    import re

    import cursedlint

    release, dev = re.fullmatch(r"(\d+\.\d+\.\d+)(\.dev\d+)?", cursedlint.__version__).groups()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\d+\.\d+\.\d+) \(([^)]*)\)$", changelog, re.MULTILINE)
    assert headings[0][0] == release
    assert (headings[0][1] == "unreleased") == bool(dev)
    dated = [version for version, when in headings if re.fullmatch(r"\d{4}-\d\d-\d\d", when)]
    assert len(dated) == len(headings) - bool(dev), "every entry but the next one is dated"
    assert f"rev: v{dated[0]}" in (ROOT / "README.md").read_text()
