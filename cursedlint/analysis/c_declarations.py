"""The declarators of a C/C++ file that declare a name (`c_memory.declarations`): found from the
tokens spelling the name for a file's first questions, then from a table of every declaration,
parameter and member of the file made at once, whose answers are the same.

Each token spelling a name is looked up in the tree, so a question costs the name's places in
its region: in a 10 MB file whose misread macros stretch a function over 100,000 lines, the
provenance of 110,000 arguments asked about 6,000 names across the file and 44,000 (name,
function) pairs, 1.3 M places (8 s). The table costs one query of the file (0.3 s for 10 MB)
and one short descent per declarator."""

from __future__ import annotations

import bisect
from typing import Iterator

from cursedlint.analysis.c_syntax import NAMES, inner_declarator, leads_to, within
from cursedlint.c.context import wraps_no_declarator

OWNERS = ("declaration", "parameter_declaration", "field_declaration")
"""The kinds of nodes whose declarators the table holds (every kind asked about)."""
TABLE_AFTER = 64
"""Questions of one file answered from its tokens before its table is made."""
_OWNERS_QUERY = "[" + " ".join(f"({kind})" for kind in OWNERS) + "] @owner"


def declared(context, name: str, region, owners) -> list[tuple]:
    """(owner, declarator) for each declarator of a node of the kinds `owners` declaring
    `name` within `region` (None: the file), in the order of the names' tokens (innermost
    declarator first)."""
    table = context.tree_index.declarations
    if table is None:  # (kept with the tree: both lints of a file ask)
        table = context.tree_index.declarations = _Table()
    table.asked += 1
    if table.asked <= TABLE_AFTER or not set(owners) <= set(OWNERS):
        return list(from_tokens(context, name, region, owners))
    return table.declared(context, name, region, owners)


def from_tokens(context, name: str, region, owners) -> Iterator[tuple]:
    """`declared`, from the tokens spelling `name`: each climbs the declarators leading down
    to it (`wrapped_by`) to a node of `owners` whose declarator it is."""
    for _, leaf in context.tokens((name,), region):
        if leaf.type not in NAMES:
            continue
        for declarator in context.wrapped_by(leaf, leads_to):
            owner = context.parent(declarator)
            if (owner is not None and owner.type in owners
                    and (region is None or within(owner, region))
                    and context.field_of(declarator) == "declarator"):
                yield owner, declarator


class _Table:
    """Name -> [(its token's start, declarators between the token and the owner, owner,
    declarator)], sorted: every declarator of the file's nodes of `OWNERS`, found by going
    down from the declarator as `from_tokens` climbs up (`leads_to`: `inner_declarator`),
    made when first asked past TABLE_AFTER questions."""

    def __init__(self):
        self.asked = 0
        self._names: dict[str, list[tuple]] | None = None
        self._starts: dict[str, list[int]] = {}

    def declared(self, context, name: str, region, owners) -> list[tuple]:
        if self._names is None:
            self._names = _table(context)
        found = self._names.get(name, ())
        if region is not None and found:
            starts = self._starts.get(name)
            if starts is None:
                starts = self._starts[name] = [entry[0] for entry in found]
            found = found[bisect.bisect_left(starts, region.start_byte):
                          bisect.bisect_left(starts, region.end_byte)]
        return [(owner, declarator) for _, _, owner, declarator in found
                if owner.type in owners and (region is None or within(owner, region))]


def _table(context) -> dict[str, list[tuple]]:
    names: dict[str, list[tuple]] = {}
    for owner in context.captures(_OWNERS_QUERY, context.root).get("owner", ()):
        for declarator in owner.children_by_field_name("declarator"):
            node, steps = declarator, 0
            while (inner := inner_declarator(node)) is not None:
                if wraps_no_declarator(node.type):
                    break  # a climb from below stops under it
                node, steps = inner, steps + 1
            else:
                if node.type in NAMES and node.end_byte > node.start_byte:
                    names.setdefault(context.text(node), []).append(
                        (node.start_byte, steps, owner, declarator))
    for found in names.values():
        found.sort(key=lambda entry: entry[:2])
    return names
