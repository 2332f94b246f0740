"""The project index: facts from the project's other files, for rules that need them.

An `Indexer` says how one kind of fact is gathered: which files are worth parsing (they hold one
of its `words`), the summary of one parsed file, and the further words the facts found so far
make worth looking for (`more_words`: e.g. the names of classes whose subclasses matter).
`ProjectIndex.facts` goes over the project's files in rounds — a byte search for the new words,
a parse of the files that hold one, more words from the new facts — until no new word appears.

Summaries are kept by content hash: in memory (identical files are summarized once) and, when
the run has a cache directory, on disk (`IndexStore`), so an unchanged file is parsed once
across runs. The index is built in the parent before workers fork, so they all share it.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterable

import msgspec

from cursedlint.cache import STORE_SUFFIX, encode, load_store, newest, save_store, storable
from cursedlint.source import FileBytes, Source, SourceError, looks_binary

MAX_STORED_SUMMARIES = 200_000
KEPT_BYTES = 96 * 1024 * 1024
"""Bytes of project files kept in memory for one run (rounds, indexers and the lint share
them)."""


class Indexer:
    """One kind of project fact. Subclasses set `name` (the key rules read their facts under)
    and `languages`, and implement `words` and `summarize`."""

    name: str
    languages: tuple[str, ...]
    summary_type: Any
    """What `summarize` returns besides None (plain data: containers, strings, numbers,
    Structs); stored summaries are checked against it when loaded."""

    def words(self, settings) -> Iterable[str]:
        """Words a file must hold for `summarize` to find anything in it (under `settings`)."""
        raise NotImplementedError

    def needed_by(self, context) -> bool:
        """Whether a linted file (parsed; it holds the rule's triggers) could use these facts
        at all. False lets the run skip the index when no linted file needs it."""
        return True

    def more_words(self, facts: dict[str, Any], settings) -> Iterable[str]:
        """Words that the facts found so far (path -> summary) make worth looking for."""
        return ()

    def pattern(self, words: Iterable[str], first_round: bool) -> re.Pattern[bytes]:
        """The byte pattern that marks a file holding one of `words` — the indexer's own words
        in the first round, `more_words` later (default: the word as a whole identifier)."""
        alternatives = "|".join(re.escape(word) for word in sorted(words))
        return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])".encode())

    def summarize(self, context) -> Any:
        """A small fact of `summary_type` about one parsed file (None: nothing worth keeping). It may
        depend only on the file's bytes and the settings, never on other files."""
        raise NotImplementedError


class IndexStore:
    """Summaries by indexer and content hash, persisted in one store per fingerprint
    (cursedlint's code and the settings summaries depend on) under the cache directory; written
    only when a run added to it; bounded per indexer (the summaries unused longest are
    dropped). Each indexer's summaries are decoded, and checked against its `summary_type`,
    when the run first asks for them; a part that fails the check is empty."""

    def __init__(self, directory: str, index_fingerprint: str):
        self.path = os.path.join(directory, f"index-{index_fingerprint[:32]}{STORE_SUFFIX}")
        stored = load_store(self.path, tuple[dict[str, msgspec.Raw], int])
        self.parts, self.run = ({}, 0) if stored is None else (stored[0], stored[1] + 1)
        self.entries: dict[str, dict[str, tuple[int, Any]]] = {}  # indexer name -> decoded part
        self.changed = False

    def get(self, indexer: Indexer, digest: str) -> tuple[bool, Any]:
        """Whether a summary of content `digest` is stored for `indexer`, and the summary."""
        entries = self._entries(indexer)
        entry = entries.get(digest)
        if entry is None:
            return False, None
        if entry[0] != self.run:
            entries[digest] = (self.run, entry[1])
        return True, entry[1]

    def put(self, indexer: Indexer, digest: str, summary: Any) -> None:
        """Keep a summary for later runs (one holding text that is not Unicode is not kept)."""
        if storable(summary):
            self._entries(indexer)[digest] = (self.run, summary)
            self.changed = True

    def _entries(self, indexer: Indexer) -> dict[str, tuple[int, Any]]:
        if indexer.name not in self.entries:
            schema = dict[str, tuple[int, indexer.summary_type | None]]
            part = self.parts.get(indexer.name)
            try:
                entries = {} if part is None else msgspec.msgpack.decode(part, type=schema)
            except (ValueError, MemoryError):  # msgspec's DecodeError is a ValueError
                entries = {}
            self.entries[indexer.name] = entries
        return self.entries[indexer.name]

    def save(self) -> None:
        if not self.changed:
            return
        for name, entries in self.entries.items():
            if len(entries) > MAX_STORED_SUMMARIES:
                entries = newest(entries, MAX_STORED_SUMMARIES)
            self.parts[name] = msgspec.Raw(encode(entries))
        save_store(self.path, (self.parts, self.run))


class ProjectIndex:
    """The facts of a set of project files, per indexer. `parse(source)` gives a file's
    analysis context (None when it cannot be parsed)."""

    def __init__(
        self, files: list[tuple[str, str]], settings, parse: Callable, store=None,
        file_bytes: FileBytes | None = None,
    ):
        self.files = files
        self.file_bytes = file_bytes or FileBytes(KEPT_BYTES)
        self.settings = settings
        self.parse = parse
        self.store = store
        self.summarized = 0  # files parsed for a summary in this run (not found in the store)
        self._memo: dict[tuple[str, str], Any] = {}
        self._used: list[tuple[str, str, str]] = []  # (indexer name, path, content hash)

    def facts(self, indexer: Indexer) -> dict[str, Any]:
        """Path -> summary, for the project files of the indexer's languages that have one."""
        found: dict[str, Any] = {}
        done: set[str] = set()
        searched: set[str] = set()
        pending = set(indexer.words(self.settings))
        while pending:
            pattern = indexer.pattern(pending, first_round=not searched)
            # a few words: a substring search first (fast), then the pattern on the hits
            encoded = [word.encode() for word in pending] if len(pending) <= 8 else []
            for path, language in self.files:
                if path in done or language not in indexer.languages:
                    continue
                try:
                    data = self.file_bytes.read(path)
                except SourceError:
                    done.add(path)
                    continue
                if looks_binary(data):
                    done.add(path)
                    continue
                if encoded and not any(word in data for word in encoded):
                    continue
                if not pattern.search(data):
                    continue
                done.add(path)
                summary = self._summary(indexer, path, data, language)
                if summary is not None:
                    found[path] = summary
            searched |= pending
            pending = set(indexer.more_words(found, self.settings)) - searched
        return found

    def digest(self) -> str:
        """What the facts depend on besides code and settings: the files summarized."""
        import hashlib  # (only runs with an index need it)

        text = repr(sorted(self._used))
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()

    def _summary(self, indexer: Indexer, path: str, data: bytes, language: str) -> Any:
        import hashlib

        digest = hashlib.sha1(data).hexdigest()
        key = (indexer.name, digest)
        self._used.append((indexer.name, path, digest))
        if key in self._memo:
            return self._memo[key]
        stored, summary = self.store.get(indexer, digest) if self.store else (False, None)
        if not stored:
            summary = self._summarize(indexer, path, data, language)
            self.summarized += 1
            if self.store:
                self.store.put(indexer, digest, summary)
        self._memo[key] = summary
        return summary

    def _summarize(self, indexer: Indexer, path: str, data: bytes, language: str) -> Any:
        """The indexer's summary of one file; None when the file cannot be read as code, is
        larger than `max-file-size`, or the summarizer fails (the file's own lint reports
        each)."""
        if len(data) > self.settings.max_file_size:
            return None
        try:
            context = self.parse(Source.from_bytes(path, data, language))
            return None if context is None else indexer.summarize(context)
        except Exception:
            return None
