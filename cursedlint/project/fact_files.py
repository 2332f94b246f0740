"""The project files a run draws facts from when it lints only some of them (files named on
the command line, a pre-commit run).

Not the whole project: in a monorepo, a cold run over one file would read every tree in it.
`FactFiles.reached`: the linted files and what they reach, the modules their imports name and
the headers their includes name (with the sources beside a header that share its name),
transitively, found as Python and the compiler find them. `beside` adds the files in the
linted files' directories: with `reached`, what facts that can only add findings through the
names a linted file calls are drawn from (a wrapper of a registration API, a function that
captures a graph). `nearest` adds, up to `MAX_FILES` in all, the files nearest the linted ones,
which may call into them or set what they run under (the script that sets a start method):
their own directories, then each directory above up to the project root, breadth first, as a
walk of the project lists them. A project smaller than that is taken whole, so a run over some
of its files draws on the same facts as a run over all of them. Where the root is no project (a
home directory), only `beside` is taken. A run whose linted paths hold the project root needs
none of this: the linted files are the project.
"""

from __future__ import annotations

import os
import re
from functools import cache, cached_property
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NamedTuple

from cursedlint.config import CONFIG_FILENAME, PYPROJECT_FILENAME, ConfigError
from cursedlint.project.cache import Stat, file_stat
from cursedlint.project.index import content_digest
from cursedlint.project.discovery import ProjectWalk
from cursedlint.languages import C, C_BUILD_FILES, CPP, PYTHON, language_of, language_of_name
from cursedlint.patterns import LazyPattern
from cursedlint.source import SourceError
from cursedlint.triggers.byte_search import automaton

if TYPE_CHECKING:
    from cursedlint.analysis.includes import IncludePaths

MAX_FILES = 4096
"""Files facts are drawn from besides the linted ones, at most."""

_IMPORT = LazyPattern(
    rb"^[ \t]*(?:from[ \t]+(\.*)([A-Za-z_][A-Za-z0-9_.]*)?[ \t]+import[ \t]*"
    rb"(\([^)]{0,8192}\)|[^\n#;]*)|import[ \t]+([^\n#;]*))", re.MULTILINE)
"""An import statement at the start of a line: `from` (its dots, its module, what it takes), or
`import` (its modules). A docstring's line that looks like one is taken too: it can only add
a file to the facts."""
_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".cu")
_C_LANGUAGES = (C, CPP)


class FactFiles:
    """The files (absolute path, language) facts are drawn from for the `linted` files (path,
    language) of the project at `root`, the linted ones first. `walk`: the project's walk
    (None: `root` is no project, whose other directories are not walked); `read`: a file's
    bytes (None when it cannot be read or is too large); `written`: a file's imports or
    includes as written (`written_edges`), which a run with a store keeps by content, so a
    warm run reads no file it has seen (default: read and scanned); `resolved(path, language,
    resolve)`: the project files a Python file's imports name, `resolve()` giving them with
    the directories whose entries decide them (`Resolution`), which a run with a store keeps
    while those directories do not change (default: resolved every time); `kept(linted,
    reach)`: the `Closure` of the linted files, which a run with a store keeps while nothing it
    was decided by changes (`kept_closures`; default: `reach()`, worked out every time)."""

    def __init__(self, root: str, linted: list[tuple[str, str]], walk: ProjectWalk | None,
                 read: Callable[[str], bytes | None], settings,
                 written: Callable[[str, str], tuple] | None = None,
                 resolved: Callable[[str, str, Callable[[], "Resolution"]], "Resolution"]
                 | None = None,
                 kept: Callable[[list[tuple[str, str]], Callable[[], "Closure"]], "Closure"]
                 | None = None):
        self.root, self.walk, self.read, self.settings = root, walk, read, settings
        self.written = written or (lambda path, language: written_edges(read(path), language))
        self.resolved = resolved or (lambda path, language, resolve: resolve())
        self.kept = kept or (lambda linted, reach: reach())
        self.linted = list(dict.fromkeys((os.path.abspath(path), language)
                                         for path, language in linted))
        self.directories = sorted({os.path.dirname(path) for path, _ in self.linted})
        self.bounded = False  # whether MAX_FILES cut a list short

    @cached_property
    def reached(self) -> list[tuple[str, str]]:
        """The linted files, then what their imports and includes reach, breadth first."""
        closure = self.kept(self.linted, self._reach)
        self.bounded = closure.bounded
        return [tuple(file) for file in closure.files]

    def _reach(self) -> "Closure":
        files = list(self.linted)
        seen = {path for path, _ in files}
        reach = _Reach(self.root, self.walk, self.read, self.settings, self.written,
                       self.resolved)
        index = 0
        while index < len(files) and len(files) - len(self.linted) < MAX_FILES:
            for target in reach.targets(*files[index]):
                if target[0] not in seen and len(files) - len(self.linted) < MAX_FILES:
                    seen.add(target[0])
                    files.append(target)
            index += 1
        return Closure(files, index < len(files), reach.decided)

    @cached_property
    def beside(self) -> list[tuple[str, str]]:
        """`reached`, then the files beside the linted ones (in their directories, not
        below): where what a file calls is defined, when no include names it (a C wrapper
        declared in a header of another name), with the headers those files include,
        transitively (their facts are read with them: a caller's `sizeof` of a struct of its
        own header). Enough for facts that can only add findings through the names a linted
        file calls."""
        return self._with_headers(self._filled([_listed(
            lambda directory=directory: self._files_in(directory, below=False))
            for directory in self.directories]))

    @cached_property
    def nearest(self) -> list[tuple[str, str]]:
        """`reached`, then the files nearest the linted ones (see the module docstring), up
        to MAX_FILES besides the linted ones: for facts about what calls into a linted file or
        sets what it runs under."""
        if self.walk is None:
            return self.beside
        return self._filled([_outward(directory, self.root, self.walk.files_in)
                             for directory in self.directories])

    def _with_headers(self, files: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """`files`, then the headers the C/C++ ones after `reached` include, transitively
        (not the sources beside those headers), up to MAX_FILES besides the linted ones."""
        seen = {path for path, _ in files}
        reach = _Reach(self.root, self.walk, self.read, self.settings, self.written,
                       self.resolved)
        index = len(self.reached)
        while index < len(files):
            path, language = files[index]
            for target in reach.targets(path, language, sources=False) \
                    if language in _C_LANGUAGES else ():
                if target[0] not in seen:
                    if len(files) - len(self.linted) >= MAX_FILES:
                        self.bounded = True
                        return files
                    seen.add(target[0])
                    files.append(target)
            index += 1
        return files

    def _files_in(self, directory: str, skip: str | None = None,
                  below: bool = True) -> Iterable[tuple[str, str]]:
        if self.walk is None:
            return _beside(directory)
        return self.walk.files_in(directory, skip, below)

    def _filled(self, walks: list[Iterator[tuple[str, str]]]) -> list[tuple[str, str]]:
        files = list(self.reached)
        seen = {path for path, _ in files}
        for path, language in _round_robin(walks):
            if len(files) - len(self.linted) >= MAX_FILES:
                self.bounded = True
                break
            if path not in seen:
                seen.add(path)
                files.append((path, language))
        return files


def _outward(directory: str, root: str, files_in) -> Iterator[tuple[str, str]]:
    """The files nearest `directory`: its own, then those below it, then those of each
    directory above it up to `root`, each walked once (`files_in(directory, skip)`)."""
    skip = None
    while True:
        yield from _listed(lambda: files_in(directory, skip))
        if directory == root or os.path.dirname(directory) == directory or \
                not directory.startswith(os.path.join(root, "")):
            return
        skip, directory = directory, os.path.dirname(directory)


def _listed(files: Callable[[], Iterable[tuple[str, str]]]) -> Iterator[tuple[str, str]]:
    """The files of one walk, with absolute paths; none past an invalid configuration file
    (the run that lints its files reports it) or a directory that cannot be listed."""
    try:
        for path, language in files():
            yield os.path.abspath(path), language
    except (ConfigError, OSError):
        return


def _beside(directory: str) -> Iterator[tuple[str, str]]:
    """The files of a kind cursedlint lints in `directory` (not below), by name."""
    with os.scandir(directory) as entries:
        for entry in sorted(entries, key=lambda entry: entry.name):
            language = language_of_name(entry.name)
            if language and entry.is_file(follow_symlinks=False):
                yield entry.path, language


def _round_robin(iterators: list[Iterator]) -> Iterator:
    """One item of each iterator in turn, until all are done."""
    while iterators:
        for iterator in list(iterators):
            item = next(iterator, None)
            if item is None:
                iterators.remove(iterator)
            else:
                yield item


class Resolution(NamedTuple):
    """The project files a Python file's imports name (before the walk's exclusions), and the
    directories whose entries decide them: while none of those changes (its mtime), nor the
    file, the same imports name the same files."""

    files: list[str]
    directories: set[str]


class Closure(NamedTuple):
    """What the linted files reach (`FactFiles.reached`): the files, whether `MAX_FILES` cut
    them short, and the directories whose entries decided where an import or include leads."""

    files: list[tuple[str, str]]
    bounded: bool
    decided: set[str]


class _Listings(dict):
    """Directory -> its entries' kinds (name -> "dir", "file" or "other", links followed), each
    directory listed once per run (none for a directory that is not there; None where one
    cannot be listed): resolving 1,500 modules' imports asked `os.stat` 21,000 times for a
    few hundred directories."""

    def kind(self, path: str) -> str | None:
        """What `path` is ("dir", "file", "other"; None: nothing there, or not listable)."""
        return self.kind_in(*_split(path), path)

    def kind_in(self, directory: str, name: str, path: str) -> str | None:
        """`kind` of `path`, which is `name` in `directory` (as `os.path.split` splits it)."""
        entries = self.get(directory, _UNLISTED)
        if entries is _UNLISTED:
            entries = self[directory] = _entries(directory)
        if entries is None:  # (a directory one may search but not list)
            return "dir" if os.path.isdir(path) else "file" if os.path.isfile(path) else None
        return entries.get(name)


def _split(path: str) -> tuple[str, str]:
    """`os.path.split` of a path (a string method where the head needs no stripping: the
    probes of an import closure split 12,000 paths)."""
    head, sep, tail = path.rpartition("/")
    if not head or head.endswith("/") or sep != os.sep:
        return os.path.split(path)
    return head, tail


_UNLISTED = object()


def _entries(directory: str) -> dict[str, str] | None:
    try:
        with os.scandir(directory or ".") as listing:
            return {entry.name: _kind(entry) for entry in listing}
    except (FileNotFoundError, NotADirectoryError):  # (no module there: most probes)
        return {}
    except OSError:
        return None


def _kind(entry: os.DirEntry) -> str:
    try:
        return "dir" if entry.is_dir() else "file" if entry.is_file() else "other"
    except OSError:  # a link that leads nowhere
        return "other"


class _Probe:
    """`os.path`'s existence tests, answered from the run's `listings`, noting the directories
    whose entries they read."""

    def __init__(self, listings: _Listings, directories: set[str] | None = None):
        self.listings = listings
        self.directories: set[str] = set() if directories is None else directories

    def isdir(self, path: str) -> bool:
        directory, name = _split(path)
        self.directories.add(directory)
        return self.listings.kind_in(directory, name, path) == "dir"

    def isfile(self, path: str) -> bool:
        directory, name = _split(path)
        self.directories.add(directory)
        return self.listings.kind_in(directory, name, path) == "file"


class _Reach:
    """What one file's imports or includes name in the project: existing files within the
    root that a walk of the project would list."""

    def __init__(self, root: str, walk: ProjectWalk | None, read, settings, written, resolved):
        self.root = root
        self.written = written
        self.resolved = resolved
        self.within = os.path.join(root, "")
        self.walk = walk
        self.read = read
        self.settings = settings
        self._include_paths: IncludePaths | None = None
        self._modules: dict[tuple, tuple[tuple[list[str], str | None], set[str]]] = {}
        self._bases: dict[str, tuple[tuple[str, ...], set[str]]] = {}  # directory -> bases, read
        self._listed: dict[str, str | None] = {}  # (each asked once: many import one module)
        self._edges: dict[tuple, tuple[list[str], set[str]]] = {}
        """(the importing file's directory for a relative import, else its bases; the import
        as written) -> the files it names and the directories that decided them: the 1,500
        modules a file importing torch reaches write 21,000 imports, 7,600 of them apart."""
        self._read: set[str] = set()  # the directories the resolution of one file read
        self.decided: set[str] = set()  # the directories every resolution read
        self.listings = _Listings()

    def targets(self, path: str, language: str, sources: bool = True) -> list[tuple[str, str]]:
        """What the file's imports or includes name (`sources`: with the sources beside a
        header that share its name)."""
        if language == PYTHON:
            resolution = self.resolved(path, language, lambda: self._resolve(path))
            found = resolution.files
            self.decided |= resolution.directories
        elif language in _C_LANGUAGES:
            found = _c_targets(path, self.written(path, language), self.include_paths(),
                               _Probe(self.listings, self.decided), sources)
        else:
            return []
        return [(target, language) for target in dict.fromkeys(found)
                if (language := self.listed(target))]

    def _resolve(self, path: str) -> Resolution:
        from cursedlint.analysis.python_modules import import_bases  # (a run that resolves)

        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._bases:  # (the same for every module of a directory)
            probe = _Probe(self.listings)
            self._bases[directory] = import_bases(path, self.root, probe), probe.directories
        bases, read = self._bases[directory]
        self._read = set(read)
        found: list[str] = []
        within = os.path.dirname(path)  # (where a relative import starts)
        for edge in self.written(path, PYTHON):
            key = (within if edge[0] else bases, edge)
            known = self._edges.get(key)
            if known is None:
                outer, self._read = self._read, set()
                known = self._edges[key] = (
                    _python_targets(within, edge, self.module, bases), self._read)
                self._read = outer
            self._read |= known[1]
            found += known[0]
        return Resolution(found, self._read)

    def module(self, bases: tuple[str, ...], name: str,
               whole: bool = False) -> tuple[list[str], str | None]:
        """`python_modules.module_files`, looked up once per run (the directories it read
        count for the file being resolved)."""
        key = (bases, name, whole)
        known = self._modules.get(key)
        if known is None:
            from cursedlint.analysis.python_modules import module_files

            probe = _Probe(self.listings)
            known = self._modules[key] = module_files(bases, name, whole, probe), \
                probe.directories
        self._read |= known[1]
        return known[0]

    def listed(self, path: str) -> str | None:
        """The file's language where a walk of the project would list it (asked once per
        file)."""
        if path not in self._listed:
            self._listed[path] = self._lists(path)
        return self._listed[path]

    def _lists(self, path: str) -> str | None:
        language = language_of(path)
        if not language or not path.startswith(self.within) or \
                self.listings.kind(path) != "file":
            return None
        try:
            return language if self.walk is None or not self.walk.excluded(path) else None
        except (ConfigError, OSError):
            return None

    def include_paths(self) -> IncludePaths:
        """The include search paths of the compilation database or `include-dirs`."""
        if self._include_paths is None:
            from cursedlint.analysis.includes import IncludePaths, compile_database

            database = None
            if self.settings.compile_commands:
                try:
                    data = self.read(self.settings.compile_commands)
                    database = compile_database(data) if data else None
                except (SourceError, ValueError):
                    database = None
            self._include_paths = IncludePaths((), database, self.settings.include_dirs,
                                               self.root)
        return self._include_paths


class _Edges:
    """How the store keeps each file's `written_edges` (by content hash), beside the
    indexers' summaries."""

    name = "written-imports-and-includes"
    summary_type = tuple[tuple[str, ...], ...]
    apart = True
    """(Kept in a store of its own, with `_Resolved`'s: every reached file's, 3.3 of the 4.3 MB
    of a pre-commit run's over a file importing torch, which only resolving imports again
    reads; a run whose kept closure holds reads none of it, and one over an edited file need
    not write it again.)"""


EDGES = _Edges()


class _Resolved:
    """How the store keeps a Python file's `Resolution` (by its path and content hash), with
    the stamps of the directories that decide it."""

    name = "resolved-imports"
    summary_type = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
    apart = True  # (as `_Edges`')


RESOLVED = _Resolved()


def stored_resolutions(store, read: Callable[[str], bytes | None],
                       stat: Callable[[str], Stat | None] = file_stat):
    """`FactFiles.resolved` for a run with an IndexStore: a Python file's `Resolution` is
    kept by its path and content hash with the stamps of the directories that decide it
    (`_directory_stamp`), and taken again while each directory has the same (`stat`: the
    run's, shared with the result cache and the index)."""
    stamped: dict[str, str] = {}

    def stamp(directory: str) -> str:
        if directory not in stamped:
            stamped[directory] = _directory_stamp(directory)
        return stamped[directory]

    def resolved(path: str, language: str, resolve: Callable[[], Resolution]) -> Resolution:
        digest, _ = store.content(path, stat(path), read)
        if digest is None:
            return resolve()
        key = f"{digest}:{path}"
        stored, kept = store.get(RESOLVED, key)
        if stored and all(stamp(directory) == was for directory, was in kept[1]):
            return Resolution(list(kept[0]), {directory for directory, _ in kept[1]})
        found = resolve()
        store.put(RESOLVED, key, (tuple(found.files), tuple(
            (directory, stamp(directory)) for directory in sorted(found.directories))))
        return found

    return resolved


class _Closures:
    """How the store keeps a `Closure` (by its linted files and the settings that decide it),
    with what proves it still holds (`kept_closures`)."""

    name = "reached-closures"
    max_stored = 32
    """(Each holds a stat per file reached: 1,500 of them for a module importing torch.)"""
    summary_type = tuple[
        tuple[tuple[str, str], ...],  # the files reached
        bool,  # bounded
        tuple[tuple[str, str, tuple[tuple[str, ...], ...], str], ...],  # linted: edges, hash
        tuple[tuple[str, Stat], ...],  # the other files' and the configuration files' stats
        # directories' stamps (with importable entries?), and what tells them unchanged unread
        tuple[tuple[str, bool, str,
                    tuple[Stat | None, tuple[tuple[str, Stat | None], ...]] | None], ...],
    ]


CLOSURES = _Closures()


def kept_closures(store, root: str, written: Callable[[str, str], tuple], settings_key: str,
                  configuration_files: Callable[[], Iterable[str]],
                  stat: Callable[[str], Stat | None] = file_stat,
                  read_edges: Callable[[str, str], tuple] | None = None):
    """`FactFiles.kept` for a run with an IndexStore: the closure of some linted files is
    kept by their paths and `settings_key` (the settings that decide it) with what it was
    decided by, and taken again while all of that is unchanged: the linted files' imports and
    includes as written (`written`: an edited file that names the same modules reaches the
    same files), the stats of the other files reached and of the configuration files the run
    read (`configuration_files()`), the importable entries of the directories that decided
    where an import or include leads, and the configuration and ignore files of every reached
    file's directory and those above it (what decides which files the walk excludes). A warm
    pre-commit run then checks stats and directory entries instead of following 1,500 modules'
    imports again. (A kept file outside `root`, which no closure reaches, is a store written
    by something else: not taken.) `stat`: the run's, which the index asks again;
    `read_edges`: the linted files' `written_edges` read from them (default `written`): what
    tells the closure still holds need not load the edges the store keeps of every file."""
    within = os.path.join(root, "")
    read_edges = read_edges or written

    def kept(linted: list[tuple[str, str]], reach: Callable[[], Closure]) -> Closure:
        key = content_digest(repr((settings_key, linted)).encode("utf-8", "surrogateescape"))
        stored, proof = store.get(CLOSURES, key)
        if stored and all(path.startswith(within) for path, _ in proof[0][len(linted):]) \
                and _still_holds(proof, read_edges, stat, store):
            return Closure([tuple(file) for file in proof[0]], proof[1], set())
        closure = reach()
        proof = _proof(closure, linted, written, configuration_files(), stat, store)
        if proof is not None:
            store.put(CLOSURES, key, proof)
        return closure

    return kept


def _proof(closure: Closure, linted, written, configuration_files: Iterable[str],
           stat: Callable[[str], Stat | None], store):
    """What `kept_closures` keeps of `closure`; None when a stat cannot be trusted yet."""
    stats = []
    for path in [path for path, _ in closure.files[len(linted):]] + sorted(configuration_files):
        known = stat(path)
        if known is None:
            return None
        stats.append((path, known))
    around: set[str] = set()  # each reached file's directory and those above it
    for path, _ in closure.files:
        directory = os.path.dirname(path)
        while directory not in around:
            around.add(directory)
            directory = os.path.dirname(directory)
    stamps = tuple((directory, directory in closure.decided,
                    *_stamped(directory, directory in closure.decided))
                   for directory in sorted(around | closure.decided))
    edges = tuple((path, language, written(path, language),
                   store.known_digest(path, stat(path)) or "") for path, language in linted)
    return tuple(closure.files), closure.bounded, edges, tuple(stats), stamps


def _still_holds(proof, written, stat: Callable[[str], Stat | None], store) -> bool:
    """Whether nothing a kept closure was decided by has changed (`kept_closures`): a linted
    file whose content hash (known by its stat) is the one it had imports what it imported."""
    _, _, edges, stats, stamps = proof
    return (all(stat(path) == was for path, was in stats)
            and all(_unchanged(directory, importable, stamp, unread)
                    for directory, importable, stamp, unread in stamps)
            and all((digest and store.known_digest(path, stat(path)) == digest)
                    or written(path, language) == was for path, language, was, digest in edges))


def _stamped(directory: str, importable: bool):
    """The directory's `_directory_stamp` (with the deciding files) and what tells it
    unchanged without listing it (`_unchanged`): its own stat, which every entry added,
    removed or renamed changes, with those of its deciding files, whose content decides
    too; None where no stat can be trusted yet or an entry is a symbolic link (whose target
    may change kind with the directory's stat unchanged). An absent directory: (None, ()),
    unchanged while it stays absent."""
    if not os.path.lexists(directory):
        return _directory_stamp(directory, importable, True), (None, ())
    before = file_stat(directory)
    stamp, deciding = _directory_stamp(directory, importable, True, with_deciding=True)
    if before is None or deciding is None or file_stat(directory) != before:
        return stamp, None
    stats = tuple((path, file_stat(path) if os.path.lexists(path) else None)
                  for path in deciding)
    if any(known is None and os.path.lexists(path) for path, known in stats):
        return stamp, None
    return stamp, (before, stats)


def _unchanged(directory: str, importable: bool, stamp: str, unread) -> bool:
    """Whether a directory of a kept closure has the same `_directory_stamp`: its stat and
    its deciding files' stats the same (`_stamped`), else listed again."""
    if unread is not None and unread[0] is None:  # (absent)
        if not os.path.lexists(directory):
            return True
    elif unread is not None and file_stat(directory) == unread[0] and all(
            (file_stat(path) if os.path.lexists(path) else None) == was
            for path, was in unread[1]):
        return True
    return _directory_stamp(directory, importable, True) == stamp


_IMPORTABLE = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*(?:\.py)?")
_DECIDING = frozenset({CONFIG_FILENAME, PYPROJECT_FILENAME, ".gitignore", *C_BUILD_FILES})
"""Files whose content decides which files a walk excludes (with `.git`, whose presence does),
or where a C/C++ include is found (a build file's `-I`)."""


def _directory_stamp(directory: str, importable: bool = True, deciding: bool = False,
                     with_deciding: bool = False):
    """The entries of a directory that an import can name (packages, modules), each marked
    as directory or file, and with `deciding` the configuration and ignore files (with their
    stats) and whether it holds `.git` (and its `info/exclude`), hashed ("" where none can be
    listed). Not its mtime: a cache or build directory made at the project's root changes
    that, never an import. `with_deciding`: (the stamp, the paths of the deciding files whose
    stats it holds; None where an importable entry is a symbolic link or none can be
    listed)."""
    import hashlib  # (only a run with a store needs it)

    names = []
    paths: list[str] | None = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if deciding and name in _DECIDING:  # (`Makefile` is importable too)
                    names.append(f"{name}:{file_stat(entry.path)}")
                    if paths is not None:
                        paths.append(entry.path)
                elif importable and _IMPORTABLE.fullmatch(name):
                    names.append(name + "/" * entry.is_dir())
                    if paths is not None and entry.is_symlink():
                        paths = None
                elif deciding and name == ".git":
                    exclude = os.path.join(entry.path, 'info', 'exclude')
                    names.append(f".git:{file_stat(exclude)}")
                    if paths is not None:
                        paths.append(exclude)
    except OSError:
        return ("", None) if with_deciding else ""
    stamp = hashlib.sha1("\0".join(sorted(names)).encode("utf-8", "surrogateescape")).hexdigest()
    return (stamp, paths) if with_deciding else stamp


def written_edges(data: bytes | None, language: str) -> tuple[tuple[str, ...], ...]:
    """A file's imports as written (Python: (dots, module, what a `from` takes, what an
    `import` lists)) or includes ((`"` or `<`, name)); none for a file that cannot be read."""
    if not data:
        return ()
    if language == PYTHON:
        return tuple((dots.decode(), module.decode(), taken.decode("utf-8", "replace"),
                      modules.decode("utf-8", "replace"))
                     for dots, module, taken, modules in _written_imports(data))
    if language in _C_LANGUAGES:
        from cursedlint.analysis.includes import written_includes

        return tuple((kind.decode(), name.decode("utf-8", "replace"))
                     for kind, name in written_includes(data))
    return ()


def _written_imports(data: bytes) -> list[tuple[bytes, ...]]:
    """What `_IMPORT.findall` gives, tried only at the start of the lines that hold `import`
    (every match's first line does): the pattern, anchored at each line's start, was tried at
    every byte (1,500 modules of torch: 0.3 s of a cold pre-commit run's 1.3 s). The word is
    found by an automaton: `bytes.find` in a loop took 23 ms over those modules, it 5 ms."""
    found: list[tuple[bytes, ...]] = []
    end = tried = -1
    for _, at, _ in _import_word().find_matches_as_indexes(data):
        start = data.rfind(b"\n", 0, at) + 1
        if start > tried and start >= end:
            tried = start
            match = _IMPORT.match(data, start)
            if match:
                found.append(match.groups(b""))
                end = match.end()
    return found


@cache
def _import_word():
    """The automaton that finds each `import` of a file (which cannot overlap another)."""
    return automaton([b"import"])


def _python_targets(directory: str, edge: tuple[str, ...], module,
                    bases: tuple[str, ...]) -> list[str]:
    """The project files importing the modules one import names runs (`edge`, as
    `written_edges` gives it, in a file of `directory`): each package's `__init__.py` on the
    way and the module (`module`: `python_modules.module_files`): relative imports from the
    file's package, others from its `import_bases`, `bases`."""
    dots, written, taken, modules = edge
    found: list[str] = []
    if not dots and not written:  # import a.b, c
        for name in _names(modules):
            found += module(bases, name)[0]
        return found
    if dots:
        base = directory
        for _ in range(len(dots) - 1):
            base = os.path.dirname(base)
        files, package = module((base,), written) if written else \
            ([os.path.join(base, "__init__.py")], base)
    else:
        files, package = module(bases, written)
    found += files
    for name in _names(taken.strip("()")) if package else ():  # from package import module
        found += module((package,), name, whole=True)[0]
    return found


def _names(text: str) -> list[str]:
    """The dotted names an import lists (`a.b as c, d` -> a.b, d)."""
    names = []
    for part in text.split(","):
        match = _NAME.match(part.strip())
        if match:
            names.append(match.group())
    return names


def _c_targets(path: str, edges, paths: IncludePaths, probe=os.path,
               sources: bool = True) -> list[str]:
    """The project headers the file's includes name, found as the compiler finds them (the
    compilation database or `include-dirs`; else beside a `"..."` include's file, then in
    the directories its build files name, then beside the file and in each directory above
    it up to the root and its `include`: `IncludePaths.searched`, `nearby`), and the source
    files beside each header that share its name (`ring.h`: `ring.c`), which define what it
    declares (not without `sources`). `probe`: what tells whether a path is a file (`_Probe`
    notes the directories read)."""
    from cursedlint.analysis.includes import DECIDED

    flags = paths.flags(path)
    found = []
    for kind, name in edges:
        header = paths.searched(name, kind == '"', path, flags, probe)
        if header is None:
            header = paths.nearby(name, path, probe)
        if header is None or header is DECIDED:
            continue
        found.append(header)
        stem = os.path.splitext(header)[0]
        found += [stem + suffix for suffix in _SOURCE_SUFFIXES * sources
                  if probe.isfile(stem + suffix)]
    return found
