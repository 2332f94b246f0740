"""The project facts of the CUR5xx rules: class declarations of the project's C++ files that
matter to cloning, found from the files naming a cloner type and, round by round, the files
declaring the classes cloning functions copy, their bases, and the classes deriving from a
cloneable one; with what each file's copy routines map through the cloner and which of its
functions return a cloner. `index_for` joins them with a linted file's own classes."""

from __future__ import annotations

import os
import re

from msgspec import Struct

from cursedlint.analysis.cloner_types import cloneable_for, cloners_in
from cursedlint.analysis.cloning_candidates import (
    MappedIfCloner,
    cloners_returned,
    cloning_candidates,
    copied_classes,
    mapped_after_cloning,
    mapped_if_cloner,
)
from cursedlint.analysis.cpp_returns import Returning
from cursedlint.c.classes import ClassFacts, ClassIndex, FileClasses, file_classes


class ClonerFacts(Struct, frozen=True):
    """One file's classes, and the classes its cloning functions copy (by the names written in
    their definitions), whose declarations the index must then find."""

    classes: FileClasses
    wanted: tuple[str, ...]
    mapped: tuple[str, ...] = ()  # `mapped_after_cloning`
    returning: tuple[Returning, ...] = ()  # functions returning a cloner
    mapped_if: tuple[MappedIfCloner, ...] = ()


def cloner_facts(context, endings: tuple[str, ...], copy_functions) -> ClonerFacts | None:
    """The summary of one file, None when it has nothing to say."""
    classes = file_classes(context)
    candidates = cloning_candidates(context, endings, copy_functions)
    wanted = tuple(sorted(copied_classes(candidates)))
    mapped = mapped_after_cloning(context, candidates)
    returning = tuple(cloners_returned(context, endings))
    mapped_if = tuple(mapped_if_cloner(context, candidates))
    if classes.classes or classes.aliases or wanted or mapped or returning or mapped_if:
        return ClonerFacts(classes, wanted, mapped, returning, mapped_if)
    return None


def classes_to_read(facts: dict[str, ClonerFacts], endings: tuple[str, ...]) -> set[str]:
    """Short names of the classes whose declarations the next round must find: those the
    cloning functions copy, their bases, and what the cloners found so far clone."""
    index = ClassIndex((path, found.classes) for path, found in facts.items())
    names = {name for found in facts.values() for name in found.wanted}
    by_short: dict[str, list[ClassFacts]] = {}
    for _, found in index.classes.values():
        by_short.setdefault(found.short_name, []).append(found)
    pending = list(names)
    while pending:  # the copied classes' members may live in their base classes
        for found in by_short.get(pending.pop(), ()):
            for base in found.bases:
                short = base.split("::")[-1]
                if short not in names:
                    names.add(short)
                    pending.append(short)
    for cloner in cloners_in(index, endings):
        names |= {name.split("::")[-1] for name in cloneable_for(index, cloner)}
    return names


def class_head_pattern(words) -> re.Pattern[bytes]:
    """A class declared with one of these names, or deriving from one, in raw source bytes."""
    alternatives = "|".join(re.escape(word) for word in sorted(words))
    # a name, but not one of the keywords that start a match: each chain of names is read
    # from one start (`class class class ...` was read to its end from every `class`)
    name = rb"(?!(?:public|protected|private|virtual|class|struct)(?![A-Za-z0-9_]))[A-Za-z_]\w*"
    qualifiers = rb"(?:" + name + rb"\s*::\s*)*"
    return re.compile(
        rb"(?:\b(?:public|protected|private|virtual)\s+" + qualifiers
        + rb"|\b(?:class|struct)\s+(?:" + name + rb"\s+)*"
        + rb"(?:" + name + rb"\s*(?:final\s*)?:\s*" + qualifiers + rb")?)"
        + rf"(?:{alternatives})(?![A-Za-z0-9_])".encode()
    )


_shared: list = [None, None]  # [project facts, their ClassIndex], kept for the process


def index_for(context, facts: dict[str, ClonerFacts]) -> ClassIndex:
    """The class index a file is analyzed with: the project's, built once per process, when the
    file's own facts are in it (the command-line case: linted files are project files); else
    the project's facts joined with the file's own classes."""
    path = os.path.abspath(context.source.path)
    summary = facts.get(path)
    if summary is not None and summary.classes == file_classes(context):
        if _shared[0] is not facts:
            _shared[:] = [facts, ClassIndex((p, f.classes) for p, f in facts.items())]
        return _shared[1]
    project = [(p, f.classes) for p, f in facts.items() if p != path]
    return ClassIndex([(context.source.path, file_classes(context)), *project])
