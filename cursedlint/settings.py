"""The effective settings of a run, as the engine and rules see them (built by `config`)."""

from __future__ import annotations

import os
import sys
from typing import Any

from msgspec import Struct, field

DEFAULT_PAGE_SIZE = 4096
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
"""Bytes; a larger file with trigger words is not parsed (CUR004)."""


class Settings(Struct, frozen=True):
    """What to check and how. `enabled` holds codes; `per_file_ignores` maps a matcher over
    paths (relative to its `base`) to codes switched off there; `rule_options` maps a code to
    its options."""

    enabled: frozenset[str]
    target_python: tuple[int, int] = sys.version_info[:2]
    page_size: int = DEFAULT_PAGE_SIZE
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[Any, frozenset[str]], ...] = ()
    root: str = "."
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    include_dirs: tuple[str, ...] = ()
    """Directories searched for `#include` as `-I` (used when no compilation database is)."""
    compile_commands: str | None = None
    """The compilation database (`compile_commands.json`) giving each file's include
    directories and `-D` macros."""
    target_python_source: str = ""
    """Where `target_python` comes from, for `--verbose`."""
    silenced: frozenset[str] = frozenset()
    """Enabled codes that run on no file: the `posix_only` rules of a project that runs only
    on Windows (a file still parses, and reports CUR001, for them)."""
    platform_source: str = ""
    """Where the target platform comes from (a `libc` option, or packaging classifiers that
    name Windows alone), for `--verbose`."""

    def enabled_for(self, path: str) -> frozenset[str]:
        """Codes enabled for one file, after per-file ignores (each matched on the path
        relative to its `base`, the directory of the configuration file that wrote it)."""
        if not self.per_file_ignores:
            return self.enabled
        absolute = os.path.abspath(path)
        relative: dict[str, str] = {}  # base -> the path relative to it
        ignored: set[str] = set()
        for matcher, codes in self.per_file_ignores:
            if matcher.base not in relative:
                relative[matcher.base] = os.path.relpath(absolute, matcher.base)
            if matcher.match_file(relative[matcher.base]):
                ignored |= codes
        return self.enabled - ignored
