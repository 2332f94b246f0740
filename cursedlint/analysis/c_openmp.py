"""OpenMP parallel regions in C, C++ and CUDA. `#pragma omp parallel` forks a team of threads
that each run the structured block after it (the next statement) at once, joined at its end;
`parallel for` shares the loop's iterations among them; `parallel sections` gives each `#pragma
omp section` block to one of them (OpenMP API, "parallel construct" and "worksharing
constructs"). Code under `single`, `master`, `masked` or `critical` runs on one thread at a
time. A team of one (`num_threads(1)`) has no siblings. CUR401 reads what the other threads of
a capture's team run (`team_of`); the project's reach reads the calls every thread of a region
runs (`regions_in`)."""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

_PARALLEL = re.compile(r"omp\s+parallel\b(.*)", re.S)
_DIRECTIVE = re.compile(rb"#[ \t]*pragma[ \t]+omp[ \t]+parallel\b")
_ONE_THREAD = re.compile(r"\bnum_threads\s*\(\s*1\s*\)")
_ALONE = re.compile(r"omp\s+(?:single|master|masked|critical)\b")
_SECTION = re.compile(r"omp\s+section\s*$")
_SCOPES = frozenset({"function_definition", "lambda_expression"})


class Region(NamedTuple):
    """A parallel region: its directive, the block the team runs, how it is written
    (`omp parallel for`), and the blocks of its sections (`parallel sections`; else empty)."""

    pragma: object
    block: object
    written: str
    sections: tuple


def _directive(context, node) -> str:
    """The text after `#pragma` of a preprocessor line, or "" for anything else."""
    if node is None or node.type != "preproc_call":
        return ""
    directive = node.child_by_field_name("directive")
    argument = node.child_by_field_name("argument")
    if directive is None or argument is None or context.text(directive) != "#pragma":
        return ""
    return " ".join(context.text(argument).replace("\\\n", " ").split())


def _following(node):
    """The statement after `node`, comments passed over (None at the block's end)."""
    node = node.next_named_sibling
    while node is not None and node.type == "comment":
        node = node.next_named_sibling
    return node


def region_at(context, pragma) -> Region | None:
    """The parallel region `pragma` opens (a team of more than one thread), or None."""
    found = _PARALLEL.match(_directive(context, pragma))
    block = _following(pragma) if found else None
    while block is not None and _directive(context, block).startswith("omp "):
        block = _following(block)  # (`#pragma omp parallel` then `#pragma omp for`)
    if block is None or _ONE_THREAD.search(found.group(1)):
        return None
    clauses = found.group(1).split()
    written = "omp parallel" + (f" {clauses[0]}" if clauses and clauses[0] in (
        "for", "loop", "sections") else "")
    sections = ()
    if written.endswith("sections") and block.type == "compound_statement":
        sections = tuple(_following(child) for child in block.named_children
                         if _SECTION.match(_directive(context, child))
                         and _following(child) is not None)
    return Region(pragma, block, written, sections)


def regions_in(context, body) -> Iterator[Region]:
    """The parallel regions in `body` (nested ones too), found from the file's directives."""
    for start, region in _file_regions(context):
        if body.start_byte <= start < body.end_byte:
            yield region


def _file_regions(context) -> list[tuple[int, Region]]:
    """(byte offset, region) of the file's parallel regions, once per file: the directives
    are found in its bytes, then their nodes."""
    return context.shared(Region, lambda: _found_regions(context))


def _found_regions(context) -> list[tuple[int, Region]]:
    found = []
    for match in _DIRECTIVE.finditer(context.source.data):
        node = context.node_at(match.start(), match.start())
        while node is not None and node.type != "preproc_call":
            node = context.parent(node)
        region = region_at(context, node) if node is not None else None
        if region is not None:
            found.append((match.start(), region))
    return found


def everyone_runs(context, block) -> list:
    """The statements of a region's block that every thread of its team runs: the block, or
    where it holds `single`/`master`/`masked`/`critical` statements, its other statements."""
    if block.type != "compound_statement":
        return [block]
    alone = {_following(child).id for child in block.named_children
             if _ALONE.match(_directive(context, child)) and _following(child) is not None}
    if not alone:
        return [block]
    return [child for child in block.named_children
            if child.id not in alone and child.type not in ("preproc_call", "comment")]


def team_of(context, node) -> tuple[Region, list] | None:
    """The innermost parallel region of `node`'s function holding it, and the code the other
    threads of its team run meanwhile: the other sections where `node` is in one, else what
    every thread runs (`everyone_runs`); None outside any. (Read from the file's regions: a
    walk over siblings would climb the tree again at each level.)"""
    holding = [region for _, region in _file_regions(context)
               if region.block.start_byte <= node.start_byte < region.block.end_byte]
    scope = next((parent for parent in context.ancestors(node) if parent.type in _SCOPES),
                 None) if holding else None
    holding = [region for region in holding
               if scope is None or scope.start_byte <= region.pragma.start_byte]
    if not holding:
        return None
    region = max(holding, key=lambda region: region.block.start_byte)
    if region.sections:
        return region, [section for section in region.sections
                        if not section.start_byte <= node.start_byte < section.end_byte]
    return region, everyone_runs(context, region.block)
