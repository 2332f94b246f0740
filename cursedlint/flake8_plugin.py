"""The flake8 plugin: cursedlint's Python rules inside `flake8 --select CUR`.

flake8 hands over the `ast` tree it has already parsed, so a file costs one substring prefilter
and, only when a trigger word occurs, one walk of that tree. flake8 does selection and noqa; the
file's cursedlint configuration still supplies `target-python`, `page-size` and rule options.
"""

from __future__ import annotations

import ast
import sys
from functools import cache

import cursedlint


@cache
def _linter_for(config_path: str | None):
    """The linter of the files under a configuration, its prefilter, and what is wrong with
    the configuration (None when nothing is). One that cannot be read or built, for whatever
    reason, gives the defaults for the running interpreter and the problem, which each of its
    files reports: an exception here would end flake8's whole run, every plugin's findings
    lost, and silence would drop the configuration's target Python unseen."""
    from cursedlint import config as configuration
    from cursedlint.engine import Linter
    from cursedlint.notices import OPT_IN
    from cursedlint.registry import all_rules

    rules = all_rules()
    problem = None
    try:
        config = configuration.load_config(config_path, rules)
        settings = configuration.build_settings(config, rules, select=["CUR"], opt_in=OPT_IN)
    except Exception as error:
        problem = str(error) if isinstance(error, configuration.ConfigError) else \
            f"{config_path}: cannot be used: {type(error).__name__}: {error}"
        settings = configuration.build_settings(
            configuration.load_config(None, rules), rules, select=["CUR"], opt_in=OPT_IN,
            target_python=sys.version_info[:2])
    linter = Linter(settings, rules)
    return linter, linter.prefilter_for("python", settings.enabled), problem


class CursedlintPlugin:
    """flake8 entry point for the `CUR` prefix."""

    name = "cursedlint"
    version = cursedlint.__version__

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self):
        from cursedlint.config import find_config
        from cursedlint.notices import InternalError
        from cursedlint.source import Source

        text = "".join(self.lines)
        try:
            config_path = find_config(self.filename)
        except Exception:  # as _linter_for: the defaults
            config_path = None
        linter, prefilter, problem = _linter_for(config_path)
        if problem:
            yield 1, 0, (f"{InternalError.code} invalid cursedlint configuration, this file was "
                         f"checked with the defaults: {problem}"), type(self)
        rules = prefilter.triggered(text)
        if not rules:
            return
        source = Source(self.filename, text.encode("utf-8", "surrogatepass"), text, "python")
        result = linter.lint_source(
            source, rules, linter.settings.enabled, tree=self.tree, suppress=False
        )
        for finding in result.findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", type(self)
