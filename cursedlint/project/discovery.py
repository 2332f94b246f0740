"""Discovery: command-line paths -> the files to lint, with their language, in sorted order.

Directories are walked with `os.scandir`, iteratively. Symlinked directories are not followed
(no loops); symlinked files are linted, and a broken symlink is yielded as a file so the engine
reports it as unreadable. Files whose extension cursedlint does not lint are passed over.

Each directory has a configuration (`config.Resolver`: the nearest configuration file at or
above it); a directory met in the walk that holds one of its own switches to it, and the files
found are recorded with theirs (`Discovery.by_config`). Skipped while walking (never descended
into, for directories):
- config excludes, of the configuration of the directory listing the entry: `exclude` (default
  `DEFAULT_EXCLUDE`) plus `extend-exclude`, gitignore-style patterns matched against the path
  relative to the directory of the configuration file that wrote them (a pattern without a
  slash, like `build`, matches that name at any depth; `!pattern` re-includes a
  later-excluded name);
- with `respect-gitignore` (the default): what git ignores. Every `.gitignore` from the git
  root (the nearest ancestor holding `.git`; the project root without one) down to each
  directory, plus `.git/info/exclude`, with git's semantics: deeper files override shallower
  ones, the last matching pattern of a file wins, `!` negates, `dir/` matches directories only,
  `/x` is anchored. A directory holding `.git` (a nested repository) starts afresh. These
  files come with the tree, so they are read as git reads them and no further
  (`safe_files.read_regular`): regular files only, bounded, an in-tree `.gitignore` not through
  a symbolic link; one refused or unreadable is passed over with a warning on stderr, as git
  does.

A path named on the command line is linted even when excluded or ignored (a named directory is
walked; what is inside is still filtered), unless `force-exclude` is set: then the path and each
of its directories below the project root / git root are checked too, against the excludes of
the path's own configuration (the pre-commit hook passes files one by one). A path that does
not exist lands in `Discovery.missing`, a named path that cannot be read (its directory cannot
be listed, or a parent cannot be searched) in `Discovery.unreadable`, and a directory met while
walking that cannot be listed, or an entry that cannot be examined, in `Discovery.errors`:
nothing unreadable is passed over silently.

Each pattern is matched against the entry itself, not against its parents: parents that match
were never entered, except a named directory, whose contents are still linted.
"""

from __future__ import annotations

import os
import re
import sys
from collections import deque
from typing import Iterable, Iterator, Sequence

from msgspec import Struct, field

from cursedlint.config import CONFIG_FILENAME, PYPROJECT_FILENAME, Config, Resolver
from cursedlint.formats.shared import printable
from cursedlint.project.globs import (DIRECTORY_MARK, glob_rules, quiet_regex_warnings,
                                      translated_rules)
from cursedlint.languages import language_of, language_of_name, script_language
from cursedlint.project.safe_files import SMALL_FILE_BYTES, read_regular
from cursedlint.patterns import LazyPattern


class Discovery(Struct):
    """What `discover` found. `files`: (path, language) pairs, sorted, each path as the user
    would see it (relative when given relative). `missing`: given paths that do not exist.
    `unreadable`: given paths that cannot be read, with the reason. `skipped`: given paths not
    linted (an extension cursedlint does not lint, or excluded under force-exclude). `errors`:
    paths met while walking that could not be listed or examined, with the reason. `configs`:
    see `by_config`."""

    files: list[tuple[str, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    configs: dict[str, Config] = field(default_factory=dict)
    """The configuration of each directory files were looked for in, by the directory as the
    files' paths show it ("" for the working directory)."""

    def by_config(self) -> list[tuple[Config, list[tuple[str, str]]]]:
        """The files by the configuration of their directory (each list in the files' order),
        in the order of each configuration's first file."""
        if len({id(config) for config in self.configs.values()}) == 1:
            return [(next(iter(self.configs.values())), self.files)] if self.files else []
        groups: dict[int, tuple[Config, list[tuple[str, str]]]] = {}
        for item in self.files:
            config = self.configs[os.path.dirname(item[0])]
            groups.setdefault(id(config), (config, []))[1].append(item)
        return list(groups.values())


# -- patterns ---------------------------------------------------------------------------------

_DIRECTORY_GROUP = re.compile(rf"\(\?P<{DIRECTORY_MARK}>")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.+-]+")
"""A gitignore line that is a bare name (no glob, slash, negation or escape)."""

class Patterns:
    """An ordered list of gitignore-style patterns (one .gitignore file, or the excludes),
    compiled once. `decide(path)` -> True (matched: ignore it), False (matched by a negation:
    keep it) or None (no pattern matches). `path` is relative to the patterns' base directory,
    with `/` separators and a trailing `/` for directories.

    The patterns' regexes also match everything below a matching directory; a match that stops
    at a parent (its `DIRECTORY_MARK` group before the end) is not a match of the entry
    itself. A path no pattern can match is passed over by one search of all of them
    (`prefilter`): those that name an entry at any depth (`*.so`, `build/`: most of a
    `.gitignore`) are tried on the path's last part alone, which is the only part they can
    match the entry itself at (their regexes were tried at every `/` of the path: a tenth of
    a warm run over Megatron-LM's 3,800 entries), the others on the whole path."""

    __slots__ = ("rules", "prefilter", "names")

    def __init__(self, lines: Iterable[str]):
        lines = list(lines)
        significant = [line.rstrip(" ") for line in lines if line.strip() and line[0] != "#"]
        self.names: frozenset[str] = frozenset()
        self.rules: list = []
        self.prefilter = None
        if all(_PLAIN_NAME.fullmatch(line) and line not in (".", "..") for line in significant):
            # plain names (the default excludes): a name matches itself at any depth
            self.names = frozenset(significant)
            return
        self.rules = [(_Regex(source), include) for source, include in translated_rules(lines)]
        if len(self.rules) > 1:  # (each rule compiled when the prefilter first lets it be tried)
            self.prefilter = _prefilter(self.rules)
        if self.prefilter is None:  # one rule, or sources that cannot be merged (one does not
            self.rules = glob_rules(lines)  # compile): compiled now, those that fail passed over
            if len(self.rules) > 1:
                self.prefilter = _prefilter(self.rules)

    def __bool__(self) -> bool:
        return bool(self.rules or self.names)

    def decide(self, path: str) -> bool | None:
        if self.names:
            return True if path.rstrip("/").rpartition("/")[2] in self.names else None
        if self.prefilter is not None:
            last, whole = self.prefilter
            if (last is None or last.match(path, path.rfind("/", 0, len(path) - 1) + 1) is None) \
                    and (whole is None or whole.match(path) is None):
                return None
        for regex, include in reversed(self.rules):
            match = regex.match(path)
            if match is not None and _matches_itself(match, path):
                return include
        return None


_ANY_DEPTH = "^(?:.+/)?"
"""How the regex of a pattern without a `/` but a trailing one begins (`globs.pattern_regex`)."""
_ENDS = ("(?:(?:/)|$)", "(?:/)")
"""How such a regex ends (its `DIRECTORY_MARK` group made plain): the entry's end, or a `/`
after it (a pattern for directories only)."""
_ONE_PART = LazyPattern(r"\[\^/\]|\\.|\(\?P<[A-Za-z0-9_]+>|\(\?P=[A-Za-z0-9_]+\)|\(\?=|[A-Za-z0-9_)*?-]")
"""The pieces of a name's regex that never match a `/` (`globs.linear_regex`: a glob `*` or
`?`, an escaped or plain character, a lookahead and its backreference): a name made only of
these matches within one part of a path."""


def _prefilter(rules: list) -> tuple[re.Pattern | None, re.Pattern | None] | None:
    """(a regex of the patterns that match a name at any depth, to try at the path's last
    part; a regex of the others, for the whole path), None where they cannot be merged."""
    last, whole = [], []
    for regex, _ in rules:
        pattern = _DIRECTORY_GROUP.sub("(?:", regex.pattern)
        end = next((end for end in _ENDS if pattern.endswith(end)), None)
        name = pattern[len(_ANY_DEPTH):-len(end)] if end else ""
        if pattern.startswith(_ANY_DEPTH) and name and not _ONE_PART.sub("", name):
            last.append(f"(?:{name}{end})")  # (matched at the last part's start: no `^`)
        else:
            whole.append(f"(?:{pattern})")
    try:
        with quiet_regex_warnings():
            return (re.compile("|".join(last)) if last else None,
                    re.compile("|".join(whole)) if whole else None)
    except re.error:  # pragma: no cover - regexes that cannot be merged
        return None


class _Regex:
    """A rule's regex, compiled when first matched: a run naming one file tries few of a
    `.gitignore`'s rules (those its prefilter lets through), and compiling them all took 5-19
    ms of such a run on an ML or RDMA tree's `.gitignore` (libfabric's 95: 13 ms). Only where the
    rules' merged prefilter compiled; a source that does not compile alone then matches
    nothing, as `glob_rules` passes it over."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._compiled: re.Pattern | None = None

    def match(self, path: str) -> re.Match | None:
        if self._compiled is None:
            with quiet_regex_warnings():
                try:
                    self._compiled = re.compile(self.pattern)
                except re.error:
                    self._compiled = _NOTHING
        return self._compiled.match(path)


_NOTHING = re.compile(r"(?!)")


def _matches_itself(match: re.Match, path: str) -> bool:
    try:
        directory_mark = match.start(DIRECTORY_MARK)
    except IndexError:  # a pattern without the directory group (e.g. `x/**`)
        return True
    return directory_mark == -1 or directory_mark == len(path) - 1


def _floating(patterns: Sequence[str]) -> list[str]:
    """The patterns that match a name at any depth (no slash but a trailing one, or `**/`)."""
    kept = []
    for pattern in patterns:
        body = pattern[1:] if pattern.startswith("!") else pattern
        while body.startswith("**/"):
            body = body[3:]
        if "/" not in body.rstrip("/"):
            kept.append(pattern)
    return kept


IGNORE_FILE_BYTES = 8 << 20
"""The largest .gitignore or info/exclude read: 100,000 patterns of 80 characters (such a file
is legitimate, and costs about a gigabyte and two minutes to compile; git's own limit, 100 MiB,
would cost more than any run can give)."""

_warned: set[str] = set()


def _read_git_file(path: str, limit: int, follow_symlinks: bool, unused: str) -> bytes | None:
    """The bytes of an ignore file or of git metadata; None when it is absent, or refused
    (`safe_files.read_regular`) or unreadable: then a one-line warning says so and what goes
    `unused`, once per process (discovery runs twice when rules read the whole project)."""
    try:
        return read_regular(path, limit, follow_symlinks)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:  # as git does, the run goes on without the file
        if path not in _warned:
            _warned.add(path)
            reason = error.strerror or str(error)  # a RefusedFile's strerror is its reason
            print(f"cursedlint: warning: {printable(path)}: {reason}; {unused}", file=sys.stderr)
        return None


def _read_patterns(path: str, follow_symlinks: bool = False) -> Patterns | None:
    """A .gitignore-style file's patterns; None when absent, refused, unreadable or empty (as
    git does). An in-tree .gitignore that is a symbolic link is refused, as git (2.32+) does;
    `follow_symlinks` for info/exclude, which git follows."""
    data = _read_git_file(path, IGNORE_FILE_BYTES, follow_symlinks, "its patterns are not used")
    if data is None:
        return None
    patterns = Patterns(data.decode("utf-8", "surrogateescape").splitlines())
    return patterns or None


def _git_dir(worktree: str) -> str | None:
    """The repository directory of a work tree: `.git`, or where a `.git` file points."""
    dot_git = os.path.join(worktree, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    data = _read_git_file(dot_git, SMALL_FILE_BYTES, True,
                          "the repository's info/exclude is not used")
    line = (data or b"").decode("utf-8", "surrogateescape").partition("\n")[0].strip()
    if not line.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(worktree, line[len("gitdir:"):].strip()))


def _info_exclude(worktree: str) -> Patterns | None:
    git_dir = _git_dir(worktree)
    if git_dir is None:
        return None
    patterns = _read_patterns(os.path.join(git_dir, "info", "exclude"), follow_symlinks=True)
    if patterns is None:  # a linked worktree keeps info/ in the common directory
        data = _read_git_file(os.path.join(git_dir, "commondir"), SMALL_FILE_BYTES, True,
                              "the repository's info/exclude is not used")
        if data is None:
            return None
        common = os.path.join(git_dir, data.decode("utf-8", "surrogateescape").strip())
        patterns = _read_patterns(os.path.join(common, "info", "exclude"), follow_symlinks=True)
    return patterns


# -- the walker -------------------------------------------------------------------------------

Layers = tuple[tuple[Patterns, str], ...]
"""Ignore files that apply in one directory, shallowest first: (patterns, that directory's path
relative to the ignore file's base, "" or ending in "/")."""


def _extend(layers: Layers, name: str) -> Layers:
    """The layers of a parent directory, seen from its child `name`."""
    return tuple((patterns, f"{prefix}{name}/") for patterns, prefix in layers)


class _Excludes:
    """One configuration's part of the filter: its root, its exclude patterns (each group
    matched against paths relative to the directory of the file that wrote it:
    `Config.excludes`) and whether it respects git's ignore files."""

    def __init__(self, config: Config):
        self.config = config
        self.root = os.path.abspath(config.root)
        self._within = os.path.join(self.root, "")
        self.gitignore = config.respect_gitignore
        self.groups = [(*_reach(self.root, base), Patterns(patterns), Patterns(_floating(patterns)))
                       for base, patterns in config.excludes]
        self.at_root = self.groups[0][2:] if len(self.groups) == 1 and self.groups[0][:2] == ("", "") else None
        """(patterns, floating ones) when all are relative to the root (the common case)."""

    def root_prefix(self, directory: str) -> str | None:
        """A directory's path relative to the root, "" or ending in "/"; None outside."""
        if directory.startswith(self._within) and os.path.normpath(directory) == directory:
            return directory[len(self._within):].replace(os.sep, "/") + "/"  # (relpath's)
        relative = os.path.relpath(directory, self.root)
        if relative == os.curdir:
            return ""
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return None
        return relative.replace(os.sep, "/") + "/"

    def decide(self, name: str, root_prefix: str | None) -> bool | None:
        """Whether the entry `name` (with a trailing "/" for a directory) of the directory at
        `root_prefix` is excluded (True), kept by a negated pattern (False) or neither (None).
        Where a group's directory does not hold the entry (outside the root: `root_prefix`
        None), only its patterns that match a name at any depth apply."""
        for prefix, strip, patterns, floating in reversed(self.groups):
            path = None if root_prefix is None or prefix is None else root_prefix + name
            if path is not None and strip:
                path = path[len(strip):] if path.startswith(strip) else None
            decision = floating.decide(name) if path is None else patterns.decide(prefix + path)
            if decision is not None:
                return decision
        return None


def _reach(root: str, base: str) -> tuple[str | None, str]:
    """How a path relative to `root` becomes one relative to `base`: (a prefix to add, a
    prefix to strip, which the path must start with); the prefix None when `base` holds no
    path under `root`."""
    if base == root:
        return "", ""
    relative = os.path.relpath(root, base)
    if not (relative == os.pardir or relative.startswith(os.pardir + os.sep)):
        return relative.replace(os.sep, "/") + "/", ""  # the root is below base
    inner = os.path.relpath(base, root)
    if not (inner == os.pardir or inner.startswith(os.pardir + os.sep)):
        return "", inner.replace(os.sep, "/") + "/"  # base is below the root
    return None, ""


class _Filter:
    """Decides, entry by entry, what the configurations and git exclude; `resolver` gives the
    configuration of each directory."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self._excludes: dict[int, _Excludes] = {}  # id(config) -> its part (it holds config)
        self._ignore_files: dict[str, Patterns | None] = {}
        self._info_excludes: dict[str, Patterns | None] = {}
        self._chains: dict[tuple[str, int], tuple[str, list[str], Layers]] = {}
        self._git_roots: dict[str, str | None] = {}  # directory -> the work tree holding it
        self._layers: dict[tuple[str, int], Layers] = {}

    def excludes_of(self, config: Config) -> _Excludes:
        """A configuration's part of the filter, made once."""
        excludes = self._excludes.get(id(config))
        if excludes is None:
            excludes = self._excludes[id(config)] = _Excludes(config)
        return excludes

    def info_exclude(self, worktree: str) -> Patterns | None:
        """A repository's .git/info/exclude, read once."""
        try:
            return self._info_excludes[worktree]
        except KeyError:
            patterns = self._info_excludes[worktree] = _info_exclude(worktree)
            return patterns

    def ignore_file(self, directory: str) -> Patterns | None:
        """The .gitignore of a directory, read once."""
        try:
            return self._ignore_files[directory]
        except KeyError:
            patterns = self._ignore_files[directory] = _read_patterns(os.path.join(directory, ".gitignore"))
            return patterns

    @staticmethod
    def excluded(name: str, root_prefix: str | None, layers: Layers, excludes: _Excludes) -> bool:
        """Whether the entry `name` (with a trailing "/" for a directory) is skipped."""
        at_root = excludes.at_root  # (`_Excludes.decide`, one call less for every entry)
        if at_root is None:
            decision = excludes.decide(name, root_prefix)
        else:
            decision = at_root[1].decide(name) if root_prefix is None else at_root[0].decide(root_prefix + name)
        if decision:
            return True
        for patterns, prefix in reversed(layers):
            decision = patterns.decide(prefix + name)
            if decision is not None:
                return decision
        return False

    # layers (of a configuration that respects git's ignore files) --------------------------

    def enter(self, layers: Layers, directory: str, has_git: bool, has_ignore: bool) -> Layers:
        """The layers inside `directory`, given those of its parent already extended by its name
        (`extend`) and whether it holds `.git` and `.gitignore` entries."""
        if has_git:  # a nested repository: its parents' ignore files do not apply
            exclude = self.info_exclude(directory)
            layers = ((exclude, ""),) if exclude else ()
        if has_ignore:
            own = self.ignore_file(directory)
            if own:
                layers += ((own, ""),)
        return layers

    def chain(self, directory: str, excludes: _Excludes) -> tuple[str, list[str], Layers]:
        """For a directory given on the command line: the directory the ignore files start at
        (git root, else the project root when it is above, else the directory itself), the
        names from there down to it, and the layers at that start (found once per directory:
        `fact_files` asks for many files of one directory)."""
        key = (directory, id(excludes))
        if key not in self._chains:
            self._chains[key] = self._chain(directory, excludes)
        start, names, layers = self._chains[key]
        return start, list(names), layers

    def _chain(self, directory: str, excludes: _Excludes) -> tuple[str, list[str], Layers]:
        git_root = self.git_root(directory)
        if git_root is not None:
            start = git_root
        elif excludes.root_prefix(directory) is not None:
            start = excludes.root
        else:
            start = directory
        relative = os.path.relpath(directory, start)
        names = [] if relative == os.curdir else relative.split(os.sep)
        exclude = self.info_exclude(start) if git_root is not None else None
        own = self.ignore_file(start)
        layers = tuple(item for item in ((exclude, ""), (own, "")) if item[0])
        return start, names, layers

    def git_root(self, directory: str) -> str | None:
        """The nearest directory holding `directory` (itself included) that holds `.git`;
        None where none does (each directory looked at once: the 240 directories of a
        module's import closure share most of the way up)."""
        if directory not in self._git_roots:
            parent = os.path.dirname(directory)
            self._git_roots[directory] = directory \
                if os.path.lexists(os.path.join(directory, ".git")) \
                else None if parent == directory else self.git_root(parent)
        return self._git_roots[directory]

    def layers_at(self, directory: str, excludes: _Excludes) -> Layers:
        """The ignore layers that apply inside a directory named on the command line (none
        when its configuration does not respect git's ignore files; made once per
        directory)."""
        if not excludes.gitignore:
            return ()
        key = (directory, id(excludes))
        if key not in self._layers:
            start, names, layers = self.chain(directory, excludes)
            current = start
            for name in names:
                current = os.path.join(current, name)
                layers = self.enter(_extend(layers, name), current, False, True)
            self._layers[key] = layers
        return self._layers[key]

    def path_excluded(self, path: str, is_dir: bool, given: str, excludes: _Excludes) -> bool:
        """force-exclude: whether a named path, or a directory above it (up to the project root
        for excludes, the git root for .gitignore files), is excluded or ignored."""
        prefix = excludes.root_prefix(path)
        suffix = "/" if is_dir else ""
        if prefix is not None:
            parts = prefix.rstrip("/").split("/") if prefix else []
            for index, part in enumerate(parts):
                tail = "/" if index < len(parts) - 1 else suffix
                if excludes.decide(part + tail, "".join(f"{above}/" for above in parts[:index])):
                    return True
        else:
            parts = [part for part in os.path.normpath(given).split(os.sep) if part not in ("", os.curdir, os.pardir)]
            for index, part in enumerate(parts):
                if excludes.decide(part + ("/" if index < len(parts) - 1 else suffix), None):
                    return True
        if not excludes.gitignore or os.path.lexists(os.path.join(path, ".git")):
            return False
        start, names, layers = self.chain(os.path.dirname(path), excludes)
        names = names + [os.path.basename(path)]
        current = start
        for index, name in enumerate(names):
            last = index == len(names) - 1
            if self.excluded_by_layers(name + ("/" if not last or is_dir else ""), layers):
                return True
            if not last:
                current = os.path.join(current, name)
                layers = self.enter(_extend(layers, name), current, False, True)
        return False

    @staticmethod
    def excluded_by_layers(name: str, layers: Layers) -> bool:
        for patterns, prefix in reversed(layers):
            decision = patterns.decide(prefix + name)
            if decision is not None:
                return decision
        return False


def _walk(top_display: str, top: str, config: Config, rules: _Filter, found: Discovery) -> None:
    """Add the lintable files below the directory `top` (shown as `top_display`, with the
    configuration `config`)."""
    found.files += _walked(top_display, top, config, rules, found)


def _walked(top_display: str, top: str, config: Config, rules: _Filter, found: Discovery,
            skip: str | None = None, below: bool = True) -> Iterator[tuple[str, str]]:
    """The lintable files below the directory `top` (shown as `top_display`, with the
    configuration `config`), nearest first (breadth first, each directory's entries by name),
    never inside the directory `skip`, nor (without `below`) in any directory below `top`. A
    directory holding a configuration file of its own is filtered by that configuration's
    excludes, and its files are that configuration's."""
    excluded = rules.excluded
    excludes = rules.excludes_of(config)
    queue = deque([(top_display, top, excludes, excludes.root_prefix(top),
                    rules.layers_at(top, excludes), False)])
    while queue:
        display, directory, excludes, root_prefix, layers, check_own = queue.popleft()
        try:
            with os.scandir(directory) as iterator:
                entries = sorted(iterator, key=lambda entry: entry.name)
        except OSError as error:
            (found.unreadable if directory == top else found.errors).append((display, _reason(error)))
            continue
        if check_own:
            names = {entry.name for entry in entries}
            inner = excludes
            if CONFIG_FILENAME in names or PYPROJECT_FILENAME in names:
                inner = rules.excludes_of(rules.resolver.inside(directory, excludes.config, names))
            if inner.gitignore != excludes.gitignore:  # git's ignore files start to count, or stop
                layers = rules.layers_at(directory, inner)
            elif inner.gitignore and (".git" in names or ".gitignore" in names):
                layers = rules.enter(layers, directory, ".git" in names, ".gitignore" in names)
            if inner is not excludes:  # a configuration of its own, or a project's defaults
                root_prefix = inner.root_prefix(directory)
                excludes = inner
        show = "" if display == os.curdir else display
        found.configs[show] = excludes.config
        prefix = os.path.join(show, "") if show else ""  # what an entry's name is shown after
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)  # a stat where d_type is missing
            except OSError as error:
                found.errors.append((os.path.join(show, name) if show else name, _reason(error)))
                continue
            if is_dir:
                if not below or entry.path == skip or excluded(name + "/", root_prefix, layers,
                                                               excludes):
                    continue
                child_layers = _extend(layers, name) if layers else layers
                queue.append((
                    prefix + name,
                    entry.path,
                    excludes,
                    f"{root_prefix}{name}/" if root_prefix is not None
                    else "" if entry.path == excludes.root else None,  # walking into the root
                    child_layers,
                    True,
                ))
                continue
            language = language_of_name(name) or script_language(entry.path)
            if language is None:
                continue
            if entry.is_symlink():
                try:
                    if entry.is_dir():  # a symlinked directory: never followed
                        continue
                except OSError:
                    pass  # broken or looping: yield it, the engine reports it unreadable
            if excluded(name, root_prefix, layers, excludes):
                continue
            yield prefix + name, language


class ProjectWalk:
    """Walks of a project's directories one at a time, as `discover` would walk them (the
    configurations' excludes and git's ignore files applied, each ignore file read once): for
    the files facts are drawn from (`fact_files`)."""

    def __init__(self, resolver: Resolver):
        self._rules = _Filter(resolver)
        self._directories: dict[str, tuple] = {}  # directory -> excluded, or what applies in it

    def files_in(self, directory: str, skip: str | None = None,
                 below: bool = True) -> Iterator[tuple[str, str]]:
        """(path, language) of the lintable files in the absolute `directory` and, with
        `below`, below it except in `skip`, nearest first. Raises ConfigError for an invalid
        configuration file on the way."""
        config = self._rules.resolver.in_directory(directory)
        yield from _walked(directory, directory, config, self._rules, Discovery(), skip, below)

    def configuration_files(self) -> set[str]:
        """The configuration files the walks read so far (`Resolver.configuration_files`)."""
        return self._rules.resolver.configuration_files()

    def excluded(self, path: str) -> bool:
        """Whether a walk of the project passes over the file at the absolute `path` (its
        directory decided once for all its files). Raises ConfigError for an invalid
        configuration file on the way."""
        directory, name = os.path.split(path)
        inside = self._directories.get(directory)
        if inside is None:
            excludes = self._rules.excludes_of(self._rules.resolver.in_directory(directory))
            inside = self._directories[directory] = (True,) if self._rules.path_excluded(
                directory, True, directory, excludes) else (
                excludes.root_prefix(directory), self._rules.layers_at(directory, excludes),
                excludes)
        return inside == (True,) or self._rules.excluded(name, *inside)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def project_root(paths: Sequence[str], config: Config) -> str:
    """Where the project of `paths` starts: the configuration file's directory; else the git
    work tree holding the first path; else the nearest directory above it whose build files
    start a build (`builds_project`: an unpacked release, a checkout without its `.git`) and
    hold every path; else the deepest directory holding every path (`is_project` tells the
    last two from a project that is walked). (Never the bare working directory, which may
    be a home directory.)"""
    if config.path:
        return config.root
    directories = [
        path if os.path.isdir(path) else os.path.dirname(path)
        for path in (os.path.abspath(path) for path in paths)
    ]
    directory, built = directories[0], None
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        if built is None and builds_project(directory) and all(
                path == directory or path.startswith(os.path.join(directory, ""))
                for path in directories):
            built = directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return built or os.path.commonpath(directories)
        directory = parent


VCS_MARKERS = (".git", ".hg", ".svn", ".jj")
_BUILD_TOPS = (("configure.ac", None), ("configure.in", None),
               ("CMakeLists.txt", re.compile(rb"^[ \t]*project[ \t]*\(", re.MULTILINE | re.IGNORECASE)),
               ("meson.build", re.compile(rb"^[ \t]*project[ \t]*\(", re.MULTILINE)))
"""Build files that start a build: Autoconf's, and CMake's and Meson's that declare the
project (a subdirectory's do not)."""


def builds_project(directory: str) -> bool:
    """Whether `directory` holds the top of a C/C++ build (`_BUILD_TOPS`)."""
    for name, declares in _BUILD_TOPS:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        if declares is None:
            return True
        try:
            if declares.search(read_regular(path, 1 << 20)):
                return True
        except OSError:  # (RefusedFile too: a link, a file too large)
            continue
    return False


def is_project(root: str, config: Config) -> bool:
    """Whether `root` (`project_root`'s answer) is a project whose files are walked for facts:
    a configuration file's directory or a version-controlled tree. Otherwise it is only the
    directory that holds the linted paths (a home directory, /tmp) or the top of a build
    without either (an unpacked release: what the linted files include is found up to it,
    and the files beside them are read, as much as a whole run reads for them, measured)."""
    return bool(config.path) or any(os.path.lexists(os.path.join(root, marker))
                                    for marker in VCS_MARKERS)


def discover(paths: Sequence[str] | None, config: Config | Resolver | None = None) -> Discovery:
    """The files to lint under `paths` (files and directories; default the current directory),
    filtered by the excludes of each one's configuration (`config`: a Resolver, which finds it
    per directory, or one Config for all; default the defaults) and (when on) git's ignore
    files. Raises ConfigError for an invalid configuration file found on the way."""
    resolver = config if isinstance(config, Resolver) else \
        Resolver(None, fixed=config or Config(root=os.path.abspath(os.curdir)))
    rules = _Filter(resolver)
    found = Discovery()
    given_paths = list(paths) if paths else [os.curdir]
    for given in given_paths:
        absolute = os.path.abspath(given) if given else ""
        try:
            os.lstat(absolute)
        except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL byte
            found.missing.append(given)
            continue
        except OSError as error:  # a parent directory that cannot be searched
            found.unreadable.append((given, _reason(error)))
            continue
        display = os.path.normpath(given)
        is_dir = os.path.isdir(absolute)  # a named symlink to a directory is walked
        config = resolver.in_directory(absolute if is_dir else os.path.dirname(absolute))
        if config.force_exclude and rules.path_excluded(absolute, is_dir, given, rules.excludes_of(config)):
            found.skipped.append(given)
            continue
        if is_dir:
            _walk(display, absolute, config, rules, found)
            continue
        language = language_of(absolute) or script_language(absolute)
        if language is None:
            found.skipped.append(given)
        else:
            found.files.append((display, language))
            found.configs[os.path.dirname(display)] = config
    if len(given_paths) > 1:  # overlapping paths ("src" and "src/a.py") name a file twice
        unique: dict[str, tuple[str, str]] = {}
        for item in found.files:
            unique.setdefault(os.path.abspath(item[0]), item)
        found.files = list(unique.values())
    found.files.sort()
    return found
