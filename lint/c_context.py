"""C/C++ analysis shared by all rules of one file: the tree-sitter tree and query helpers.

tree-sitter cannot expand macros, so many real files have error nodes; they are normal, not
findings. Rules query the tree and keep working outside the broken regions.
The parsers and compiled queries are created once per process and only when a C/C++ file needs
them, so importing cursedlint stays cheap.
"""

from __future__ import annotations

from functools import cache, cached_property
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


_CALL_QUERIES = {
    C: "(call_expression function: (identifier) @name) @call",
    CPP: "(call_expression function: [(identifier) @name"
    " (qualified_identifier name: (identifier) @name)]) @call",
}


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
        """Error nodes in the tree (macros tree-sitter could not read); shown in verbose output."""
        if not self.root.has_error:
            return 0
        return len(self.captures("(ERROR) @error").get("error", ()))

    def captures(self, pattern: str, node=None) -> dict[str, list]:
        """Capture name -> nodes, for a tree-sitter query over `node` (default: the file)."""
        from tree_sitter import QueryCursor

        cursor = QueryCursor(compiled_query(self.language, pattern))
        return cursor.captures(node or self.root)

    def matches(self, pattern: str, node=None) -> list[dict[str, list]]:
        """One dict of capture name -> nodes per match, in document order."""
        from tree_sitter import QueryCursor

        cursor = QueryCursor(compiled_query(self.language, pattern))
        return [captures for _, captures in cursor.matches(node or self.root)]

    def calls(self, names: Iterable[str], node=None) -> Iterator[tuple[str, object]]:
        """(function name, call_expression node) for each call of a plain or qualified function
        named in `names` (`ibv_reg_mr(...)`, `::ibv_reg_mr(...)`, `ns::f(...)` matches `f`)."""
        wanted = set(names)
        found = self.captures(_CALL_QUERIES[self.language], node)
        for call in sorted(found.get("call", ()), key=lambda n: n.start_byte):
            function = call.child_by_field_name("function")
            if function.type == "qualified_identifier":
                function = function.child_by_field_name("name")
            name = self.text(function)
            if name in wanted:
                yield name, call

    def text(self, node) -> str:
        return node.text.decode("utf-8", errors="replace")

    def span_of(self, node) -> Span:
        (line, column), (end_line, end_column) = node.start_point, node.end_point
        return self.source.span_from_bytes(line + 1, column, end_line + 1, end_column)
