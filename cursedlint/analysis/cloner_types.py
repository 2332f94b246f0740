"""Cloner types: a cloner maps each node of a source IR container to its copy (`IrCloner`,
`IRMapping`, `ValueToValueMapTy`). A cloner type is a name ending in one of the configured
words; this module finds them in raw source bytes (the project index's first round, the CUR5xx
prefilter words and second look) and says which classes of a `ClassIndex` a cloner clones.

A cloner clones the classes its mapping methods take as pointers or references (`clone`,
`lookup`, `remap`, ...; not constructors, static or template methods, nor the types its
constructors take: the destination container), or the pointer types of a cloner alias (`using
ValueMap = std::unordered_map<const Node*, Node*>`); failing those, the classes with a
constructor taking the cloner; and every class derived from those.
"""

from __future__ import annotations

import functools
import os
import re

from cursedlint.c.classes import ClassIndex, TypeFacts
from cursedlint.patterns import LazyPattern

LOOK_BEHIND, LOOK_AHEAD = 160, 200
"""Bytes around a cloner ending that hold the declaration it may be part of."""


def is_cloner_name(named: str, endings: tuple[str, ...]) -> bool:
    """Whether a type name (qualified or not, "" for none) names a cloner."""
    return bool(named) and named.split("::")[-1].endswith(endings)


def ending_pattern(endings) -> re.Pattern[bytes]:
    """A name ending in one of the cloner words, in raw source bytes."""
    alternatives = "|".join(re.escape(ending) for ending in sorted(endings))
    return re.compile(rf"(?:{alternatives})(?![A-Za-z0-9_])".encode())


def ending_spans(data: bytes, endings, start: int = 0, end: int | None = None):
    """The spans `ending_pattern(endings)` matches in data[start:end], in order, tried only
    where a `probe_words` word places an ending (the pattern tried at every byte of the C/C++
    worst case read its 20 MB at regex speed, for each file's look and summary)."""
    end = len(data) if end is None else end
    pattern, words = ending_pattern(endings), probe_words(tuple(endings))
    offsets = {word: sorted({ending.find(word) for ending in endings if word in ending})
               for word in words}
    if not all(any(word in ending for word in words) for ending in endings):
        yield from (match.span() for match in pattern.finditer(data, start, end))
        return
    starts = set()
    for word, places in offsets.items():
        encoded = word.encode()
        at = data.find(encoded, start, end)
        while at >= 0:
            starts.update(at - offset for offset in places if at - offset >= start)
            at = data.find(encoded, at + 1, end)
    after = start
    for at in sorted(starts):
        if at >= after and (match := pattern.match(data, at, end)) is not None:
            after = match.end()
            yield match.span()


# -- before any parse: the prefilter's words and the second look ---------------------------------
def copy_calls(data: bytes, copy_functions: tuple[str, ...], first: bool = False) -> list:
    """(start, end) of each call, in raw source bytes, of a free function named as one of
    `copy_functions` (its first letter in either case: `copy_words`) given a name and a member
    of another name: `clone(ctx, other.var,`, `copy(src->x, mapper)` (a cloner known by use:
    `cloning_candidates.cloners_by_use`); only the first when `first`. Found word by word, each
    place matched where it is (a pattern tried at every byte cost a twentieth of a C run)."""
    found = []
    for word in copy_words(copy_functions):
        needle = word.encode()
        at = data.find(needle)
        while at != -1:
            before = data[at - 1:at]
            match = _CALL_REST.match(data, at + len(needle))
            if match is not None and not (before.isalnum() or before in b"_.>"):
                if first:
                    return [(at, match.end())]
                found.append((at, match.end()))
            at = data.find(needle, at + 1)
    return sorted(found)


_NAME, _MEMBER = rb"[A-Za-z_]\w*\s*", rb"[A-Za-z_]\w*\s*(?:\.|->)\s*[A-Za-z_]"
_CALL_REST = LazyPattern(rb"\s*\(\s*(?:" + _NAME + rb",\s*" + _MEMBER + rb"|" + _MEMBER
                        + rb"\w*\s*,\s*" + _NAME + rb"[,)])")


@functools.cache
def copy_words(copy_functions: tuple[str, ...]) -> tuple[str, ...]:
    """The prefilter's words for calls of `copy_functions`: each name as configured and with
    its first letter in either case (`clone`, `Clone`; `deepCopy`, `DeepCopy`)."""
    return tuple(sorted({variant for name in copy_functions if name
                         for variant in (name, name[0].lower() + name[1:],
                                         name[0].upper() + name[1:])}))


@functools.cache
def probe_words(endings: tuple[str, ...]) -> tuple[str, ...]:
    """The fewest words one of which each cloner ending contains (endings sharing a prefix of
    four or more characters are found by it: Cloner and CloneContext by "Clone"), for the
    prefilter; the second look (`cloner_used`) then looks for the endings themselves."""
    words: set[str] = set()
    for ending in sorted(endings, key=len):
        if any(word in ending for word in words):
            continue
        shared = [os.path.commonprefix([ending, other]) for other in endings if other != ending]
        words.add(max((prefix for prefix in shared if len(prefix) >= 4), key=len, default=ending))
    return tuple(sorted(word for word in words if not any(o != word and o in word for o in words)))


_last_look: list = [None, None, False]  # the bytes and endings last looked at, and the answer


def cloner_used(data, endings: tuple[str, ...]) -> bool:
    """Whether a cloner type is used for a parameter or a local somewhere in `data`: each
    occurrence of an ending is found by a plain search, and only the text around it is
    matched against the declaration forms (remembered for the last bytes looked at). The
    windows of occurrences closer than a window are matched as one (matched one by one, a
    text dense with them had each byte read by dozens: 2 MB of `,IrCloner<` took 14 s)."""
    if _last_look[0] is data and _last_look[1] == endings:
        return _last_look[2]
    pattern = _cloner_use_pattern(endings)
    found = False
    for ending in endings:
        needle = ending.encode()
        at = data.find(needle)
        while at != -1 and not found:
            start, end = max(0, at - LOOK_BEHIND), at + len(needle) + LOOK_AHEAD
            at = data.find(needle, at + 1)
            while at != -1 and at - LOOK_BEHIND <= end:
                end = at + len(needle) + LOOK_AHEAD
                at = data.find(needle, at + 1)
            found = pattern.search(data[start:end]) is not None
        if found:
            break
    _last_look[:] = [data, endings, found]
    return found


@functools.cache
def _cloner_use_pattern(endings: tuple[str, ...]) -> re.Pattern[bytes]:
    """A cloner type used for a parameter, a local declaration or a function's return type
    (`IrCloner Fusion::copy(...)`, whose cloner may be an `auto` local), in raw bytes: what
    every cloning candidate holds (a parse-free look, wider than `cloning_candidates`).
    Template arguments and attributes are read up to 256 bytes: unbounded, each of many uses
    on a line would read to its end."""
    name = (
        rb"(?:[A-Za-z_]\w*\s*::\s*)*(?<![A-Za-z0-9_])\w*?(?:"
        + "|".join(re.escape(ending) for ending in endings).encode()
        + rb")(?![A-Za-z0-9_])(?:\s*<[^;{}()]{0,256}>)?"
    )
    qualifiers = rb"(?:(?:const|volatile|struct|class|static)\s+)*"
    after = rb"(?:\s*(?:const|volatile|[&*]))*\s*"
    parameter = (rb"[(,]\s*(?:\[\[[^\]]{0,256}\]\]\s*)?" + qualifiers + name + after
                 + rb"(?:[A-Za-z_]\w*)?\s*(?:=[^,()]*)?(?:[,)]|/[/*])")
    local = (rb"(?:^|[;{}(])\s*" + qualifiers + name + after
             + rb"(?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*\s*[({;=]")
    return re.compile(parameter + rb"|(?m:" + local + rb")")


# -- in a class index: what a cloner clones ------------------------------------------------------
def cloners_in(index: ClassIndex, endings: tuple[str, ...]) -> list[str]:
    """Qualified names of the index's classes and aliases whose names end in a cloner word."""
    return [name for name in (*index.classes, *index.aliases) if is_cloner_name(name, endings)]


def cloneable_for(index: ClassIndex, cloner: str | None, short_name: str = "") -> set[str]:
    """Classes the cloner (qualified name in the index, or None when only its name is known)
    clones: its mapping methods' pointer parameters or its alias's pointer types — else, when
    those name no class, the classes with a constructor taking it — and every class derived
    from those."""
    roots: set[str] = set()
    short = cloner.split("::")[-1] if cloner else short_name
    if cloner in index.classes:
        scope = index.classes[cloner][1].scope
        methods = list(index.methods(cloner))
        targets = {  # what its constructors take: the destination container, not a node
            name
            for method in methods if method.name == short
            for parameter in method.parameters
            for name in _resolved_pointees(index, parameter, scope)
        }
        for method in methods:
            if _maps(method, short):
                for parameter in method.parameters:
                    roots.update(_resolved_pointees(index, parameter, scope) - targets)
    elif cloner in index.aliases:
        alias = index.aliases[cloner][1]
        roots.update(_resolved_pointees(index, alias.type, alias.scope))
    if not roots:  # every mapping method is a template: the classes with cloning constructors
        roots = {
            name for name in _constructors_taking(index).get(short, ())
            if any(
                _names_cloner(index, parameter, index.classes[name][1].scope, cloner, short)
                for method in index.classes[name][1].methods
                if method.name == index.classes[name][1].short_name
                for parameter in method.parameters
            )
        }
    roots.discard(cloner)
    return index.derived_from(roots) if roots else set()


def cached_cloneable_for(index: ClassIndex, cloners: tuple) -> frozenset[str]:
    """The classes any of `cloners` ((qualified name or "", short name) pairs) clones,
    remembered on the index (shared by every file and function of a run: no set is copied
    per function)."""
    memo = index.__dict__.setdefault("_cloneable", {})
    if cloners not in memo:
        memo[cloners] = frozenset().union(
            *(cloneable_for(index, qualified or None, short) for qualified, short in cloners)
        )
    return memo[cloners]


def _constructors_taking(index: ClassIndex) -> dict[str, set[str]]:
    """Type short name -> the classes with a constructor taking a parameter of that name
    (computed once per index)."""
    found = getattr(index, "_constructors_taking", None)
    if found is None:
        found = {}
        for name, (_, facts) in index.classes.items():
            for method in facts.methods:
                if method.name == facts.short_name:
                    for parameter in method.parameters:
                        if parameter.named:
                            found.setdefault(parameter.named.split("::")[-1], set()).add(name)
        index._constructors_taking = found
    return found


def _maps(method, cloner_short_name: str) -> bool:
    """Whether a cloner method's parameters name what it maps: any method but constructors,
    destructors, operators other than [], static and template methods."""
    name = method.name
    if method.template or method.static or name in (cloner_short_name, f"~{cloner_short_name}"):
        return False
    return name == "operator[]" or not name.startswith("operator")


def _resolved_pointees(index: ClassIndex, facts: TypeFacts, scope) -> set[str]:
    names = set(facts.pointees)
    if facts.reference and not facts.pointer and facts.named:
        names.add(facts.named)  # clone(const Node&)
    resolved = (index.resolve(name, scope) for name in names)
    return {name for name in resolved if name}


def _names_cloner(index, parameter: TypeFacts, scope, cloner, short) -> bool:
    if not parameter.named or parameter.named.split("::")[-1] != short:
        return False
    resolved = index.resolve(parameter.named, scope) or index.resolve_alias(parameter.named, scope)
    return resolved == cloner or resolved is None
