"""The one way tests run the linter and check what it finds.

`lint(code, rules, ...)` lints a snippet through the whole engine (prefilter included) and
returns its findings; `lint_project(root, files, rules, ...)` writes a project under `root`
and lints it as `cursedlint check` does, facts from other files included. `rules` is a rule
class, a code, or several of either; `options` are rule options (each chosen rule that has
them all gets them), `settings` a configuration table's other keys ("target-python",
"page-size"; or `target_python=`, `page_size=`), validated as a configuration file's would
be. A test module fixes its own defaults with `functools.partial(lint, rules=..., path=...)`.

`check_markers(text, findings, ran)` compares findings with the marker comments of `text`,
the grammar rule docs' examples use too (`cursedlint.rule.markers`):

    pool = Pool()                  # error: CUR102
    ibv_reg_mr(pd, buf, 16, 0);    // warning: CUR301@21 "16 bytes", CUR302
    with torch.cuda.graph(g):      # error: CUR401@10 'global mode'; ok: CUR403

A marker announces a finding of its code and severity starting on its line, at `@column`
(1-based) and with the quoted fragment in its message where given; every finding must be
announced. `ok: CODE` says the line, a look-alike, has no such finding; it fails when CODE did
not run on the file (`ran`), so it never passes for want of a check. `check_fixture`,
`check_snippet` and `check_project` lint and check in one call.
"""

from __future__ import annotations

import os
import textwrap
from typing import Iterable, Mapping, Union

from msgspec.structs import replace

from cursedlint.config import build_settings, config_from_mapping, load_config
from cursedlint.project.discovery import discover
from cursedlint.engine import FileResult, Linter, Project
from cursedlint.findings import Finding
from cursedlint.languages import language_of
from cursedlint.registry import all_rules
from cursedlint.rule import Example, Marker, Rule, markers
from cursedlint.settings import Settings

RuleChoice = Union[str, type[Rule], Iterable[Union[str, type[Rule]]], Mapping[str, type[Rule]]]

FILE_NAMES = {
    "python": "example.py",
    "cython": "example.pyx",
    "c": "example.c",
    "cpp": "example.cpp",
    "shell": "example.sh",
    "dockerfile": "Dockerfile",
    "yaml": "example.yaml",
}
NOTICES = ("CUR000", "CUR001", "CUR002")
"""The notices a rule's examples run with (a syntax error, an internal error, ...)."""


# -- linting -------------------------------------------------------------------------------------
def rule_map(rules: RuleChoice) -> dict[str, type[Rule]]:
    """Code -> class of the chosen rules (codes are looked up in the registry)."""
    if isinstance(rules, Mapping):
        return dict(rules)
    if isinstance(rules, (str, type)):
        rules = [rules]
    chosen = {}
    for rule in rules:
        rule = all_rules()[rule] if isinstance(rule, str) else rule
        chosen[rule.code] = rule
    return chosen


def make_settings(rules: RuleChoice, options: Mapping | None = None,
                  settings: Mapping | None = None, root: str | None = None) -> Settings:
    """Settings enabling exactly `rules`, from a configuration table built of `settings` and
    `options` (given to each rule that declares every one of them), validated as a
    configuration file's would be."""
    chosen = rule_map(rules)
    options = dict(options or {})
    table = dict(settings or {})
    table["rules"] = {code: options for code, rule in chosen.items()
                      if options and all(name in rule.options for name in options)}
    if options and not table["rules"]:
        raise ValueError(f"no rule of {sorted(chosen)} has the options {sorted(options)}")
    config = config_from_mapping(table, chosen, path="<test settings>", root=root)
    return replace(build_settings(config, chosen), enabled=frozenset(chosen))


def make_linter(rules: RuleChoice, options: Mapping | None = None,
                settings: Mapping | Settings | None = None, root: str | None = None, *,
                page_size: int | None = None, target_python: str | None = None,
                **linter_options) -> Linter:
    """A Linter of `rules` (a prepared Settings is used as it is); `page_size` and
    `target_python` ("3.8") join the `settings` table; `linter_options` go to Linter
    (warn_unused_suppressions, fix, ...)."""
    if not isinstance(settings, Settings):
        table = dict(settings or {})
        if page_size is not None:
            table["page-size"] = page_size
        if target_python is not None:
            table["target-python"] = target_python
        settings = make_settings(rules, options, table, root)
    return Linter(settings, rule_map(rules), **linter_options)


def lint_result(code: str | bytes, rules: RuleChoice, **kwargs) -> FileResult:
    """The FileResult of one snippet (`snippet_linter`'s arguments)."""
    linter, path, language, data = snippet_linter(code, rules, **kwargs)
    return linter.lint_bytes(path, data, language)


def lint(code: str | bytes, rules: RuleChoice, **kwargs) -> list[Finding]:
    """The findings of one snippet (`snippet_linter`'s arguments)."""
    return lint_result(code, rules, **kwargs).findings


def snippet_linter(code: str | bytes, rules: RuleChoice, *, path: str | None = None,
                   language: str | None = None, options: Mapping | None = None,
                   settings: Mapping | Settings | None = None, dedent: bool = True,
                   **linter_options) -> tuple[Linter, str, str, bytes]:
    """The Linter (`make_linter`), file name, language and bytes for linting a snippet: its
    text dedented unless `dedent` is false, bytes as given; the name and the language each
    from the other where one is missing (default: Python)."""
    if path is None:
        language = language or "python"
        path = FILE_NAMES[language]
    language = language or language_of(path) or "python"
    if isinstance(code, str):
        code = (textwrap.dedent(code) if dedent else code).encode()
    return make_linter(rules, options, settings, **linter_options), path, language, code


def write_project(root, files: Mapping[str, str]) -> None:
    """Write each relative path's (dedented) text under `root`."""
    for name, text in files.items():
        target = os.path.join(str(root), name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))


def lint_project(root, files: Mapping[str, str] | None, rules: RuleChoice, **kwargs
                 ) -> list[Finding]:
    """Write `files` under `root` (None: they are there already) and lint `paths` (relative
    to `root`; default all of it) as `cursedlint check` does: the project's files give the
    facts a linted file needs. Findings' paths, and their chains', are relative to `root`."""
    return run_project(root, files, rules, **kwargs)[1]


def run_project(root, files: Mapping[str, str] | None, rules: RuleChoice, *,
                paths: Iterable[str] | None = None, options: Mapping | None = None,
                settings: Mapping | None = None, **linter_options
                ) -> tuple[Linter, list[Finding]]:
    """`lint_project`, with the Linter that ran (it holds the facts gathered)."""
    root = os.path.abspath(root)
    if files:
        write_project(root, files)
    every = project_files(root)
    linted = every if paths is None else [
        (os.path.join(root, path), language_of(path)) for path in paths]
    linter = make_linter(rules, options, settings, root=root, **linter_options)
    results = linter.run(linted, 1, Project(lambda: every, linted_all=paths is None))
    findings = sorted((relative(finding, root) for result in results
                       for finding in result.findings), key=lambda finding: finding.sort_key)
    return linter, findings


def relative(finding: Finding, root: str) -> Finding:
    """The finding with its path and its chain's paths relative to `root`."""
    related = tuple(replace(step, path=os.path.relpath(step.path, root))
                    for step in finding.related)
    return replace(finding, path=os.path.relpath(finding.path, root), related=related)


def project_files(root: str) -> list[tuple[str, str]]:
    """(path, language) of the files `cursedlint check` finds under `root`."""
    return discover([root], load_config(None, all_rules())).files


def rules_run_on(linter: Linter, path: str, data: bytes, language: str) -> set[str]:
    """The codes of the rules the engine runs on this file (those its prefilter lets through)."""
    enabled = linter.settings.enabled_for(path)
    return {rule.code for rule in linter.prefilter_for(language, enabled).triggered(data)}


# -- markers -------------------------------------------------------------------------------------
def check_markers(text: str, findings: list[Finding], ran: Iterable[str],
                  where: str = "") -> None:
    """Fail, listing what was expected and what was found, unless `findings` are exactly the
    ones `text`'s markers announce and none its `ok:` markers rule out (each of whose codes
    must be in `ran`)."""
    all_markers = markers(text)
    announced = [marker for marker in all_markers if marker.severity is not None]
    unmatched, unexpected = match(announced, findings)
    problems = [f"expected, not found: {show_marker(marker)}" for marker in unmatched]
    problems += [f"found, not expected: {show_finding(finding)}" for finding in unexpected]
    ran = set(ran)
    for marker in all_markers:
        if marker.severity is not None:
            continue
        if marker.code not in ran:
            problems.append(f"ok marker for a rule that did not run: {show_marker(marker)}")
        for finding in findings:
            if marker.describes(finding):
                problems.append(f"found on an ok line: {show_finding(finding)}")
    if problems:
        listing = "\n".join(problems)
        everything = "\n".join(show_finding(finding) for finding in findings) or "(none)"
        raise AssertionError(f"markers of {where or 'the text'} do not match:\n{listing}\n"
                             f"all findings:\n{everything}")


def match(announced: list[Marker], findings: list[Finding]) -> tuple[list[Marker], list[Finding]]:
    """Pair each marker with a finding it describes, the most specific markers first; the
    markers and findings left unpaired."""
    left = list(findings)
    unmatched = []
    specific_first = sorted(announced, key=lambda m: (m.column is None, m.fragment is None))
    for marker in specific_first:
        for finding in left:
            if marker.describes(finding) and finding.severity == marker.severity:
                left.remove(finding)
                break
        else:
            unmatched.append(marker)
    return sorted(unmatched, key=lambda m: (m.line, m.code)), left


def show_marker(marker: Marker) -> str:
    kind = marker.severity.value if marker.severity else "ok"
    column = f"@{marker.column}" if marker.column else ""
    fragment = f" {marker.fragment!r}" if marker.fragment is not None else ""
    return f"line {marker.line}: {kind}: {marker.code}{column}{fragment}"


def show_finding(finding: Finding) -> str:
    return (f"{finding.path}:{finding.line}:{finding.column}: {finding.severity.value}: "
            f"{finding.code} {finding.message}")


def check_snippet(code: str, rules: RuleChoice, *, require_markers: bool = True,
                  **kwargs) -> list[Finding]:
    """Lint a snippet (`snippet_linter`'s arguments) and check its markers; its findings."""
    linter, path, language, data = snippet_linter(code, rules, **kwargs)
    text = data.decode()
    if require_markers:
        assert markers(text), f"{path} marks the findings it expects (or its look-alikes)"
    findings = linter.lint_bytes(path, data, language).findings
    check_markers(text, findings, rules_run_on(linter, path, data, language), path)
    return findings


def check_fixture(path: str, rules: RuleChoice, *, project: str | None = None,
                  **kwargs) -> list[Finding]:
    """Lint a fixture file under its own name and check its markers; its findings. With
    `project`, the file is linted as part of that directory (`check_project`)."""
    if project is not None:
        return check_project(project, None, rules, paths=[os.path.relpath(path, project)],
                             **kwargs)
    with open(path, encoding="utf-8") as handle:
        return check_snippet(handle.read(), rules, path=path, **kwargs)


def check_project(root, files: Mapping[str, str] | None, rules: RuleChoice, *,
                  paths: Iterable[str] | None = None, **kwargs) -> list[Finding]:
    """Lint a project (`lint_project`) and check the markers of every linted file; its
    findings."""
    root = os.path.abspath(root)
    linter, findings = run_project(root, files, rules, paths=paths, **kwargs)
    linted = list(paths) if paths is not None else [
        os.path.relpath(path, root) for path, _ in project_files(root)]
    texts = {path: read(root, path) for path in linted}
    assert any(map(markers, texts.values())), "the project marks what it expects"
    for path, text in texts.items():
        ran = rules_run_on(linter, os.path.join(root, path), text.encode(), language_of(path))
        check_markers(text, [f for f in findings if f.path == path], ran, path)
    return findings


def read(root: str, path: str) -> str:
    with open(os.path.join(root, path), encoding="utf-8") as handle:
        return handle.read()


# -- rule docs' examples -------------------------------------------------------------------------
def example_settings(rule: type[Rule], example: Example) -> Settings:
    """The example's settings (and the notices), validated as a configuration file's would be."""
    table = {key: value for key, value in example.settings.items() if key != "options"}
    settings = make_settings(rule, example.settings.get("options"), table)
    return replace(settings, enabled=settings.enabled | frozenset(NOTICES))


def run_example(rule: type[Rule], example: Example) -> list[Finding]:
    """Lint the example through the whole engine (prefilter included) with only `rule` on."""
    return lint(example.code, {rule.code: rule}, language=rule.example_language(example),
                settings=example_settings(rule, example))


def check_example(rule: type[Rule], example: Example) -> list[Finding]:
    """Lint the example with every rule on, as a user who copies it would, and check its
    markers (another rule's finding there is marked too); its findings."""
    settings = replace(example_settings(rule, example), enabled=frozenset(all_rules()))
    return check_snippet(example.code, dict(all_rules()), language=rule.example_language(example),
                         settings=settings, require_markers=False)
