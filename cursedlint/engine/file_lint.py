"""One file from bytes to findings.

Read -> skip binary -> prefilter on bytes (no hit: done, nothing parsed) -> decode -> parse
once (ast | tree-sitter) -> every triggered rule of the language runs on that one tree ->
suppressions. A rule that raises becomes a CUR000 finding; the other rules still run. A file
whose rules could use facts from other files says which (`FileResult.needs`), for the run
(`engine.linter`) to gather.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Iterable, Mapping

from cursedlint import notices

import cursedlint.engine.suppressions as suppressions
from cursedlint.context import TextContext
import cursedlint.engine.reported_notices as reported
from cursedlint.engine.indexer_looks import (
    adds_triggers, looked_for, lookups_of, needs, seeds_of, summarized,
)
from cursedlint.engine.results import FileResult
from cursedlint.findings import Span
from cursedlint.languages import C, CPP, CYTHON, LANGUAGES, PYTHON, PYTHON_TREES, TEXT_LANGUAGES
from cursedlint.triggers.prefilter import Prefilter
from cursedlint.project.index import FactError, word_key
from cursedlint.registry import checking, fact_readers, rule_names
from cursedlint.rule import Notice, Rule
from cursedlint.settings import Settings
from cursedlint.source import Source, SourceError, looks_binary, parse_python

KEPT_TREE_BYTES = 16 << 20
"""Bytes of C/C++ source per worker whose trees the lint keeps between its two passes (a
tree takes about twenty times its source): within them, a file is parsed once per run. A run
on one process keeps twice as much (`kept_tree_bytes`)."""


def kept_tree_bytes(jobs: int) -> int:
    """The kept-trees budget of each process of a run on up to `jobs` processes: a run on one
    keeps C/C++ trees of what two workers keep together (it is not held to one worker's
    share: the C/C++ worst case re-parsed 6 of its 20 MB), a run on more keeps
    `KEPT_TREE_BYTES` per worker. Python trees stay within `KEPT_TREE_BYTES` of the budget
    (`FileLinter._keep_tree`)."""
    return KEPT_TREE_BYTES * (2 if jobs <= 1 else 1)


INDEX_TREE_BYTES = 4 << 20
"""Source bytes whose Python trees the index keeps while it is gathered (each indexer
summarizes a file from the same tree)."""
INDEX_C_TREE_BYTES = 2 << 20
"""Source bytes of the C/C++ trees the index parsed last that it keeps while it is gathered:
the indexers that summarize one file ask for it close together (libfabric's `efa_mr.c` named
alone parsed 82 of 366 files two to four times, 47 of them for the registration wrappers'
pieces some 30 to 60 files after their summaries). Kept, the first 4 MiB of source took it
from 391 parses to 316 and 170 MB at the peak instead of 89; the latest 1 MiB, to 360 and
100 MB; the latest 2 MiB, to 330 and 119 MB (the base's 114), 10% fewer instructions than
1 MiB."""


_LEFT_TO_EXIT: list[dict] = []
"""The trees the last run kept, left to the process's end (`FileLinter.ends_process`)."""


class FileLinter:
    """Lints one file at a time with fixed settings and rules (code -> class). What a run sets
    on it: the facts from other files (`project`, `facts_key`) and whether files that need
    facts wait for them (`summarize_for_index`)."""

    def __init__(self, settings: Settings, rules: Mapping[str, type[Rule]], *,
                 warn_unused_suppressions: bool = False, show_traceback: bool = False,
                 languages: Iterable[str] = LANGUAGES):
        self.settings = settings
        self._registry, self._languages = rules, frozenset(languages)
        self._rules: dict[str, type[Rule]] | None = None
        self.rule_names = rule_names(rules)  # (every rule's, for the suppressions)
        self.warn_unused = warn_unused_suppressions
        self.show_traceback = show_traceback
        self.fix: str | None = None
        self.project: dict[str, dict[str, Any]] = {}  # indexer name -> path -> summary
        self.facts_key: str | None = None
        """The shape of the facts from other files this run lints with (None: no facts)."""
        self.summarize_for_index = False
        """Whether a parsed file that needs facts also gets the summaries of the indexers worth
        it (`FileResult.index_summaries`), so the index need not parse it again."""
        self.fact_errors: list[FactError] = []  # errors of the facts' gathering, to report
        self.index_trees: dict[tuple[str, bytes], Any] | None = None  # (while indexing)
        self.index_c_trees: dict[tuple[str, bytes], Any] = {}  # (the latest, while indexing)
        self.again_only: dict[str, frozenset[str]] = {}
        """In the lint with the facts: path -> the codes of the rules to run again on that file
        (those reading the facts it asked for; `FactsRun`); a path not named runs them all."""
        self._prefilters: dict[tuple[str, frozenset[str]], Prefilter] = {}
        self._seeds: dict[str, set[str]] = {}  # indexer -> the linted file's first words
        self._lookups: dict[str, list[str]] = {}  # indexer -> what the linted file reads through
        self._summarizers: list | None = None
        self._looked_for: dict[str, frozenset[str]] = {}  # `looked_for` of the indexing rules
        self._needed: set[str] = set()  # the indexers the files linted so far need
        self._kept_trees: dict[str, tuple[bytes, Any, Any]] = {}  # path -> (bytes, tree, index)
        self.ends_process = False
        """Whether the process ends at once after the run, without the interpreter's teardown
        (the `cursedlint` command: `cli.run`): the trees kept are then not freed node by node
        at the run's end (0.38 s of the stdlib worst case's 15 s CPU), but left to the
        process's end, or freed as the next run of the process begins (a group's)."""
        self._kept_bytes = self._kept_budget = KEPT_TREE_BYTES
        self.count_error_nodes = True
        """Whether a C/C++ result says how many error nodes its tree has (`FileResult.error_nodes`):
        only verbose output and the result cache read it (`cli` turns it off for a run with
        neither; counting walked every error of the C/C++ worst case's trees, 0.6% of its run)."""

    def keep_trees_within(self, budget: int) -> None:
        """Keep the trees of at most `budget` bytes of source from now on (`kept_tree_bytes`),
        once those an earlier run left to the process's end are freed (`ends_process`)."""
        _LEFT_TO_EXIT.clear()
        self._kept_bytes = self._kept_budget = budget

    @property
    def rules(self) -> dict[str, type[Rule]]:
        """The rules that may run: those of the registry's modules that check the languages of
        the files it lints, so that a run over Python files imports no C-only rule module
        (`registry.checking`); imported when first asked for (a run whose results all come
        from the cache may never ask)."""
        if self._rules is None:
            self._rules = {code: rule for code, rule in checking(
                self._registry, self._languages).items() if not issubclass(rule, Notice)}
        return self._rules

    def uses_facts(self) -> bool:
        """Whether an enabled rule uses facts from other files (`indexing_rules`), told by
        the registry's table where it can (no rule module imported)."""
        readers = fact_readers(self._registry, self._languages)
        if readers is None:
            return bool(self.indexing_rules())
        return any(code in self.settings.enabled for code in readers)

    def indexing_rules(self, reading: set[str] | None = None) -> list[type[Rule]]:
        """The enabled rules that use facts from other files of the project; with `reading`,
        those that read the facts of one of these indexers, whose modules alone are imported
        where the registry's table tells them (`registry.fact_readers`)."""
        readers = fact_readers(self._registry, self._languages) if reading is not None else None
        if readers is not None:  # (codes in order, as `rules` holds them)
            return [self._registry[code] for code, names in sorted(readers.items())
                    if code in self.settings.enabled and not reading.isdisjoint(names)]
        return [
            rule for code, rule in self.rules.items()
            if rule.indexers() and code in self.settings.enabled and (
                reading is None or any(indexer.name in reading for indexer in rule.indexers()))
        ]

    def facts_changed(self) -> None:
        """The facts from other files changed: the prefilters, which add triggers from them,
        are built anew."""
        self._prefilters.clear()

    def forget_kept_trees(self) -> None:
        """Drop the trees kept for a lint with facts (at the end of a run): left to the
        process's end where it ends at once (`ends_process`), else freed."""
        if self.ends_process:
            _LEFT_TO_EXIT.append(self._kept_trees)
            self._kept_trees = {}
        else:
            self._kept_trees.clear()
        self._kept_budget = self._kept_bytes

    def prefilter_for(self, language: str, enabled: frozenset[str]) -> Prefilter:
        key = (language, enabled)
        prefilter = self._prefilters.get(key)
        if prefilter is None:
            prefilter = self._prefilters[key] = Prefilter(
                (
                    rule
                    for code, rule in self.rules.items()
                    if code in enabled and language in rule.languages
                ),
                self.settings.rule_options,
                self.project,
                self.settings.target_python,
                language,
            )
        return prefilter

    def __getstate__(self) -> dict[str, Any]:
        """For the workers of a platform without fork: the prefilters (whose automata do not
        pickle) are a cache each process builds anew."""
        return {**self.__dict__, "_prefilters": {}, "_rules": self.rules}

    def _wanted(self, context, rules: list[type[Rule]]) -> tuple[list[str], list[str]]:
        """The indexers of the file's language whose facts (not gathered yet) these rules could
        use on this file (`FileResult.needs`, `trigger_facts`): a rule whose facts can add
        triggers always, another when its indexer's look at the parsed file says so (or
        fails: reported). Where the rules ran asking questions of the facts to come
        (`FileContext.facts_to_come`), only those they asked of are needed; the others whose
        facts add triggers are wanted for their trigger words. Each indexer looks at the file
        once (CUR401 to CUR404 read the same thread reach: one look answers all four)."""
        wanted: list[str] = []
        looked: set[str] = set()  # the indexers whose look said no
        asked = context.asked | context.asks_any_fact if context.facts_to_come else None
        always = {rule.indexer.name: rule.indexer for rule in rules if adds_triggers(rule)}
        triggering = [] if asked is None else sorted(
            name for name, indexer in always.items() if name not in asked
            and name not in self.project and context.source.language in indexer.languages)
        for rule in rules:
            for indexer in rule.indexers():
                if indexer.name in self.project or indexer.name in wanted or \
                        indexer.name in looked or \
                        context.source.language not in indexer.languages or \
                        (asked is not None and indexer.name not in asked):
                    continue
                errors = self.fact_errors
                if indexer.name not in always and not needs(indexer, context, errors):
                    looked.add(indexer.name)
                else:
                    wanted.append(indexer.name)
                    self._seeds.setdefault(indexer.name, set()).update(
                        seeds_of(indexer, context, errors))
                    lookups = None if indexer.name in context.asks_any_fact \
                        else lookups_of(indexer, context, errors)
                    if lookups is not None:
                        self._lookups[indexer.name] = lookups
        return wanted, triggering

    def _index_summaries(self, context, seeds: dict[str, list[str]], needed: list[str]
                         ) -> list[tuple[str, str, Any]]:
        """What the index would make of this C/C++ file, from this parse: the summaries of
        the indexers of the enabled rules that find the file worth summarizing, or whose first
        round will find it by the words it gave them (`seeds`: its own functions, say) (as
        `ProjectIndex._summarize` does: None when the summarizer fails). (The Python index
        summarizes only the modules the linted files lead to, a few of all: summarizing
        every linted module instead cost the stdlib worst case 3x its time.) An indexer
        gathered only where a linted file needs it (`looked_for`) summarizes it only once
        this file or one linted before it (`needed`: this file's needs) did: the index
        summarizes those before from their kept trees, where one does later (no file of
        the C/C++ worst case needs the cloners' classes, summarized for 528 of its files)."""
        import hashlib  # (only runs with an index need it)

        if self._summarizers is None:
            rules = self.indexing_rules()
            self._summarizers = summarized(indexer for rule in rules for indexer in rule.indexers())
            self._looked_for = looked_for(rules)
        self._needed.update(needed)
        made = []
        digest = None
        for indexer in self._summarizers:
            serves = self._looked_for.get(indexer.name)
            if (serves is not None and self._needed.isdisjoint(serves)) or \
                    context.source.language not in indexer.languages or not (
                    indexer.worth_summarizing(context.source, self.settings) or
                    seeds.get(indexer.name) and indexer.pattern(indexer.searched_as(
                        seeds[indexer.name]), True).search(context.source.data)):
                continue
            digest = digest or hashlib.sha1(context.source.data).hexdigest()
            try:
                if indexer.per_word:  # (its base, and the pieces of the seeds it holds)
                    made += [(indexer.name, word_key(digest, word),
                              indexer.summarize_word(context, word))
                             for word in ["", *sorted(seeds.get(indexer.name, ()))]
                             if not word or indexer.pattern(indexer.searched_as((word,)),
                                                            True).search(context.source.data)]
                    continue
                summary = indexer.summarize(context)
            except Exception as error:
                self.fact_errors.append(FactError.of(context.source.path, indexer.name, error))
                continue  # (not kept: the index summarizes it again, and reports it)
            made.append((indexer.name, digest, summary))
        return made

    def _facts_to_come(self) -> bool:
        """Whether this lint runs before its run gathers facts from other files and lints
        again the files that need them (it keeps their trees)."""
        return self.summarize_for_index and self.facts_key is None and not self.fix

    def _may_defer(self, source: Source) -> bool:
        """Whether a file that needs facts from other files waits for them before its rules
        run (`FileResult.deferred`): a C/C++ file, in a run that gathers facts. A Python
        file's rules run at once, asking questions of the facts to come
        (`FileContext.facts_to_come`): only a file that asked needs them (most ask nothing,
        and gather nothing)."""
        return self._facts_to_come() and source.language in (C, CPP)

    def _keep_tree(self, context) -> None:
        """Keep a file's tree (immutable) for its lint with facts, within the budget. A file
        larger than the whole budget is kept while no other tree is (a worker lints its files
        largest first), and then nothing more: what is held stays within the larger of the
        budget and the largest file's tree, which its parse reached anyway, and a big file is
        not parsed twice (a 50 MB C file: another 7 s of parse)."""
        data = context.source.data
        budget = self._kept_budget
        if context.source.language not in (C, CPP):
            # an ast takes several times a C/C++ tree of the same source: Python trees are
            # kept within one worker's budget (twice that took the stdlib worst case's
            # peak from 747 to 1,584 MB, and its time up 7%)
            budget -= self._kept_bytes - KEPT_TREE_BYTES
        if len(data) <= budget or self._kept_budget == self._kept_bytes:
            self._kept_trees[os.path.abspath(context.source.path)] = (
                data, context.tree, getattr(context, "tree_index", None))
            self._kept_budget -= len(data)

    def parse_for_index(self, source: Source):
        """A new context of the file for one indexer. While the index is gathered, a Python
        file's tree is parsed once for all indexers (within INDEX_TREE_BYTES of source), a
        C/C++ file's once while it is among those parsed last (INDEX_C_TREE_BYTES; one the
        lint kept is read from that tree, left in place); the contexts are not shared: an
        indexer's walk adds to its own."""
        trees = self.index_trees
        if trees is None or source.language not in (PYTHON, C, CPP):
            return self._parse(source, FileResult(source.path), frozenset(), pop=False)
        key = (source.path, source.data)
        if source.language != PYTHON:
            recent = self.index_c_trees
            kept = recent.pop(key, None)
            lints = kept is None and self._kept_tree(source, pop=False)
            context = self._parse(source, FileResult(source.path), frozenset(),
                                  *(kept or lints or ()), pop=False)
            if not lints and context is not None and len(source.data) <= INDEX_C_TREE_BYTES:
                recent[key] = context.tree, context.tree_index  # (the latest last)
                while sum(len(data) for _, data in recent) > INDEX_C_TREE_BYTES:
                    del recent[next(iter(recent))]
            return context
        kept = trees.get(key) or self._kept_tree(source, pop=False)
        if kept is None:
            from cursedlint.python.context import TreeIndex

            try:
                tree = parse_python(source.text)
            except MemoryError as error:
                if not reported.parser_stack_overflow(error):
                    raise  # (the summary's error: reported as CUR000, never a missing fact)
                return None
            except (SyntaxError, ValueError, RecursionError):
                return None
            kept = tree, TreeIndex(tree)
            if sum(len(data) for _, data in trees) + len(source.data) <= INDEX_TREE_BYTES:
                trees[key] = kept
        return self._parse(source, FileResult(source.path), frozenset(), *kept)

    def lint_bytes(self, path: str, data: bytes, language: str) -> FileResult:
        if looks_binary(data):
            return FileResult(path, status="skipped")
        enabled = self.settings.enabled_for(path)
        triggered, looked_out = self.prefilter_for(language, enabled).decided(data)
        only = self.again_only.get(path) if self.again_only else None
        if only is not None:
            triggered = [rule for rule in triggered if rule.code in only]
        givers = self._trigger_givers(looked_out, language) if looked_out else []
        scan_suppressions = self.warn_unused and suppressions.has_suppression_text(data)
        if not triggered and not scan_suppressions:
            return FileResult(path, trigger_facts=givers)
        if len(data) > self.settings.max_file_size:
            return self._too_large(path, len(data), enabled)
        try:
            source = Source.from_bytes(path, data, language)
        except SourceError as error:
            return self._unreadable(path, error)
        try:
            result = self.lint_source(source, triggered, enabled)
        except MemoryError:  # (past the parse, whose own `_parse` reports)
            return self._out_of_memory(source)
        result.trigger_facts += [name for name in givers if name not in result.trigger_facts]
        return result

    def _out_of_memory(self, source: Source) -> FileResult:
        """A file whose lint ran out of memory after its parse (the walk's index of a 10 MB
        module's parents, a C file's flows): not checked, which must never read as a pass;
        what the half-done lint noted is dropped, the other files are still linted."""
        self._seeds.clear()
        self._lookups = {}
        self.fact_errors = []
        result = FileResult(source.path, status="checked")
        result.findings.append(reported.out_of_memory(source, parsed=True))
        return result

    def _trigger_givers(self, looked_out: list[type[Rule]], language: str) -> list[str]:
        """The indexers whose facts add trigger words, of rules whose triggers a file holds
        but whose second look ruled it out, in a lint before the facts: the file may bind
        what makes another file worth linting (a module of prototypes alone, `Proto =
        CFUNCTYPE(...)`, for the module that loads the library and calls with `Proto(f)`),
        so a run of the whole project gathers them as a run of that other file does."""
        if not self._facts_to_come():
            return []
        return sorted({rule.indexer.name for rule in looked_out if adds_triggers(rule)
                       and language in rule.indexer.languages
                       and rule.indexer.name not in self.project})

    def lint_source(
        self,
        source: Source,
        rules: list[type[Rule]],
        enabled: frozenset[str],
        *,
        tree: ast.Module | None = None,
        suppress: bool = True,
    ) -> FileResult:
        """Run `rules` on a decoded source, then apply its suppression comments. `tree` is the
        module's ast when a host (flake8) has parsed it already; `suppress=False` leaves noqa
        to the host."""
        result = FileResult(source.path, status="checked")
        context = self._parse(source, result, enabled, tree) if rules else None
        if context is not None:
            context.facts_to_come = source.language == PYTHON and self._facts_to_come()
            defer = self._may_defer(source)
            if defer:
                result.needs, result.trigger_facts = self._wanted(context, rules)
                result.deferred = bool(result.needs)
            if not result.deferred:
                self._run_rules(context, rules, result)
                result.findings.extend(context.findings)
                if not defer:
                    result.needs, result.trigger_facts = self._wanted(context, rules)
            result.seeds = {name: sorted(words) for name, words in self._seeds.items()}
            result.lookups = self._lookups
            self._seeds.clear()
            self._lookups = {}
            if self.summarize_for_index and result.needs and source.language in (C, CPP):
                result.index_summaries = self._index_summaries(context, result.seeds,
                                                                result.needs)
                self._keep_tree(context)
            elif result.deferred or (self.summarize_for_index and result.needs):
                self._keep_tree(context)  # for the index, and its lint with the facts
            reported.report_fact_errors([result], self.fact_errors, self.show_traceback)
            self.fact_errors = []
            context.release()
        if suppress and (result.findings or self.warn_unused):
            self._suppress(source, result, enabled)
        result.findings.sort(key=lambda finding: finding.sort_key)
        result.lines = {number: source.line_text(number)
                        for finding in result.findings for number in finding.cited_lines}
        return result

    def _parse(self, source: Source, result: FileResult, enabled: frozenset[str], tree=None,
               tree_index=None, pop: bool = True):
        """The file's context: of `tree` (with its `TreeIndex`, shared by the contexts of
        it) when given, else of the tree this run kept (`pop`: taken, as the lint with the
        facts does; the index's C/C++ summaries leave it for that lint), else of a new parse."""
        if source.language in PYTHON_TREES:
            from cursedlint.python.context import PythonContext

            if tree is None:
                tree, tree_index = self._kept_tree(source, pop=True) or (None, None)
            facts = None
            try:
                if source.language == CYTHON:
                    from cursedlint.python.cython import parse_cython

                    tree, facts = parse_cython(source.text)
                tree = tree or parse_python(source.text)
            except MemoryError as error:
                if notices.SyntaxErrorNotice.code in enabled:
                    result.findings.append(reported.syntax_error(source, error))
                elif not reported.parser_stack_overflow(error):  # no rule checked it: never a pass
                    result.findings.append(reported.out_of_memory(source))
                return None
            except (SyntaxError, ValueError, RecursionError) as error:
                if notices.SyntaxErrorNotice.code in enabled:
                    result.findings.append(reported.syntax_error(source, error))
                return None
            context = PythonContext(source, self.settings, tree, tree_index)
            context.cython = facts
        elif source.language in TEXT_LANGUAGES:
            context = TextContext(source, self.settings)
        else:
            from cursedlint.c.context import CContext, parse
            from cursedlint.c.parse_budget import ParseTooSlow, TooLittleMemory

            try:
                if tree is None:
                    tree, tree_index = self._kept_tree(source, pop=pop) or (
                        parse(source.data, source.language), None)
            except ParseTooSlow as error:
                if notices.TooLargeFile.code in enabled:
                    result.findings.append(reported.too_slow(source.path, error))
                return None
            except TooLittleMemory as error:  # (what it says holds for this run alone)
                result.uncached = True
                result.findings.append(reported.too_little_memory(
                    source.path, error, notices.TooLargeFile.code in enabled))
                return None
            context = CContext(source, self.settings, tree, tree_index)
            if self.count_error_nodes:
                result.error_nodes = context.error_count
        context.project = self.project
        return context

    def _kept_tree(self, source: Source, pop: bool) -> tuple[Any, Any] | None:
        """The tree this run's first lint of the file kept, with its `TreeIndex`, when the
        bytes are the same (`pop`: the lint with the facts takes it; the index only reads).
        A C/C++ tree taken where the process ends at once (`ends_process`) stays kept, left
        to that end with the others: freed after its lint, tree by tree, the C/C++ worst
        case's trees took 0.15 s (2.5% of its run)."""
        pop = pop and not (self.ends_process and source.language in (C, CPP))
        kept = (self._kept_trees.pop if pop else self._kept_trees.get)(
            os.path.abspath(source.path), None)  # (the index names files by absolute paths)
        return kept[1:] if kept is not None and kept[0] == source.data else None

    def _run_rules(self, context, rule_classes: list[type[Rule]], result: FileResult) -> None:
        def failed(rule: Rule | type[Rule], error: BaseException) -> None:
            rule_class = rule if isinstance(rule, type) else type(rule)
            result.findings.append(reported.internal_error(context.source.path, rule_class, error))
            if self.show_traceback:
                import traceback

                result.tracebacks.append("".join(traceback.format_exception(error)))

        rules = []
        for rule_class in rule_classes:
            if rule_class.code in self.settings.silenced:
                continue
            try:
                checker = rule_class.checker(context.source.language)
                rules.append(checker(context, self.settings.rule_options.get(rule_class.code)))
            except Exception as error:
                failed(rule_class, error)
        if context.source.language in PYTHON_TREES:
            context.walk(rules, failed)
        for rule in rules:
            try:
                rule.check()
            except Exception as error:
                failed(rule, error)

    def _suppress(self, source: Source, result: FileResult, enabled: frozenset[str]) -> None:
        if not suppressions.has_suppression_text(source.data):
            return  # (nor are the lines of a big file listed)
        found = suppressions.find_suppressions(source.lines, source.language)
        if not found:
            return
        comments = [item for item in found if isinstance(item, suppressions.Suppression)]
        internal = [f for f in result.findings if f.code == notices.InternalError.code]
        others = [f for f in result.findings if f.code != notices.InternalError.code]
        result.findings = internal + suppressions.apply(others, comments)
        if notices.UnmatchedSuppressionBlock.code in enabled:
            result.findings.extend(
                reported.unmatched(source.path, item) for item in found
                if isinstance(item, suppressions.Unmatched) and item.concerns(self.rule_names))
        if self.warn_unused and notices.UnusedSuppression.code in enabled:
            result.findings.extend(
                reported.unused(source, comments, enabled, frozenset(self.rule_names)))

    def _unreadable(self, path: str, error: SourceError) -> FileResult:
        result = FileResult(path, status="checked")
        if notices.UnreadableFile.code in self.settings.enabled_for(path):
            span = Span(error.line, error.column, error.line, error.column)
            result.findings.append(
                reported.notice(notices.UnreadableFile, path, span, error.message))
        return result

    def _too_large(self, path: str, size: int, enabled: frozenset[str]) -> FileResult:
        result = FileResult(path, status="skipped")
        if notices.TooLargeFile.code in enabled:
            result.findings.append(reported.too_large(path, size, self.settings.max_file_size))
        return result
