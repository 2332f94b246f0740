"""Per-file summaries of C/C++ files whose costly pieces are made only where they can matter.

Some pieces of a file's summary matter to the project's facts only through a name the file
calls: what its functions hand their parameters to (a wrapper composed across files, when the
callee is another file's wrapper), which calls' results its `if`s check, which error codes it
hands on. Made for every file holding an indexer's words, they cost the C worst case more than
the rest of the summaries together, for a few files where they mattered. So an indexer of such
facts gathers them (`Indexer.facts_from`) through two summarizers: `Summaries`, each file's
summary without those pieces (made from the lint's parse, like any summary), in the indexer's
rounds; and `Pieces`, the pieces of one file, made (parsed again) only for the files that may
call one of the names the facts found so far make worth it (`names(facts)`: a name spelled as a
whole identifier before a `(`, comments and spaces between: more places, never fewer), again
after each round until no other file may; from the lint's parse where the file may call a name
that always makes them worth it (`Pieces.always`), and from the tree the lint keeps for its
second look where there is one.
"""

from __future__ import annotations

import bisect
from functools import lru_cache
import re
from typing import Any, Callable, Iterator

from msgspec import structs

from cursedlint.project.index import Indexer
from cursedlint.triggers.byte_search import automaton, windows


class Pieces(Indexer):
    """The costly pieces (`fields`) of one file's summary, as a summary of the same type with
    only those set (`summarize`); asked for by `Summaries`, and made from the lint's parse
    only where the file may call one of `always` (names whose calls always make them worth
    it: else most would be parsed again for them)."""

    def __init__(self, name: str, facts: Indexer, fields: tuple[str, ...],
                 summarize: Callable[[Any], Any], always: tuple[str, ...] = ()):
        self.name, self.languages, self.summary_type = name, facts.languages, facts.summary_type
        self.fields, self._facts, self._summarize, self._always = fields, facts, summarize, always

    def words(self, settings):
        return self._facts.words(settings)

    def worth_summarizing(self, source, settings) -> bool:
        return _calls_any(source.data, self._always)

    def summarize(self, context):
        return self._summarize(context)


class Summaries(Indexer):
    """Per file holding the words of `facts` (the indexer that gathers through this one):
    its summary without the `pieces` (`summarize`), also where it has nothing else (a file
    whose only facts are those pieces may be asked for them). `gathered` makes a copy for one
    gathering, whose rounds' words are `facts.more_words` of the facts with the pieces."""

    def __init__(self, facts: Indexer, summarize: Callable[[Any], Any], pieces: Pieces,
                 names: Callable[[dict], set[str]], index=None):
        self.name, self.languages, self.summary_type = facts.name, facts.languages, \
            facts.summary_type
        for bound in ("max_rounds", "max_files", "max_bytes", "trigger_rounds"):
            setattr(self, bound, getattr(facts, bound))
        self._facts, self._summarize, self._pieces, self._names = facts, summarize, pieces, names
        self.index = index
        self._made: dict[str, Any] = {}  # path -> the file's pieces (None: none)
        self._not_called: dict[str, set[str]] = {}  # path -> names it does not call
        self._languages: dict[str, str] | None = None
        self._last: tuple | None = None  # ((facts asked about), the facts with the pieces)

    def gathered(self, index) -> dict[str, Any]:
        """The facts (path -> summary with its pieces), files with nothing left out."""
        gathering = Summaries(self._facts, self._summarize, self._pieces, self._names, index)
        found = gathering.with_pieces(index.facts(gathering))
        empty = self.summary_type()
        return {path: summary for path, summary in found.items() if summary != empty}

    def words(self, settings):
        return self._facts.words(settings)

    def trigger_source_words(self, settings):
        return self._facts.trigger_source_words(settings)

    def summarize(self, context):
        return self._summarize(context)

    def more_words(self, facts, settings):
        return self._facts.more_words(self.with_pieces(facts), settings)

    def with_pieces(self, facts: dict[str, Any]) -> dict[str, Any]:
        """`facts` (path -> summary without the pieces) with the pieces of each file that may
        call one of `names` of them, again until no other file may (new pieces may give new
        names)."""
        while True:
            asked = (id(facts), len(facts), len(self._made))
            if self._last is not None and self._last[0] == asked:
                return self._last[1]  # (the facts of the last round, asked for again)
            merged = {path: self._merged(summary, self._made.get(path))
                      for path, summary in facts.items()}
            names = self._names(merged)
            wanted = [path for path in facts if path not in self._made
                      and self._may_call(path, names)]
            if not wanted:
                self._last = (asked, merged)
                return merged
            for path in wanted:
                self._made[path] = self._made_for(path)

    def _merged(self, summary, pieces):
        if pieces is None:
            return summary
        return structs.replace(summary, **{field: getattr(pieces, field)
                                           for field in self._pieces.fields})

    def _may_call(self, path: str, names: set[str]) -> bool:
        """Whether the file may call one of `names` (`_calls_any`; each name looked for once
        per file)."""
        not_called = self._not_called.setdefault(path, set())
        names = frozenset(names - not_called)
        if not names:
            return False
        data = self.index.source_bytes(path)
        if data is None or _calls_any(data, names):
            return True
        not_called.update(names)
        return False

    def _made_for(self, path: str):
        if self._languages is None:
            self._languages = dict(self.index.files)
        return self.index.summary(self._pieces, path, self._languages[path])


_IDENTIFIER = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_BLANKS = re.compile(rb"\s*")


FEW_NAMES = 8
"""Names `_calls_any` finds one by one (`bytes.find`); more are found by one automaton pass."""


def _calls_any(data: bytes, names) -> bool:
    """Whether `data` holds one of `names` as a whole identifier before a `(` (`_Between`):
    where a file may call one (more places, never fewer). Up to FEW_NAMES names are found by
    `bytes.find` each (half the time of one pattern of them all on the C worst case); more
    by one automaton pass, every place of each (a round's 18 names read each file 18 times:
    three to six times the CPU time of the pass over the C/C++ worst case, as many instructions),
    in windows (a big file spelling one often lists a window's places)."""
    words = sorted({name.encode() for name in names if name})
    between, size = _Between(data), len(data)
    for at, after in _places(data, words) if len(words) > FEW_NAMES else (
            (at, at + len(word)) for word in words for at in _found(data, word)):
        if (at == 0 or data[at - 1] not in _IDENTIFIER) and \
                (after == size or data[after] not in _IDENTIFIER) and between.call_after(after):
            return True
    return False


def _found(data: bytes, word: bytes) -> Iterator[int]:
    """Where `word` is in `data`, each place after the end of the one before (an overlapping
    place of the same name is inside it: no whole identifier)."""
    at = data.find(word)
    while at != -1:
        yield at
        at = data.find(word, at + len(word))


def _places(data: bytes, words: list[bytes]) -> Iterator[tuple[int, int]]:
    """(start, end) of every place of each of `words` in `data`."""
    search = _automaton(tuple(words))
    for start, end in windows(data, max(map(len, words)) - 1):
        for _, at, after in search.find_matches_as_indexes(
                data if end - start == len(data) else memoryview(data)[start:end],
                overlapping=True):
            yield at + start, after + start


@lru_cache(maxsize=64)
def _automaton(words: tuple[bytes, ...]):
    """The automaton of `words` (a round asks every file about the same names)."""
    return automaton(list(words))


class _Between:
    """What may stand between a called name and its `(`: blanks, `/* */` comments, continued
    lines, and `//` comments; a line comment that holds a `(` or a `/*` counts as leading to
    one (a pattern reading these could stop a line comment anywhere and go on from there).
    Where a comment or line ends is looked up among places listed once: a pattern read each
    comment again from each name before it (`f /*` repeated with no `*/`: 128 KB took 50 s)."""

    def __init__(self, data: bytes):
        self.data = data
        self._listed: dict[bytes, list[int]] = {}

    def call_after(self, at: int) -> bool:
        data, size = self.data, len(self.data)
        while True:
            at = _BLANKS.match(data, at).end()
            if at == size:
                return False
            byte = data[at]
            if byte == 0x28:  # (
                return True
            if data.startswith(b"/*", at):
                closed = self._next(b"*/", at + 2)
                if closed == size:
                    return False
                at = closed + 2
            elif data.startswith(b"//", at):
                line_end = self._next(b"\n", at + 2)
                if min(self._next(b"(", at + 2), self._next(b"/*", at + 2)) < line_end:
                    return True
                at = line_end
            elif data.startswith(b"\\\n", at):
                at += 2
            else:
                return False

    def _next(self, text: bytes, at: int) -> int:
        """Where `text` is next from `at` on, or the data's end."""
        places = self._listed.get(text)
        if places is None:
            places = self._listed[text] = [found.start() for found in re.finditer(
                re.escape(text), self.data)]
        index = bisect.bisect_left(places, at)
        return places[index] if index < len(places) else len(self.data)
