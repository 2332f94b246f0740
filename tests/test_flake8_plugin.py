"""The flake8 plugin when cursedlint's configuration cannot be built: the defaults, never an
exception, which would end flake8's whole run (every plugin's findings lost)."""

from __future__ import annotations

import ast

from cursedlint import config as configuration
from cursedlint.flake8_plugin import CursedlintPlugin, _linter_for

FORKING = """\
import os
import subprocess

subprocess.Popen(["/usr/bin/rsync", "-a", "src", "dst"], preexec_fn=os.setsid)
"""


def test_any_exception_from_the_configuration_gives_the_defaults(tmp_path, monkeypatch):
    """As int() raised ValueError on a 5,000-digit requires-python: an exception that is not
    a ConfigError, from building the settings of the file's configuration."""
    (tmp_path / "cursedlint.toml").write_text('target-python = "3.12"\n')
    path = tmp_path / "sync.py"
    path.write_text(FORKING)
    build_settings = configuration.build_settings

    def failing(config, *args, **kwargs):
        if config.path is not None:
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return build_settings(config, *args, **kwargs)

    monkeypatch.setattr(configuration, "build_settings", failing)
    _linter_for.cache_clear()
    try:
        plugin = CursedlintPlugin(ast.parse(FORKING), str(path), FORKING.splitlines(True))
        found = [(line, text.split(" ")[0]) for line, _, text, _ in plugin.run()]
        assert found == [(1, "CUR000"), (4, "CUR101")]
    finally:
        _linter_for.cache_clear()


def test_a_broken_configuration_is_reported_on_each_file_not_dropped_unseen(tmp_path):
    """The CLI refuses `selct` with exit 2; flake8 cannot stop, so each file says why its
    configuration (and so its `target-python = "3.8"`) was not used."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cursedlint]\nselct = ["CUR1"]\ntarget-python = "3.8"\n')
    path = tmp_path / "sync.py"
    path.write_text(FORKING)
    _linter_for.cache_clear()
    try:
        plugin = CursedlintPlugin(ast.parse(FORKING), str(path), FORKING.splitlines(True))
        found = [(line, text) for line, _, text, _ in plugin.run()]
    finally:
        _linter_for.cache_clear()
    assert found[0][0] == 1
    assert found[0][1].startswith("CUR000 invalid cursedlint configuration, this file was "
                                  f"checked with the defaults: {tmp_path / 'pyproject.toml'}: "
                                  "tool.cursedlint.selct: unknown key")
    assert [line for line, _ in found[1:]] == [4]
