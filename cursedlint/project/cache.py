"""Results per file, reused while nothing that decides them has changed.

A result is keyed by the file's path and bytes, in a store named by the run's fingerprint: the
cursedlint version and code, the effective settings, the options that change results, and the
project facts rules could see. Each fingerprint's store is one file in `.cursedlint_cache/` (in
the configuration file's directory, else the working directory; with a `.gitignore` of `*`, as
ruff does): loaded once before linting (forked workers inherit it), updated by the parent with
the workers' new results, and written back once, atomically (a temporary file renamed into
place), so concurrent runs never read half a store. A store that cannot be read is empty.
Bounds: at most MAX_ENTRIES results per store (those stored longest ago dropped) and
MAX_STORES stores (oldest dropped). The project index keeps its summaries in stores of its own
kind in the same directory, written the same way (`load_store`, `save_store`).

A store is plain data: MessagePack after a header of its format and checksum, decoded by
msgspec against the declared type of what it holds (`load_store(path, schema)`), so loading
runs no code whatever the file holds. Results stay encoded until a run asks for one
(`decoded`), then are checked against their type: a warm run decodes only the results it
reports. The cache directory may be committed by mistake, or planted by a pull request: a store
that is not exactly what this version writes (another format or version, a checksum that does
not match, the wrong shape, truncated, random bytes, a pickle, larger than MAX_STORE_BYTES, not
a regular file) is an empty store, and the run lints as with `--no-cache`. No symbolic link is
followed: a cache directory that is one is not used at all (`unusable`), and only files of the
names cursedlint gives are ever removed.

A warm run need not read unchanged files: the store also keeps, per path, the file's (size,
mtime_ns, ctime_ns, inode) when its result was stored, and a file whose stat still matches takes
its result without being read. As with ruff and make, a content change that keeps all four
(same size, timestamps set back, same inode) goes unnoticed until the file changes again;
files modified less than RACY_NS before they were read are never trusted by stat.
"""

from __future__ import annotations

import functools
import os
import re
import time
from typing import Any, Callable

import msgspec

import cursedlint
from cursedlint.patterns import LazyPattern
from cursedlint.project.safe_files import is_real_directory, read_regular

CACHE_DIR = ".cursedlint_cache"
MAX_ENTRIES = 50_000
MAX_STORES = 8
RACY_NS = 2_000_000_000
STORE_SUFFIX = ".msgpack"
STORE_FORMAT = 2
"""Written first in every store, with a checksum of what follows (`_header`); a store of
another format, or whose checksum does not match, is empty."""
MAX_STORE_BYTES = 1 << 30
"""A larger store is not read (50,000 results take a few tens of MB)."""
STALE_TEMPORARY_S = 3600
"""A temporary store file older than this is removed: its run was killed before renaming it (a
store is written and renamed within a second). Its age tells, not its PID: runs in containers
sharing a checkout see no PID of each other's, and reuse the same few PIDs."""
_STORE_NAME = LazyPattern(r"(index-reach-|index-|)[0-9a-f]{32}\.(msgpack|pickle)")
"""The names cursedlint gives its stores (a fingerprint's first 32 hex digits, after the kind);
`.pickle`: stores of earlier versions, which could run code when loaded."""
_TEMPORARY_NAME = re.compile(r"\.tmp-\d+-\d+-\d+")
"""The names of the files stores are written to before their rename (`_new_file`)."""

Stat = tuple[int, int, int, int]


def file_stat(path: str) -> Stat | None:
    """What tells an unchanged file without reading it; None when it cannot be trusted (the
    file is missing, or was modified so recently that a change may still follow unseen)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - info.st_mtime_ns < RACY_NS:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


class RunStats(dict):
    """Absolute path -> `file_stat`, each file's taken once per run: the result cache and the
    project index ask about the same files (a warm run's cost is mostly these stats)."""

    def of(self, whole: str, path: str | None = None) -> Stat | None:
        """The stat of the file at absolute path `whole` (`path`: the name it was given)."""
        stat = self.get(whole, _UNSEEN)
        if stat is _UNSEEN:
            stat = self[whole] = file_stat(path or whole)
        return stat


_UNSEEN: Any = object()


def fingerprint(*parts: object) -> str:
    """A stable digest of what decides every file's result besides the file itself."""
    import hashlib  # (4 ms to import: only runs that use the cache or an index need it)

    text = "\0".join(repr(part) for part in (cursedlint.__version__, *parts))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ResultCache:
    """The results (of type `result_type`: FileResult in a run) of one fingerprint: key ->
    (run number, result); and per absolute path the stat and key of its last stored result.
    `plain(path)`: the result of a file in which nothing was found (no rule's trigger word:
    most files of a project); such a result is kept as a mark with its stat, not decoded and
    stored, and made again when its file is looked up."""

    def __init__(
        self, root: str, run_fingerprint: str, result_type: Any, max_entries: int = MAX_ENTRIES,
        plain: Callable[[str], Any] | None = None,
    ):
        self.path = os.path.join(root, CACHE_DIR, run_fingerprint[:32] + STORE_SUFFIX)
        self.max_entries = max_entries
        self.schema = tuple[dict[str, tuple[int, msgspec.Raw]], dict[str, tuple[Stat, str]], int]
        self.entries, self.stats, self.run = self._load()
        self.result_type = result_type
        self.plain = plain
        self.changed = False
        self.run_stats = RunStats()
        self.cwd = os.getcwd()

    def begin_run(self) -> None:
        """Files may have changed since the last run, and the working directory too."""
        self.run_stats = RunStats()
        self.cwd = os.getcwd()

    def _load(self) -> tuple[dict, dict, int]:
        stored = load_store(self.path, self.schema)
        if stored is None:
            return {}, {}, 0
        entries, stats, run = stored
        return entries, stats, run + 1

    @staticmethod
    def key(path: str, data: bytes, facts: str | None = None) -> str:
        """A result's key: the file's path and bytes, and what the facts from other files it
        was linted with depend on (`facts`; None: linted without)."""
        import hashlib

        digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(data)
        if facts is not None:
            digest.update(b"\0facts\0" + facts.encode())
        return digest.hexdigest()

    def get(self, key: str):
        """The stored FileResult, or None (also when it is not of the result type). Results
        are decoded when first asked for: a run decodes only those it uses. (Reading does
        not count as use: a warm run that finds everything writes nothing.)"""
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            result = decoded(entry[1], self.result_type)
        except ValueError:  # (msgspec's DecodeError is one)
            del self.entries[key]
            return None
        self.entries[key] = (entry[0], result)
        return result

    def lookup(self, path: str, facts: str | None = None):
        """The stored FileResult of a file whose stat matches the one stored with it, read from
        neither the file nor its hash (with `facts`: its result linted with such facts); else
        None."""
        whole = absolute(path, self.cwd)
        stat = self.run_stats.of(whole, path)
        known = self.stats.get(whole if facts is None else f"{whole}\0{facts}")
        if known is None or known[0] != stat:
            return None
        if known[1] == _PLAIN and self.plain is not None:
            return self.plain(path)
        return self.get(known[1])

    def same_with(self, path: str, facts: str) -> None:
        """Record that the stored result of `path` without facts is its result with `facts`
        too (they cannot change its findings): `lookup(path, facts)` then finds it, and a
        warm run need not ask again."""
        known = self.stats.get(self._stat_key(path, None))
        if known is not None and known[1] in self.entries:
            self.stats[self._stat_key(path, facts)] = known
            self.changed = True

    def put(self, key: str, result, stat: tuple | None = None, path: str | None = None,
            facts: str | None = None) -> None:
        """Store a result; with `stat` (file_stat before the bytes were read), later runs may
        take it by `lookup` (with the same `facts`). A result holding text that is not Unicode
        (a file name or line of undecodable bytes) is not stored: its file is linted again next
        time."""
        absolute = self._stat_key(path or result.path, facts) if stat is not None else None
        if not storable(result, absolute):
            return
        if absolute is not None and facts is None and self.plain is not None \
                and result == self.plain(result.path):
            self.stats[absolute] = (stat, _PLAIN)
            self.changed = True
            return
        self.entries[key] = (self.run, result)
        if absolute is not None:
            self.stats[absolute] = (stat, key)
        self.changed = True

    def save(self) -> None:
        """Write the store back (only if this run changed it) and drop old stores; a cache
        that cannot be written is skipped silently."""
        if not self.changed:
            return
        if len(self.entries) > self.max_entries:
            self.entries = newest(self.entries, self.max_entries)
            self.stats = {p: known for p, known in self.stats.items()
                          if known[1] in self.entries or known[1] == _PLAIN}
        if len(self.stats) > 2 * self.max_entries:  # marks of files gone, or not seen lately
            self.stats = {p: known for p, known in self.stats.items()
                          if known[1] != _PLAIN or p in self.run_stats}
        save_store(self.path, (self.entries, self.stats, self.run))

    def _stat_key(self, path: str, facts: str | None) -> str:
        whole = absolute(path, self.cwd)
        return whole if facts is None else f"{whole}\0{facts}"


_PLAIN = ""
"""The key a file's stat is stored with when its result is `ResultCache.plain`."""


def absolute(path: str, cwd: str | None = None) -> str:
    """`os.path.abspath(path)`, without its normalizing walk for the plain paths a directory
    walk gives (`./pkg/mod.py`, `pkg/mod.py`, `/src/pkg/mod.py`: no `.`, `..` or empty part);
    `cwd`: the working directory, when the caller knows it."""
    rest = path[2:] if path.startswith("./") else path
    if os.sep != "/" or not rest or rest[0] == "." or rest[-1] == "/" or "/." in rest \
            or "//" in rest:
        return os.path.abspath(path)
    if rest[0] == "/":  # absolute and plain already (a walk of an absolute root gives these)
        return rest
    return (cwd or os.getcwd()).rstrip("/") + "/" + rest


def load_store(path: str, schema: Any):
    """What a store file holds, checked to be of type `schema`; None when it is absent, not a
    regular file in a directory itself (no symbolic link is followed: cursedlint writes none),
    too large, of another format, damaged, or not of that type (the store then starts empty)."""
    if not is_real_directory(os.path.dirname(path)):
        return None
    try:
        data = read_regular(path, MAX_STORE_BYTES)
        payload = memoryview(data)[_HEADER_BYTES:]
        if data[:_HEADER_BYTES] != _header(payload):
            return None
        return _decoder(schema).decode(payload)
    except (OSError, ValueError, MemoryError):  # msgspec's DecodeError is a ValueError
        return None


_HEADER_BYTES = 8


def _header(payload) -> bytes:
    """What a store's payload (MessagePack) is written after: STORE_FORMAT and the payload's
    CRC-32, 4 bytes each. The checksum finds damage that still decodes (a byte flipped in a
    stored message altered a finding); it is no seal, as a planted store is plain data anyway.
    (A warm run's two stores, 0.86 MB: CRC-32 0.5 ms with its import, blake2b 0.9 ms.)"""
    import zlib  # (only runs that load or save a store need it)

    return STORE_FORMAT.to_bytes(4, "little") + zlib.crc32(payload).to_bytes(4, "little")


def decoded(value: Any, schema: Any) -> Any:
    """A stored value kept encoded (`msgspec.Raw`) decoded as `schema`; any other value is one
    decoded or put already. Raises ValueError when it is not of that type."""
    if not isinstance(value, msgspec.Raw):
        return value
    try:
        return _decoder(schema).decode(value)
    except MemoryError as error:
        raise ValueError("too large to decode") from error


@functools.lru_cache(maxsize=None)
def _decoder(schema: Any):
    """A decoder of `schema` values, made once per schema."""
    return msgspec.msgpack.Decoder(schema)


def encode(value: Any) -> bytes:
    """Plain data (containers, numbers, strings, Structs, dataclasses, enums) as MessagePack."""
    return msgspec.msgpack.encode(value)


def storable(*values: Any) -> bool:
    """Whether `values` can be stored: their strings hold no lone surrogates (the bytes of a
    file name or line that are not UTF-8, kept as surrogate escapes)."""
    try:
        encode(values)
    except UnicodeEncodeError:
        return False
    return True


def save_store(path: str, payload) -> None:
    """Write a store file in `.cursedlint_cache/` atomically (a temporary file renamed into
    place, so concurrent runs never read half a store), mark the directory ignored by git, and
    remove what cursedlint left there (`_remove_left`); a store that cannot be written is
    skipped silently.

    Nothing is written or removed through a symbolic link (a repository may commit the
    directory as one, leading out of the tree): the directory is opened without following
    one, and its files are made, renamed and removed by their names in it, never followed."""
    top, name = os.path.split(path)
    data = encode(payload)
    try:
        os.makedirs(top, exist_ok=True)
        directory, prefix = _open_directory(top)
    except OSError:
        return
    try:
        _mark_ignored(directory, prefix)
        descriptor, temporary = _new_file(directory, prefix)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(_header(data))
                handle.write(data)
            os.replace(temporary, os.path.join(prefix, name), src_dir_fd=directory,
                       dst_dir_fd=directory)
        except OSError:
            os.unlink(temporary, dir_fd=directory)
            raise
        _remove_left(directory, prefix, name)
    except OSError:
        return
    finally:
        if directory is not None:
            os.close(directory)


_BY_DESCRIPTOR = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
_DIRECTORY_FLAGS = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
                    | getattr(os, "O_CLOEXEC", 0))


def _open_directory(top: str) -> tuple[int | None, str]:
    """The directory `top` to name files in: a descriptor opened without following a symbolic
    link, and "" (names are relative to it); where the platform opens no directory (Windows),
    None and `top`, once lstat says it is a directory itself. Raises OSError for anything
    else."""
    if _BY_DESCRIPTOR:
        return os.open(top, _DIRECTORY_FLAGS), ""
    if not is_real_directory(top):
        raise NotADirectoryError(top)
    return None, top


def _mark_ignored(directory: int | None, prefix: str) -> None:
    """Make the directory's `.gitignore` (`*`, as ruff does) unless a file of that name is
    there, whatever it is (a link, even one to nothing, is not written through)."""
    try:
        descriptor = os.open(os.path.join(prefix, ".gitignore"), _NEW_FILE_FLAGS, 0o666,
                             dir_fd=directory)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(b"# created by cursedlint\n*\n")


_NEW_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                   | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def _new_file(directory: int | None, prefix: str) -> tuple[int, str]:
    """A file made in the directory for this process alone (what `tempfile.mkstemp` makes:
    created, never an existing file or link, mode 0o600; `tempfile` takes 8 ms to import, a
    tenth of a warm run's own work)."""
    for attempt in range(100):
        name = os.path.join(prefix, f".tmp-{os.getpid()}-{time.time_ns()}-{attempt}")
        try:
            return os.open(name, _NEW_FILE_FLAGS, 0o600, dir_fd=directory), name
        except FileExistsError:
            continue
    raise FileExistsError("no new file name for a store")


def _remove_left(directory: int | None, prefix: str, written: str) -> None:
    """Remove from the directory what cursedlint wrote there and no longer needs: the stores of
    the kind of `written` (the name before the fingerprint) beyond the MAX_STORES newest, pickle
    stores of earlier versions, and temporary files older than STALE_TEMPORARY_S. Only regular
    files of the names cursedlint gives are removed."""
    kind = _STORE_NAME.fullmatch(written)
    stores, left = [], []
    now = time.time()
    with os.scandir(prefix if directory is None else directory) as entries:
        for entry in entries:
            store = _STORE_NAME.fullmatch(entry.name)
            if store is None and not _TEMPORARY_NAME.fullmatch(entry.name) \
                    or not entry.is_file(follow_symlinks=False):
                continue
            if store is None:
                if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMPORARY_S:
                    left.append(entry.path)
            elif store[2] == "pickle":
                left.append(entry.path)
            elif kind is not None and store[1] == kind[1]:
                stores.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
    stores.sort(reverse=True)
    for path in left + [path for _, path in stores[MAX_STORES:]]:
        os.unlink(path, dir_fd=directory)


def newest(entries: dict, limit: int) -> dict:
    """The `limit` entries ((run number, value) values) stored or used most recently."""
    ordered = sorted(entries.items(), key=lambda item: item[1][0], reverse=True)
    return dict(ordered[:limit])


def unusable(top: str) -> str | None:
    """Why the cache directory `top` is not used (a repository may commit it as a symbolic
    link, leading out of the tree: never followed); None when it is a directory itself, or
    absent (made when a store is saved)."""
    if is_real_directory(top) or not os.path.lexists(top):
        return None
    return "is a symbolic link (not followed)" if os.path.islink(top) else "is not a directory"


def clean(root: str) -> str | None:
    """Remove the cache under `root`: what was removed ("cache", or "link": a symbolic link at
    its place is removed itself, never what it points to, as `ruff clean` does), or None."""
    import shutil

    top = os.path.join(root, CACHE_DIR)
    if os.path.islink(top):
        os.unlink(top)
        return "link"
    if not os.path.isdir(top):
        return None
    shutil.rmtree(top)  # (which follows no link inside)
    return "cache"
