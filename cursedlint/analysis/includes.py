"""The project headers a C/C++ file includes, found as the compiler finds them, read through the
project index.

Where an include is looked for, per file: the compilation database (`compile_commands.json`:
the file's `-iquote`, `-I` and `-isystem` directories and its `-D` macros) when it lists the
file; else the `include-dirs` setting (as `-I`); else the directories the build files of the
file's directory and those above it name (`C_BUILD_FILES`: Automake's and Make's `-I`, CMake's
and Meson's `include_directories`), nearest first; else the project's own headers whose path
ends with the include's (`<x/y.h>` is `include/x/y.h`, `src/x/y.h`, any project directory
ending so; among several, one under an `include` directory, else the one nearest the including
file; a tie stays unresolved). A `"..."` include is first looked for beside the file that
includes it. A run over some files, which has no list of the project's files, looks for the
last where the walk up from the file finds it (`IncludePaths.nearby`).
Headers found in an `-isystem` directory, and headers outside the project's files (the
system's, an excluded directory's), are not read.

Headers are read, parsed and summarised through the project index (`HeaderSummaries`: its
includes and its text without function bodies), so each is parsed once per run, memoized by
content hash, persisted with the index and part of the run's fingerprint: a cached result that
relied on a header is not reused once the header changes. A header is parsed in its own language
(as the lint reads it: `.h` is C++), so the lint's parse of a header serves its summary too;
the headers the lint did not parse are summarized in forked processes, all at once.
"""

from __future__ import annotations

import os
import re
from msgspec import Struct
from functools import cache
from typing import Any, Callable, Iterable, Iterator
from weakref import WeakKeyDictionary

from cursedlint.languages import C, C_BUILD_FILES, CPP
from cursedlint.patterns import LazyPattern
from cursedlint.project.index import FactPass, Indexer
from cursedlint.source import SourceError

_INCLUDE = LazyPattern(rb'#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')
"""An include directive from its `#`, which `written_includes` finds first at a line's start."""


def written_includes(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(`<` or `"`, name) of each `#include` line of a file, in order. (The search starts at
    each `#`, then looks back for blanks alone before it on its line: a pattern anchored at
    each line's start tried every byte, 0.37 s of a 50 MB file, read four times a run.)"""
    for match in _INCLUDE.finditer(data):
        start = match.start()
        if not data[data.rfind(b"\n", 0, start) + 1:start].strip(b" \t"):
            yield match.groups()


_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_MACRO = LazyPattern(r"[A-Za-z_]\w*(?:\([\w\s,.]*\))?")
MAX_HEADERS = 256
"""Headers followed from one file (its includes and theirs)."""
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh")
"""Files the lint summarizes as headers when it parses them (others are summarized by the
index when an include names them)."""


class CompileFlags(Struct, frozen=True):
    """What one compile command says about includes: directories in search order, and macros."""

    quote_dirs: tuple[str, ...] = ()  # -iquote: for "..." only, after the file's directory
    dirs: tuple[str, ...] = ()  # -I, then -isystem, in the compiler's order
    system_dirs: frozenset[str] = frozenset()  # those of `dirs` given by -isystem: not read
    defines: tuple[tuple[str, str], ...] = ()  # -D NAME[=VALUE], in order


class HeaderSummary(Struct, frozen=True):
    """A header as the files including it need it: its includes (`<` or `"`, name) and its
    text with function bodies left out (declarations, macros, types and enums stay)."""

    includes: tuple[tuple[str, str], ...]
    text: str


class Included(Struct, frozen=True):
    """What a file sees from the project besides its own text: the headers it includes,
    transitively, each after the ones it includes ((path, text) in include order), and the `-D`
    macros of its compile command."""

    headers: tuple[tuple[str, str], ...]
    defines: tuple[tuple[str, str], ...]


# -- the compilation database ---------------------------------------------------------------------


def compile_flags(arguments: list[str], directory: str) -> CompileFlags:
    """The include directories and macros of one compile command's arguments (relative
    directories are the command's `directory`'s)."""
    quote_dirs: list[str] = []
    dirs: list[str] = []
    system_dirs: list[str] = []
    defines: list[tuple[str, str]] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        for flag, target in (("-iquote", quote_dirs), ("-isystem", system_dirs), ("-I", dirs),
                             ("-D", defines)):
            if not argument.startswith(flag):
                continue
            value = argument[len(flag):]
            if not value and index + 1 < len(arguments):
                index += 1
                value = arguments[index]
            if not value:
                break
            if flag == "-D":
                name, _, body = value.partition("=")
                if _MACRO.fullmatch(name) and "\n" not in body:
                    defines.append((name, body if "=" in value else "1"))
            else:
                target.append(os.path.normpath(os.path.join(directory, value)))
            break
        index += 1
    return CompileFlags(tuple(quote_dirs), tuple(dirs + system_dirs), frozenset(system_dirs),
                        tuple(defines))


def compile_database(data: bytes) -> dict[str, CompileFlags]:
    """File path -> its flags, from the bytes of a `compile_commands.json` (entries of another
    shape, and a file that is not such a list, give nothing)."""
    return dict(_database(_digest(data), data))


@cache
def _database(_digest: bytes, data: bytes) -> tuple[tuple[str, CompileFlags], ...]:
    import json  # (only runs with a compilation database need it)

    try:
        entries = json.loads(data)
    except (ValueError, RecursionError):
        return ()
    found = []
    for entry in entries if isinstance(entries, list) else ():
        parsed = _entry(entry) if isinstance(entry, dict) else None
        if parsed is not None:
            found.append(parsed)
    return tuple(found)


def _entry(entry: dict) -> tuple[str, CompileFlags] | None:
    directory, file = entry.get("directory"), entry.get("file")
    if not isinstance(directory, str) or not isinstance(file, str) or "\0" in directory + file:
        return None
    import shlex

    arguments = entry.get("arguments")
    if not (isinstance(arguments, list) and all(isinstance(item, str) for item in arguments)):
        command = entry.get("command")
        try:
            arguments = shlex.split(command) if isinstance(command, str) else None
        except ValueError:  # unbalanced quotes
            arguments = None
    if arguments is None:
        return None
    directory = os.path.abspath(directory)
    return os.path.normpath(os.path.join(directory, file)), compile_flags(arguments, directory)


# -- the build files' include directories -------------------------------------------------------

MAX_BUILD_FILE = 1 << 20
_MAKE_FLAG = LazyPattern(rb"(?<![\w-])-I[ \t]*([^\s'\"\\;]+)")
_DIRECTORIES_CALL = LazyPattern(rb"\b(target_)?include_directories[ \t]*\(([^)]*)\)",
                                re.IGNORECASE)
_GENERATOR = LazyPattern(r"\$<BUILD_INTERFACE:([^>]*)>")
_WORD = LazyPattern(r"""'([^']*)'|"([^"]*)"|([^\s'",]+)""")
_CMAKE_WORDS = frozenset({"SYSTEM", "BEFORE", "AFTER", "PUBLIC", "PRIVATE", "INTERFACE"})
_BUILD_SYSTEMS = {"Makefile.am": "automake", "Makefile.include": "automake", "Makefile": "make",
                  "GNUmakefile": "make", "CMakeLists.txt": "cmake", "meson.build": "meson"}
"""The build system each of `C_BUILD_FILES` belongs to."""
_HERE = ("$(srcdir)", "$(abs_srcdir)", "@srcdir@", "$(CURDIR)")
_CURRENT = ("${CMAKE_CURRENT_SOURCE_DIR}", "${CMAKE_CURRENT_LIST_DIR}")
_TOP = ("$(top_srcdir)", "$(abs_top_srcdir)", "@top_srcdir@", "$(top_builddir)",
        "${CMAKE_SOURCE_DIR}", "${PROJECT_SOURCE_DIR}")


def build_include_dirs(path: str, data: bytes, above: tuple[str, ...],
                       targets: bool = False) -> list[str]:
    """The directories the build file at `path` names as include directories for its
    directory (`-I`, CMake's and Meson's `include_directories`), or with `targets` those
    CMake's `target_include_directories` name for one target (whose sources are not read):
    relative ones and CMake's current directory's are its directory's; `$(top_srcdir)`'s and
    the project's are looked for in each directory of `above` (those above it, nearest first:
    an Automake fragment's top is its includer's), as is a Make `$(srcdir)` after its own. One
    naming another variable is left out. Whether each exists is the caller's to ask."""
    directory = os.path.dirname(path)
    written: list[str] = []
    if os.path.basename(path) in ("CMakeLists.txt", "meson.build"):
        for match in _DIRECTORIES_CALL.finditer(data):
            if bool(match.group(1)) != targets:
                continue
            words = [next(filter(None, word), "") for word in _WORD.findall(
                _GENERATOR.sub(r"\1", os.fsdecode(match.group(2))))]
            written += [word for word in (words[1:] if targets else words)  # (the target)
                        if word not in _CMAKE_WORDS]
    elif targets:
        return []
    else:
        written = [os.fsdecode(match.group(1)) for match in _MAKE_FLAG.finditer(data)]
    found = []
    for word in written:
        bases: tuple[str, ...] = (directory,)
        for prefixes, named in ((_HERE, (directory, *above)), (_CURRENT, (directory,)),
                                (_TOP, (directory, *above))):
            prefix = next((prefix for prefix in prefixes if word.startswith(prefix)), None)
            if prefix is not None:
                word, bases = word[len(prefix):].lstrip("/"), named
                break
        if "$" in word or "@" in word or "\0" in word or os.path.isabs(word):
            continue
        found += [os.path.normpath(os.path.join(base, word)) for base in bases]
    return list(dict.fromkeys(found))


# -- resolving one include ------------------------------------------------------------------------


class IncludePaths:
    """Where the includes of the project's files are found (see the module docstring).
    `root`: the project's root, up to which build files are read."""

    def __init__(self, files: Iterable[str], database: dict[str, CompileFlags] | None,
                 include_dirs: tuple[str, ...], root: str | None = None):
        self.files = frozenset(files)
        self.database = database or {}
        self.fallback = CompileFlags(dirs=include_dirs)
        self.root = root
        self._by_name: dict[str, list[str]] | None = None
        self._resolved: dict[tuple, str | None] = {}
        self._built: dict[str, tuple] = {}  # directory -> `_built_dirs`
        self._searched: dict[tuple, object] = {}  # (name, quoted, directory, flags) -> found
        self._nearby: dict[tuple[str, str], str | None] = {}  # (name, directory) -> found

    def flags(self, path: str) -> CompileFlags:
        return self.database.get(path, self.fallback)

    def resolve(self, name: str, quoted: bool, including: str, flags: CompileFlags) -> str | None:
        """The project header `#include "name"` (`quoted`) or `<name>` in file `including`
        reads; None when it is a system header, not in the project, or not known."""
        key = (name, quoted, including, flags)
        if key not in self._resolved:
            found = self.searched(name, quoted, including, flags)
            if found is DECIDED:
                found = None
            elif found is not None:
                found = found if found in self.files else None
            else:
                found = self._by_suffix(os.path.normpath(name), including)
            self._resolved[key] = found
        return self._resolved[key]

    def searched(self, name: str, quoted: bool, including: str, flags: CompileFlags,
                 probe=os.path):
        """The header the compiler's search finds for an include (None: not found, to be
        looked for elsewhere; `DECIDED`: the database or `include-dirs` decide that it is
        none of the project's, or an `-isystem` one): beside the including file for a
        `"..."` one, then in the command's directories, else in those the build files name
        (`built_dirs`). `probe`: what tells a file (or directory) there (each answer is kept
        for the including file's directory: the files of one directory include the same
        system headers, each looked for in every build directory)."""
        if os.path.isabs(name) or "\0" in name:
            return DECIDED
        key = (name, quoted, os.path.dirname(including), flags)
        found = self._searched.get(key)
        if found is None:
            found = self._searched[key] = self._search(name, quoted, including, flags, probe)
        return None if found is _NOT_FOUND else found

    def _search(self, name: str, quoted: bool, including: str, flags: CompileFlags, probe):
        searched = ((os.path.dirname(including),) + flags.quote_dirs) if quoted else ()
        decided = bool(flags.dirs) or flags is not self.fallback
        if not decided:
            searched += self.built_dirs(os.path.dirname(including), probe)
        for directory in searched + flags.dirs:
            candidate = os.path.normpath(os.path.join(directory, name))
            if probe.isfile(candidate):
                return DECIDED if directory in flags.system_dirs else candidate
        return DECIDED if decided else _NOT_FOUND

    def built_dirs(self, directory: str, probe=os.path) -> tuple[str, ...]:
        """The existing directories the build files (`C_BUILD_FILES`) of `directory` and of
        each directory above it up to the root name as include directories, nearest first,
        within the root (its own alone where it is not within the root); those one target
        names (CMake's `target_include_directories`) after every directory's. A directory
        above is taken only while its build files are of the same build system as the
        nearest ones below (`_BUILD_SYSTEMS`: a kernel module's own Makefile under a CMake
        project is no part of it, whatever the CMake files name)."""
        wide, targeted, _ = self._built_dirs(directory, probe)
        return wide + targeted

    def _built_dirs(self, directory: str, probe) -> tuple[tuple[str, ...], tuple[str, ...],
                                                          frozenset[str]]:
        """(directory-wide, one target's, the build systems deciding) for `built_dirs`."""
        known = self._built.get(directory)
        if known is not None:
            return known
        root = self.root
        within = root is not None and (
            directory == root or directory.startswith(os.path.join(root, "")))
        tops: list[str] = []
        above = directory
        while within and above != root and os.path.dirname(above) != above:
            above = os.path.dirname(above)
            tops.append(above)
        outer = self._built_dirs(tops[0], probe) if tops else ((), (), frozenset())
        own: tuple[list[str], list[str]] = ([], [])
        present = [name for name in C_BUILD_FILES if probe.isfile(os.path.join(directory, name))]
        systems = frozenset(_BUILD_SYSTEMS[name] for name in present)
        for name in present:
            path = os.path.join(directory, name)
            data = _build_file(path)
            for targets, kept in enumerate(own):
                kept += [self._unlinked(found) for found in build_include_dirs(
                    path, data, tuple(tops), bool(targets)) if (
                        not within or found == root or found.startswith(
                            os.path.join(root, ""))) and probe.isdir(found)]
        if systems and outer[2] and not systems & outer[2]:
            outer = ((), (), frozenset())
        self._built[directory] = known = (
            tuple(dict.fromkeys(own[0] + list(outer[0]))),
            tuple(dict.fromkeys(own[1] + list(outer[1]))), systems or outer[2])
        return known

    def _unlinked(self, directory: str) -> str:
        """A directory as the project's walk names it: where a symbolic link leads, when that
        is within the root (`inc -> ../../include`: its headers are the root's)."""
        if self.root is None:
            return directory
        real = os.path.relpath(os.path.realpath(directory), os.path.realpath(self.root))
        return directory if real.startswith("..") else os.path.normpath(
            os.path.join(self.root, real))

    def nearby(self, name: str, including: str, probe=os.path) -> str | None:
        """Where a header no search found is looked for without the project's list of files:
        beside the including file, then in each directory above it up to the root and in
        its `include`. Each directory's answer for a name is kept (`<stdio.h>`, found in no
        directory, was looked for in each directory above each including file: 929 walks for
        a ucx file's 141 headers, 546 of them apart, each of a dozen directories)."""
        if name.startswith("..") or self.root is None:
            return None
        return self._nearby_from(name, os.path.dirname(including), probe)

    def _nearby_from(self, name: str, directory: str, probe) -> str | None:
        key = (name, directory)
        if key in self._nearby:
            return self._nearby[key]
        root, found = self.root, None
        if directory.startswith(os.path.join(root, "")) or directory == root:
            for candidate in (os.path.join(directory, name),
                              os.path.join(directory, "include", name)):
                if probe.isfile(candidate):
                    found = os.path.normpath(candidate)
                    break
            else:
                if directory != root:
                    found = self._nearby_from(name, os.path.dirname(directory), probe)
        self._nearby[key] = found
        return found

    def _by_suffix(self, name: str, including: str) -> str | None:
        """The project file whose path ends with `name`: the one under an `include` directory,
        else the one nearest `including`; None on a tie or when there is none."""
        if name.startswith(".."):
            return None
        candidates = [path for path in self._files_named(os.path.basename(name))
                      if path.endswith(os.sep + name)]
        if len(candidates) > 1:
            public = [path for path in candidates
                      if (os.sep + "include" + os.sep) in path[: len(path) - len(name)]]
            candidates = public or candidates
        if len(candidates) > 1:
            nearness = {path: len(os.path.commonpath([path, including])) for path in candidates}
            best = max(nearness.values())
            candidates = [path for path in candidates if nearness[path] == best]
        return candidates[0] if len(candidates) == 1 else None

    def _files_named(self, basename: str) -> list[str]:
        if self._by_name is None:
            self._by_name = {}
            for path in self.files:
                self._by_name.setdefault(os.path.basename(path), []).append(path)
        return self._by_name.get(basename, [])


DECIDED = object()
"""`IncludePaths.searched`: not a project header, and to be looked for nowhere else."""
_NOT_FOUND = object()  # (kept by `searched`: to be looked for elsewhere)


def _build_file(path: str) -> bytes:
    """A build file's bytes (none past `MAX_BUILD_FILE`, or where it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_BUILD_FILE)
    except OSError:
        return b""


# -- through the project index --------------------------------------------------------------------


class HeaderSummaries(Indexer):
    """Summaries of headers (`HeaderSummary`), gathered by `IncludedHeaders` for the files that
    include them; one indexer for every rule, so a header is parsed once per run."""

    name = "c-headers"
    languages = (C, CPP)
    summary_type = HeaderSummary

    def words(self, settings) -> Iterable[str]:
        return ()

    def worth_summarizing(self, source, settings) -> bool:
        return source.path.endswith(HEADER_SUFFIXES)

    def summarize(self, context) -> HeaderSummary:
        data = context.source.data
        includes = tuple((kind.decode(), os.fsdecode(name)) for kind, name in written_includes(data))
        summary = HeaderSummary(includes, _without_bodies(context).decode("utf-8", "surrogateescape"))
        _remember(context, summary.text)  # the lint (and the workers forked after) reuse the parse
        return summary


HEADER_SUMMARIES = HeaderSummaries()


class IncludedHeaders(Indexer):
    """The project headers each project file holding one of `words` includes, and its `-D`
    macros (`Included`, by path). A rule naming one as its `indexer` reads them with
    `included(context, indexer)`. `more_words`, with the indexers `after` it: the words the
    facts gathered before it add (the names of the project's wrappers of `words`)."""

    languages = (C, CPP)
    summary_type = Included
    summarizers = (HEADER_SUMMARIES,)
    """The indexers it gathers its facts through (summaries the lint can make ahead)."""

    def __init__(self, name: str, words: Iterable[str], after: tuple[str, ...] = (),
                 more_words: Callable[[dict], Iterable[str]] | None = None,
                 read_with: tuple[str, ...] = (),
                 more_read: Callable[[dict], Iterable[str]] | None = None):
        self.name = name
        self._words = tuple(words)
        self.after, self.more_words = after, more_words
        self.read_with, self.more_read = read_with, more_read
        """The indexers (gathered before it: in `after`) whose facts name the other files
        whose entries a linted file's rules read (`value_in`), and the other such files the
        facts gathered before it name (`more_read`): where the run lints only some of the
        project's files, only theirs and the linted files' are made (`_read_of`)."""

    def words(self, settings) -> Iterable[str]:
        return self._words

    def needed_by(self, context) -> bool:
        return (next(written_includes(context.source.data), None) is not None
                or bool(context.settings.compile_commands))

    def summarize(self, context) -> Any:
        raise NotImplementedError("gathered by facts_from, not per file")

    def facts_from(self, index) -> dict[str, Included]:
        """Path -> what it includes, for the project files of these languages holding a word."""
        languages = {path: language for path, language in index.files
                     if language in self.languages}
        paths, closures = _walkers(index, languages)
        more = tuple(sorted(self.more_words(index.gathered))) if self.more_words else ()
        holding = {}
        read = _read_of(index, self.read_with, self.more_read)
        for path, language in languages.items():
            if read is not None and os.path.abspath(path) not in read:
                continue
            data = index.source_bytes(path)
            if data is not None and index.holds_words(
                    self, path, data, (*self.words(index.settings), *more)):
                holding[path] = data
        index.summarize_ahead(HEADER_SUMMARIES, ((header, languages[header]) for header in
                                                 _reachable(index, paths, {
                                                     path: data for path, data in holding.items()
                                                     if not closures.walked(path)})))
        found = {}
        for path, data in holding.items():
            flags = paths.flags(path)
            headers = closures.of(path, data, flags)
            if headers or flags.defines:
                found[path] = Included(headers, flags.defines)
        index.passes.append(FactPass(self.name, len(languages), 1, len(holding), len(found)))
        return found


_WALKERS: WeakKeyDictionary = WeakKeyDictionary()


def _walkers(index, languages: dict[str, str]) -> tuple[IncludePaths, _Closures]:
    """The include paths and closures of an index's files, shared by its `IncludedHeaders`
    (each walked every file's includes again: CUR601's and CUR3xx's hold the same files)."""
    found = _WALKERS.get(index)
    if found is None or found[2] != languages:
        paths = IncludePaths(languages, _database_of(index), index.settings.include_dirs,
                             os.path.abspath(index.settings.root))
        found = _WALKERS[index] = (paths, _Closures(index, paths, languages), languages)
    return found[0], found[1]


def _read_of(index, read_with: tuple[str, ...], more_read=None) -> set[str] | None:
    """The files whose entries a run's rules can read (absolute paths): the linted ones and
    those the facts of `read_with` (and `more_read`) name, where the index knows the linted
    files and gathered each of those facts (None: any file's). A named file's run made the entries of every
    project file holding a word (libfabric: 248 headers parsed for a file that read its own)."""
    if index.linted is None or any(name not in index.gathered for name in read_with):
        return None
    read = {os.path.abspath(path) for path, _ in index.linted}
    for name in read_with:
        read.update(os.path.abspath(path) for path in index.gathered[name] or ())
    read.update(map(os.path.abspath, more_read(index.gathered) if more_read else ()))
    return read


def included(context, indexer: IncludedHeaders) -> Included | None:
    """What the file of `context` includes from the project (None: nothing known)."""
    return context.project.get(indexer.name, {}).get(os.path.abspath(context.source.path))


def _database_of(index) -> dict[str, CompileFlags] | None:
    path = index.settings.compile_commands
    if not path:
        return None
    try:
        return compile_database(index.read(path))
    except SourceError:
        return None


def _reachable(index, paths: IncludePaths, holding: dict[str, bytes]) -> set[str]:
    """The headers the files of `holding` (path -> bytes) include, transitively, found from
    the includes in their bytes as `_closure` resolves them (it may follow fewer: it stops at
    a header without a summary, and at MAX_HEADERS): the headers worth summarizing at once."""
    seen: set[tuple[str, CompileFlags]] = set()
    pending = [(path, data, paths.flags(path)) for path, data in holding.items()]
    while pending:
        including, data, flags = pending.pop()
        for kind, name in written_includes(data):
            header = paths.resolve(os.fsdecode(name), kind == b'"', including, flags)
            if header is not None and (header, flags) not in seen:
                seen.add((header, flags))
                header_data = index.source_bytes(header)
                if header_data is not None:
                    pending.append((header, header_data, flags))
    return {header for header, _ in seen}


_UNKNOWN = (None, None)
"""A header's closure not known (being worked out, or not to be used: see `_Closures`)."""


class _Closures:
    """(path, text) of the headers a file includes, transitively, each once and after the
    headers it includes (as the preprocessor shows them), at most MAX_HEADERS; each header is
    summarized in its own language (`languages`: path -> language).

    A header's own closure (under one file's flags) is worked out once per run and put in
    whole wherever the walk meets it and none of the headers it reached was met before (nor
    are more than MAX_HEADERS met with it): the walk from there would meet exactly them, in
    the same order. Else the walk goes into its includes one by one. (Every file of a project
    walked the same few hundred headers: 316,789 includes resolved for libfabric's 1,286
    files.)"""

    MAX_DEPTH = 64
    """Headers whose own closures are being worked out at once (one inside another); deeper
    ones are walked into one include at a time."""

    def __init__(self, index, paths: IncludePaths, languages: dict[str, str]):
        self.index, self.paths, self.languages = index, paths, languages
        self._alone: dict[tuple[str, CompileFlags], tuple] = {}
        self._included: dict[tuple[str, CompileFlags], tuple[str, ...]] = {}
        self._files: dict[tuple[str, CompileFlags], tuple] = {}  # (`of`'s, by file and flags)
        self._depth = 0

    def of(self, path: str, data: bytes, flags: CompileFlags) -> tuple[tuple[str, str], ...]:
        key = (path, flags)
        if key not in self._files:
            self._files[key] = tuple(self._walk(path, self._resolved(
                path, [(kind.decode(), os.fsdecode(name)) for kind, name in
                       written_includes(data)], flags), flags)[0])
        return self._files[key]

    def walked(self, path: str) -> bool:
        """Whether `of` walked the file's includes already (its headers are summarized)."""
        return (path, self.paths.flags(path)) in self._files

    def _resolved(self, path: str, includes, flags: CompileFlags) -> tuple[str, ...]:
        """The project headers `includes` (`<` or `"`, name) of the file at `path` name."""
        return tuple(header for kind, name in includes
                     if (header := self.paths.resolve(name, kind == '"', path, flags)) is not None)

    def _includes(self, header: str, summary: HeaderSummary, flags: CompileFlags
                  ) -> tuple[str, ...]:
        """`_resolved` of a header's includes, once per header and flags (every walk that
        goes into a header met before went through its includes again: 159,340 lookups for
        the C/C++ worst case's 1,286 files)."""
        key = (header, flags)
        found = self._included.get(key)
        if found is None:
            found = self._included[key] = self._resolved(header, summary.includes, flags)
        return found

    def _walk(self, path: str, includes: tuple[str, ...], flags: CompileFlags):
        """(ordered, visited, whether MAX_HEADERS left a header out) of the walk from `path`
        (not itself in `ordered`) through the headers it includes (`includes`, resolved)."""
        ordered: list[tuple[str, str]] = []
        texts: dict[str, str] = {}
        visited = {path}
        capped = False
        stack = [(path, iter(includes))]  # (file, its headers not yet followed)
        while stack:
            including, pending = stack[-1]
            header = next(pending, None)
            if header is None:
                stack.pop()
                if stack:
                    ordered.append((including, texts[including]))
                continue
            if header in visited:
                continue
            if len(visited) > MAX_HEADERS:
                capped = True
                continue
            whole, reached = self._closure_alone(header, flags)
            if whole is not None and len(visited) + len(reached) <= MAX_HEADERS + 1 \
                    and visited.isdisjoint(reached):
                ordered.extend(whole)
                visited.update(reached)
                continue
            visited.add(header)
            summary = self.index.summary(HEADER_SUMMARIES, header, self.languages[header])
            if summary is not None:
                texts[header] = summary.text
                stack.append((header, iter(self._includes(header, summary, flags))))
        return ordered, visited, capped

    def _closure_alone(self, header: str, flags: CompileFlags) -> tuple:
        """(ordered, reached) of the walk from `header` alone, itself last; `_UNKNOWN` where
        it is being worked out (an include cycle), too deep, capped, or has no summary."""
        key = (header, flags)
        found = self._alone.get(key)
        if found is not None:
            return found
        if self._depth >= self.MAX_DEPTH:
            return _UNKNOWN
        self._alone[key] = _UNKNOWN
        summary = self.index.summary(HEADER_SUMMARIES, header, self.languages[header])
        if summary is None:
            return _UNKNOWN
        self._depth += 1
        try:
            ordered, reached, capped = self._walk(header, self._includes(header, summary, flags),
                                                  flags)
        finally:
            self._depth -= 1
        if not capped:
            ordered.append((header, summary.text))
            self._alone[key] = (tuple(ordered), frozenset(reached))
        return self._alone[key]


_HOLDERS = frozenset({
    "translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
    "linkage_specification", "declaration_list", "namespace_definition", "template_declaration",
    "class_specifier", "struct_specifier", "field_declaration_list", "declaration",
    "field_declaration", "type_definition",
})
"""Nodes a function definition may lie in (a class body's inline methods included)."""


def _without_bodies(context) -> bytes:
    """The file's bytes with each function body replaced by `{}` (positions before it kept),
    but a getter's, one `return` (`analysis.c_getters`). Only nodes that may hold a function
    definition are walked into."""
    data = context.source.data
    parts, start = [], 0
    cursor = context.tree.walk()
    while True:
        node = cursor.node
        body = node.child_by_field_name("body") if node.type == "function_definition" else None
        if body is not None and body.type == "compound_statement" and not getter_body(body):
            parts.append(data[start:body.start_byte] + b"{}")
            start = body.end_byte
        elif node.type in _HOLDERS and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                parts.append(data[start:])
                return b"".join(parts)


def getter_body(body) -> bool:
    """Whether a function body is one `return` of a value (a header's summary keeps it)."""
    statements = [node for node in body.named_children if node.type != "comment"]
    return len(statements) == 1 and statements[0].type == "return_statement" \
        and statements[0].named_child_count == 1


# -- what a file's rules evaluate with ------------------------------------------------------------


def header_constants(context, indexer: IncludedHeaders) -> tuple:
    """The evaluators (`CConstants`) of what precedes the file's text: its `-D` macros, then its
    project headers in include order, each seeing those before it. Each is parsed once per
    process, language and content; files including the same headers in the same order share
    the evaluators (and what they have worked out)."""
    return _header_evaluators(included(context, indexer), context.language)


def _header_evaluators(seen: Included | None, language: str) -> tuple:
    """`header_constants` of what a file includes."""
    if seen is None:
        return ()
    parts = list(seen.headers)
    if seen.defines:
        lines = "".join(f"#define {name} {body}\n" for name, body in seen.defines)
        parts.insert(0, ("<command line>", lines))
    found: tuple = ()
    for path, text in parts:
        found += (_evaluator(_context(path, text, language), found),)
    return found


def value_in(context, indexer: IncludedHeaders, path: str, text: str):
    """The value of an expression's text (`sizeof(struct msg) * 8`) after the project headers
    and `-D` macros of another file of the project (`path`, as the index names it) that
    `indexer` has read, or UNKNOWN (that file's own definitions are not in view)."""
    from cursedlint.python.consteval import UNKNOWN

    seen = context.project.get(indexer.name, {}).get(path)
    if seen is None:
        return UNKNOWN
    snippet = _context(f"{path}#value", f"unsigned long long value = ({text});\n",
                       context.language)
    declarator = snippet.root.named_children[0].child_by_field_name("declarator") \
        if snippet.root.named_child_count == 1 else None
    value = declarator.child_by_field_name("value") \
        if declarator is not None and declarator.type == "init_declarator" else None
    if value is None:
        return UNKNOWN
    return _evaluator(snippet, _header_evaluators(seen, context.language)).evaluate(value)


_CONTEXTS: dict[tuple, object] = {}
"""Header contexts by path, summarized text and language: those parsed by the index in this
process, and those parsed here from a stored summary."""


def _remember(context, text: str) -> None:
    """Keep the context of a header just summarized for the files that include it."""
    key = (os.path.abspath(context.source.path),  # (as the index names it)
           _digest(text.encode("utf-8", "surrogateescape")), context.language)
    _CONTEXTS.setdefault(key, context)


@cache
def _context(path: str, text: str, language: str):
    """The CContext of a header (of its summarized text when not parsed in this process,
    parsed when first read: `LazyCContext`)."""
    data = text.encode("utf-8", "surrogateescape")
    key = (path, _digest(data), language)
    if key not in _CONTEXTS:
        from cursedlint.c.context import LazyCContext
        from cursedlint.settings import Settings
        from cursedlint.source import Source

        source = Source.from_bytes(path, data, language)
        _CONTEXTS[key] = LazyCContext(source, Settings(enabled=frozenset()))
    return _CONTEXTS[key]


@cache
def _evaluator(context, before: tuple):
    from cursedlint.analysis.c_constants import CConstants

    return CConstants(context, extra=before, names=_names(context))


@cache
def _names(context) -> frozenset[bytes]:
    """The identifiers of a header's text (its evaluator is asked about every name the
    including file looks up; most are not in it)."""
    return frozenset(_IDENTIFIER.findall(context.source.data))


def _digest(data: bytes) -> bytes:
    import hashlib  # (only runs that read headers need it)

    return hashlib.sha1(data).digest()
