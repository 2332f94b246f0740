"""Configuration: find it, read it, validate every key, and turn it into `Settings`.

Each linted file gets its own configuration, as in ruff (`Resolver`):

1. `--config FILE`, for every file: a `pyproject.toml` (its `[tool.cursedlint]` table) or any
   other TOML file (its top level is the table);
2. else the nearest directory at or above the file holding `cursedlint.toml`, or a
   `pyproject.toml` with a `[tool.cursedlint]` table (a pyproject.toml without one is skipped and
   the walk goes on upward, as ruff does). In one directory `cursedlint.toml` wins;
3. else the defaults.

So a run over several packages lints each with its own file, whatever the order of the paths
or the files a pre-commit hook names; the command line's options apply on top of each. A
configuration's directory is its project's root: its `exclude`/`extend-exclude` apply to the
files below it, during the walk (`discovery`); its result cache and project facts live there.
A file may `extend` another (a path relative to it), as ruff's `extend`: what the file sets
wins, the selections stack as layers, `extend-exclude` accumulates, rule options merge option
by option; a cycle is an error naming the chain. Patterns and paths are relative to the file
that wrote them (`exclude`, `extend-exclude` and `per-file-ignores` patterns, `include-dirs`,
`compile-commands`, `baseline`); the root stays the extending file's directory. Without a
`target-python`, the target is the lowest version the `requires-python` of the nearest
`pyproject.toml` with a `[project]` table allows: at or above the configuration's directory,
or, for files no configuration covers, at or above the file.

Every problem is a `ConfigError` naming the file, the dotted key and what is allowed; nothing
is silently ignored.

Selection follows ruff. Selectors are `ALL`, a code (`CUR301`) or a code prefix (`CUR`, `CUR3`,
`CUR30`) that matches at least one known code. Within one layer of selection (the file, then the
command line) the most specific selector matching a code decides (`ALL` < `CUR` < `CUR3` < ...
< `CUR301`); on a tie `ignore` wins. A layer with a `select` replaces what earlier layers chose;
a layer without one (only `extend-select` / `ignore`) edits it. The first layer is the default
selection: every known code except the opt-in ones, which only their exact code selects.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any, Container, Iterable, Mapping, Sequence

from msgspec import Struct, field
from msgspec.structs import replace

from cursedlint.project.globs import glob_rules
from cursedlint.project.operating_systems import (
    may_say_windows_only, os_classifiers, setup_cfg_classifiers, setup_py_classifiers,
    windows_only,
)
from cursedlint.project.requires_python import BadSpecifier, lowest_allowed
from cursedlint.project.safe_files import SMALL_FILE_BYTES, read_regular
from cursedlint.settings import DEFAULT_MAX_FILE_SIZE, DEFAULT_PAGE_SIZE, Settings



def _toml():
    """The TOML parser, imported when a configuration file is read (not on every run)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib

CONFIG_FILENAME = "cursedlint.toml"
PYPROJECT_FILENAME = "pyproject.toml"
TOOL_TABLE = ("tool", "cursedlint")

ALL = "ALL"

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".cursedlint_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
"""Directories and files never linted unless `exclude` replaces this list (ruff's, plus ours)."""

SUPPORTED_TARGETS: tuple[tuple[int, int], ...] = tuple((3, minor) for minor in range(8, 16))
MIN_PAGE_SIZE = 1024
MAX_PAGE_SIZE = 1 << 30  # 1 GiB, the largest huge page on x86-64
MAX_OPTION_TEXT = 256
"""The longest string a rule option takes: every one is a name or a pattern of one, and each
becomes a trigger word of the prefilter, whose automaton grows with a word's length squared."""

_TYPE_NAMES = {str: "a string", bool: "a boolean", int: "an integer", float: "a number",
               list: "a list", tuple: "a list", dict: "a table"}


class ConfigError(Exception):
    """Invalid or unreadable configuration. `path` is the file (or "command line"), `key` the
    dotted key (empty for whole-file problems), `problem` what is wrong and what is allowed."""

    def __init__(self, path: str | None, key: str, problem: str):
        self.path = path or "<defaults>"
        self.key = key
        self.problem = problem
        super().__init__(f"{self.path}: {key}: {problem}" if key else f"{self.path}: {problem}")


class Config(Struct, frozen=True):
    """One configuration as written, with the files it extends (validated, not yet resolved
    against CLI overrides).

    `select` is None when the file does not set it (the default selection applies);
    `select`, `extend_select` and `ignore` are the file's own (`inherited_selection` holds the
    extended files' layers); `exclude` is the effective base list (the defaults unless a file
    replaced them); `target_python` is None when unset (the project's requires-python, else
    the running interpreter's); `rules` maps a code to the options set for it (defaults are
    the Rule's own). Relative paths and patterns are relative to the file that wrote them:
    `root` for this file's, `exclude_root`, `per_file_ignores_root` and `inherited_excludes`
    say where for those an extended file wrote."""

    path: str | None = None
    root: str = "."
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    target_python: tuple[int, int] | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    include_dirs: tuple[str, ...] = ()
    compile_commands: str | None = None
    baseline: str | None = None
    """A baseline file (`--baseline`): its findings are not reported."""
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    extends: tuple[str, ...] = ()
    """The files `extend` chains to, nearest first."""
    set_by: Mapping[str, str | None] = field(default_factory=dict)
    """The file that wrote each key set (this one's `path`, or an extended file)."""
    inherited_selection: tuple[Selection, ...] = ()
    """The selection layers of the extended files, furthest first."""
    exclude_root: str | None = None
    """Where `exclude` is relative to when an extended file in another directory set it."""
    inherited_excludes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The extended files' `extend-exclude` patterns with their directories, furthest first."""
    per_file_ignores_root: str | None = None
    """Where `per-file-ignores` is relative to when an extended file in another directory
    set it."""
    project: str | None = None
    """Of the defaults (no configuration file): the directory of the linted files' nearest
    pyproject.toml with a [project] table, where their requires-python is read."""

    @property
    def all_excludes(self) -> tuple[str, ...]:
        """`exclude` then `extend-exclude`: the gitignore-style patterns discovery skips."""
        return self.exclude + self.extend_exclude

    @property
    def excludes(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Every exclude pattern with the directory it is relative to, in the order they apply
        (a later match wins): `exclude`, each extended file's `extend-exclude` (furthest first),
        then this file's."""
        groups: list[tuple[str, tuple[str, ...]]] = []
        for base, patterns in ((self.exclude_root or self.root, self.exclude),
                               *self.inherited_excludes, (self.root, self.extend_exclude)):
            if groups and groups[-1][0] == base:
                groups[-1] = (base, groups[-1][1] + patterns)
            elif patterns:
                groups.append((base, patterns))
        return tuple(groups)


def with_force_exclude(config: Config, force: bool = True) -> Config:
    """The same configuration with `force-exclude` set (the `--force-exclude` flag)."""
    return replace(config, force_exclude=force)


# -- finding --------------------------------------------------------------------------------


def find_config(start: str | None = None) -> str | None:
    """The configuration file that applies to `start` (a file or directory; default the
    current directory): the nearest `cursedlint.toml`, or `pyproject.toml` with a
    `[tool.cursedlint]` table, at or above it. None when there is none."""
    directory = os.path.abspath(start or os.curdir)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        found = _own_config(directory)
        if found:
            return found
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _own_config(directory: str, names: Container[str] | None = None) -> str | None:
    """The configuration file in `directory` itself (`cursedlint.toml` first); `names`: the
    directory's entries when the caller has listed them (no other name is looked for)."""
    for name in (CONFIG_FILENAME, PYPROJECT_FILENAME):
        if names is not None and name not in names:
            continue
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and (name == CONFIG_FILENAME or _pyproject_has_table(candidate)):
            return candidate
    return None


class Resolver:
    """The configuration of each directory of a run, as ruff resolves it: the nearest file at
    or above it (`find_config`'s rule), else the defaults, or the one `--config` names (or a
    `Config` given) for all. Each file is loaded once, with those it extends, and each
    directory looked up once, so a run over many files pays per directory.

    The defaults of files no configuration file covers read requires-python from their own
    project: the nearest pyproject.toml with a [project] table at or above them."""

    def __init__(self, rules: Mapping[str, type] | None, config_file: str | None = None, *,
                 force_exclude: bool = False, fixed: Config | None = None):
        self.rules = rules
        self.force_exclude = force_exclude
        self.cwd = os.path.abspath(os.curdir)
        self._loaded: dict[str, Config] = {}
        self._defaults: dict[str | None, Config] = {}
        self._directories: dict[str, Config] = {}
        self.fixed = fixed or (self.load(config_file) if config_file else None)
        """The configuration of every file (`--config`); None: each file's nearest."""

    def load(self, path: str) -> Config:
        """The configuration file at `path` (and those it extends), loaded once."""
        key = os.path.abspath(path)
        config = self._loaded.get(key)
        if config is None:
            config = self._loaded[key] = self._forced(load_config(path, self.rules))
        return config

    def configuration_files(self) -> set[str]:
        """The configuration files loaded so far, with those they extend."""
        return {path for config in self._loaded.values() for path in (config.path, *config.extends)
                if path}

    def defaults(self, project: str | None = None) -> Config:
        """The defaults, rooted at the current directory; `project`: see `Config.project`."""
        config = self._defaults.get(project)
        if config is None:
            config = self._defaults[project] = self._forced(Config(root=self.cwd, project=project))
        return config

    def _forced(self, config: Config) -> Config:
        return with_force_exclude(config) if self.force_exclude else config

    def for_path(self, path: str) -> Config:
        """The configuration of a file or directory (existing or not)."""
        absolute = os.path.abspath(path)
        return self.in_directory(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))

    def in_directory(self, directory: str) -> Config:
        """The configuration of the files in `directory` (an absolute path)."""
        if self.fixed is not None:
            return self.fixed
        pending = []  # the directories to look up, deepest first
        current = directory
        while current not in self._directories:
            own = _own_config(current)
            if own:
                self._directories[current] = self.load(own)
                break
            pending.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        config = self._directories.get(current) or self.defaults()
        for each in reversed(pending):
            config = self._directories[each] = self._without_own(each, config)
        return config

    def inside(self, directory: str, parent: Config, names: Container[str]) -> Config:
        """The configuration of `directory` (an absolute path, listed: `names`) whose parent
        directory has `parent`: for a walk, which looks nowhere else."""
        if self.fixed is not None:
            return self.fixed
        own = _own_config(directory, names)
        config = self.load(own) if own else self._without_own(directory, parent, names)
        self._directories[directory] = config
        return config

    def _without_own(self, directory: str, parent: Config, names: Container[str] | None = None) -> Config:
        """The configuration of a directory without a configuration file of its own."""
        if parent.path is None and _starts_project(directory, names):
            return self.defaults(directory)
        return parent


def _starts_project(directory: str, names: Container[str] | None = None) -> bool:
    """Whether `directory` holds a pyproject.toml with a [project] table (or one that cannot be
    read: the target's source then says why)."""
    if names is not None and PYPROJECT_FILENAME not in names:
        return False
    path = os.path.join(directory, PYPROJECT_FILENAME)
    if not os.path.isfile(path):
        return False
    try:
        data = _read_bytes(path)
        return b"project" in data and isinstance(_project_table(path, data), dict)
    except ConfigError:
        return True


def _pyproject_has_table(path: str) -> bool:
    data = _read_bytes(path)
    if b"cursedlint" not in data:  # cheap: most pyproject.toml files never mention us
        return False
    document = _parse_toml(path, data)
    tool = document.get("tool")
    return isinstance(tool, dict) and "cursedlint" in tool


# -- reading --------------------------------------------------------------------------------


def load_config(path: str | None, rules: Mapping[str, type]) -> Config:
    """Read and validate the configuration file at `path` and the files it extends, one over
    the other (None: the defaults, rooted at the current directory). `rules` maps each known
    code to its Rule class (for code and per-rule option validation)."""
    if path is None:
        return Config(root=os.path.abspath(os.curdir))
    chain = [_load_file(path, rules)]
    real = [os.path.realpath(path)]
    while chain[-1].extends:
        extended = chain[-1].extends[0]
        if os.path.realpath(extended) in real:
            files = " -> ".join(config.path or "" for config in chain)
            raise ConfigError(chain[-1].path, _key_in(chain[-1].path, "extend"),
                              f"extends {extended!r}, which the chain already holds: a cycle "
                              f"({files} -> {extended})")
        real.append(os.path.realpath(extended))
        chain.append(_load_file(extended, rules))
    config = chain.pop()
    while chain:
        config = _extending(chain.pop(), config)
    return config


def _load_file(path: str, rules: Mapping[str, type]) -> Config:
    """One configuration file, as written (`extends` names the file it extends, not loaded)."""
    document = _parse_toml(path, _read_bytes(path))
    root = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == PYPROJECT_FILENAME:
        tool = document.get("tool", {})
        if not isinstance(tool, dict) or not isinstance(tool.get("cursedlint"), dict):
            if isinstance(tool, dict) and "cursedlint" in tool:
                raise ConfigError(path, "tool.cursedlint", f"expected a table, got {_describe(tool['cursedlint'])}")
            raise ConfigError(path, "", "has no [tool.cursedlint] table")
        return config_from_mapping(tool["cursedlint"], rules, path=path, root=root, prefix="tool.cursedlint")
    return config_from_mapping(document, rules, path=path, root=root)


CONFIG_BYTES = SMALL_FILE_BYTES * 16
"""The largest configuration file read (a pyproject.toml holds other tools' tables too)."""


def _key_in(path: str | None, key: str) -> str:
    """A key as an error names it in the file at `path`."""
    in_pyproject = path is not None and os.path.basename(path) == PYPROJECT_FILENAME
    return f"tool.cursedlint.{key}" if in_pyproject else key


_OWN_KEYS = frozenset({"select", "extend-select", "ignore", "extend-exclude", "extend", "rules"})
"""Keys an extending file does not take as they are from the file it extends (`_extending`)."""


def _extending(own: Config, base: Config) -> Config:
    """`own` (a file that sets `extend`) over `base` (the configuration it extends), as ruff
    merges them: what `own` sets wins; the selections stack as layers (`select` replaces what
    the layers under it chose, `extend-select` and `ignore` edit it); `extend-exclude`
    accumulates; rule options merge option by option. Patterns and paths stay relative to the
    file that wrote them; `root` is `own`'s directory."""
    inherited = {key.replace("-", "_"): getattr(base, key.replace("-", "_"))
                 for key in base.set_by if key not in own.set_by and key not in _OWN_KEYS}
    if "exclude" in inherited:
        inherited["exclude_root"] = _elsewhere(base.exclude_root or base.root, own.root)
    if "per_file_ignores" in inherited:
        inherited["per_file_ignores_root"] = _elsewhere(base.per_file_ignores_root or base.root, own.root)
    excludes = base.inherited_excludes
    if base.extend_exclude:
        excludes += ((base.root, base.extend_exclude),)
    return replace(
        own,
        **inherited,
        rules={code: {**base.rules.get(code, {}), **own.rules.get(code, {})}
               for code in {**base.rules, **own.rules}},
        extends=own.extends + base.extends,
        set_by={**base.set_by, **own.set_by},
        inherited_selection=(*base.inherited_selection,
                             Selection(base.select, base.extend_select, base.ignore)),
        inherited_excludes=excludes,
    )


def _elsewhere(directory: str, root: str) -> str | None:
    """`directory`, or None when it is `root` (the default the fields take)."""
    return None if directory == root else directory


def _read_bytes(path: str) -> bytes:
    """A configuration file's bytes: a regular file (a symbolic link to one is followed, as a
    monorepo's packages may share one file), up to CONFIG_BYTES; a FIFO or a device is refused
    unread."""
    try:
        return read_regular(path, CONFIG_BYTES, follow_symlinks=True)
    except OSError as error:  # a RefusedFile's strerror is its reason
        raise ConfigError(path, "", f"cannot read the configuration file: {error.strerror or error}") from None


@functools.lru_cache(maxsize=64)
def _project_table(path: str, data: bytes) -> Any:
    """The `project` table of the pyproject.toml at `path` holding `data` (None if it has
    none), parsed once: whether a directory starts a project and its `requires-python` both
    read it (a large pyproject.toml took 2 ms to parse)."""
    return _parse_toml(path, data).get("project")


def _parse_toml(path: str, data: bytes) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(path, "", f"is not valid UTF-8 (byte {error.start}), as TOML must be") from None
    if not text.strip(" \t\n"):  # an empty file (a project's mark): no parser to import
        return {}
    tomllib = _toml()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        if message.endswith("(at end of document)"):  # the parser gives no line there
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
            message = f"{message[:-1]}, line {line}, column {column})"
        raise ConfigError(path, "", f"invalid TOML: {message}") from None
    except RecursionError:
        raise ConfigError(path, "", "cannot be read: its arrays or tables nest too deeply for "
                          "the TOML parser") from None
    except MemoryError:
        raise ConfigError(path, "", "cannot be read: parsing it ran out of memory") from None
    except Exception as error:  # the parser's own bug on odd input: still the file's problem
        raise ConfigError(path, "", f"cannot be read by the TOML parser: "
                          f"{type(error).__name__}: {error}") from None


# -- validating -----------------------------------------------------------------------------

_BOOLEAN_KEYS = {"force-exclude": "force_exclude", "respect-gitignore": "respect_gitignore"}
_SELECTOR_KEYS = {"select": "select", "extend-select": "extend_select", "ignore": "ignore"}
_PATTERN_KEYS = {"exclude": "exclude", "extend-exclude": "extend_exclude"}
KEYS = tuple(sorted({
    *_BOOLEAN_KEYS, *_SELECTOR_KEYS, *_PATTERN_KEYS,
    "per-file-ignores", "target-python", "page-size", "max-file-size", "rules",
    "include-dirs", "compile-commands", "baseline", "extend",
}))
"""Every key of the configuration table."""


def config_from_mapping(
    table: Mapping[str, Any],
    rules: Mapping[str, type],
    *,
    path: str | None = None,
    root: str | None = None,
    prefix: str = "",
) -> Config:
    """Validate an already-parsed configuration table (kebab-case keys, as in TOML) and build a
    `Config`. `path` and `prefix` (e.g. "tool.cursedlint") only name things in errors; `root`
    defaults to the current directory."""
    known = tuple(rules)
    values: dict[str, Any] = {"path": path, "root": os.path.abspath(root or os.curdir),
                              "set_by": dict.fromkeys(table, path)}

    def key_of(*parts: str) -> str:
        return ".".join([prefix] * bool(prefix) + [_toml_key(part) for part in parts])

    for key, value in table.items():
        if key in _SELECTOR_KEYS:
            selectors = _string_list(path, key_of(key), value)
            for selector in selectors:
                _check_selector(path, key_of(key), selector, known)
            values[_SELECTOR_KEYS[key]] = tuple(selectors)
        elif key in _PATTERN_KEYS:
            patterns = _string_list(path, key_of(key), value)
            for pattern in patterns:
                _check_pattern(path, key_of(key), pattern)
            values[_PATTERN_KEYS[key]] = tuple(patterns)
        elif key in _BOOLEAN_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(path, key_of(key), f"expected true or false, got {_describe(value)}")
            values[_BOOLEAN_KEYS[key]] = value
        elif key == "target-python":
            values["target_python"] = parse_target_python(value, path, key_of(key))
        elif key == "page-size":
            values["page_size"] = _page_size(path, key_of(key), value)
        elif key == "max-file-size":
            values["max_file_size"] = _max_file_size(path, key_of(key), value)
        elif key == "include-dirs":
            values["include_dirs"] = _include_dirs(path, key_of(key), value, values["root"])
        elif key == "baseline":
            if not isinstance(value, str):
                raise ConfigError(path, key_of(key), f"expected a path, got {_describe(value)}")
            values["baseline"] = _checked_path(path, key_of(key), value, values["root"])
        elif key == "compile-commands":
            values["compile_commands"] = _compile_commands(path, key_of(key), value, values["root"])
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(path, key_of(key), f"expected a table of pattern = [codes], got {_describe(value)}")
            entries = []
            for pattern, codes in value.items():
                entry_key = key_of(key, pattern)
                if not pattern.strip():
                    raise ConfigError(path, entry_key, "expected a non-empty gitignore-style pattern")
                _check_pattern(path, entry_key, pattern)
                selectors = _string_list(path, entry_key, codes)
                for selector in selectors:
                    _check_selector(path, entry_key, selector, known)
                entries.append((pattern, tuple(selectors)))
            values["per_file_ignores"] = tuple(entries)
        elif key == "rules":
            values["rules"] = _rule_options(path, key_of, value, rules)
        elif key == "extend":
            values["extends"] = (_extended_file(path, key_of(key), value, values["root"]),)
        else:
            hint = _did_you_mean(key, KEYS)
            if key == "tool" and not prefix:
                hint = (" (only a file named pyproject.toml is read from [tool.cursedlint]; "
                        "in any other file the settings are top-level keys)")
            raise ConfigError(path, key_of(key), f"unknown key{hint}; valid keys are: {', '.join(KEYS)}")
    return Config(**values)


def _toml_key(part: str) -> str:
    """A key as TOML would write it in a dotted key: bare when it can be, else quoted."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", part):
        return part
    return '"' + part.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _describe(value: Any) -> str:
    """How a TOML value reads in an error: its type and, when short, the value."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    name = _TYPE_NAMES.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{name} {text}" if len(text) <= 40 else name


def _string_list(path: str | None, key: str, value: Any) -> list[str]:
    if not isinstance(value, list):
        raise ConfigError(path, key, f"expected a list of strings, got {_describe(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigError(path, f"{key}[{index}]", f"expected a list of strings, got {_describe(item)}")
    return value


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    import difflib  # (only a misspelt key needs it)

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def selector_matches(selector: str, code: str) -> bool:
    return selector == ALL or code.startswith(selector)


def _is_valid_selector(selector: str, known: Sequence[str]) -> bool:
    """`ALL`, or a prefix of some known code that keeps at least the code's letters
    (`CUR`, `CUR3`, ..., `CUR301`; not `C` or `CU`)."""
    if selector == ALL:
        return True
    for code in known:
        letters = len(code) - len(code.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        if code.startswith(selector) and len(selector) >= max(letters, 1):
            return True
    return False


def _check_selector(path: str | None, key: str, selector: str, known: Sequence[str]) -> None:
    if _is_valid_selector(selector, known):
        return
    hint = ""
    if selector != selector.upper() and _is_valid_selector(selector.upper(), known):
        hint = f" (codes are upper case: {selector.upper()!r})"
    raise ConfigError(
        path, key,
        f"{selector!r} matches no known code{hint}; expected 'ALL', a code such as 'CUR301' or "
        "a code prefix such as 'CUR', 'CUR3' or 'CUR30' (`cursedlint rules` lists the codes)",
    )


def _check_pattern(path: str | None, key: str, pattern: str) -> None:
    try:
        compile_pattern(pattern)
    except ValueError as error:
        raise ConfigError(path, key, f"invalid gitignore-style pattern {pattern!r}: {error}") from None


def parse_target_python(value: Any, path: str | None = None, key: str = "target-python") -> tuple[int, int]:
    """"3.11" -> (3, 11), for the supported versions only."""
    allowed = ", ".join(f'"{major}.{minor}"' for major, minor in SUPPORTED_TARGETS)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d{1,9})\.(\d{1,9})\s*", value)  # int() refuses 4,301 digits
        if match:
            version = (int(match.group(1)), int(match.group(2)))
            if version in SUPPORTED_TARGETS:
                return version
        raise ConfigError(path, key, f"unsupported Python version {value!r}; expected one of {allowed}")
    hint = " (write the version as a string: 3.10 in TOML is the number 3.1)" if isinstance(value, float) else ""
    raise ConfigError(path, key, f"expected a string, one of {allowed}, got {_describe(value)}{hint}")


def _page_size(path: str | None, key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(path, key, f"expected an integer (bytes), got {_describe(value)}")
    if value < MIN_PAGE_SIZE or value > MAX_PAGE_SIZE or value & (value - 1):
        raise ConfigError(
            path, key,
            f"expected a power of two from {MIN_PAGE_SIZE} to {MAX_PAGE_SIZE} (bytes), got {value}",
        )
    return value


def _max_file_size(path: str | None, key: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(path, key, f"expected a positive integer (bytes), got {_describe(value)}")
    return value


def _project_path(root: str, value: str) -> str:
    """A configured path, relative to the configuration's directory unless absolute."""
    return os.path.normpath(os.path.join(root, os.path.expanduser(value)))


def _checked_path(path: str | None, key: str, value: str, root: str) -> str:
    if not value.strip() or "\0" in value:
        raise ConfigError(path, key, f"expected a path, got {value!r}")
    return _project_path(root, value)


def _extended_file(path: str | None, key: str, value: Any, root: str) -> str:
    """The configuration file an `extend` value names (relative to the file's directory)."""
    expected = "a path to a cursedlint.toml, a pyproject.toml or another TOML configuration file"
    if not isinstance(value, str):
        raise ConfigError(path, key, f"expected {expected}, got {_describe(value)}")
    extended = _checked_path(path, key, value, root)
    if not os.path.isfile(extended):
        raise ConfigError(path, key, f"no file at {value!r} (expected {expected})")
    return extended


def _include_dirs(path: str | None, key: str, value: Any, root: str) -> tuple[str, ...]:
    """The `include-dirs` directories, searched for `#include <...>` (and `"..."` after the
    including file's directory) as `-I` would be."""
    return tuple(_checked_path(path, f"{key}[{index}]", item, root)
                 for index, item in enumerate(_string_list(path, key, value)))


def _compile_commands(path: str | None, key: str, value: Any, root: str) -> str:
    """The compilation database a `compile-commands` value names: the file, or the directory
    holding `compile_commands.json` (as clang-tidy's `-p` takes either)."""
    if not isinstance(value, str):
        raise ConfigError(path, key, f"expected a path, got {_describe(value)}")
    return compile_database_path(_checked_path(path, key, value, root), path, key)


def compile_database_path(named: str, path: str | None, key: str) -> str:
    """`named` (a compile_commands.json or the directory holding one), checked to exist."""
    database = os.path.join(named, COMPILE_COMMANDS) if os.path.isdir(named) else named
    if not os.path.isfile(database):
        raise ConfigError(path, key, f"no compilation database at {named!r} (expected "
                          f"{COMPILE_COMMANDS} or a directory holding one)")
    problem = _database_problem(database)
    if problem:
        raise ConfigError(path, key, f"{database!r} is not a compilation database: {problem}")
    return database


DATABASE_BYTES = 1 << 30
"""The largest compilation database read (the largest projects' run to a few hundred MB)."""


def _database_problem(database: str) -> str | None:
    """Why a named compilation database cannot be used (None: it can): it must be a regular
    file (often a symbolic link to the build directory's, followed) up to DATABASE_BYTES,
    of JSON text holding a list of entries."""
    import json

    try:
        entries = json.loads(read_regular(database, DATABASE_BYTES, follow_symlinks=True))
    except OSError as error:  # a RefusedFile's strerror is its reason
        return error.strerror or str(error)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        return f"not JSON ({type(error).__name__})"
    return None if isinstance(entries, list) else "expected a JSON list of compile commands"


def _rule_options(path, key_of, value: Any, rules: Mapping[str, type]) -> dict[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise ConfigError(path, key_of("rules"), f"expected a table of CODE = {{option = value}}, got {_describe(value)}")
    result: dict[str, dict[str, Any]] = {}
    for code, options in value.items():
        rule = rules.get(code)
        if rule is None:
            raise ConfigError(
                path, key_of("rules", code),
                f"{code!r} is not a known rule code{_did_you_mean(code, rules)}; per-rule options are "
                "keyed by an exact code such as 'CUR301' (`cursedlint rules` lists them)",
            )
        if not isinstance(options, dict):
            raise ConfigError(path, key_of("rules", code), f"expected a table of option = value, got {_describe(options)}")
        specs = getattr(rule, "options", {}) or {}
        checked: dict[str, Any] = {}
        for name, option_value in options.items():
            spec = specs.get(name)
            if spec is None:
                allowed = (f"valid options of {code}: {', '.join(sorted(specs))}" if specs
                           else f"{code} has no options")
                raise ConfigError(path, key_of("rules", code, name), f"unknown option{_did_you_mean(name, specs)}; {allowed}")
            checked[name] = check_option(spec, option_value, path, key_of("rules", code, name))
        result[code] = checked
    return result


def _kinds(spec) -> tuple[type, ...]:
    return spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)


def check_option(spec, value: Any, path: str | None = None, key: str = "") -> Any:
    """Validate one per-rule option value against its `Option` (type; a list's item type; every
    string not blank and of the spec's form; choices) and return it converted where TOML has no
    exact type (int for a float option, list for a tuple one)."""
    converted = _convert(value, _kinds(spec))
    if converted is _MISMATCH:
        raise ConfigError(path, key, f"expected {_expected(_kinds(spec))}, got {_describe(value)}")
    if not isinstance(converted, (list, tuple)):
        _check_value(spec, converted, path, key)
        return converted
    items = []
    for index, item in enumerate(converted):
        checked = _convert(item, (spec.item,))
        if checked is _MISMATCH:
            raise ConfigError(path, f"{key}[{index}]", f"expected {_expected((spec.item,))}, got {_describe(item)}")
        _check_value(spec, checked, path, f"{key}[{index}]")
        items.append(checked)
    return type(converted)(items)


def _check_value(spec, value: Any, path: str | None, key: str) -> None:
    """One scalar of an option's value (the value, or one item of a list) against the spec's
    form and choices."""
    if isinstance(value, str):
        if not value.strip():
            raise ConfigError(path, key, f"expected a non-empty string, got {_describe(value)}")
        if len(value) > MAX_OPTION_TEXT:
            raise ConfigError(path, key, f"expected at most {MAX_OPTION_TEXT} characters, got {len(value)}")
        if spec.form and not spec.form.matches(value):
            raise ConfigError(path, key, f"expected {spec.form.description}, got {_describe(value)}")
    if spec.choices and value not in spec.choices:
        allowed = ", ".join(repr(choice) for choice in spec.choices)
        raise ConfigError(path, key, f"{value!r} is not allowed; expected one of {allowed}")


def _expected(kinds: tuple[type, ...]) -> str:
    return " or ".join(dict.fromkeys(_TYPE_NAMES.get(kind, kind.__name__) for kind in kinds))


_MISMATCH = object()


def _convert(value: Any, kinds: tuple[type, ...]) -> Any:
    for kind in kinds:
        if kind is bool:
            if isinstance(value, bool):
                return value
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif kind is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        elif kind is tuple:
            if isinstance(value, (list, tuple)):
                return tuple(value)
        elif isinstance(value, kind):
            return value
    return _MISMATCH


# -- selection ------------------------------------------------------------------------------


class Selection(Struct, frozen=True):
    """One layer of rule selection: `select` None means "keep what earlier layers chose"."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def _specificity(selector: str) -> int:
    return -1 if selector == ALL else len(selector)


def resolve_layers(
    known: Iterable[str],
    layers: Iterable[Selection],
    *,
    opt_in: Iterable[str] = frozenset(),
) -> frozenset[str]:
    """The enabled codes after applying `layers` in order over the default selection (every
    known code except `opt_in`). Within a layer the most specific matching selector decides
    (ties: ignore wins); opt-in codes are selected only by their exact code."""
    known = tuple(known)
    opt_in = frozenset(opt_in)
    enabled = {code for code in known if code not in opt_in}
    for layer in layers:
        selects = (layer.select or ()) + tuple(layer.extend_select)
        decided: dict[str, bool] = {}
        for code in known:
            best_select = max(
                (_specificity(s) for s in selects
                 if selector_matches(s, code) and (code not in opt_in or s == code)),
                default=None,
            )
            best_ignore = max((_specificity(s) for s in layer.ignore if selector_matches(s, code)), default=None)
            if best_select is not None and (best_ignore is None or best_select > best_ignore):
                decided[code] = True
            elif best_ignore is not None:
                decided[code] = False
        if layer.select is not None:
            enabled = {code for code, on in decided.items() if on}
        else:
            for code, on in decided.items():
                (enabled.add if on else enabled.discard)(code)
    return frozenset(enabled)


def resolve_codes(
    known: Iterable[str],
    select: Iterable[str] | None = None,
    extend_select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    *,
    opt_in: Iterable[str] = frozenset(),
) -> frozenset[str]:
    """The enabled codes for one layer of selection over the default (see `resolve_layers`)."""
    layer = Selection(None if select is None else tuple(select), tuple(extend_select), tuple(ignore))
    return resolve_layers(known, [layer], opt_in=opt_in)


def expand(selectors: Iterable[str], known: Iterable[str]) -> frozenset[str]:
    """The known codes any of `selectors` matches."""
    selectors = tuple(selectors)
    return frozenset(code for code in known if any(selector_matches(s, code) for s in selectors))


# -- settings -------------------------------------------------------------------------------


class PathMatcher:
    """A gitignore-style pattern matched against paths relative to `base`, the directory of
    the file that wrote it (picklable, so the settings travel to worker processes)."""

    def __init__(self, pattern: str, base: str):
        self.pattern = pattern
        self.base = base
        self._rules = compile_pattern(pattern)

    def match_file(self, relative_path: str) -> bool:
        path = relative_path.replace(os.sep, "/")
        return any(include and regex.match(path) for regex, include in self._rules)

    def __reduce__(self):
        return (PathMatcher, (self.pattern, self.base))

    def __repr__(self) -> str:
        return f"PathMatcher({self.pattern!r}, {self.base!r})"


def compile_pattern(pattern: str):
    """The (regex, include) rules of one gitignore-style pattern, as discovery matches them
    (in linear time: the pattern may come from a hostile repository)."""
    return glob_rules([pattern], strict=True)


COMMAND_LINE = "command line"
COMPILE_COMMANDS = "compile_commands.json"


def build_settings(
    config: Config,
    rules: Mapping[str, type],
    *,
    select: Iterable[str] | None = None,
    extend_select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    target_python: str | tuple[int, int] | None = None,
    opt_in: Iterable[str] = frozenset(),
    compile_commands: str | None = None,
) -> Settings:
    """The effective settings: `config` with the command line's `--select` (a new selection
    layer that replaces the file's), `--extend-select` and `--ignore` (which edit the file's
    selection, whatever its specificity), `--target-python` and `-p` (`compile_commands`: a
    compilation database or its directory) on top."""
    known = tuple(rules)
    cli = {"--select": select or (), "--extend-select": extend_select, "--ignore": ignore}
    for option, selectors in cli.items():
        for selector in selectors:
            _check_selector(COMMAND_LINE, option, selector, known)
    layers = [*config.inherited_selection, Selection(config.select, config.extend_select, config.ignore)]
    if select is not None or extend_select or ignore:
        layers.append(Selection(None if select is None else tuple(select), tuple(extend_select), tuple(ignore)))
    enabled = resolve_layers(known, layers, opt_in=opt_in)
    silenced, platform = _target_platform(config, rules)

    if isinstance(target_python, str):
        version = parse_target_python(target_python, COMMAND_LINE, "--target-python")
        source = "--target-python"
    elif target_python or config.target_python:
        version = target_python or config.target_python
        source = (f"target-python in {config.set_by.get('target-python', config.path)}"
                  if not target_python else "the caller")
    else:
        version, source = _project_target(config.project or config.root)

    base = config.per_file_ignores_root or config.root
    per_file = tuple(
        (PathMatcher(pattern, base), expand(codes, known)) for pattern, codes in config.per_file_ignores
    )
    return Settings(
        enabled=enabled,
        target_python=tuple(version),
        page_size=config.page_size,
        max_file_size=config.max_file_size,
        include_dirs=config.include_dirs,
        compile_commands=(
            compile_database_path(os.path.abspath(compile_commands), COMMAND_LINE, "-p")
            if compile_commands else config.compile_commands
        ),
        rule_options={code: dict(options) for code, options in config.rules.items()},
        per_file_ignores=per_file,
        root=config.root,
        target_python_source=source,
        silenced=silenced & enabled,
        platform_source=platform,
    )


def project_requires_python(start: str) -> tuple[str, str] | None:
    """(path, specifiers) of the nearest `pyproject.toml` at or above `start` that has a
    `[project]` table; None when there is none, or it sets no `requires-python`."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, PYPROJECT_FILENAME)
        if os.path.isfile(candidate):
            project = _project_table(candidate, _read_bytes(candidate))
            if isinstance(project, dict):
                value = project.get("requires-python")
                return (candidate, value) if isinstance(value, str) else None
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _target_platform(config: Config, rules: Mapping[str, type]) -> tuple[frozenset[str], str]:
    """The codes the project's platform silences, and where the platform comes from: a `libc`
    the configuration sets names it; else packaging classifiers that name Windows alone
    silence the rules of fork hazards (`Rule.posix_only`); else it is `libc`'s default, Linux."""
    for code, options in sorted(config.rules.items()):
        if "libc" in options:
            return frozenset(), f"libc {options['libc']!r} (rules.{code}.libc in {config.path})"
    files = windows_only_metadata(config.project or config.root)
    if not files:
        return frozenset(), "Linux, libc's default (no classifiers that name Windows alone)"
    off = frozenset(code for code, rule in rules.items() if getattr(rule, "posix_only", False))
    return off, (f"Windows only: the Operating System classifiers of {', '.join(files)} "
                 f"(no fork: {', '.join(sorted(off))} silent; a `libc` setting would name another)")


def windows_only_metadata(start: str) -> tuple[str, ...]:
    """The packaging files whose `Operating System ::` classifiers name Windows alone
    (`project.operating_systems`), in the nearest directory at or above `start` that holds a
    `pyproject.toml`, `setup.cfg` or `setup.py`; none where that directory's classifiers name
    another system, or none. A file that cannot be read or parsed names none; none is parsed
    where their text cannot declare Windows alone (`may_say_windows_only`: most projects)."""
    directory = os.path.abspath(start)
    while True:
        present = [(path, read) for path, read in (
            (os.path.join(directory, name), read) for name, read in _METADATA_FILES)
            if os.path.isfile(path)]
        parent = os.path.dirname(directory)
        if present or parent == directory:
            break
        directory = parent
    texts = []
    for path, read in present:
        try:
            texts.append((path, read, _read_bytes(path)))
        except ConfigError:
            continue
    if not may_say_windows_only(data for _, _, data in texts):
        return ()
    found: dict[str, tuple[str, ...]] = {}
    for path, read, data in texts:
        try:
            found[path] = read(path, data)
        except (ConfigError, UnicodeDecodeError):
            continue
    if not windows_only(item for listed in found.values() for item in listed):
        return ()
    return tuple(path for path, listed in found.items() if listed)


def _pyproject_classifiers(path: str, data: bytes) -> tuple[str, ...]:
    project = _project_table(path, data)
    return os_classifiers(project.get("classifiers")) if isinstance(project, dict) else ()


_METADATA_FILES = (
    (PYPROJECT_FILENAME, _pyproject_classifiers),
    ("setup.cfg", lambda path, data: setup_cfg_classifiers(data.decode("utf-8"))),
    ("setup.py", lambda path, data: setup_py_classifiers(data.decode("utf-8"))),
)


def _project_target(root: str) -> tuple[tuple[int, int], str]:
    """The lowest supported Python the project's `requires-python` allows (as ruff infers its
    target), else the running interpreter's; with where it comes from."""
    running = sys.version_info[:2]
    try:
        found = project_requires_python(root)
    except ConfigError as error:
        return running, f"the running interpreter ({error})"
    if found is None:
        return running, "the running interpreter (no requires-python in a pyproject.toml)"
    path, specifiers = found
    try:
        version = lowest_allowed(specifiers, SUPPORTED_TARGETS)
    except BadSpecifier as error:
        return running, f"the running interpreter ({path}: requires-python: {error})"
    if version is None:
        return running, (f"the running interpreter ({path}: requires-python {specifiers!r} "
                         "allows no supported version)")
    return version, f"the lowest version requires-python {specifiers!r} allows ({path})"


def configure(
    paths: Sequence[str],
    rules: Mapping[str, type],
    config_file: str | None = None,
) -> Config:
    """The configuration for a run over `paths`: `config_file` when given, else the one found
    from the first path (or the current directory)."""
    path = config_file or find_config(paths[0] if paths else None)
    return load_config(path, rules)
