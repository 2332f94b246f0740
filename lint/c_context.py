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
- `Node.parent` searches down from the root on every call: climbing one or two levels with it is
  fine, a climb of unbounded length goes through `ancestors`, which goes down once;
- `descendants` and `children` walk with a cursor and hold no lists (`named_children` of a node
  with a million children is a million objects at once);
- queries (`captures`) run over one function or statement, never the whole file.
"""

from __future__ import annotations

import re
from functools import cache, cached_property, lru_cache
from typing import Iterable, Iterator

from cursedlint.context import FileContext
from cursedlint.findings import Span
from cursedlint.languages import C, CPP


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
    return _parser(language).parse(data)


_IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


@lru_cache(maxsize=64)
def _automaton(names: frozenset[str]):
    """One search for all of `names` (thousands, for a file's wrappers), longest first."""
    from ahocorasick_rs import BytesAhoCorasick, MatchKind

    return BytesAhoCorasick([name.encode() for name in names if name],
                            matchkind=MatchKind.LeftmostLongest)


def _spelled(names: frozenset[str], data: bytes, start: int, end: int) -> Iterator[tuple]:
    """(start, end) of each of `names` in data[start:end] with no identifier character just
    before or after it."""
    if not any(names):
        return
    found = _automaton(names).find_matches_as_indexes(memoryview(data)[start:end])
    for _, first, last in found:
        first, last = first + start, last + start
        if (first == 0 or data[first - 1] not in _IDENTIFIER_BYTES) and (
                last == len(data) or data[last] not in _IDENTIFIER_BYTES):
            yield first, last


def descendants(node) -> Iterator:
    """The named nodes under `node`, in source order (a cursor walk: no lists held)."""
    cursor = node.walk()
    if not cursor.goto_first_child():
        return
    depth = 1
    while True:
        current = cursor.node
        if current.is_named:
            yield current
        if cursor.goto_first_child():
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


def wrapped_by(leaf, leads) -> Iterator:
    """`leaf` and the nodes above it that lead down to it (`leads(parent, child)`: whether the
    name `parent` declares is found through `child`): the declarators and targets around a
    declared name, innermost first. Lists, statements, preprocessor blocks and error regions
    wrap no name: the climb stops there without asking `leads` about their (maybe millions of)
    children."""
    node = leaf
    while True:
        yield node
        parent = node.parent
        if parent is None or _wraps_no_declarator(parent.type) or not leads(parent, node):
            return
        node = parent


def _wraps_no_declarator(kind: str) -> bool:
    return (kind in _WRAPS_NO_DECLARATOR or kind.startswith("preproc_")
            or kind.endswith(("_list", "statement")))


class CContext(FileContext):
    """`tree` is the tree-sitter tree of the file's bytes; queries run in the C library."""

    def __init__(self, source, settings, tree):
        super().__init__(source, settings)
        self.tree = tree
        self.language = source.language

    @property
    def root(self):
        return self.tree.root_node

    @cached_property
    def error_count(self) -> int:
        """Error nodes in the tree (macros tree-sitter could not read); shown in verbose output.
        The walk enters only nodes that hold an error."""
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
        """The call of the function named by the identifier `leaf` (`f(...)`, `ns::f(...)`),
        or None."""
        if leaf.type != "identifier":
            return None
        function, call = leaf, leaf.parent
        if self.language == CPP and call is not None and call.type == "qualified_identifier":
            if call.child_by_field_name("name") != leaf:
                return None
            function, call = call, call.parent
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
            found = _spelled(frozenset(names), data, region.start_byte, region.end_byte)
        for start, end in found:
            yield start, end, self.root.descendant_for_byte_range(start, end)

    def ancestors(self, node) -> Iterator:
        """The nodes around `node`, innermost first, up to the root. `Node.parent` searches down
        from the root on every call (a climb with it costs depth squared); this goes down once,
        with a cursor, and climbs back."""
        cursor = self._cursor_at(node)
        if cursor is None:
            parent = node.parent
            while parent is not None:
                yield parent
                parent = parent.parent
            return
        while cursor.goto_parent():
            yield cursor.node

    def enclosing(self, nodes: Iterable, kinds) -> list:
        """The nodes of `kinds` that are or hold any of `nodes` (nested ones too), in source
        order."""
        found = {}
        for node in nodes:
            for ancestor in (node, *self.ancestors(node)):
                if ancestor.type in kinds:
                    found.setdefault(ancestor.id, ancestor)
        return sorted(found.values(), key=lambda node: (node.start_byte, -node.end_byte))

    def field_of(self, node) -> str | None:
        """The field name `node` has in its parent (`declarator`, `value`, ...), or None."""
        cursor = self._cursor_at(node)
        return cursor.field_name if cursor is not None else None

    def _cursor_at(self, node):
        """A cursor of the whole tree standing on `node`, or None for an empty node (a byte
        does not lead to it)."""
        cursor, start = self.tree.walk(), node.start_byte
        while cursor.node != node:
            if cursor.goto_first_child_for_byte(start) is None:
                return None
        return cursor

    # the tree walks that need no context, for rules that do not import this module (its
    # import is paid only by files that need a parser)
    children = staticmethod(children)
    descendants = staticmethod(descendants)
    wrapped_by = staticmethod(wrapped_by)

    def text(self, node) -> str:
        return node.text.decode("utf-8", errors="replace")

    def span_of(self, node) -> Span:
        (line, column), (end_line, end_column) = node.start_point, node.end_point
        return self.source.span_from_bytes(line + 1, column, end_line + 1, end_column)
