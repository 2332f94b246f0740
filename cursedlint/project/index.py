"""The project index: facts from the project's other files, for rules that need them.

An `Indexer` says how one kind of fact is gathered: which files are worth parsing (they hold one
of its `words`), the summary of one parsed file, and the further words the facts found so far
make worth looking for (`more_words`: e.g. the names of classes whose subclasses matter).
`ProjectIndex.facts` goes over the project's files in rounds — a byte search for the new words,
a parse of the files that hold one, more words from the new facts — until no new word appears
or the indexer's bounds are reached (files past them are not searched).

Summaries are kept by content hash: in memory (identical files are summarized once) and, when
the run has a cache directory, on disk (`IndexStore`), so an unchanged file is parsed once
across runs. The store also keeps each file's stat with its content hash, and the answers of
the byte searches per content hash: a warm run reads no file whose stat is unchanged (the
trust rule of the result cache, `cache.file_stat`). Files the lint parsed anyway come with their
summaries, made from that parse in the lint's workers (`add`); the others are parsed in forked
processes, a round's files at once (`ProjectIndex.jobs`), so each file is parsed once per run.
The facts are gathered in the parent, after the lint without them.
"""

from __future__ import annotations

import itertools
import os
import re
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import msgspec

from cursedlint.languages import PYTHON_TREES
from cursedlint.project.cache import (
    STORE_SUFFIX, RunStats, Stat, decoded, encode, file_stat, load_store, newest, save_store,
    storable,
)
from cursedlint.source import FileBytes, Source, SourceError, looks_binary
from cursedlint.triggers.byte_search import whole

MAX_STORED_SUMMARIES = 200_000
MAX_STORED_ANSWERS = 1_000_000
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
    max_rounds: int | None = None
    """Rounds of `more_words` after the first (None: until no new word appears)."""
    max_files: int | None = None
    """Files summarized at most (None: all that hold a word); past it (or past `max_bytes` of
    them), facts are partial, and rules answer unknown where a chain would need more."""
    max_bytes: int | None = None
    """Bytes of the files summarized at most (None: no bound)."""
    after: tuple[str, ...] = ()
    """Indexers whose facts this one's gathering reads (`ProjectIndex.gathered`): a run
    gathers them first."""

    def words(self, settings) -> Iterable[str]:
        """Words a file must hold for `summarize` to find anything in it (under `settings`)."""
        raise NotImplementedError

    def worth_summarizing(self, source, settings) -> bool:
        """Whether a file the lint has parsed anyway should be summarized from that parse, for
        a run that then builds the index (default: the first round would find it)."""
        return self.holds_words(source.data, settings)

    def holds_words(self, data: bytes, settings, more: tuple[str, ...] = ()) -> bool:
        """Whether `data` holds one of `words` (or of `more`, sorted) as the first round
        searches for them."""
        words = tuple(sorted(self.words(settings))) + more
        return bool(words) and _first_round(self, words).holds(data)

    def needed_by(self, context) -> bool:
        """Whether a linted file (parsed; it holds the rule's triggers) could use these facts
        at all. False lets the run skip the index when no linted file needs it."""
        return True

    def seed_words(self, context) -> Iterable[str]:
        """Words a linted file that needs these facts makes worth looking for in the first
        round, besides `words` (e.g. the names it imports from the project's modules)."""
        return ()

    adds_triggers = False
    """Whether `trigger_words` may give some: then a run over some of the project's files
    gathers these facts even for files that hold none of the rules' own triggers."""

    def trigger_words(self, facts: dict[str, Any]) -> Iterable[str]:
        """Names the facts (path -> summary) make worth linting a file for, with these facts,
        for every rule that reads them: the project's functions through which a call can be
        a finding (a wrapper of a registration API, a function that begins a capture). A file
        that calls none is not linted again. Set `adds_triggers` where it gives some."""
        return ()

    def gated_trigger_words(self, facts: dict[str, Any]) -> Iterable[str]:
        """Names the facts make worth linting a file for only where it also holds one of the
        rule's `Rule.fact_gated` words (for the rules that declare some)."""
        return ()

    trigger_indexer: "Indexer | None" = None
    """Where only the trigger words of these facts are wanted: a cheaper indexer whose own
    facts give the same words (its `trigger_words`), gathered in this one's place."""

    def trigger_source_words(self, settings) -> Iterable[str]:
        """The first round's words where the facts are gathered only for `trigger_words` (a
        run over files that hold no rule's trigger words): those of the files whose summaries
        can give trigger words (default: `words`)."""
        return self.words(settings)

    trigger_rounds: int | None = None
    """Rounds of `more_words` after the first where the facts are gathered only for
    `trigger_words` (None: `max_rounds`)."""

    def trigger_names(self, data: bytes) -> Iterable[bytes] | None:
        """The names `trigger_words` may give for a file's summary, read from its bytes (more,
        never fewer; None: any). Where the facts are gathered only for their trigger words in
        one round, for some linted files, a file that holds none those files hold (as
        identifiers; a name that is not ASCII counts as held) gives no word that could make
        one of them triggered, and is summarized only where the bounds need to know whether
        it has facts."""
        return None

    def trigger_names_at_most(self, data: bytes) -> Iterable[bytes] | None:
        """Names that hold every one `trigger_names` gives, read more cheaply (None: no such
        reading): a file holding none of them that a linted file holds is not asked
        `trigger_names` (what costs there: whether the code, not its prose, names a word)."""
        return None

    def more_words(self, facts: dict[str, Any], settings) -> Iterable[str]:
        """Words that the facts found so far (path -> summary) make worth looking for."""
        return ()

    def more_words_after(self, facts: dict[str, Any], settings,
                         searched: set[str]) -> Iterable[str]:
        """`more_words`, where they depend on the words already searched for (`searched`:
        the first round's and seeds among them)."""
        return self.more_words(facts, settings)

    def lookups(self, context) -> Iterable[str] | None:
        """What a linted file that needs these facts can reach them through (e.g. the modules
        its imports name), for `affects`; None: any fact may matter to it."""
        return None

    def affects(self, facts: dict[str, Any], path: str, lookups: list[str]) -> bool:
        """Whether `facts` (path -> summary) can change the findings of the linted file at
        `path`, given its `lookups`: the run lints it again with them only then."""
        return True

    def searched_as(self, words: Iterable[str]) -> set[str]:
        """What the files are searched for, of `words` (default: the words; an indexer whose
        words carry more than a name says which part a file holds)."""
        return set(words)

    def pattern(self, words: Iterable[str], first_round: bool) -> re.Pattern[bytes]:
        """The byte pattern that marks a file holding one of `words` — the indexer's own words
        in the first round, `more_words` later (default: the word as a whole identifier).
        Each alternative starts with its word, the boundary before it checked behind it: `re`
        then tries only the places where a word's first character is (one lookbehind ahead of
        all of them: every byte, 2.6 times as long for the page allocators' words)."""
        escaped = [re.escape(word) for word in sorted(words)] or [""]
        return re.compile("|".join(rf"{word}(?<![A-Za-z0-9_]{word})(?![A-Za-z0-9_])"
                                   for word in escaped).encode())

    def summarize(self, context) -> Any:
        """A small fact of `summary_type` about one parsed file (None: nothing worth keeping). It may
        depend only on the file's bytes and the settings, never on other files."""
        raise NotImplementedError

    per_word = False
    """Whether the facts of a file are made per word searched (`summarize_word`) and merged
    (`merged`), not summarized whole: where a whole summary costs far more than what the
    words asked of it need (`ProjectIndex._facts_by_word`)."""

    def summarize_word(self, context, word: str) -> Any:
        """A `per_word` indexer's piece of a file for one word searched; for the word "", its
        base: what does not depend on the words, None where a whole summary would be None."""
        raise NotImplementedError

    def words_read(self, facts: dict[str, Any], settings, searched: set[str]) -> Iterable[str]:
        """For a `per_word` indexer: the words the questions asked of the facts may read the
        pieces of, of the files read (default: `more_words_after`'s)."""
        return self.more_words_after(facts, settings, searched)

    def merged(self, pieces: list) -> Any:
        """A `per_word` indexer's facts of a file, of its base and the pieces of the words
        searched that it holds (None pieces left out), as a whole summary would give them to
        every question about those words."""
        raise NotImplementedError

    @property
    def summarizers(self) -> tuple["Indexer", ...]:
        """The indexers whose per-file summaries make these facts: the indexer itself, unless
        it gathers them (`facts_from(index)`) through others' (by include, not by word)."""
        return (self,)


@lru_cache(maxsize=64)
def _first_round(indexer: Indexer, words: tuple[str, ...]) -> "_Search":
    """The first round's search for `words`, made once for every file asked."""
    return _Search(indexer, set(words), first_round=True)


def word_key(digest: str, word: str) -> str:
    """Where a `per_word` indexer's piece of a file's content `digest` for `word` is kept (no
    digest holds a NUL)."""
    return f"{digest}\0{word}"


@lru_cache(maxsize=256)
def _word_search(indexer: Indexer, word: str, first_round: bool) -> "_Search":
    """The search for one word of a round (`ProjectIndex._facts_by_word`), made once."""
    return _Search(indexer, {word}, first_round)


_TRIGGER_NAMES = "trigger-names\0"
"""The key an indexer's stored trigger names are kept under among the answers (no byte
search's question holds a NUL)."""
_AT_MOST = "\0at-most"
"""After an indexer's name: where its `trigger_names_at_most` are kept."""


class IndexStore:
    """Summaries by indexer and content hash, persisted in one store per fingerprint
    (cursedlint's code and the settings summaries depend on) under the cache directory; written
    only when a run added to it; bounded per indexer (the summaries unused longest are
    dropped). A summary is decoded, and checked against its indexer's `summary_type`, when the
    run first asks for it; one that fails the check is not stored. It also keeps each
    summary's digests (`facts_digest`'s parts), so a warm run need not walk the summaries.
    The parts of indexers whose `apart` is true are kept in a second store (`apart_path`)."""

    def __init__(self, directory: str, index_fingerprint: str):
        self.path = os.path.join(directory, f"index-{index_fingerprint[:32]}{STORE_SUFFIX}")
        self.apart_path = os.path.join(directory,
                                       f"index-reach-{index_fingerprint[:32]}{STORE_SUFFIX}")
        """Where the parts of the indexers marked `apart` are kept: loaded when one is first
        asked for, written only when one of them changed."""
        self.apart: dict[str, msgspec.Raw] | None = None
        self.apart_names: set[str] = set()  # (those of indexers whose `apart` is true)
        self.apart_changed = False
        schema = tuple[dict[str, msgspec.Raw], dict[str, tuple[Stat, str]],
                       dict[str, msgspec.Raw], dict[str, tuple[int, str, str]], int]
        stored = load_store(self.path, schema)
        if stored is None:
            self.parts, self.files, self.answers, self.digests, self.run = {}, {}, {}, {}, 0
        else:
            self.parts, self.files, self.answers, self.digests = stored[:4]
            self.run = stored[4] + 1
        self.entries: dict[str, dict[str, tuple[int, Any]]] = {}  # indexer name -> decoded part
        self.bounds: dict[str, int] = {}  # indexer name -> entries kept at most
        self.changed = False
        self._storable: dict[str, bool] = {}  # question -> `storable` (asked once, not per file)

    def known_digest(self, path: str, stat: Stat | None) -> str | None:
        """The content hash of a file whose stat now (`stat`) matches the one stored with it
        (not read)."""
        known = self.files.get(path)
        return known[1] if known is not None and known[0] == stat else None

    def content(self, path: str, stat: Stat | None,
                read: Callable[[str], bytes | None]) -> tuple[str | None, bytes | None]:
        """A file's content hash and, when it had to be read (`read(path)`, None when it
        cannot be), its bytes; (None, None): unreadable. A file whose stat now (`stat`) is the
        one stored with its hash is not read; one read is remembered with its stat from
        before the read."""
        digest = self.known_digest(path, stat)
        if digest is not None:
            return digest, None
        before = file_stat(path)
        data = read(path)
        if data is None:
            return None, None
        digest = content_digest(data)
        self.remember(path, before, digest)
        return digest, data

    def remember(self, path: str, stat: Stat | None, digest: str) -> None:
        """A file's content hash, with its stat from before it was read (None: not trusted)."""
        if stat is not None and self.files.get(path) != (stat, digest) and storable(path):
            self.files[path] = (stat, digest)
            self.changed = True

    def answers_for(self, question: str) -> dict[str, bool]:
        """Content hash -> the stored answer about it (a byte search), for one question (whose
        text may hold thousands of words); decoded when the run first asks (a store keeps
        the answers of questions other runs asked: other seeds, other settings)."""
        answers = self.answers.get(question)
        if not isinstance(answers, dict):
            try:
                answers = decoded(answers, dict[str, bool]) if answers is not None else {}
            except ValueError:  # (msgspec's DecodeError is one)
                answers = {}
            self.answers[question] = answers
        return answers

    def put_answer(self, question: str, digest: str, value: bool) -> None:
        if question not in self._storable:
            self._storable[question] = storable(question)
        if self._storable[question]:
            self.answers_for(question)[digest] = value
            self.changed = True

    def trigger_names_of(self, name: str) -> dict[str, list[bytes] | None]:
        """Content hash -> indexer `name`'s `trigger_names` of it (None: any), as runs worked
        them out (a warm pre-commit run reads no file to ask again); kept beside the answers,
        decoded when the run first asks."""
        key = f"{_TRIGGER_NAMES}{name}"
        names = self.answers.get(key)
        if not isinstance(names, dict):
            try:
                names = decoded(names, dict[str, list[bytes] | None]) \
                    if names is not None else {}
            except ValueError:  # (msgspec's DecodeError is one)
                names = {}
            self.answers[key] = names
        return names

    def put_trigger_names(self, name: str, digest: str, names: Iterable[bytes] | None) -> None:
        self.trigger_names_of(name)[digest] = None if names is None else sorted(names)
        self.changed = True

    def summary_digests(self, name: str, digest: str) -> tuple[str, str] | None:
        """The digests (`facts_digest`'s parts) of indexer `name`'s summary of content
        `digest`, when a run worked them out before."""
        known = self.digests.get(f"{name}\0{digest}")
        return None if known is None else known[1:]

    def put_summary_digests(self, name: str, digest: str, parts: tuple[str, str]) -> None:
        self.digests[f"{name}\0{digest}"] = (self.run, *parts)
        self.changed = True

    def get(self, indexer: Indexer, digest: str) -> tuple[bool, Any]:
        """Whether a summary of content `digest` is stored for `indexer`, and the summary
        (decoded now, and checked against the indexer's `summary_type`: one of another
        shape counts as not stored)."""
        entries = self._entries(indexer)
        entry = entries.get(digest)
        if entry is None:
            return False, None
        try:
            summary = decoded(entry[1], indexer.summary_type | None)
        except ValueError:  # (msgspec's DecodeError is one)
            del entries[digest]
            return False, None
        entries[digest] = (self.run, summary)
        return True, summary

    def holds(self, indexer: Indexer, digest: str) -> bool:
        """Whether a summary of content `digest` is stored for `indexer` (not decoded)."""
        return digest in self._entries(indexer)

    def put(self, indexer: Indexer, digest: str, summary: Any) -> None:
        """Keep a summary for later runs (one holding text that is not Unicode is not kept),
        at most the indexer's `max_stored` (default `MAX_STORED_SUMMARIES`), the newest."""
        if storable(summary):
            self._entries(indexer)[digest] = (self.run, summary)
            self.bounds[indexer.name] = getattr(indexer, "max_stored", MAX_STORED_SUMMARIES)
            if indexer.name in self.apart_names:
                self.apart_changed = True
            else:
                self.changed = True

    def _parts(self, indexer) -> dict[str, msgspec.Raw]:
        """The stored parts an indexer's part is among (those kept `apart`: loaded now)."""
        if not getattr(indexer, "apart", False):
            return self.parts
        self.apart_names.add(indexer.name)
        if self.apart is None:
            self.apart = load_store(self.apart_path, dict[str, msgspec.Raw]) or {}
        return self.apart

    def _entries(self, indexer: Indexer) -> dict[str, tuple[int, Any]]:
        """The indexer's part: content hash -> (run, summary, still encoded until `get`)."""
        if indexer.name not in self.entries:
            schema = dict[str, tuple[int, msgspec.Raw]]
            part = self._parts(indexer).get(indexer.name)
            try:
                entries = {} if part is None else msgspec.msgpack.decode(part, type=schema)
            except (ValueError, MemoryError):  # msgspec's DecodeError is a ValueError
                entries = {}
            self.entries[indexer.name] = entries
        return self.entries[indexer.name]

    def save(self) -> None:
        if self.apart_changed and self.apart is not None:
            for name in self.apart_names:
                self.apart[name] = msgspec.Raw(encode(self._bounded(name, self.entries[name])))
            save_store(self.apart_path, self.apart)
            self.apart_changed = False
        if not self.changed:
            return
        for name, entries in self.entries.items():
            if name not in self.apart_names:
                self.parts[name] = msgspec.Raw(encode(self._bounded(name, entries)))
        if sum(_stored_bytes(key, answers) for key, answers in self.answers.items()) \
                > MAX_STORED_ANSWERS * _ANSWER_BYTES:
            self.answers = {}
        if len(self.digests) > MAX_STORED_SUMMARIES:
            self.digests = newest(self.digests, MAX_STORED_SUMMARIES)
        save_store(self.path, (self.parts, self.files, self.answers, self.digests, self.run))

    def _bounded(self, name: str, entries: dict[str, tuple[int, Any]]) -> dict:
        bound = self.bounds.get(name, MAX_STORED_SUMMARIES)
        return newest(entries, bound) if len(entries) > bound else entries


CAN_FORK = hasattr(os, "fork")
PARALLEL_SUMMARY_BYTES = 256 << 10
"""Below this many bytes to summarize in a round, forked processes cost more than they save
(a summary costs a few times the file's lint)."""


NAMING_FILES = 64
"""The most linted files whose names a gathering for trigger words alone is narrowed to."""


class ProjectIndex:
    """The facts of a set of project files, per indexer. `parse(source)` gives a file's
    analysis context (None when it cannot be parsed)."""

    def __init__(
        self, files: list[tuple[str, str]], settings, parse: Callable, store=None,
        file_bytes: FileBytes | None = None, jobs: int = 1, run_stats: RunStats | None = None,
        for_triggers: dict[str, list[tuple[str, str]]] | None = None,
        linted: list[tuple[str, str]] | None = None, shared: dict | None = None,
    ):
        self.files = files
        self.for_triggers = for_triggers or {}
        """Indexer name -> the files its facts come from where they are gathered only for
        their trigger words (from `Indexer.trigger_source_words`)."""
        self.linted = linted
        """The files (path, language) whose names the trigger words are looked for in, where
        that is all they are gathered for (`Indexer.trigger_names`)."""
        self.file_bytes = file_bytes or FileBytes(KEPT_BYTES)
        self.settings = settings
        self.parse = parse
        self.store = store
        self.jobs = jobs  # processes that may summarize a round's files (forked)
        self.run_stats = RunStats() if run_stats is None else run_stats  # shared with the cache
        self.summarized = 0  # files parsed for a summary in this run (not found in the store)
        self.errors: list[FactError] = []  # summarizers that raised, in this run
        self.passes: list[FactPass] = []  # what each indexer's gathering did, for -v/explain
        self._memo: dict[tuple[str, str], Any] = {}
        self._named: dict[tuple[str, str, str], Any] = {}  # (`summary`: by indexer, path, language)
        self._shared = shared
        """(indexer name, content hash[, target Python]) -> summary, made by every index of the
        run whose settings give the same summaries (the groups of one project linted with their own
        configurations: the C/C++ files of torchcomms' four groups were summarized twice)."""
        self._digests: dict[str, str] = {}  # path -> content hash, each file hashed or stat'ed once
        self._failed: set[tuple[str, str]] = set()  # (indexer, digest) whose summarizer raised
        self._per_file: set[str] = set()  # indexers whose facts are each file's own summary
        self.gathered: dict[str, Any] = {}
        """Indexer name -> its facts, as a run gathers them (for the indexers `after` them)."""
        self._held: dict[str, tuple[list[frozenset[str]], list[frozenset[str]]]] = {}
        """Path -> what this run's searches for at most HELD_WORDS whole words found in the
        file: the sets of words it holds none of, and those it holds one of (`holds_words`;
        each set shared by every file its search asked)."""

    def facts(self, indexer: Indexer, seeds: Iterable[str] = ()) -> dict[str, Any]:
        """Path -> summary, for the project files of the indexer's languages that have one;
        `seeds`: the words the linted files that need the facts add to the first round."""
        if indexer.per_word:
            return self._facts_by_word(indexer, seeds)
        self._per_file.add(indexer.name)
        found: dict[str, Any] = {}
        done: set[str] = set()
        searched: set[str] = set()
        size = 0
        files = self.for_triggers.get(indexer.name, self.files)
        if indexer.name in self.for_triggers:
            words = indexer.trigger_source_words(self.settings)
            most = indexer.max_rounds if indexer.trigger_rounds is None else indexer.trigger_rounds
        else:
            words, most = indexer.words(self.settings), indexer.max_rounds
        pending = set(words) | set(seeds)
        may_name = self._may_name(indexer) if indexer.name in self.for_triggers and \
            most == 0 else None
        put_off: list = []  # hits that may give no word a linted file names, in order
        taken: list[str] = []  # every hit's path, in order (`found`'s order)
        rounds = 0
        while pending and (most is None or rounds <= most):
            rounds += 1
            hits = self._hits(indexer, _Search(indexer, pending, first_round=not searched), done)
            ahead = _within_bounds(indexer, hits, len(found), size, self._size)
            if may_name is None:
                self._summarize_ahead(indexer, ahead)
            else:
                self._summarize_ahead(indexer, [hit for hit in ahead if may_name(*hit)])
            hits = itertools.chain(ahead, hits)
            while True:
                if put_off and not _full(indexer, len(found), size) and \
                        _full(indexer, len(found) + len(put_off), size):
                    for path, language, digest, data in put_off:  # the bound needs them
                        summary = self._summary(indexer, path, digest, data, language)
                        if summary is not None:
                            found[path] = summary
                    found = {path: found[path] for path in taken if path in found}
                    put_off = []
                if _full(indexer, len(found), size):
                    self.passes.append(FactPass(indexer.name, _of(indexer, files), rounds,
                                                len(done), len(found), _bound(indexer)))
                    return found
                hit = next(hits, None)
                if hit is None:
                    break
                path, language, digest, data = hit
                done.add(path)
                taken.append(path)
                size += self._size(path)
                if may_name is not None and not may_name(*hit):
                    put_off.append(hit)
                    continue
                summary = self._summary(indexer, path, digest, data, language)
                if summary is not None:
                    found[path] = summary
            searched |= pending
            pending = set(indexer.more_words_after(found, self.settings, searched)) - searched
        self.passes.append(FactPass(indexer.name, _of(indexer, files), rounds, len(done),
                                    len(found)))
        return found

    def _facts_by_word(self, indexer: Indexer, seeds: Iterable[str]) -> dict[str, Any]:
        """`facts` of a `per_word` indexer: the same files, in the same order and bounds (a
        file counts where its base is not None, as where its whole summary is not), each
        with the pieces of the words searched that it holds. A file read in a round gets the
        pieces of later rounds' words it holds too, and past the bounds and the last round the
        rounds go on over the files read until the facts lead to no new word the questions
        asked of them may read (`words_read`): each file read has the pieces of every such
        word, as its whole summary would hold them."""
        found: dict[str, Any] = {}
        pieces: dict[str, list] = {}  # path -> its base and pieces
        read: list[tuple[str, str, str, bytes | None]] = []  # (path, language, digest, bytes)
        done: set[str] = set()
        searched: set[str] = set()
        size = rounds = 0
        stopped: FactPass | None = None
        pending = set(indexer.words(self.settings)) | set(seeds)
        while pending and (indexer.max_rounds is None or rounds <= indexer.max_rounds):
            rounds += 1
            first = not searched
            for path, language, digest, data in read:
                if path in pieces:
                    self._add_pieces(indexer, (path, language, digest, data), pending, first,
                                     pieces, found)
            hits = self._hits(indexer, _Search(indexer, pending, first_round=first), done)
            while stopped is None:  # (the bounds asked before each hit, as `facts` asks them)
                if _full(indexer, len(found), size):
                    stopped = FactPass(indexer.name, _of(indexer, self.files), rounds,
                                       len(done), len(found), _bound(indexer))
                    break
                hit = next(hits, None)
                if hit is None:
                    break
                done.add(hit[0])
                read.append(hit)
                size += _size(hit[0])
                [base] = self._word_summaries(indexer, hit, [""])
                if base is not None:
                    pieces[hit[0]] = [base]
                    found[hit[0]] = base
                    self._add_pieces(indexer, hit, pending, first, pieces, found)
            searched |= pending
            pending = set(indexer.more_words_after(found, self.settings, searched)) - searched
        self.passes.append(stopped or FactPass(indexer.name, _of(indexer, self.files), rounds,
                                               len(done), len(found)))
        pending = (pending | set(indexer.words_read(found, self.settings, searched))) - searched
        while pending:  # (what the facts of the files read lead to: their whole summaries' part)
            for path, language, digest, data in read:
                if path in pieces:
                    self._add_pieces(indexer, (path, language, digest, data), pending, False,
                                     pieces, found)
            searched |= pending
            pending = set(indexer.words_read(found, self.settings, searched)) - searched
        return found

    def _add_pieces(self, indexer: Indexer, hit: tuple, words: set[str], first: bool,
                    pieces: dict[str, list], found: dict[str, Any]) -> None:
        """Merge into a file's facts the pieces of those of `words` that it holds."""
        path, _, _, data = hit
        data = data if data is not None else self.source_bytes(path)
        held = [] if data is None else [word for word in sorted(words)
                                        if _word_search(indexer, word, first).holds(data)]
        if held:
            pieces[path] += self._word_summaries(indexer, hit, held)
            found[path] = indexer.merged([piece for piece in pieces[path] if piece is not None])

    def _word_summaries(self, indexer: Indexer, hit: tuple, words: list[str]) -> list:
        """A `per_word` indexer's pieces of one file (`hit`) for `words`, kept by content and
        word; those not known yet made from one parse."""
        path, language, digest, data = hit
        keys = [(indexer.name, word_key(digest, word)) for word in words]
        missing = []
        for key, word in zip(keys, words):
            if key not in self._memo:
                stored, summary = self._known(indexer, key[1])
                if stored:
                    self._memo[key] = summary
                else:
                    missing.append(word)
        if missing:
            made, error = self._read_and_summarize(indexer, path, data, language, missing)
            for word, summary in zip(missing, made or [None] * len(missing)):
                key = (indexer.name, word_key(digest, word))
                self._memo[key] = summary
                self.summarized += 1
                self._keep(indexer, key[1], summary, error)
        return [self._memo[key] for key in keys]

    def _may_name(self, indexer: Indexer):
        """Where the indexer's facts are gathered for their trigger words alone: whether a hit
        (path, language, content hash, bytes) may give a word one of the linted files holds
        as a whole name (as `facts_run.names_any` looks for it): one of its
        `Indexer.trigger_names` is such a name or is not ASCII (the bytes of a file in another
        encoding), it says any may be, or its summary is made already (`trigger_names` asked
        only where one of its `Indexer.trigger_names_at_most` may be such a name; each kept
        by content, in the store where the run has one). None: every hit may
        (also where more than `NAMING_FILES` files are linted: their names cover most, and
        listing them cost more than the summaries it spared, 0.4 s of Megatron-LM's run)."""
        if self.linted is None or type(indexer).trigger_names is Indexer.trigger_names \
                or len(self.linted) > NAMING_FILES:
            return None
        texts = [data for path, language in self.linted if language in indexer.languages
                 and (data := self.source_bytes(path)) is not None]
        names = frozenset().union(*map(_identifiers, texts))

        stored = self.store.trigger_names_of(indexer.name) if self.store else {}
        at_most = self.store.trigger_names_of(indexer.name + _AT_MOST) if self.store else {}

        def named(given: Iterable[bytes] | None) -> bool:
            return given is None or any(not name.isascii() or name in names for name in given)

        def may_name(path: str, language: str, digest: str, data: bytes | None) -> bool:
            if (indexer.name, digest) in self._memo or self._known(indexer, digest)[0]:
                return True
            if digest in stored:
                return named(stored[digest])
            if digest in at_most and not named(at_most[digest]):
                return False
            data = data if data is not None else self.source_bytes(path)
            if data is None:
                return True
            if digest not in at_most:
                first = indexer.trigger_names_at_most(data)
                if first is not None:
                    keep(indexer.name + _AT_MOST, at_most, digest, first)
                    if not named(first):
                        return False
            given = indexer.trigger_names(data)
            keep(indexer.name, stored, digest, given)
            return named(given)

        def keep(name: str, kept: dict, digest: str, given: Iterable[bytes] | None) -> None:
            if self.store:  # (the store's own dicts)
                self.store.put_trigger_names(name, digest, given)
            else:  # (asked again as the round goes on)
                kept[digest] = given

        return may_name

    def add(self, indexer: Indexer, digest: str, summary: Any) -> None:
        """A summary of content `digest` made elsewhere from the same bytes and settings (the
        lint's own parse of the file, in a worker)."""
        if (indexer.name, digest) not in self._memo:
            self._memo[(indexer.name, digest)] = summary
            self.summarized += 1
            if self.store:
                self.store.put(indexer, digest, summary)
            if self._shared is not None:
                self._shared[self._shared_key(indexer, digest)] = summary

    def made(self) -> list[tuple[str, str, Any]]:
        """(indexer name, content hash, summary) of each summary this index made or was given,
        but those whose summarizer raised: what a later gathering of the same run is given
        (`add`) rather than parsing the files again (and the errors reported again)."""
        return [(name, digest, summary) for (name, digest), summary in self._memo.items()
                if (name, digest) not in self._failed]

    def summarize_ahead(self, indexer: Indexer, paths: Iterable[tuple[str, str]]) -> None:
        """Summarize the files (path, language) in forked processes, as a round's hits are,
        before they are asked for one by one (`summary`)."""
        hits = []
        for path, language in paths:
            digest, data = self.content(path)
            if digest is not None or data is not None:
                hits.append((path, language, digest or self._hashed(path, data), data))
        self._summarize_ahead(indexer, _within_bounds(indexer, iter(hits), 0, 0, self._size))

    def _hits(self, indexer: Indexer, search: "_Search",
              done: set[str]) -> Iterator[tuple[str, str, str, bytes | None]]:
        """The project files not yet summarized whose bytes the round's search finds, in
        order: (path, language, content hash, the bytes when read). Files are searched as
        the hits are taken: a round that ends at the indexer's bounds searches no further."""
        known = self._digests  # (the loop may run over every project file, each round)
        answers = self.store.answers_for(search.question) if self.store else {}
        for path, language in self.for_triggers.get(indexer.name, self.files):
            if path in done or language not in indexer.languages:
                continue
            digest = known.get(path)
            data = None
            if digest is None:
                digest, data = self.content(path)
                if digest is None and data is None:  # unreadable
                    done.add(path)
                    continue
            hit = answers.get(digest) if digest else None
            if hit is None and search.held_words is not None:
                hit = self._held_answer(path, search.held_words)
            if hit is None:
                data = data if data is not None else self.source_bytes(path)
                hit = data is not None and search.holds(data)
                if digest and self.store:
                    self.store.put_answer(search.question, digest, hit)
            if search.held_words is not None:
                self._hold(path, search.held_words, hit)
            if hit:
                yield path, language, digest or self._hashed(path, data), data

    def holds_words(self, indexer: Indexer, path: str, data: bytes,
                    words: Iterable[str]) -> bool:
        """Whether the file at `path` (its bytes `data`) holds one of `words` as the first
        round of `indexer` searches for them, answered where this run's searches of the file
        for whole words tell (one of a set it holds is asked, or all are absent), else by a
        search for the words not known absent (`rdma-headers` searched every file for the 27
        names its wrappers' rounds had searched it for, 12 of them in the first)."""
        search = _first_round(indexer, tuple(sorted(words)))
        if search.held_words is None or type(indexer).searched_as is not Indexer.searched_as:
            return search.holds(data)  # (the words not known absent are searched as they are)
        known = self._held_answer(path, search.held_words)
        if known is not None:
            return known
        rest = search.held_words.difference(*self._held.get(path, ((),))[0])
        hit = _first_round(indexer, tuple(sorted(rest))).holds(data)
        self._hold(path, rest, hit)
        return hit

    def _held_answer(self, path: str, words: frozenset[str]) -> bool | None:
        """Whether the file holds one of `words` as a whole word, where this run's searches
        of it tell; else None."""
        absent, held = self._held.get(path, ((), ()))
        if any(found <= words for found in held):
            return True
        return False if absent and not words.difference(*absent) else None

    def _hold(self, path: str, words: frozenset[str], hit: bool) -> None:
        absent, held = self._held.setdefault(path, ([], []))
        (held if hit else absent).append(words)

    def _summarize_ahead(self, indexer: Indexer, hits) -> None:
        """Summarize in forked processes, ahead of `facts`, the `hits` that are neither
        memoized nor stored, when they are enough to be worth the processes."""
        todo = [(path, language, digest, data) for path, language, digest, data in hits
                if (indexer.name, digest) not in self._memo
                and not self._known(indexer, digest)[0]]
        if self.jobs < 2 or len(todo) < 2 or not CAN_FORK or \
                sum(self._size(path) for path, *_ in todo) < PARALLEL_SUMMARY_BYTES:
            return
        from cursedlint.engine.forked import forked_map

        chunks = [todo[start::self.jobs * 4] for start in range(min(len(todo), self.jobs * 4))]
        done = forked_map(lambda chunk: [self._read_and_summarize(indexer, path, data, language)
                                         for path, language, _, data in chunk],
                          chunks, self.jobs)
        for chunk, summaries in zip(chunks, done):
            for (_, _, digest, _), (summary, error) in zip(chunk, summaries):
                self._memo[(indexer.name, digest)] = summary
                self.summarized += 1
                self._keep(indexer, digest, summary, error)

    def summary_digests(self, name: str, path: str, summary: Any) -> tuple[str, str]:
        """`facts_digest`'s parts for indexer `name`'s fact about `path`: worked out once per
        content and kept in the store, where the fact is the file's own summary."""
        digest = self._digests.get(path) if self.store and name in self._per_file else None
        if digest is None:
            return _summary_digests(name, summary)
        parts = self.store.summary_digests(name, digest)
        if parts is None:
            parts = _summary_digests(name, summary)
            self.store.put_summary_digests(name, digest, parts)
        return parts

    def content(self, path: str) -> tuple[str | None, bytes | None]:
        """The file's content hash (when the run has a store) and, when it had to be read,
        its bytes (None, None: unreadable). A file whose stat the store knows is not read;
        without a store, nothing is hashed that is not summarized."""
        if not self.store:
            return None, self.source_bytes(path)
        digest = self._digests.get(path)
        if digest is not None:
            return digest, None
        digest, data = self.store.content(path, self.run_stats.of(path), self.source_bytes)
        if digest is not None:
            self._digests[path] = digest
        return digest, data

    def hashed_as(self, earlier: "ProjectIndex") -> None:
        """Take the content hashes an earlier index of the same run worked out (a second
        gathering, for files the first facts made worth linting, reads the same files)."""
        for path, digest in earlier._digests.items():
            self._digests.setdefault(path, digest)

    def _hashed(self, path: str, data: bytes) -> str:
        """The content hash of a file read without a store, worked out once per run (a header
        many files include is asked for again and again)."""
        digest = self._digests.get(path)
        if digest is None:
            digest = self._digests[path] = content_digest(data)
        return digest

    def _size(self, path: str) -> int:
        """The file's size, from the run's stat of it (taken once: the bounds ask each hit's
        twice), else asked now."""
        stat = self.run_stats.of(path)
        return stat[0] if stat else _size(path)

    def source_bytes(self, path: str) -> bytes | None:
        """The file's bytes; None when unreadable, binary, or larger than `max-file-size`
        (never summarized: not read, nor searched)."""
        if self._size(path) > self.settings.max_file_size:
            return None
        try:
            data = self.file_bytes.read(path)
        except SourceError:
            return None
        return None if looks_binary(data) else data

    def read(self, path: str) -> bytes:
        """The bytes of a file the facts depend on (a compilation database); SourceError
        when it cannot be read."""
        return self.file_bytes.read(path)

    def summary(self, indexer: Indexer, path: str, language: str) -> Any:
        """The indexer's summary of one named file (a header an include names), as `facts`
        gives it; None when the file cannot be read or has none. Worked out once per name
        (each file asks for the headers it includes: 20,656 asks of the C/C++ worst case for
        about a tenth as many, 3% of its run in reading, stat'ing and hashing them again)."""
        key = (indexer.name, path, language)
        if key not in self._named:
            self._named[key] = self._named_summary(indexer, path, language)
        return self._named[key]

    def _named_summary(self, indexer: Indexer, path: str, language: str) -> Any:
        digest, data = self.content(path)
        if digest is None and data is None:
            return None
        data = data if data is not None else self.source_bytes(path)
        if data is None:
            return None
        return self._summary(indexer, path, digest or self._hashed(path, data), data,
                             language)

    def _summary(self, indexer: Indexer, path: str, digest: str, data: bytes | None,
                 language: str) -> Any:
        key = (indexer.name, digest)
        if key in self._memo:
            return self._memo[key]
        stored, summary = self._known(indexer, digest)
        if not stored:
            summary, error = self._read_and_summarize(indexer, path, data, language)
            self.summarized += 1
            self._keep(indexer, digest, summary, error)
        self._memo[key] = summary
        return summary

    def _known(self, indexer: Indexer, digest: str) -> tuple[bool, Any]:
        """Whether a summary of content `digest` is known without a parse, and the summary:
        made by another index of the run (then kept in this one's store too), or stored."""
        key = self._shared_key(indexer, digest) if self._shared is not None else None
        if key is not None and key in self._shared:
            summary = self._shared[key]
            if self.store and not self.store.holds(indexer, digest):
                self.store.put(indexer, digest, summary)
            return True, summary
        return self.store.get(indexer, digest) if self.store else (False, None)

    def _keep(self, indexer: Indexer, digest: str, summary: Any, error: FactError | None):
        """Keep a new summary in the store and for the run's other indexes, or the error of
        a summarizer that raised (its file is summarized again, and the error reported
        again, by the next run)."""
        if error is not None:
            self.errors.append(error)
            self._failed.add((indexer.name, digest))
            return
        if self.store:
            self.store.put(indexer, digest, summary)
        if self._shared is not None:
            self._shared[self._shared_key(indexer, digest)] = summary

    def _shared_key(self, indexer: Indexer, digest: str) -> tuple:
        """A summary's key among the run's (a Python file's summary may depend on the target
        Python, which the groups that share them may not have in common)."""
        if PYTHON_TREES.isdisjoint(indexer.languages):
            return indexer.name, digest
        return indexer.name, digest, self.settings.target_python

    def _read_and_summarize(self, indexer: Indexer, path: str, data: bytes | None,
                            language: str, words: list[str] | None = None
                            ) -> tuple[Any, FactError | None]:
        data = data if data is not None else self.source_bytes(path)
        return (None, None) if data is None else self._summarize(indexer, path, data, language,
                                                                 words)

    def _summarize(self, indexer: Indexer, path: str, data: bytes, language: str,
                   words: list[str] | None = None) -> tuple[Any, FactError | None]:
        """The indexer's summary of one file (None when the file cannot be read as code or is
        larger than `max-file-size`: its own lint reports each), or the error of a
        summarizer that raised; with `words`, a `per_word` indexer's pieces of them (a list)."""
        if len(data) > self.settings.max_file_size:
            return None, None
        context = None
        try:
            try:
                source = Source.from_bytes(path, data, language)
            except SourceError:
                return None, None
            context = self.parse(source)
            if context is None:
                return None, None
            if words is not None:
                return [indexer.summarize_word(context, word) for word in words], None
            return indexer.summarize(context), None
        except Exception as error:
            return None, FactError.of(path, indexer.name, error)
        finally:
            if context is not None:
                context.release()


class FactPass(NamedTuple):
    """What gathering one indexer's facts did: over how many project files, in how many
    rounds, how many files held its words (read as code), how many gave a fact, and the bound
    that stopped it (past which chains are unknown), if one did."""

    indexer: str
    files: int
    rounds: int
    read: int
    found: int
    bound: str = ""

    def __str__(self) -> str:
        rounds = f"{self.rounds} round{'s' if self.rounds != 1 else ''}"
        stopped = f"; stopped at its bound of {self.bound}" if self.bound else ""
        return (f"{self.indexer}: {self.files:,} files, {rounds}, {self.read:,} holding its "
                f"words, {self.found:,} with facts{stopped}")


def _of(indexer: Indexer, files: list[tuple[str, str]]) -> int:
    """How many of `files` are of the indexer's languages."""
    return sum(language in indexer.languages for _, language in files)


def _bound(indexer: Indexer) -> str:
    """The indexer's bounds, as -v names them."""
    bounds = []
    if indexer.max_files is not None:
        bounds.append(f"{indexer.max_files:,} files")
    if indexer.max_bytes is not None:
        bounds.append(f"{indexer.max_bytes >> 10:,} KiB")
    return " or ".join(bounds)


class FactError(NamedTuple):
    """An indexer (or a look of one at a linted file) that raised on a file: reported as
    CUR000 there, never passed over (the facts from that file are missing)."""

    path: str
    indexer: str
    error: str  # "TypeError: ..."
    traceback: str

    @classmethod
    def of(cls, path: str, indexer: str, error: BaseException) -> "FactError":
        import traceback

        return cls(path, indexer, f"{type(error).__name__}: {error}",
                   "".join(traceback.format_exception(error)))


def _within_bounds(indexer: Indexer, hits: Iterator, files: int, size: int,
                   size_of: Callable[[str], int]) -> list:
    """The next hits taken from `hits` while the indexer's bounds allow more (given the
    `files` found and `size` read so far; `size_of`: a file's size): those a round surely
    asks for."""
    taken = []
    while not _full(indexer, files, size):
        hit = next(hits, None)
        if hit is None:
            break
        taken.append(hit)
        files += 1
        size += size_of(hit[0])
    return taken


def _full(indexer: Indexer, files: int, size: int) -> bool:
    """Whether the indexer's bounds are reached with `files` found and `size` bytes read."""
    return (indexer.max_files is not None and files >= indexer.max_files) or (
        indexer.max_bytes is not None and size >= indexer.max_bytes)


class _Search:
    """One round's byte search for `words` (a few: substring tests first, then the pattern),
    named by `question` for stored answers; compiled only when a file must be searched."""

    def __init__(self, indexer: Indexer, words: set[str], first_round: bool):
        self.indexer, self.first_round = indexer, first_round
        self.words = indexer.searched_as(words)
        self.question = "\0".join(["search", indexer.name, str(first_round), *sorted(words)])
        self.searched = 0  # files asked about
        self.held_words = frozenset(self.words) if len(self.words) <= HELD_WORDS and \
            type(indexer).pattern is Indexer.pattern else None
        """The words, where a file is a hit when it holds one of them as a whole identifier
        and they are few enough for `ProjectIndex.holds_words` to keep what it found."""

    @cached_property
    def _matchers(self) -> tuple[re.Pattern[bytes] | None, list[bytes] | frozenset[bytes] | None]:
        """The indexer's own pattern (None: whole words), and the words: a list to find one
        by one (a few), a set (many identifiers), None (many words of other characters)."""
        encoded = sorted(word.encode() for word in self.words)
        if type(self.indexer).pattern is not Indexer.pattern:
            return self.indexer.pattern(self.words, self.first_round), encoded
        if len(encoded) <= 8:
            return None, encoded
        return None, frozenset(encoded) if all(map(_is_identifier, encoded)) else None

    @cached_property
    def _automaton(self):
        from cursedlint.triggers.byte_search import automaton

        return automaton(sorted(word.encode() for word in self.words))

    def holds(self, data: bytes) -> bool:
        """Whether `data` holds a word as the pattern wants it (a substring search first:
        most files hold none). Many whole words: for the first few files asked (of up to
        LISTED_BYTES), where the words are LISTED_WORDS or more, the file's identifiers
        (listed once per run) meet the words; past them, or for fewer words, one automaton
        pass per file, each match checked for identifier boundaries."""
        pattern, words = self._matchers
        self.searched += 1
        if pattern is not None:
            if words and not self._present(data, words):
                return False
            return pattern.search(data) is not None
        if isinstance(words, list):
            return self._present(data, words) and _holds_whole(data, words)
        if words is not None and len(words) >= LISTED_WORDS and \
                self.searched <= IDENTIFIER_SEARCHES and len(data) <= LISTED_BYTES:
            return not words.isdisjoint(_identifiers(data))
        if words is not None:  # (identifiers: the longest match at each start is enough)
            return self._leftmost.search(data) is not None
        return any(whole(data, start, end) for _, start, end in
                   self._automaton.find_matches_as_indexes(data, overlapping=True))

    @cached_property
    def _leftmost(self):
        """The words' `WholeWords`: its automaton reports the longest match at the leftmost
        start, and searches on past its end (ten times as fast as every overlapping match:
        the 24 words of `callback-helpers` over the torch wheel's modules, 67 -> 6 ms)."""
        from cursedlint.triggers.byte_search import WholeWords

        return WholeWords(sorted(word.encode() for word in self.words))

    def _present(self, data: bytes, words: list[bytes]) -> bool:
        """Whether `data` holds one of `words` anywhere: `bytes.find` for each of a few, one
        automaton pass for more (the 7 words of `foreign-keeping` over the 1,500 modules a
        file importing torch reaches: 0.11 s as seven finds, 4 ms as one pass)."""
        if len(words) <= FEW_FINDS:
            return any(word in data for word in words)
        return bool(self._leftmost.automaton.find_matches_as_indexes(data, overlapping=False))


HELD_WORDS = 64
"""The most words of a search whose answers `ProjectIndex.holds_words` keeps per file (a
round's thousands of words, kept for each of thousands of files, would not be worth it)."""
FEW_FINDS = 2
"""Words a search finds one by one (`bytes.find`) before one automaton pass finds them all."""
IDENTIFIER_SEARCHES = 16
"""Files a many-word search asks about by their identifiers before it builds its automaton.
Measured on the torch wheel: listing a 110 KB module's identifiers takes 4.5 ms, an automaton
pass over it 3 ms, and building the automaton of a round's 3,240 words about 24 ms; a warm
run after one file changed asks about that file alone."""
LISTED_WORDS = 512
"""The fewest words for which those files' identifiers are listed: the automaton of fewer
builds in a millisecond or less (24 words: 0.3 ms, where listing the identifiers of the first
16 modules of torch took 8 ms)."""
LISTED_BYTES = 512 << 10
"""The largest file whose identifiers are listed: the sets of the last few are kept (5 MB for
one of this size that is all distinct names), larger files are searched by the automaton."""
_IDENTIFIERS = re.compile(rb"[A-Za-z0-9_]+")
_NOT_IDENTIFIER = re.compile(rb"[^A-Za-z0-9_]")
_LISTING_WINDOW = 1 << 16


@lru_cache(maxsize=8)
def _identifiers(data: bytes) -> frozenset[bytes]:
    """The identifiers of a file's bytes (runs of identifier characters): a run's rounds and
    indexers search the same few changed files. Listed a window at a time, each cut where no
    run goes on: the list of every run of a file at once took 14 times the file's size."""
    found: set[bytes] = set()
    start = 0
    while start < len(data):
        cut = _NOT_IDENTIFIER.search(data, start + _LISTING_WINDOW)
        end = cut.start() if cut else len(data)
        found.update(_IDENTIFIERS.findall(data, start, end))
        start = end
    return frozenset(found)


def _is_identifier(word: bytes) -> bool:
    return bool(word) and _IDENTIFIERS.fullmatch(word) is not None


def _holds_whole(data: bytes, words: list[bytes]) -> bool:
    """Whether `data` holds one of `words` as a whole identifier: each found by `bytes.find`
    (C speed, where a regex of alternatives steps through every byte), each match checked for
    identifier boundaries."""
    for word in words:
        start = data.find(word)
        while start >= 0:
            if whole(data, start, start + len(word)):
                return True
            start = data.find(word, start + 1)
    return False


class FactsDigest(NamedTuple):
    """What the facts gathered (indexer name -> path -> summary) are, in two parts. `shape`:
    the facts with each module's line numbers replaced by their ranks within that module
    (rules decide on the order of a module's lines, never on their values). `modules`: per
    summarized module, its summaries exactly (line numbers reach findings only through the
    files a finding cites, `Finding.cites`: its chain's files). A result linted
    with facts is reused while the shape is the same and each module it cites is
    (`FileResult.cited`): an edit that moves a module's lines lints again only the files
    whose findings cite it."""

    shape: str
    modules: dict[str, str]


def facts_digest(project: dict[str, Any], index: ProjectIndex | None = None) -> FactsDigest:
    """The digest of the facts gathered; `index`: the one that gathered them, which keeps
    each summary's parts across runs (`ProjectIndex.summary_digests`)."""
    import hashlib  # (only runs with an index need it)

    shape = hashlib.sha256()
    modules: dict[str, Any] = {}
    for name, facts in sorted(project.items()):
        shape.update(_plain_bytes(name))
        for path, summary in facts.items():
            exact, ranked = index.summary_digests(name, path, summary) if index \
                else _summary_digests(name, summary)
            modules.setdefault(path, hashlib.sha256()).update(exact.encode())
            shape.update(_plain_bytes((path, ranked)))
    return FactsDigest(shape.hexdigest(), {path: h.hexdigest() for path, h in modules.items()})


def _summary_digests(name: str, summary: Any) -> tuple[str, str]:
    """The digests of one fact: as it is (with its indexer's name), and with its line numbers
    ranked (`FactsDigest.shape`)."""
    import hashlib

    try:
        plain = msgspec.to_builtins(summary, str_keys=True)
    except TypeError:  # not plain data: compared as written
        plain = repr(summary)
    return (hashlib.sha256(_plain_bytes((name, plain))).hexdigest(),
            hashlib.sha256(_plain_bytes(_ranked(plain))).hexdigest())


_LINE_FIELDS = frozenset({"line", "lineno", "end_line"})


def _ranked(plain: Any) -> Any:
    """Plain data with the values of its line fields replaced by their ranks among them."""
    lines: set[int] = set()

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _LINE_FIELDS and isinstance(item, int):
                    lines.add(item)
                else:
                    collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)

    def ranked(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: rank[item] if key in _LINE_FIELDS and isinstance(item, int)
                    else ranked(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [ranked(item) for item in value]
        return value

    collect(plain)
    rank = {line: position for position, line in enumerate(sorted(lines))}
    return ranked(plain)


def _plain_bytes(value: Any) -> bytes:
    try:
        return encode(value)
    except (TypeError, ValueError):  # a name of undecodable bytes
        return repr(value).encode("utf-8", "backslashreplace")


_ANSWER_BYTES = 43
"""What one stored answer takes, encoded: a content hash (40 characters) and a boolean."""


def _stored_bytes(key: str, answers) -> int:
    """About what one question's stored answers (or an indexer's trigger names) take."""
    if not isinstance(answers, dict):
        return len(answers)  # (still encoded)
    if key.startswith(_TRIGGER_NAMES):
        return sum(_ANSWER_BYTES + sum(map(len, names or ())) for names in answers.values())
    return len(answers) * _ANSWER_BYTES


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def content_digest(data: bytes) -> str:
    """A file's content hash, as the store keys what it knows of the file."""
    import hashlib  # (only runs with an index need it)

    return hashlib.sha1(data).hexdigest()
