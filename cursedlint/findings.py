"""What a rule reports: a finding at a span, with an optional fix made of text edits.

Lines are 1-based; columns are 1-based and count characters (not bytes), as editors and
SARIF viewers do. End positions are exclusive columns on the end line.
"""

from __future__ import annotations

import enum

from msgspec import Struct


MESSAGE_WIDTH = 120
"""A finding's message fits one terminal line of about this many characters: the cause at this
spot. Why it breaks and the fix go to its `help`."""


class Severity(str, enum.Enum):
    """`error`: the code will break. `warning`: it breaks under conditions the message names."""

    ERROR = "error"
    WARNING = "warning"


class Span(Struct, frozen=True, order=True):
    """A region of a file: start and end line (1-based) and column (1-based, characters)."""

    line: int
    column: int
    end_line: int
    end_column: int


class Edit(Struct, frozen=True):
    """Replace the text of `span` with `content`."""

    span: Span
    content: str


class Rewrite(Struct, frozen=True):
    """Set keyword argument `keyword` to `value` (source text) in the Python call at `span`,
    in place of the keyword `replaces` where the call has it: a structural edit, made with
    libcst when the fix is applied (`structural_fixes`), keeping the call's layout."""

    span: Span
    keyword: str
    value: str
    replaces: str | None = None


class Fix(Struct, frozen=True):
    """Edits that resolve a finding. Unsafe fixes may change behaviour and need opting in."""

    message: str
    edits: tuple[Edit, ...]
    safe: bool = True
    rewrites: tuple[Rewrite, ...] = ()


class Step(Struct, frozen=True):
    """One link of the chain that proves a finding: what the code does at `path:line`."""

    path: str
    line: int
    note: str


class Finding(Struct, frozen=True, eq=False):
    """One problem in one file. Sorting orders by path, position, then code. Two findings are
    equal when they report the same problem at the same place: their fixes, chains and help are
    not compared."""

    path: str
    span: Span
    code: str
    name: str
    message: str
    severity: Severity = Severity.ERROR
    fix: Fix | None = None
    related: tuple[Step, ...] = ()
    """The chain behind the finding where it spans other places (SARIF `relatedLocations`)."""
    help: str = ""
    """Why the cause at this spot breaks, and what to do instead: the `help:` lines under the
    short `message` (its first line in a terminal)."""
    cites: tuple[str, ...] = ()
    """The other files whose facts the finding reports (absolute paths): the files of its
    chain besides its own. A result linted with facts is reused from the cache only while
    each of them has the facts it had then (`FileResult.cited`)."""

    def _compared(self) -> tuple:
        return (self.path, self.span, self.code, self.name, self.message, self.severity)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    @property
    def explained(self) -> str:
        """The message, then its help on the next line: for formats read as prose."""
        return f"{self.message}\n{self.help}" if self.help else self.message

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.column, self.code, self.message)

    @property
    def cited_lines(self) -> set[int]:
        """The lines whose text reports need (`FileResult.lines`): where its span and its
        fix's edits start and end (UTF-8 columns), and every line of a structural rewrite's
        call (the edit it makes)."""
        spans = [self.span, *(edit.span for edit in self.fix.edits)] if self.fix else [self.span]
        lines = {line for span in spans for line in (span.line, span.end_line)}
        for rewrite in self.fix.rewrites if self.fix else ():
            lines.update(range(rewrite.span.line, rewrite.span.end_line + 1))
        return lines

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column
