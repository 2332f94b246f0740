"""Searching raw bytes for many words at once: an Aho-Corasick automaton (`ahocorasick_rs`, a
compiled DFA; an NFA for long patterns, whose DFA build is quadratic) and the windows a large
file is searched in, so memory stays bounded. The prefilter, the second looks and the project
index search with them."""

from __future__ import annotations

from ahocorasick_rs import BytesAhoCorasick, Implementation

WINDOW = 1 << 20
"""Bytes searched at a time: the matches of one window are listed at once (a file holding a
word millions of times would list millions), so memory stays bounded by the window."""


LONGEST_FOR_DFA = 256
"""The longest pattern an automaton is built as a DFA for (`automaton`)."""


def automaton(patterns: list[bytes], **options) -> BytesAhoCorasick:
    """An Aho-Corasick automaton of `patterns` (sorted, non-empty): the library's choice (a
    DFA for up to 100 patterns: the fastest search), unless one is longer than LONGEST_FOR_DFA
    bytes. A DFA's build takes time quadratic in a repetitive pattern's length (a name of
    16,000 `a`: 4.7 s), an NFA's linear (1 ms): a file can make its own names patterns (a
    wrapper, an import alias). `options` go to BytesAhoCorasick."""
    if max(map(len, patterns), default=0) > LONGEST_FOR_DFA:
        options["implementation"] = Implementation.ContiguousNFA
    return BytesAhoCorasick(patterns, **options)


def windows(data: bytes, overlap: int):
    """`(start, end)` slices of `data` of about WINDOW bytes, each overlapping the next by
    `overlap` bytes (one less than the longest word searched, so no match is cut)."""
    start = 0
    while True:
        end = min(len(data), start + WINDOW)
        yield start, end
        if end == len(data):
            return
        start = end - overlap


IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def whole(data: bytes, start: int, end: int) -> bool:
    """Whether data[start:end] is not part of a longer identifier."""
    return (start == 0 or data[start - 1] not in IDENTIFIER_BYTES) and (
        end == len(data) or data[end] not in IDENTIFIER_BYTES)


class WholeWords:
    """A search for identifiers (`words`) spelled whole, or for `also` (a pattern), with the
    `search(data)` of a compiled pattern (None where none is found): one automaton pass where
    a pattern of the words' alternatives is tried at every byte that starts one (11 allocator
    names over the C/C++ worst case's 20 MB: 0.15 s as a pattern, 0.01 s so). The automaton
    reports the longest match at the leftmost start and searches on past its end: no whole
    word is missed, as one starting inside a match follows an identifier character, and a
    shorter one at the same start is followed by one."""

    def __init__(self, words: list[bytes], also=None):
        from ahocorasick_rs import MatchKind

        self.automaton = automaton(sorted(words), matchkind=MatchKind.LeftmostLongest)
        self._also = also

    def search(self, data: bytes) -> tuple[int, int] | object | None:
        """The first whole word's span, else `also`'s match, else None."""
        for _, start, end in self.automaton.find_matches_as_indexes(data, overlapping=False):
            if whole(data, start, end):
                return start, end
        return self._also.search(data) if self._also is not None else None
