"""Second looks as declarations: the shape of code a rule needs, checked on raw bytes.

A rule whose trigger words hit may declare, through `Rule.look(options, target_python,
language)`, a `Shape` its code must have for the rule to fire: words, whole names, calls of
given names with given arguments, method calls whose names match glob patterns. The prefilter
asks the shape once per file (`may_match`), before anything is decoded or parsed. Shapes are
built from the constants the rule's AST side matches (its API tables, its options), and the
method-call shape's name test is the one the AST side uses, so the two cannot drift.

The matchers live in `python_scan` and run in time linear in the file whatever it holds (a test
times every rule's shape on adversarial text). Every answer over-approximates: False only where
the rule provably cannot fire.
"""

from __future__ import annotations

import re
from fnmatch import translate
from functools import cached_property

from msgspec import Struct

from cursedlint.patterns import LazyPattern


def last_words(names) -> frozenset[bytes]:
    """The last parts of dotted `names` (`Popen` of `subprocess.Popen`), as the bytes a look
    searches for."""
    return frozenset(name.rpartition(".")[2].encode() for name in names)


def module_words(names) -> frozenset[bytes]:
    """The parts of dotted `names` before their last (`os` of `os.fork`), as bytes: the
    receivers a `Call` look takes (`modules`)."""
    return frozenset(part.encode() for name in names for part in name.split(".")[:-1])


class Shape:
    """What a file's bytes must hold for a rule to fire."""

    def may_match(self, data: bytes) -> bool:
        raise NotImplementedError


class Text(Struct, Shape, frozen=True):
    """One of `words` occurs anywhere in the bytes (inside a longer name too)."""

    words: frozenset[bytes]

    def may_match(self, data: bytes) -> bool:
        return any(word in data for word in self.words)


class Pattern(Struct, Shape, frozen=True, dict=True):
    """The regular expression `pattern` (bytes, multiline) matches somewhere in the bytes."""

    pattern: bytes

    def may_match(self, data: bytes) -> bool:
        return self._search(data) is not None

    @cached_property
    def _search(self):
        return re.compile(self.pattern, re.M).search


class Names(Struct, Shape, frozen=True):
    """One of `names` occurs as a whole name (not `_add_callback` for `add_callback`)."""

    names: frozenset[bytes]

    def may_match(self, data: bytes) -> bool:
        from cursedlint.python import scan as python_scan

        return python_scan.has_name(data, self.names)


class Call(Struct, Shape, frozen=True):
    """A call of one of `callees` (or a name imported `as` one), with at least `positional`
    positional arguments or one of `keywords` as a keyword argument; with neither, any call.
    `modules`: the callee must be bare or end an attribute chain rooted at one of them (as an
    import table resolves it); empty, on any receiver."""

    callees: frozenset[bytes]
    modules: frozenset[bytes] = frozenset()
    positional: int | None = None
    keywords: frozenset[bytes] = frozenset()

    def may_match(self, data: bytes) -> bool:
        from cursedlint.python import scan as python_scan

        return python_scan.has_call_with_arguments(
            data, self.callees, modules=self.modules, positional=self.positional,
            keywords=self.keywords, any_receiver=not self.modules,
        )


class MethodCall(Struct, Shape, frozen=True, dict=True):
    """`receiver.name(...)` where `name` matches one of the glob `patterns` without case (and
    holds none of `excluded`), and the receiver may be an object the module made: anything but
    a bare name that no assignment in the module binds (a module, a parameter), except the
    bare names in `imported` (objects a library exports). With `called` False, any read of
    `receiver.name`, called or not: a name or attribute bound to it may be what is called
    (`f = lib.name`, then `f(...)`)."""

    patterns: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    imported: frozenset[bytes] = frozenset()
    called: bool = True

    def matches(self, name: str) -> bool:
        """Whether a called name (as the parser reads it) is one of these methods; the AST
        side's test too (which asks it for every call: answers are remembered by name)."""
        verdict = self._verdicts.get(name)
        if verdict is None:
            lowered = name.lower()
            verdict = self._verdicts[name] = (self._name_test(lowered) is not None
                                              and not any(word in lowered for word in self.excluded))
        return verdict

    def may_match(self, data: bytes) -> bool:
        from cursedlint.python import scan as python_scan

        assigned: dict[bytes, bool] = {}
        return any(
            self.matches(name)
            and python_scan.receiver_may_be_made(data, dot, self.imported, assigned)
            for dot, name in python_scan.method_calls(data, self.called)
        )

    @cached_property
    def _verdicts(self) -> dict[str, bool]:
        return {}

    @cached_property
    def _name_test(self):
        return re.compile("|".join(translate(pattern.lower()) for pattern in self.patterns)).match


class NameCall(MethodCall, frozen=True, dict=True):
    """`name(...)` called by its bare name, where `name` matches one of the glob `patterns`
    without case (and holds none of `excluded`): how Cython calls the C functions it declares
    (`MethodCall`'s name test)."""

    def may_match(self, data: bytes) -> bool:
        return any(self.matches(match[1].decode()) for match in _BARE_CALL.finditer(data))


_BARE_CALL = LazyPattern(rb"(?<![\w.])([A-Za-z_]\w*)[ \t]*\(")


class AnyOf(Struct, Shape, frozen=True):
    shapes: tuple[Shape, ...]

    def may_match(self, data: bytes) -> bool:
        return any(shape.may_match(data) for shape in self.shapes)


class AllOf(Struct, Shape, frozen=True):
    shapes: tuple[Shape, ...]

    def may_match(self, data: bytes) -> bool:
        return all(shape.may_match(data) for shape in self.shapes)
