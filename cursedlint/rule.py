"""The rule API.

A rule is one class in its family's module under `cursedlint.rules`:

    class SubPageRdmaRegistration(Rule):
        \"\"\"## What it does ... ## Why it is cursed ... ## Example ... ## Fix ... ## References\"\"\"
        code = "CUR301"
        name = "sub-page-rdma-registration"
        languages = ("c", "cpp")
        triggers = ("ibv_reg_mr", "fi_mr_reg")
        summary = "RDMA registration smaller than a page"
        valid = ("...",)
        invalid = ("... // warning: CUR301",)

        def check(self) -> None:            # C/C++: query self.context.tree
            ...

Python rules implement `visit_<ast class>` / `leave_<ast class>` methods (stdlib `ast`), which
the engine's single walk over the module dispatches to every enabled rule, and may implement
`check()` for whole-module work after the walk. `self.context` is the file's shared analysis
(`PythonContext` or `CContext`); `self.report(...)` records a finding.

`triggers` are words whose absence from a file proves the rule cannot fire there; an entry may be
a tuple of words that must all appear. Invalid examples mark each expected finding with a
trailing comment `# error: CUR101` (or `// warning: CUR502`) on its line; a marker may also
give the column and a message fragment, and `ok:` markers mark look-alikes (`markers`).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Union

from msgspec import Struct, field

from cursedlint.findings import Finding, Fix, Severity, Span, Step
from cursedlint.patterns import LazyPattern

if TYPE_CHECKING:
    from cursedlint.context import FileContext
    from cursedlint.project.index import Indexer
    from cursedlint.triggers.second_look import Shape

Trigger = Union[str, tuple[str, ...]]

DOC_SECTIONS = ("What it does", "Why it is cursed", "Example", "Fix", "References")

CODE_PATTERN = re.compile(r"CUR\d{3}")
NAME_PATTERN = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


# marker comments of examples and test fixtures (`markers`), compiled only where read
_MARKER_ITEM = r"""CUR\d{3}(?:@\d+)?(?:\s+(?:"[^"]*"|'[^']*'))?"""
_MARKER_CLAUSE = rf"(?:error|warning|ok):\s*{_MARKER_ITEM}(?:\s*,\s*{_MARKER_ITEM})*"
_MARKERS = LazyPattern(rf"(?:#|//)\s*({_MARKER_CLAUSE}(?:\s*;\s*{_MARKER_CLAUSE})*)\s*$")
_MARKER_PARTS = LazyPattern(
    r"""(error|warning|ok):|(CUR\d{3})(?:@(\d+))?(?:\s+(?:"([^"]*)"|'([^']*)'))?""")


class Form(Struct, frozen=True):
    """What every string of an option's value must look like: `pattern`, matched whole, and
    how an error describes it."""

    pattern: str
    description: str

    def matches(self, text: str) -> bool:
        return re.fullmatch(self.pattern, text) is not None


PYTHON_NAME = Form(r"[^\W\d]\w*", "a Python name such as 'enqueue_host'")
MODULE_NAME = Form(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*", "a module name such as 'torch' or 'numba.cuda'")
NAME_GLOB = Form(r"[\w*?\[\]!-]+", "a name or a shell-style pattern of one such as 'ev_*'")
C_NAME = Form(r"[A-Za-z_][A-Za-z0-9_]*", "a C identifier such as 'my_readv'")
C_NAME_PART = Form(r"[A-Za-z0-9_]+", "part of a C/C++ identifier such as 'Cloner'")


class Option(Struct, frozen=True):
    """A per-rule option: `[tool.cursedlint.rules.CODE] name = value`. The configuration
    accepts only values of `kind` (a list option's items of `item`) whose strings are not
    blank, not longer than `config.MAX_OPTION_TEXT` and match `form`, and, when `choices` are
    given, are among them: a rule never sees a value outside its spec."""

    kind: type | tuple[type, ...]
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    item: type | None = None
    form: Form | None = None

    def __post_init__(self) -> None:
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        if self.item is None and (list in kinds or tuple in kinds):
            raise TypeError("a list option declares the type of its items (`item=`)")


class Example(Struct, frozen=True):
    """A code snippet for a rule's docs and tests. `language` defaults to the rule's first;
    `settings` overrides configuration for this example: "target-python" ("3.12"),
    "page-size" (65536) and "options" (this rule's options, e.g. {"libc": "musl"})."""

    code: str
    language: str | None = None
    settings: dict = field(default_factory=dict)

    def expected(self) -> list[Marker]:
        """The markers of the example's lines (`markers`)."""
        return markers(self.code)


class Marker(Struct, frozen=True):
    """What a marker comment says of its line: a finding of `code` with `severity` there, or
    for an `ok:` marker (`severity` None) that no such finding is there; the finding starts at
    `column` (1-based) and its message or help holds `fragment`, where those are given."""

    line: int
    code: str
    severity: Severity | None
    column: int | None = None
    fragment: str | None = None

    def describes(self, finding: Finding) -> bool:
        """Whether `finding` is one this marker speaks of (its severity aside)."""
        return (
            finding.line == self.line and finding.code == self.code
            and self.column in (None, finding.column)
            and (self.fragment is None or self.fragment in finding.explained)
        )


def markers(text: str) -> list[Marker]:
    """The markers of `text`: a trailing `#` or `//` comment of one or more clauses joined by
    `;`, each a kind (`error:`, `warning:`, `ok:`) and codes joined by `,`, each code with an
    optional `@column` and an optional quoted message fragment:

        pool = Pool()  # error: CUR102
        ibv_reg_mr(pd, buf, 16, 0);  // warning: CUR301@21 "16 bytes", CUR302
        with torch.cuda.graph(g):  # error: CUR401@10 'global mode'; ok: CUR403
    """
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _MARKERS.search(line)
        if not match:
            continue
        severity = None
        for kind, code, column, double, single in _MARKER_PARTS.findall(match.group(1)):
            if kind:
                severity = None if kind == "ok" else Severity(kind)
                continue
            fragment = double or single or None
            found.append(Marker(number, code, severity, int(column) if column else None, fragment))
    return found


class Rule:
    """Base class of every rule. Subclasses set the class attributes and a docstring with the
    sections in DOC_SECTIONS, and implement visit_/leave_ methods (Python) and/or `check()`."""

    code: ClassVar[str]
    name: ClassVar[str]
    languages: ClassVar[tuple[str, ...]]
    triggers: ClassVar[tuple[Trigger, ...]] = ()
    summary: ClassVar[str]
    severity: ClassVar[Severity] = Severity.ERROR
    precision: ClassVar[str] = "high"
    """How often a finding is right on real code (SARIF's `precision`: very-high, high,
    medium, low), from the real-code reviews (`benchmarks/real_code_review.md`)."""
    options: ClassVar[dict[str, Option]] = {}
    valid: ClassVar[tuple[str | Example, ...]] = ()
    invalid: ClassVar[tuple[str | Example, ...]] = ()
    indexer: ClassVar["Indexer | None"] = None
    """For rules that need facts from other files: the `project_index.Indexer` that gathers
    them. Such a rule sees the project files' summaries in `self.project_facts`."""
    checkers: ClassVar[dict[str, str]] = {}
    """Language -> "module:Class" of the rule's checker for files of that language, the module
    relative to the rule's package: a subclass of the rule holding that language's visit_ and
    check code, imported when first needed. A language not named is checked by the rule
    class itself (a rule of one language may be its own checker)."""
    reads_facts_of: ClassVar[tuple["Indexer", ...]] = ()
    """Further indexers whose facts the rule reads (`context.project`) when a file it checks
    needs them; unlike `indexer`'s, they never add triggers."""
    posix_only: ClassVar[bool] = False
    """Whether the rule's hazard exists only where a process forks (Linux, macOS): the rule is
    silent in a project whose packaging classifiers name Windows as its only operating system
    and whose configuration sets no `libc` (`Settings.silenced`)."""

    @classmethod
    def indexers(cls) -> tuple["Indexer", ...]:
        """Every indexer whose facts the rule reads."""
        return (cls.indexer, *cls.reads_facts_of) if cls.indexer else cls.reads_facts_of

    @classmethod
    def checker(cls, language: str) -> type["Rule"]:
        """The class that checks files of `language`."""
        where = cls.checkers.get(language)
        return cls if where is None else _imported(where, sys.modules[cls.__module__].__package__)

    callee_names: "frozenset[str] | None" = None
    """Python: the callees' last names (`Popen` of `sp.Popen(...)`) whose calls `visit_Call`
    reads, read once the rule is made (an instance may set its own); None: every call. The
    walk calls it only for a call of such a name, of a name an import binds (`P` of `from
    subprocess import Popen as P`), or of anything but a name or attribute (`f()()`): the
    `ImportTable.may_resolve_to` of its names (`PythonContext.walk`). An analysis fed by the
    walk (`walk_feeds`) may declare its own."""

    def __init__(self, context: "FileContext", options: dict[str, Any] | None = None):
        self.context = context
        self.option = self.resolved_options(options)

    def check(self) -> None:
        """Whole-file analysis, run after the Python walk (the only entry point for C/C++)."""

    @property
    def project_facts(self) -> dict[str, Any]:
        """Path -> summary, for the project's files that have one (see `indexer`)."""
        return self.context.project.get(self.indexer.name, {}) if self.indexer else {}

    @classmethod
    def project_trigger_words(cls, facts: dict[str, Any]) -> tuple[str, ...]:
        """Words the project's facts (its indexer's, path -> summary) make worth looking for:
        the prefilter adds them to the rule's triggers. Derived from the indexer
        (`Indexer.trigger_words`), so every rule reading the same facts has the same."""
        indexer = cls.indexer
        if not indexer or not indexer.adds_triggers:
            return ()
        gated = indexer.gated_trigger_words(facts) if cls.fact_gated else ()
        return tuple(sorted({*indexer.trigger_words(facts), *gated}))

    fact_gated: tuple[Trigger, ...] = ()
    """Words of a file the rule can fire on only where the project's facts show it (a tuple:
    all of its words, as in `triggers`): such a file passes `project_look` where it names one
    of the indexer's `gated_trigger_words`; where the run's files are not all linted, a linted
    file holding one has the whole facts gathered."""

    @classmethod
    def project_look(cls, look, words: tuple[str, ...], facts: dict[str, Any]):
        """The second look once the project's facts (path -> summary) are known: `look`, a
        file naming one of `words` (`project_trigger_words`: a project wrapper, say), or one
        holding a `fact_gated` word and naming one of the facts' gated words."""
        from cursedlint.triggers.second_look import AllOf, AnyOf, Names, Text

        def names(chosen) -> Names:
            return Names(frozenset(word.encode() for word in chosen))

        gated = set(cls.indexer.gated_trigger_words(facts)) if cls.fact_gated else set()
        if gated:
            gated -= set(cls.indexer.trigger_words(facts))
        shapes = [look, names(word for word in words if word not in gated)]
        if gated:
            held = AnyOf(tuple(
                AllOf(tuple(Text(frozenset({word.encode()})) for word in sorted(words)))
                for words in trigger_alternatives(cls.fact_gated)))
            shapes.append(AllOf((held, names(gated))))
        return AnyOf(tuple(shapes))

    def report(
        self,
        target: Any,
        message: str,
        *,
        fix: Fix | None = None,
        severity: Severity | None = None,
        related: tuple[Step, ...] = (),
        help: str = "",
    ) -> None:
        """Record a finding at `target`: an `ast` node, a tree-sitter node, or a `Span`;
        `message`: the cause at this spot, short enough for one terminal line; `related`: the
        places of the chain that proves it, in order; `help`: why it breaks and the fix."""
        span = target if isinstance(target, Span) else self.context.span_of(target)
        own = os.path.abspath(self.context.source.path)
        cites = dict.fromkeys(os.path.abspath(step.path) for step in related)
        cites.pop(own, None)
        self.context.add(
            Finding(
                path=self.context.source.path,
                span=span,
                code=self.code,
                name=self.name,
                message=message,
                severity=severity or self.severity,
                fix=fix,
                related=tuple(map(_as_shown, related)),
                help=help,
                cites=tuple(cites),
            )
        )

    @classmethod
    def examples(cls, kind: str) -> list[Example]:
        """The rule's `valid` or `invalid` examples as Example objects."""
        return [
            item if isinstance(item, Example) else Example(item)
            for item in getattr(cls, kind)
        ]

    @classmethod
    def example_language(cls, example: Example) -> str:
        return example.language or cls.languages[0]

    @classmethod
    def resolved_options(cls, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The rule's option defaults updated with configured values."""
        return {name: spec.default for name, spec in cls.options.items()} | (options or {})

    @classmethod
    def triggers_for(cls, options: dict[str, Any]) -> tuple[Trigger, ...]:
        """The triggers under these (resolved) options. A rule whose options widen what it can
        match (a configurable module list) overrides this, so the prefilter never hides it."""
        return cls.triggers

    @classmethod
    def look(
        cls, options: dict[str, Any], target_python: tuple[int, int], language: str
    ) -> Shape | None:
        """The second, still parse-free look at a file of `language` whose bytes hold the
        rule's triggers: the `Shape` (`cursedlint.triggers.second_look`) its bytes must have for the
        rule to fire under these (resolved) options and target Python; None: no second look.
        Built once per run and language, from the constants the rule's AST side matches;
        asked of the language's checker (`checker(language).look`), which may declare it."""
        return None

    @classmethod
    def may_fire(
        cls, data: bytes, options: dict[str, Any], target_python: tuple[int, int], language: str
    ) -> bool:
        """Whether the rule's second look lets a file through: False proves the rule cannot
        fire on it. (Text that flake8 hands over arrives encoded as UTF-8.)"""
        shape = cls.checker(language).look(options, target_python, language)
        return shape is None or shape.may_match(data)

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring's `## Heading` sections, in order, with dedented bodies."""
        import inspect

        doc = inspect.cleandoc(cls.__doc__ or "")
        sections: dict[str, str] = {}
        heading = None
        body: list[str] = []
        for line in doc.splitlines():
            if line.startswith("## "):
                if heading:
                    sections[heading] = "\n".join(body).strip()
                heading, body = line[3:].strip(), []
            else:
                body.append(line)
        if heading:
            sections[heading] = "\n".join(body).strip()
        return sections


@cache
def _imported(where: str, package: str) -> type[Rule]:
    """The class a `Rule.checkers` entry names ("module:Class", relative to `package`)."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(f".{module}", package), name)


def trigger_alternatives(triggers: tuple[Trigger, ...]) -> tuple[frozenset[str], ...]:
    """Each trigger as the set of words a file must hold together."""
    return tuple(
        frozenset((trigger,) if isinstance(trigger, str) else trigger) for trigger in triggers
    )


def triggered_by(alternatives: tuple[frozenset[str], ...], present: set[str]) -> bool:
    """Whether a file holding exactly the trigger words `present` can make a rule fire whose
    triggers have these `trigger_alternatives`. No triggers: always."""
    return not alternatives or any(alternative <= present for alternative in alternatives)


class Notice(Rule):
    """A message of the linter about itself (CUR0xx): reported by the engine, not by a walk."""

    triggers = ()


def _as_shown(step: Step) -> Step:
    """A step in another file, its path relative to the working directory when under it (as
    linted paths are shown)."""
    if not os.path.isabs(step.path):
        return step
    relative = os.path.relpath(step.path)
    return step if relative.startswith(os.pardir) else Step(relative, step.line, step.note)
