"""Declarations written with macros, read as the code means them (tree-sitter cannot expand
macros, so it misreads them; these are recognised from the tree's shape, not from macro names).

- Class heads with an export or attribute macro, `class NVF_API Expr : public Val {...}`:
  tree-sitter takes the macro for the class name and the real name for a declarator, so the
  class has neither members nor bases. `parse` blanks such a macro (an all-caps name where the
  tree has the class name, followed by the real name, perhaps qualified or with template
  arguments, `final` or a second macro, and `:` or `{`) and parses again, incrementally;
  positions are unchanged. (`__declspec(...)`, `alignas(...)`,
  `[[...]]`, `__attribute__((...))` and `final` are C++ that tree-sitter reads.)
- Blocks headed by a macro inside a function, `IF_VERBS_FAILURE(ibv_fork_init()) { ... }`:
  tree-sitter reads a nested function definition, whose "declarator" holds the call. `parse`
  writes `if` over the macro's name and parses again (`misread_blocks`), so the arguments are
  expressions and the block a branch.
- Function bodies written with a macro, `Test(suite, name) { ... }` (criterion), `TEST_F(Suite,
  1) { ... }` (gtest), `PROVIDER_INI { ... }` (libfabric): tree-sitter reads a statement missing
  its `;` (or an error ending in `)`) and a file-scope block. Such a block is a function scope
  (`function_scope`): its locals are not file-scope declarations. (`TEST(suite, name) {...}`
  in C++ is read as a function definition already.)
"""

from __future__ import annotations

import re

from cursedlint.c import parse_budget
from cursedlint.patterns import LazyPattern

_HEAD_REST = (
    rb"[ \t\r\n]+([A-Z_][A-Z0-9_]+)(?:[ \t]*\([^()\n]*\))?"
    rb"(?=[ \t\r\n]+[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:[ \t]*<[^;{}\n]{0,256}>)?[ \t\r\n]*"
    rb"(?:(?:final(?!\w)|([A-Z_][A-Z0-9_]+)(?!\w))[ \t\r\n]*)?(?::(?!:)|\{))"
)
_HEAD_MACRO = LazyPattern(rb"(?:class|struct|union)" + _HEAD_REST)
"""`class MACRO Name`, `class MACRO(args) ns::Name<T>`, then `final` or a second macro
(`PROTOBUF_FINAL`), then the base clause or the body. (No look-behind for the keyword's start:
it makes the search several times slower; `_starts_word` checks it.) Template arguments are
read up to 256 characters, not to the line's end from every head (`class M N<x class M N<x`);
the blanks around `final` are two runs only where it is there (blanks of no head were split in
every way: 20,000 took 1.6 s)."""
_HEAD_MACROS = tuple((keyword, LazyPattern(re.escape(keyword) + _HEAD_REST))
                     for keyword in (b"class", b"struct", b"union"))
"""`_HEAD_MACRO` for each keyword: each search starts with the keyword's bytes to find, where
the alternatives were tried at every byte (0.13 -> 0.05 s over the C worst case's 20 MB)."""
_KEYWORDS = (b"class", b"struct", b"union")
_SPECIFIERS = frozenset({"class_specifier", "struct_specifier", "union_specifier"})
_FUNCTION_SCOPES = frozenset({"function_definition", "lambda_expression"})


def parse(parser, data: bytes):
    """The tree of `data`, with class heads that name an export macro where the class name goes
    read as if the macro were not there, and blocks headed by a macro inside a function read
    as `if` blocks. Raises `parse_budget.ParseTooSlow` where either parse runs past its
    budget."""
    tree = parse_budget.parse(parser, data)
    spans = misread_heads(tree, data) if any(keyword in data for keyword in _KEYWORDS) else []
    blocks = misread_blocks(tree, data)
    if not spans and not blocks:
        return tree
    rewritten = bytearray(data)
    for start, end in spans:
        rewritten[start:end] = b" " * (end - start)
    for start, end in blocks:
        rewritten[start:end] = b"if".ljust(end - start)
    edits = sorted(spans + blocks)
    points = _points(data, sorted({offset for edit in edits for offset in edit}))
    for start, end in edits:
        tree.edit(start, end, end, points[start], points[end], points[end])
    return parse_budget.parse(parser, bytes(rewritten), tree)


_BLOCK_MACRO = LazyPattern(rb"\([ \t]{0,16}([A-Z0-9_]+[A-Z])(?![A-Za-z0-9_])")
"""An all-caps name called, searched in the file's bytes reversed: a `(`, up to 16 blanks,
then the name backwards, two characters or more, which starts (ends, reversed) with a letter
not after another identifier character: perhaps a macro heading a block (`IF_FAILED(call())
{ ... }`), unless a `$` comes before it (`misread_blocks` checks). Reversed, the search
starts with a character to find, not a class to try at every byte (the name first, with a
`\\b` before it: 0.20 s of the C worst case's 20 MB, reversed 0.04 s, the same names). (The
blanks are bounded: each shorter prefix of a long name would read them all again.)"""


def misread_blocks(tree, data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each macro name that heads a block inside a function, which
    tree-sitter reads as a nested function definition (`IF_VERBS_FAILURE(ibv_fork_init())
    { ... }`: the call becomes a declarator, and is lost). Read as `if (...) { ... }`, the
    macro's arguments are expressions again; positions are unchanged."""
    spans = []
    root = tree.root_node
    size = len(data)
    for start, end in sorted((size - match.end(1), size - match.start(1))
                             for match in _BLOCK_MACRO.finditer(data[::-1])):
        if start and data[start - 1] == ord("$"):
            continue
        node = root.descendant_for_byte_range(start, end)
        while node is not None and node.start_byte == start and \
                node.type != "function_definition":
            node = node.parent
        if (node is not None and node.type == "function_definition"
                and node.start_byte == start and node.parent is not None
                and node.parent.type == "compound_statement"):
            spans.append((start, end))
    return spans


def misread_heads(tree, data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each macro (with its arguments) that the tree took for a class name
    although the class's real name follows it."""
    spans = []
    root = tree.root_node
    for match in _head_macros(data):
        if not _starts_word(data, match.start()):
            continue
        node = root.descendant_for_byte_range(match.start(1), match.end(1))
        head = node.parent if node is not None else None
        if (head is not None and head.type in _SPECIFIERS
                and head.child_by_field_name("body") is None
                and head.child_by_field_name("name") == node):
            spans.append((match.start(1), match.end()))
            if match.start(2) >= 0:
                spans.append((match.start(2), match.end(2)))
    return spans


def _head_macros(data: bytes) -> list:
    """`_HEAD_MACRO`'s matches, in order, from one search per keyword. Where two of them
    overlap (a keyword inside another head's macro arguments), one search decides, as it
    skips what a match has read."""
    matches = sorted((match for keyword, pattern in _HEAD_MACROS if keyword in data
                      for match in pattern.finditer(data)), key=lambda match: match.start())
    if any(one.end() > other.start() for one, other in zip(matches, matches[1:])):
        return list(_HEAD_MACRO.finditer(data))
    return matches


def _starts_word(data: bytes, offset: int) -> bool:
    return offset == 0 or not (chr(data[offset - 1]).isalnum() or data[offset - 1] in b"_$")


def _points(data: bytes, offsets: list[int]) -> dict[int, tuple[int, int]]:
    """Offset -> (line, column) for sorted offsets, each counted from the one before (counted
    from the start, the edits of a 50 MB file read it once per edit)."""
    points, line, line_start, at = {}, 0, 0, 0
    for offset in offsets:
        line += data.count(b"\n", at, offset)
        line_start = data.rfind(b"\n", at, offset) + 1 or line_start
        points[offset], at = (line, offset - line_start), offset
    return points


_FILE_SCOPES = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                          "preproc_elif", "linkage_specification", "declaration_list", "ERROR"})
_HEAD_STARTS = frozenset({"identifier", "macro_type_specifier", "call_expression"})


def is_macro_body(node, parent) -> bool:
    """Whether `node` (whose parent is `parent`) is a block written as the body of a
    macro-defined function: a block at file scope right after a head tree-sitter read as
    something else (`_is_misread_head`)."""
    if node.type != "compound_statement" or parent is None or parent.type not in _FILE_SCOPES:
        return False
    head = node.prev_named_sibling
    return head is not None and _is_misread_head(head)


def _is_misread_head(head) -> bool:
    """A function head read as a statement that lacks its `;` (`Test(suite, name)`,
    `PROVIDER_INI`, a declaration of a function, `EXPORT_MACRO Class::Class() : member(0)`), or
    as an error that is a name or starts with one and ends with `)` (`ParameterizedTest(struct
    parms *p, suite, name)`)."""
    if head.type == "ERROR":
        first = head.named_children[0] if head.named_child_count else None
        return first is not None and first.type in _HEAD_STARTS and (
            head.children[-1].type == ")" or (head.child_count == 1 and first.type == "identifier"))
    if not head.children or not head.children[-1].is_missing:
        return False
    if head.type == "expression_statement":
        return (head.named_child_count == 1
                and head.named_children[0].type in ("call_expression", "identifier"))
    if head.type == "declaration":
        return _declares_function(head)
    return False


def _declares_function(declaration) -> bool:
    """Whether the declaration's declarator (or an error inside it) is a function's."""
    declarator = declaration.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator is not None or any(
        child.type == "ERROR" and child.named_child_count > 0
        and child.named_children[0].type == "function_declarator"
        for child in declaration.children)


def function_scope(context, node):
    """The innermost function, lambda or macro-defined function body holding `node` (or being
    it); None at file scope."""
    chain = (node, *context.ancestors(node))
    for index, found in enumerate(chain):
        if found.type in _FUNCTION_SCOPES:
            return found
        if is_macro_body(found, chain[index + 1] if index + 1 < len(chain) else None):
            return found
    return None
