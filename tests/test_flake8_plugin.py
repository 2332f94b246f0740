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
        assert [(line, text.split(" ")[0]) for line, _, text, _ in plugin.run()] == [(4, "CUR101")]
    finally:
        _linter_for.cache_clear()
