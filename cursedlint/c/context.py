"""C/C++ analysis shared by all rules of one file: the tree-sitter tree and query helpers.

tree-sitter cannot expand macros, so many real files have error nodes; they are normal, not
findings. Rules query the tree and keep working outside the broken regions.
The parsers and compiled queries are created once per process and only when a C/C++ file needs
them, so importing cursedlint stays cheap.

Cost follows what a rule asks about, not the size of the file. Generated files hold initializers
of millions of elements, lines of megabytes and nesting thousands deep, so:
- `tokens` and `calls` find names by a byte search of the region, then look each hit up in the
  tree; a query over a region costs a few microseconds per node of it (more over wide nodes), a
  byte search a few nanoseconds per byte;
- `Node.parent` searches down from the root on every call, so in a chain `n + n + ... + n` of
  100,000 terms each climb from a token costs 100,000 steps. Every lookup of the file moves one
  cursor from the place looked up last to the next (the hits of a search come in order: the
  moves add up to about the part of the tree around them), and `parent` and `ancestors` answer
  from its path;
- `descendants` and `children` walk with a cursor and hold no lists (`named_children` of a node
  with a million children is a million objects at once);
- queries (`captures`) run over one function or statement, never the whole file (but
  `c_declarations`' pattern of one node, made once past a file's first questions).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from array import array
import re
from functools import cache, cached_property, lru_cache
from typing import Iterable, Iterator

from cursedlint.analysis import c_macros
from cursedlint.context import FileContext
from cursedlint.findings import Span
from cursedlint.languages import C, CPP
from cursedlint.patterns import LazyPattern


@cache
def ts_language(language: str):
    """The tree-sitter Language object for "c" or "cpp"."""
    from tree_sitter import Language

    if language == C:
        import tree_sitter_c as grammar
    elif language == CPP:
        import tree_sitter_cpp as grammar
    else:
        raise ValueError(f"not a C/C++ language: {language}")
    return Language(grammar.language())


@cache
def _parser(language: str):
    from tree_sitter import Parser

    return Parser(ts_language(language))


@cache
def compiled_query(language: str, pattern: str):
    from tree_sitter import Query

    return Query(ts_language(language), pattern)


def parse(data: bytes, language: str):
    """The tree of a C/C++ file, class heads with export macros read as meant
    (`analysis.c_macros`)."""
    return c_macros.parse(_parser(language), data)


_IDENTIFIER_CHARACTERS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"
_IDENTIFIER_BYTES = frozenset(_IDENTIFIER_CHARACTERS)


_IDENTIFIER_RUN = LazyPattern(rb"[\w$]*")
_IDENTIFIER = re.compile(rb"[\w$]+")
_PLAIN_NAME = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
WIDE_SEARCH_BYTES = 64 << 10
"""A search for names over fewer bytes than this reads them (at C speed); over more, and
more often than SEARCHES_BEFORE_INDEX, the file's identifiers are indexed once instead."""
SEARCHES_BEFORE_INDEX = 32
KEPT_SPANS = 4096
"""Places of a whole-file search kept for the next search of the same names (more: not kept)."""
WIDE_NODE = 64
"""Children of a node past which `_Path` finds the child holding a place by bisection."""


@lru_cache(maxsize=64)
def _automaton(names: frozenset[str]):
    """One search for all of `names` (thousands, for a file's wrappers), and the longest name's
    length in bytes. Standard matching: its time is linear in the text, where leftmost
    matching starts again after each partial match of a long name (identifiers sharing 8,000
    characters with one: 1 s for 1.5 MB, four times that for twice the characters)."""
    from cursedlint.triggers.byte_search import automaton

    encoded = sorted(name.encode() for name in names if name)
    return automaton(encoded), max(map(len, encoded))


FEW_NAMES = 8
"""Plain names a search finds one by one (`bytes.find`, some GB/s for a rare name) rather than
by one automaton pass (about 150 MB/s: each file's searches for the CMA calls, the exits and
the captures read the C/C++ worst case's 20 MB at that speed)."""


def _spelled(names: frozenset[str], data: bytes, start: int, end: int) -> Iterator[tuple]:
    """(start, end) of each of `names` in data[start:end] spelled as a whole identifier. A
    name found inside an identifier (`ab` in `xabc`, which may be another of the names) stands
    for the identifier: its whole run is looked up, once."""
    if not any(names):
        return
    if len(names) <= FEW_NAMES and all(map(_PLAIN_NAME.fullmatch, names)):
        if len(names) == 1:  # (most searches)
            yield from _whole(next(iter(names)).encode(), data, start, end)
        else:
            yield from heapq.merge(*_wholes(names, data, start, end))
        return
    automaton, longest = _automaton(names)
    looked_up = start  # the identifiers before this were looked up
    for _, first, last in automaton.find_matches_as_indexes(memoryview(data)[start:end]):
        first, last = first + start, last + start
        if first < looked_up:
            continue
        if first and data[first - 1] in _IDENTIFIER_BYTES:  # back to the identifier's start,
            before = data[max(0, first - longest):first]  # unless longer than any name
            first -= len(before) - len(before.rstrip(_IDENTIFIER_CHARACTERS))
        last = looked_up = _IDENTIFIER_RUN.match(data, last).end()
        if (start <= first and last <= end
                and not (first and data[first - 1] in _IDENTIFIER_BYTES)
                and data[first:last].decode("utf-8", errors="replace") in names):
            yield first, last


def _wholes(names: frozenset[str], data: bytes, start: int, end: int) -> list[Iterator[tuple]]:
    """For each of `names` (identifiers), (start, end) of each place it is a whole identifier
    within data[start:end], in order (as `_spelled` finds them: a place inside a longer
    identifier is none, nor is one running past `start` or `end`). Names holding another
    (`_exit`, `quick_exit`, `exit`) are read from the shortest one's occurrences: one search
    of the bytes for the group."""
    groups, alone = _groups(names)
    found = [_whole(name, data, start, end) for name in alone]
    for base, held in groups:
        occurrences = _occurrences(base, data, start, end)
        found.extend(iter(_held(name, name.find(base), occurrences, data, start, end))
                     for name in held)
    return found


@lru_cache(maxsize=256)
def _groups(names: frozenset[str]) -> tuple[tuple, tuple[bytes, ...]]:
    """((shortest name, the names holding it, itself first), ...) and the names in no group."""
    encoded = sorted((name.encode() for name in names), key=len)
    groups: dict[bytes, list[bytes]] = {}
    for index, name in enumerate(encoded):
        base = next((other for other in encoded[:index] if other in name), name)
        groups.setdefault(base, []).append(name)
    return (tuple((base, tuple(held)) for base, held in groups.items() if len(held) > 1),
            tuple(base for base, held in groups.items() if len(held) == 1))


def _whole(name: bytes, data: bytes, start: int, end: int) -> Iterator[tuple]:
    """`_wholes` of one name, read as asked (a search may stop at its first place)."""
    at = data.find(name, start, end)
    while at >= 0:
        after = at + len(name)
        if (not at or data[at - 1] not in _IDENTIFIER_BYTES) and (
                after == len(data) or data[after] not in _IDENTIFIER_BYTES):
            yield at, after
        at = data.find(name, after, end)


def _occurrences(name: bytes, data: bytes, start: int, end: int) -> list[int]:
    """Where `name` starts in data[start:end], overlapping places too (`aa` twice in `aaa`):
    every place of a name holding it holds one."""
    found = []
    find = data.find
    at = find(name, start, end)
    while at >= 0:
        found.append(at)
        at = find(name, at + 1, end)
    return found


def _held(name: bytes, offset: int, occurrences: list[int], data: bytes, start: int,
          end: int) -> list[tuple]:
    """(start, end) of `name` where it is a whole identifier within data[start:end], `offset`
    bytes before one of `occurrences` (of a name it holds, found there)."""
    found = []
    length, size, identifier = len(name), len(data), _IDENTIFIER_BYTES
    for at in occurrences:
        at -= offset
        after = at + length
        if start <= at and after <= end and data.startswith(name, at) and (
                not at or data[at - 1] not in identifier) and (
                after == size or data[after] not in identifier):
            found.append((at, after))
    return found


def _within(places, first: int, last: int) -> Iterator[int]:
    """The places (in order) from `first` to `last`, both included, found by bisection: a
    region's search need not read the places of the whole file before it."""
    for index in range(bisect.bisect_left(places, first), len(places)):
        if places[index] > last:
            return
        yield places[index]


class _Path:
    """The nodes from the root down to the place looked up last, moved from each place to the
    next: the hits of a search come in order, so the moves add up to about the part of the
    tree around them, where looking each up from the root costs its depth. A node's child
    holding a place is found by reading its children in order (tree-sitter's own search), or,
    for a node of more than WIDE_NODE children (a file's items, a block a misread macro made of
    100,000 statements), by bisecting their ends, listed once: read in order, each of n places
    in such a node cost up to n."""

    _NEAR_END = 32  # how far up from its end a node is looked for: the nodes asked about are the
    # last hit and a few around it; anything else, the path moves to

    def __init__(self, tree):
        self._cursor = tree.walk()  # at the path's end, from the node at `_base` down
        self._base = 0
        self.nodes = [tree.root_node]
        self._starts = [self.nodes[0].start_byte]  # the nodes' byte spans (read once each)
        self._ends = [self.nodes[0].end_byte]
        self._wide: dict[int, tuple[list, list[int]]] = {}  # node id -> (children, their ends)
        self.moves = 0  # how often the path changed

    def move_to(self, start: int, end: int):
        """The smallest node holding bytes [start, end), now the end of the path."""
        nodes, starts, ends, cursor = self.nodes, self._starts, self._ends, self._cursor
        self.moves += 1
        keep = len(nodes)
        while keep > 1 and not (starts[keep - 1] <= start and end <= ends[keep - 1]):
            keep -= 1
        if keep < len(nodes):
            if keep > self._base:
                for _ in range(len(nodes) - keep):
                    cursor.goto_parent()
            else:  # (above the node the cursor was put at)
                cursor.reset(nodes[keep - 1])
                self._base = keep - 1
            del nodes[keep:], starts[keep:], ends[keep:]
        while True:
            node = nodes[-1]
            if node.child_count > WIDE_NODE:
                child = self._wide_child(node, start)
                if child is None:
                    break
                first, last = child.byte_range
                if first > start or last < end:
                    break
                cursor.reset(child)
                self._base = len(nodes)
            elif cursor.goto_first_child_for_byte(start) is not None:
                child = cursor.node
                first, last = child.byte_range  # (one call where two were)
                if first > start or last < end:
                    cursor.goto_parent()
                    break
            else:
                break
            nodes.append(child)
            starts.append(first)
            ends.append(last)
        return nodes[-1]

    def _wide_child(self, node, start: int):
        """`node.first_child_for_byte(start)` of a node of many children: the first whose end
        is past `start`."""
        listed = self._wide.get(node.id)
        if listed is None:
            found = node.children
            listed = self._wide[node.id] = (found, [child.end_byte for child in found])
        index = bisect.bisect_right(listed[1], start)
        return listed[0][index] if index < len(listed[0]) else None

    def position(self, node) -> int | None:
        """Where `node` is on the path (looked for near its end), or None."""
        nodes = self.nodes
        last = len(nodes) - 1
        if nodes[last] == node:  # most often the place looked up last
            return last
        for place in range(last - 1, max(len(nodes) - self._NEAR_END, 0) - 1, -1):
            if nodes[place] == node:
                return place
        return None


def _parents(node) -> Iterator:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def descendants(node, skip: list[bool] | None = None) -> Iterator:
    """The named nodes under `node`, in source order (a cursor walk: no lists held). With
    `skip`, the nodes under the one last yielded are not walked where the caller set
    `skip[0]` before asking for the next (it is then reset)."""
    cursor = node.walk()
    if not cursor.goto_first_child():
        return
    depth = 1
    while True:
        current = cursor.node
        if current.is_named:
            yield current
        if skip is not None and skip[0]:
            skip[0] = False
        elif cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            cursor.goto_parent()
            depth -= 1
            if depth == 0:
                return


def children(node, last_first: bool = False) -> Iterator:
    """The named children of `node`, in order or last first (no list of them is made)."""
    cursor = node.walk()
    if not (cursor.goto_last_child() if last_first else cursor.goto_first_child()):
        return
    step = cursor.goto_previous_sibling if last_first else cursor.goto_next_sibling
    while True:
        if cursor.node.is_named:
            yield cursor.node
        if not step():
            return


_WRAPS_NO_DECLARATOR = ("translation_unit", "ERROR", "concatenated_string")


def wraps_no_declarator(kind: str) -> bool:
    return (kind in _WRAPS_NO_DECLARATOR or kind.startswith("preproc_")
            or kind.endswith(("_list", "statement")))


class IdentifierIndex:
    """Each identifier of a file -> where it starts, in order (comments and strings included,
    as `_spelled` finds them); 4 bytes a place (a 50 MB file has millions). Made from the
    file's bytes when first asked, and shared by the contexts of one tree as the engine keeps
    it with the tree for the file's lint with facts (made once: 2.5 s of a 50 MB file). It
    also keeps what else is known of the tree's bytes for that lint: the places of whole-file
    searches (`searched`), the tree's error nodes (`error_count`), its declarations and the
    analyses of the file alone (`CContext.of_tree`)."""

    def __init__(self):
        self._places: dict[bytes, array] | None = None
        self.error_count: int | None = None  # the tree's error nodes (`CContext.error_count`)
        self.declarations = None  # the tree's `c_declarations` table, once made
        self.searched: dict[frozenset[str], tuple[tuple[int, int], ...]] = {}
        """Names -> where they are spelled in the whole file, for the searches made to the
        end (`CContext._spelled`), up to KEPT_SPANS places each: the rules and summaries of
        both lints of a file ask for the same names again (on the C worst case, 10,823 of
        23,660 searches, 45% of the bytes read)."""
        self.analyses: dict = {}  # (`CContext.of_tree`)

    def places(self, data: bytes, name: bytes) -> Iterable[int]:
        """Where `name` starts in `data` (the file's bytes, the same at every call)."""
        if self._places is None:
            self._places = {}
            for match in _IDENTIFIER.finditer(data):
                places = self._places.get(match[0])
                if places is None:
                    places = self._places[match[0]] = array("I")
                places.append(match.start())
        return self._places.get(name, ())


class CContext(FileContext):
    """`tree` is the tree-sitter tree of the file's bytes; queries run in the C library.
    `tree_index`: the tree's `IdentifierIndex`, when another context of it has one."""

    def __init__(self, source, settings, tree, tree_index: IdentifierIndex | None = None):
        super().__init__(source, settings)
        self.tree = tree
        self.tree_index = IdentifierIndex() if tree_index is None else tree_index
        self.language = source.language
        self._wide_searches = 0  # searches for names over more than WIDE_SEARCH_BYTES

    @property
    def root(self):
        return self.tree.root_node

    def of_tree(self, key, factory):
        """`shared` for an analysis of the file's bytes and tree alone (no project facts, no
        setting, nothing holding this context): made once for the contexts of one tree, the
        file's first lint's and its lint with facts."""
        analyses = self.tree_index.analyses
        if key not in analyses:
            analyses[key] = factory()
        return analyses[key]

    @property
    def error_count(self) -> int:
        """Error nodes in the tree (macros tree-sitter could not read); shown in verbose output.
        Counted once per tree (kept with its index for the lint with facts)."""
        index = self.tree_index
        if index.error_count is None:
            index.error_count = self._errors()
        return index.error_count

    def _errors(self) -> int:
        """The walk enters only nodes that hold an error."""
        count, cursor = 0, self.root.walk()
        while True:
            node = cursor.node
            count += node.is_error
            if node.has_error and cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return count

    def captures(self, pattern: str, node) -> dict[str, list]:
        """Capture name -> nodes, for a tree-sitter query over `node` (a function or a statement:
        over a whole file a query costs several times its parse)."""
        from tree_sitter import QueryCursor

        cursor = QueryCursor(compiled_query(self.language, pattern))
        return cursor.captures(node)

    def calls(self, names: Iterable[str] | re.Pattern[bytes], node=None) -> list[tuple]:
        """(function name, call_expression node) for each call of a plain or qualified function
        named in `names` (`ibv_reg_mr(...)`, `::ibv_reg_mr(...)`, `ns::f(...)` matches `f`)
        within `node` (default: the file), in the order the calls start."""
        found = [(name, call) for name, leaf in self.tokens(names, node)
                 if (call := self.call_of(leaf)) is not None]
        found.sort(key=lambda item: item[1].start_byte)
        return found

    def call_of(self, leaf):
        """The call of the function named by the identifier `leaf` (`f(...)`, `ns::f(...)`,
        `a::b::f(...)`: the calls whose `c_syntax.callee` is its name), or None."""
        if leaf.type != "identifier":
            return None
        function, call = leaf, self.parent(leaf)
        while self.language == CPP and call is not None and call.type == \
                "qualified_identifier" and call.child_by_field_name("name") == function:
            function, call = call, self.parent(call)
        if (call is not None and call.type == "call_expression"
                and call.child_by_field_name("function") == function):
            return call
        return None

    def tokens(self, names: Iterable[str] | re.Pattern[bytes], node=None) -> Iterator[tuple]:
        """(spelling, leaf) for each token within `node` (default: the file) spelled as one of
        `names` (or matched whole by a pattern), in order: found by a byte search, then looked
        up in the tree. A spelling inside a comment, a string, a macro body or a longer name
        is no token."""
        for start, end, leaf in self.hits(names, node):
            if leaf.start_byte == start and leaf.end_byte == end:
                yield self.source.data[start:end].decode("utf-8", errors="replace"), leaf

    def hits(self, names: Iterable[str] | re.Pattern[bytes], node=None) -> Iterator[tuple]:
        """(start, end, the smallest node holding them) for each place within `node` (default:
        the file) where one of `names` is spelled, or `names` (a pattern) matches, in order."""
        region, data = node or self.root, self.source.data
        if isinstance(names, re.Pattern):
            found = (match.span() for match in
                     names.finditer(data, region.start_byte, region.end_byte))
        else:
            found = self._spelled(frozenset(names), region.start_byte, region.end_byte)
        yield from self.at(found)

    def at(self, spans: Iterable[tuple[int, int]]) -> Iterator[tuple]:
        """(start, end, the smallest node holding them) for each of `spans` (byte offsets, in
        order: a search's matches)."""
        for start, end in spans:
            yield start, end, self._path.move_to(start, end)

    def _spelled(self, names: frozenset[str], start: int, end: int) -> Iterator[tuple]:
        """`_spelled` over the file's bytes [start, end); past SEARCHES_BEFORE_INDEX searches
        of a wide span, from the file's identifiers indexed once (a name looked up in each
        of n functions would read the file n times)."""
        if end - start > WIDE_SEARCH_BYTES and all(map(_PLAIN_NAME.fullmatch, names)):
            self._wide_searches += 1
            if self._wide_searches > SEARCHES_BEFORE_INDEX:
                data, index = self.source.data, self.tree_index
                return ((first, first + length) for first, length in heapq.merge(
                    *(zip(_within(index.places(data, name.encode()), start, end - len(name)),
                          itertools.repeat(len(name))) for name in names)))
        root = self.root
        if start > root.start_byte or end < root.end_byte:
            return _spelled(names, self.source.data, start, end)
        kept = self.tree_index.searched.get(names)
        if kept is not None:
            return iter(kept)
        return self._keeping(names, _spelled(names, self.source.data, start, end))

    def _keeping(self, names: frozenset[str], spans: Iterator[tuple]) -> Iterator[tuple]:
        """`spans` (a whole-file search's), kept in the tree's index once read to the end."""
        found: list | None = []
        for span in spans:
            if found is not None:
                found.append(span)
                if len(found) > KEPT_SPANS:
                    found = None
            yield span
        if found is not None:
            self.tree_index.searched[names] = tuple(found)

    def node_at(self, start: int, end: int):
        """The smallest node holding bytes [start, end), as `root.descendant_for_byte_range`
        finds it (for `start == end`, the one holding the byte at `start`), from the path to
        the place looked up last: tree-sitter's own search reads every child before the one
        holding the place, at each level (a file's items; a block of 100,000 statements)."""
        return self._path.move_to(start, end if end > start else start + 1)

    @cached_property
    def _path(self) -> _Path:
        """The path to the place looked up last, shared by every lookup of the file."""
        return _Path(self.tree)

    def parent(self, node):
        """`node.parent`, at once for a node on the path to the place looked up last."""
        index = self._path.position(node)
        if index is None:
            return node.parent
        return self._path.nodes[index - 1] if index else None

    def ancestors(self, node) -> Iterator:
        """The nodes around `node`, innermost first, up to the root, from the path to it."""
        path = self._path
        index = path.position(node)
        if index is None:
            path.move_to(node.start_byte, node.end_byte)
            index = path.position(node)
        if index is None:  # an empty node, which no byte leads to
            yield from _parents(node)
            return
        moves = path.moves
        for above in range(index - 1, -1, -1):
            if path.moves != moves:  # a lookup inside the caller's loop moved the path on
                yield from self.ancestors(node)
                return
            node = path.nodes[above]
            yield node

    def enclosing(self, nodes: Iterable, kinds) -> list:
        """The nodes of `kinds` that are or hold any of `nodes` (nested ones too), in source
        order. A climb stops where an earlier one passed."""
        found, passed = {}, set()
        for node in nodes:
            for above in (node, *self._until(self.ancestors(node), passed)):
                if above.type in kinds:
                    found.setdefault(above.id, above)
        return sorted(found.values(), key=lambda node: (node.start_byte, -node.end_byte))

    @staticmethod
    def _until(nodes: Iterator, passed: set) -> Iterator:
        """`nodes` up to the first already in `passed`, adding them to it."""
        for node in nodes:
            if node.id in passed:
                return
            passed.add(node.id)
            yield node

    def field_of(self, node) -> str | None:
        """The field name `node` has in its parent (`declarator`, `value`, ...), or None."""
        parent = self.parent(node)
        if parent is None:
            return None
        cursor = parent.walk()
        found = cursor.goto_first_child_for_byte(node.start_byte) is not None
        while found and cursor.node != node:  # empty nodes before it
            found = cursor.goto_next_sibling()
        if not found:  # an empty node, which no byte leads to
            cursor.goto_first_child()
            while cursor.node != node and cursor.goto_next_sibling():
                pass
        return cursor.field_name if cursor.node == node else None

    def wrapped_by(self, leaf, leads) -> Iterator:
        """`leaf` and the nodes above it that lead down to it (`leads(parent, child)`: whether
        the name `parent` declares is found through `child`): the declarators and targets
        around a declared name, innermost first. Lists, statements, preprocessor blocks and
        error regions wrap no name: the climb stops there without asking `leads` about their
        (maybe millions of) children."""
        node = leaf
        while True:
            yield node
            parent = self.parent(node)
            if parent is None or wraps_no_declarator(parent.type) or not leads(parent, node):
                return
            node = parent

    # the tree walks that need no context, for rules that do not import this module (its
    # import is paid only by files that need a parser)
    children = staticmethod(children)
    descendants = staticmethod(descendants)

    def text(self, node) -> str:
        return node.text.decode("utf-8", errors="replace")

    def span_of(self, node) -> Span:
        (line, column), (end_line, end_column) = node.start_point, node.end_point
        return self.source.span_from_bytes(line + 1, column, end_line + 1, end_column)


class LazyCContext(CContext):
    """A `CContext` whose bytes are parsed when its tree is first read: a header's, which the
    files including it ask only about the names its text holds (of the C/C++ worst case's 232
    headers read with C's grammar, 125 were never asked)."""

    def __init__(self, source, settings):
        super().__init__(source, settings, None)

    @property
    def tree(self):
        if self._tree is None:
            self._tree = parse(self.source.data, self.language)
        return self._tree

    @tree.setter
    def tree(self, tree) -> None:
        self._tree = tree
