"""How many class heads and function bodies written with macros tree-sitter misreads in C/C++
trees, before and after `cursedlint/analysis/c_macros.py`.

    python benchmarks/macro_shapes.py TREE [TREE...]

Per tree: files read; macros of class heads misread (an all-caps name in the class-name position
followed by the real name, and a second macro such as `PROTOBUF_FINAL` after it:
`misread_heads`) on the plain parse and on cursedlint's; class and struct
bodies read; file-scope blocks recognised as macro-defined function bodies, and other file-scope
blocks (left as they are); blocks headed by a macro inside a function (`IF_FAILED(call()) {`:
`misread_blocks`), and the calls recovered (issue 31, item 5): calls in the file on cursedlint's
parse but not on the plain one (by start and end byte), and those of them in a macro-headed
block's head or body.
"""

from __future__ import annotations

import os
import sys

from cursedlint.analysis.c_macros import is_macro_body, misread_blocks, misread_heads
from cursedlint.c.context import _parser, compiled_query, parse
from cursedlint.languages import language_of
from cursedlint.settings import DEFAULT_MAX_FILE_SIZE

_BODIES = {
    "c": "[(struct_specifier body: (_)) (union_specifier body: (_))] @body",
    "cpp": "[(class_specifier body: (_)) (struct_specifier body: (_)) (union_specifier body: (_))]"
           " @body",
}
_HOLDERS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
            "linkage_specification", "declaration_list", "namespace_definition", "ERROR")


def class_bodies(tree, language: str) -> int:
    from tree_sitter import QueryCursor

    found = QueryCursor(compiled_query(language, _BODIES[language])).captures(tree.root_node)
    return len(found.get("body", []))


def calls(tree, language: str) -> set[tuple[int, int]]:
    """(start, end) of each call expression of the tree."""
    from tree_sitter import QueryCursor

    found = QueryCursor(compiled_query(language, "(call_expression) @call")).captures(
        tree.root_node)
    return {(node.start_byte, node.end_byte) for node in found.get("call", [])}


def block_extents(tree, spans) -> list[tuple[int, int]]:
    """(start, end) of the `if` statement each macro-headed block became."""
    extents = []
    for start, _ in spans:
        node = tree.root_node.descendant_for_byte_range(start, start + 2)
        while node is not None and node.type != "if_statement":
            node = node.parent
        if node is not None:
            extents.append((node.start_byte, node.end_byte))
    return extents


def file_scope_blocks(tree) -> tuple[int, int]:
    """(macro-defined bodies, other blocks) at file scope."""
    bodies = others = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "compound_statement":
                if is_macro_body(child, node):
                    bodies += 1
                else:
                    others += 1
            elif child.type in _HOLDERS:
                stack.append(child)
    return bodies, others


def measure(root: str) -> dict[str, int]:
    counts = dict.fromkeys(("files", "head macros misread before", "head macros misread after",
                            "class bodies before", "class bodies after", "macro bodies",
                            "other file-scope blocks", "macro-headed blocks in functions",
                            "calls recovered", "calls recovered in macro-headed blocks"), 0)
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            language = language_of(path)
            if language not in _BODIES or not os.path.isfile(path) \
                    or os.path.getsize(path) > DEFAULT_MAX_FILE_SIZE:
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            before, after = _parser(language).parse(data), parse(data, language)
            bodies, others = file_scope_blocks(after)
            counts["files"] += 1
            counts["head macros misread before"] += len(misread_heads(before, data))
            counts["head macros misread after"] += len(misread_heads(after, data))
            counts["class bodies before"] += class_bodies(before, language)
            counts["class bodies after"] += class_bodies(after, language)
            counts["macro bodies"] += bodies
            counts["other file-scope blocks"] += others
            blocks = misread_blocks(before, data)
            counts["macro-headed blocks in functions"] += len(blocks)
            recovered = calls(after, language) - calls(before, language)
            counts["calls recovered"] += len(recovered)
            extents = block_extents(after, blocks)
            counts["calls recovered in macro-headed blocks"] += sum(
                any(start <= call[0] and call[1] <= end for start, end in extents)
                for call in recovered)
    return counts


if __name__ == "__main__":
    for tree in sys.argv[1:]:
        print(tree, measure(tree))
