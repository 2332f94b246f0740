"""The engine: one file from bytes to findings, and many files across processes.

Per file: read -> skip binary -> prefilter on bytes (no hit: done, nothing parsed) -> decode ->
parse once (ast | tree-sitter) -> every triggered rule of the language runs on that one tree ->
suppressions. A rule that raises becomes a CUR000 finding; the other rules still run.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Any, Callable, Iterable, Mapping

from msgspec import Struct, field

from cursedlint import fixes, notices, suppressions
from cursedlint.findings import Finding, Span
from cursedlint.context import TextContext
from cursedlint.languages import C, CPP, PYTHON, TEXT_LANGUAGES
from cursedlint.cache import file_stat
from cursedlint.prefilter import Prefilter
from cursedlint.analysis.includes import IncludedHeaders
from cursedlint.project_index import (
    KEPT_BYTES, FactError, FactPass, ProjectIndex, facts_digest,
)
from cursedlint.rule import Notice, Rule
from cursedlint.settings import Settings
from cursedlint.source import (
    FileBytes, Source, SourceError, looks_binary, parse_python, read_bytes,
)

PARALLEL_MIN_BYTES = 1 << 20
"""Below this many bytes to read, a process pool costs more than it saves."""
AGAIN_PARALLEL_MIN_BYTES = 64 << 10
"""The same for the files linted again with facts: each is parsed and checked (none is left
after the byte prefilter, as most are in a first lint), so a pool pays off far sooner."""
CHUNKS_PER_JOB = 16
"""Work units per process: enough that the last ones to finish are small."""
CAN_FORK = hasattr(os, "fork")
"""Workers are forked children (forked.py); else (Windows) a concurrent.futures pool."""
MAX_CHUNKS = 1024
"""Work units in all, as sized: they come out at most twice as many, which forked_map takes."""

MAX_FIX_PASSES = 10
KEPT_TREE_BYTES = 16 << 20
"""Bytes of C/C++ source per process whose trees the lint keeps between its two passes (a
tree takes about twenty times its source): within them, a file is parsed once per run."""
INDEX_TREE_BYTES = 4 << 20
"""Source bytes whose Python trees the index keeps while it is gathered (each indexer
summarizes a file from the same tree)."""


class FileResult(Struct):
    """What linting one file produced. `lines` holds the text of the lines findings cite
    (`Finding.cited_lines`), for reporters; `status` is one of: skipped (binary), clean (no
    trigger), checked."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    lines: dict[int, str] = field(default_factory=dict)
    status: str = "clean"
    error_nodes: int = 0
    fixed: int = 0
    notes: list[str] = field(default_factory=list)
    write_failed: bool = False  # --fix: writing the fixes failed (I/O); the file is unchanged
    diff: str = ""  # --diff: the fixes as a unified diff (the file is not written)
    tracebacks: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    """Indexers whose facts from other files the file's rules could use and did not have:
    the run gathers them and lints the file again when they can change its findings
    (`Linter.run`)."""
    deferred: bool = False
    """The rules did not run yet: they run when the facts in `needs` are gathered
    (`Linter._may_defer`)."""
    seeds: dict[str, list[str]] = field(default_factory=dict)
    """With `needs`: per indexer, words the file makes worth looking for in the project."""
    lookups: dict[str, list[str]] = field(default_factory=dict)
    """With `needs`: per indexer that tells, what the file reaches its facts through
    (`Indexer.lookups`; an indexer not named: any of its facts)."""
    cited: dict[str, str] = field(default_factory=dict)
    """Linted with facts: the modules of the project its findings cite (a chain's step, a
    `module.py:12` in a message), each with the digest of its summaries then
    (`project_index.FactsDigest`)."""
    index_summaries: list[tuple[str, str, Any]] = field(default_factory=list)
    """(indexer name, content hash, summary) made from this lint's parse, for the index the
    run builds next (`Linter.summarize_for_index`); taken before the result is cached."""
    cache_key: str | None = None  # set on a new result the run should store in the cache
    cache_stat: tuple[int, int, int, int] | None = None  # with cache_key: the file's stat before it was read


class Linter:
    """Lints files with fixed settings and rules (code -> class; the registry by default)."""

    def __init__(
        self,
        settings: Settings,
        rules: Mapping[str, type[Rule]],
        *,
        warn_unused_suppressions: bool = False,
        show_traceback: bool = False,
        fix: str | None = None,
        fix_roots: tuple[str, ...] | None = None,
        show_diff: bool = False,
        cache=None,
    ):
        """`fix`: None (report only), "safe" or "unsafe" (also apply fixes marked unsafe).
        `fix_roots`: the real paths fixes may be written within (`fixes.write_roots`; default:
        each file's own directory). `show_diff`: with `fix`, write nothing; each result holds
        its fixes as a unified diff. `cache`: a ResultCache whose fingerprint covers these
        settings (never used with fix)."""
        self.settings = settings
        self.rules = {code: rule for code, rule in rules.items() if not issubclass(rule, Notice)}
        self.rule_names = {code: rule.name for code, rule in rules.items()}
        self.warn_unused = warn_unused_suppressions
        self.show_traceback = show_traceback
        self.fix = fix
        self.fix_roots = fix_roots
        self.show_diff = show_diff
        self.cache = None if fix else cache
        self.project: dict[str, dict[str, Any]] = {}  # indexer name -> path -> summary
        self.file_bytes = FileBytes(KEPT_BYTES)  # files read before linting, read once
        self._prefilters: dict[tuple[str, frozenset[str]], Prefilter] = {}
        self._seeds: dict[str, set[str]] = {}  # indexer -> the linted file's first words
        self._fact_errors: list[FactError] = []  # errors of the facts' gathering, to report
        self.fact_passes: list[FactPass] = []  # what the run's facts gathering did (-v)
        self._index_trees: dict[tuple[str, bytes], ast.Module] | None = None  # (index_project)
        self._lookups: dict[str, list[str]] = {}  # indexer -> what the linted file reads through
        self.facts_key: str | None = None
        """The shape of the facts from other files this run lints with (None: no facts)."""
        self._modules: dict[str, str] = {}  # with facts_key: summarized module -> its digest
        self.summarize_for_index = False
        """Whether a parsed file that needs facts also gets the summaries of the indexers worth
        it (`FileResult.index_summaries`), so the index need not parse it again."""
        self._summarizers: list | None = None
        self._kept_trees: dict[str, tuple[bytes, Any, Any]] = {}  # path -> (bytes, tree, index)
        self._kept_budget = KEPT_TREE_BYTES
        self._defer_python = False  # (`_may_defer`)
        self._linted_here: list[tuple[str, str]] = []  # files this process linted first
        self._workers = None  # forked workers waiting to lint again what they linted first

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
        return {**self.__dict__, "_prefilters": {}}

    # -- facts from other files ----------------------------------------------------------------
    def indexing_rules(self) -> list[type[Rule]]:
        """The enabled rules that use facts from other files of the project."""
        return [
            rule for code, rule in self.rules.items()
            if rule.indexers() and code in self.settings.enabled
        ]

    def index_project(
        self, files: list[tuple[str, str]], store=None, rules: list[type[Rule]] | None = None,
        names: set[str] | None = None, seeds: Mapping[str, Iterable[str]] | None = None,
        jobs: int = 1, summaries: Iterable[tuple[str, str, Any]] = (), save: bool = True,
        for_triggers: Mapping[str, list[tuple[str, str]]] | None = None,
    ) -> ProjectIndex:
        """Facts of the project's files (path, language) for `rules` (default: every enabled
        rule that uses them; with `names`, only those indexers), gathered here once and handed
        to every file's rules. `store`: an IndexStore that keeps summaries across runs;
        `seeds`: indexer name -> first-round words from the files that need its facts;
        `jobs`: processes that may summarize files; `summaries`: (indexer name, content hash,
        summary) the lint made already; `save`: write the store now (else the caller does);
        `for_triggers`: indexer name -> the files its facts are drawn from where they are
        gathered only for their trigger words (no linted file needs them itself)."""
        index = ProjectIndex(files, self.settings, self._parse_for_index, store, self.file_bytes,
                             jobs, self.cache.run_stats if self.cache else None, for_triggers)
        rules = self.indexing_rules() if rules is None else rules
        indexers = {indexer.name: indexer for rule in rules for indexer in rule.indexers()
                    if names is None or indexer.name in names}
        known = {indexer.name: indexer for indexer in _summarized(indexers.values())}
        for name, digest, summary in summaries:
            if name in known:
                index.add(known[name], digest, summary)
        self._index_trees = {}
        try:
            for indexer in indexers.values():
                gathered = isinstance(indexer, IncludedHeaders)  # by include, not by word
                self.project[indexer.name] = (indexer.facts_from(index) if gathered
                                              else index.facts(indexer, (seeds or {}).get(
                                                  indexer.name, ())))
        finally:
            self._index_trees = None
        if store and save:
            store.save()
        self._prefilters.clear()
        return index

    def _wanted(self, context, rules: list[type[Rule]]) -> list[str]:
        """The indexers of the file's language whose facts (not gathered yet) these rules could
        use on this file: a rule whose facts can add triggers always, another when its
        indexer's look at the parsed file says so (or fails: reported)."""
        wanted = []
        always = {rule.indexer.name for rule in rules if _adds_triggers(rule)}
        for rule in rules:
            for indexer in rule.indexers():
                if indexer.name in self.project or indexer.name in wanted or \
                        context.source.language not in indexer.languages:
                    continue
                errors = self._fact_errors
                if indexer.name in always or _needs(indexer, context, errors):
                    wanted.append(indexer.name)
                    self._seeds.setdefault(indexer.name, set()).update(
                        _seeds(indexer, context, errors))
                    lookups = None if indexer.name in context.asks_any_fact \
                        else _lookups(indexer, context, errors)
                    if lookups is not None:
                        self._lookups[indexer.name] = lookups
        return wanted

    def _index_summaries(self, context) -> list[tuple[str, str, Any]]:
        """What the index would make of this C/C++ file, from this parse: the summaries of
        the indexers of the enabled rules that find the file worth summarizing (as
        `ProjectIndex._summarize` does: None when the summarizer fails). (The Python index
        summarizes only the modules the linted files lead to, a few of all: summarizing
        every linted module instead cost the stdlib worst case 3x its time.)"""
        import hashlib  # (only runs with an index need it)

        if self._summarizers is None:
            self._summarizers = _summarized(
                indexer for rule in self.indexing_rules() for indexer in rule.indexers())
        made = []
        digest = None
        for indexer in self._summarizers:
            if context.source.language not in indexer.languages or \
                    not indexer.worth_summarizing(context.source, self.settings):
                continue
            digest = digest or hashlib.sha1(context.source.data).hexdigest()
            try:
                summary = indexer.summarize(context)
            except Exception as error:
                self._fact_errors.append(FactError.of(context.source.path, indexer.name, error))
                continue  # (not kept: the index summarizes it again, and reports it)
            made.append((indexer.name, digest, summary))
        return made

    def _may_defer(self, source: Source) -> bool:
        """Whether a file that needs facts from other files waits for them before its rules
        run (`FileResult.deferred`), in a run that gathers facts and lints such files again
        (it keeps their trees): a C/C++ file always; a Python file only in a run that lints
        few bytes (`_defer_python`: a pre-commit run, a run after a few files changed). In a
        run that lints many Python files, their rules run at once: the facts change few of
        their findings, and a file whose findings they cannot change keeps its result
        without them when the facts change (a deferred file is linted again then)."""
        return (self.summarize_for_index and self.facts_key is None and not self.fix
                and (source.language in (C, CPP)
                     or (source.language == PYTHON and self._defer_python)))

    def _keep_tree(self, context) -> None:
        """Keep a file's tree (immutable) for its lint with facts, within the budget."""
        data = context.source.data
        if len(data) <= self._kept_budget:
            self._kept_trees[context.source.path] = (
                data, context.tree, getattr(context, "tree_index", None))
            self._kept_budget -= len(data)

    def _options(self, rule: type[Rule]) -> dict[str, Any]:
        return rule.resolved_options(self.settings.rule_options.get(rule.code))

    def _parse_for_index(self, source: Source):
        """A new context of the file for one indexer. While the index is gathered, a Python
        file's tree is parsed once for all indexers (within INDEX_TREE_BYTES of source); the
        contexts are not shared: an indexer's walk adds to its own."""
        trees = self._index_trees
        if trees is None or source.language != PYTHON:
            return self._parse(source, FileResult(source.path), frozenset())
        key = (source.path, source.data)
        kept = trees.get(key) or self._kept_tree(source, pop=False)
        if kept is None:
            from cursedlint.python_context import TreeIndex

            try:
                tree = parse_python(source.text)
            except MemoryError as error:
                if not _parser_stack_overflow(error):
                    raise  # (the summary's error: reported as CUR000, never a missing fact)
                return None
            except (SyntaxError, ValueError, RecursionError):
                return None
            kept = tree, TreeIndex(tree)
            if sum(len(data) for _, data in trees) + len(source.data) <= INDEX_TREE_BYTES:
                trees[key] = kept
        return self._parse(source, FileResult(source.path), frozenset(), *kept)

    # -- one file ----------------------------------------------------------------------------
    def lint_path(self, path: str, language: str) -> FileResult:
        try:
            stat, data, key = self._read(path)
        except SourceError as error:
            return self._unreadable(path, error)
        stored = self._stored(key, stat) if key else None
        if stored is not None:
            return stored
        result = self.lint_bytes(path, data, language)
        if self.fix and fixes.fixable(result.findings, self.fix == "unsafe"):
            result = self._fix_file(path, data, language, result)
        elif key and not any(f.code == notices.InternalError.code for f in result.findings):
            result.cache_key, result.cache_stat = key, stat
        return result

    def _read(self, path: str) -> tuple[Any, bytes, str | None]:
        """The file's stat from before it was read (with a cache), its bytes (SourceError when
        it cannot be read), and its result's cache key under this run's facts."""
        stat = file_stat(path) if self.cache else None
        data = self.file_bytes.read(os.path.abspath(path), keep=False)
        return stat, data, self.cache.key(path, data, self.facts_key) if self.cache else None

    def _stored(self, key: str, stat) -> FileResult | None:
        """The result stored under `key`, unless it cites modules whose facts changed; with
        the file's new `stat` (when it can be trusted), for the run to record."""
        cached = self.cache.get(key)
        if cached is None or not self._cites_the_same(cached):
            return None
        if stat is None:
            return cached
        import copy  # (only a cached result needs it)

        result = copy.copy(cached)  # same bytes, new stat: the run records it
        result.cache_key, result.cache_stat = key, stat
        return result

    def _stored_with_facts(self, paths: list[str]) -> dict[str, FileResult]:
        """Path -> its result stored with this run's facts, for the files of `paths` whose
        bytes have one (read and hashed here: far cheaper than forking to lint them again)."""
        found = {}
        for path in paths if self.cache else ():
            try:
                stat, _, key = self._read(path)
            except SourceError:
                continue
            stored = self._stored(key, stat)
            if stored is not None:
                found[path] = stored
        return found

    def _fix_file(self, path: str, data: bytes, language: str, result: FileResult) -> FileResult:
        """Apply fixes pass by pass, re-linting in between, and write the file once. A fix that
        would leave code that does not parse is left out (and noted); the others still apply.
        A file that may not be written (`fixes.write`), or whose write fails, keeps its
        content and its findings, with a note saying why. `result` always describes the
        current `source`."""
        original = result
        source, fixed, result = self._fixed(path, data, language, result)
        if fixed and self.show_diff:
            result.diff = fixes.unified_diff(path, Source.from_bytes(path, data, language).text,
                                             source.text)
        elif fixed:
            try:
                fixes.write(path, data, source.data, self.fix_roots)
            except (fixes.NotWritable, fixes.WriteFailed) as reason:
                original.notes.append(f"fixes not written: {reason}")
                original.write_failed = isinstance(reason, fixes.WriteFailed)
                return original
        return result

    def fix_bytes(self, path: str, data: bytes, language: str) -> tuple[bytes, FileResult]:
        """The bytes of a file that is no file (standard input) with its fixes applied as
        `_fix_file` applies them (`data` itself when none applies), and their result."""
        result = self.lint_bytes(path, data, language)
        if not fixes.fixable(result.findings, self.fix == "unsafe"):
            return data, result
        source, _, result = self._fixed(path, data, language, result)
        return source.data, result

    def _fixed(self, path: str, data: bytes, language: str,
               result: FileResult) -> tuple[Source, int, FileResult]:
        """The source with the fixes applied pass by pass, re-linting in between (those that
        would leave code that does not parse left out, with a note), how many applied, and
        the result of the fixed source (its `fixed` set)."""
        source = Source.from_bytes(path, data, language)
        fixed = 0
        rejected: set[tuple] = set()
        for _ in range(MAX_FIX_PASSES):
            candidates = [
                finding
                for finding in fixes.fixable(result.findings, self.fix == "unsafe")
                if finding.sort_key not in rejected
            ]
            text, count = self._parseable_fixes(source, candidates, rejected)
            if not count:
                break
            source = Source(path, source.encode(text), text, language, source.encoding)
            fixed += count
            result = self.lint_bytes(path, source.data, language)
        result.notes.extend(
            f"fix for {code} at line {line} not applied: the fixed code would not parse"
            for _, line, _, code, _ in sorted(rejected)
        )
        result.fixed = fixed
        return source, fixed, result

    @staticmethod
    def _parseable_fixes(source: Source, candidates: list[Finding], rejected: set) -> tuple[str, int]:
        """The text with as many of `candidates` applied as keep it parseable and encodable:
        all together when they can, else the first one that can alone."""
        singles = [[finding] for finding in candidates] if len(candidates) > 1 else []
        for batch in ([candidates] if candidates else []) + singles:
            text, count = fixes.apply(source, batch)
            try:
                source.encode(text)
            except UnicodeEncodeError:
                ok = False
            else:
                ok = fixes.still_parses(text, source)
            if ok:
                return text, count
            if len(batch) == 1:
                rejected.add(batch[0].sort_key)
        return source.text, 0

    def lint_bytes(self, path: str, data: bytes, language: str) -> FileResult:
        if looks_binary(data):
            return FileResult(path, status="skipped")
        enabled = self.settings.enabled_for(path)
        triggered = self.prefilter_for(language, enabled).triggered(data)
        scan_suppressions = self.warn_unused and suppressions.has_suppression_text(data)
        if not triggered and not scan_suppressions:
            return FileResult(path)
        if len(data) > self.settings.max_file_size:
            return self._too_large(path, len(data), enabled)
        try:
            source = Source.from_bytes(path, data, language)
        except SourceError as error:
            return self._unreadable(path, error)
        return self.lint_source(source, triggered, enabled)

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
            defer = self._may_defer(source)
            if defer:
                result.needs = self._wanted(context, rules)
                result.deferred = bool(result.needs)
            if not result.deferred:
                self._run_rules(context, rules, result)
                result.findings.extend(context.findings)
                if not defer:
                    result.needs = self._wanted(context, rules)
            result.seeds = {name: sorted(words) for name, words in self._seeds.items()}
            result.lookups = self._lookups
            self._seeds.clear()
            self._lookups = {}
            if self.summarize_for_index and result.needs and source.language in (C, CPP):
                result.index_summaries = self._index_summaries(context)
                self._keep_tree(context)
            elif result.deferred:
                self._keep_tree(context)
            self._report_fact_errors([result], self._fact_errors)
            self._fact_errors = []
        if suppress and (result.findings or self.warn_unused):
            self._suppress(source, result, enabled)
        result.findings.sort(key=lambda finding: finding.sort_key)
        result.lines = {number: source.line_text(number)
                        for finding in result.findings for number in finding.cited_lines}
        return result

    def _parse(self, source: Source, result: FileResult, enabled: frozenset[str], tree=None,
               tree_index=None):
        """The file's context: of `tree` (with its `TreeIndex`, shared by the contexts of
        it) when given, else of the tree this run kept, else of a new parse."""
        if source.language == PYTHON:
            from cursedlint.python_context import PythonContext

            if tree is None:
                tree, tree_index = self._kept_tree(source, pop=True) or (None, None)
            try:
                tree = tree or parse_python(source.text)
            except MemoryError as error:
                if notices.SyntaxErrorNotice.code in enabled:
                    result.findings.append(_syntax_error(source, error))
                elif not _parser_stack_overflow(error):  # no rule checked it: never a pass
                    result.findings.append(_out_of_memory(source))
                return None
            except (SyntaxError, ValueError, RecursionError) as error:
                if notices.SyntaxErrorNotice.code in enabled:
                    result.findings.append(_syntax_error(source, error))
                return None
            context = PythonContext(source, self.settings, tree, tree_index)
        elif source.language in TEXT_LANGUAGES:
            context = TextContext(source, self.settings)
        else:
            from cursedlint.c_context import CContext, parse

            kept = self._kept_tree(source, pop=True)
            tree = kept[0] if kept else parse(source.data, source.language)
            context = CContext(source, self.settings, tree)
            result.error_nodes = context.error_count
        context.project = self.project
        return context

    def _kept_tree(self, source: Source, pop: bool) -> tuple[Any, Any] | None:
        """The tree this run's first lint of the file kept, with its `TreeIndex`, when the
        bytes are the same."""
        kept = (self._kept_trees.pop if pop else self._kept_trees.get)(source.path, None)
        return kept[1:] if kept is not None and kept[0] == source.data else None

    def _run_rules(self, context, rule_classes: list[type[Rule]], result: FileResult) -> None:
        def failed(rule: Rule | type[Rule], error: BaseException) -> None:
            rule_class = rule if isinstance(rule, type) else type(rule)
            result.findings.append(_internal_error(context.source.path, rule_class, error))
            if self.show_traceback:
                import traceback

                result.tracebacks.append("".join(traceback.format_exception(error)))

        rules = []
        for rule_class in rule_classes:
            try:
                checker = rule_class.checker(context.source.language)
                rules.append(checker(context, self.settings.rule_options.get(rule_class.code)))
            except Exception as error:
                failed(rule_class, error)
        if context.source.language == PYTHON:
            context.walk(rules, failed)
        for rule in rules:
            try:
                rule.check()
            except Exception as error:
                failed(rule, error)

    def _suppress(self, source: Source, result: FileResult, enabled: frozenset[str]) -> None:
        found = suppressions.find_suppressions(source.lines, source.language)
        if not found:
            return
        comments = [item for item in found if isinstance(item, suppressions.Suppression)]
        internal = [f for f in result.findings if f.code == notices.InternalError.code]
        others = [f for f in result.findings if f.code != notices.InternalError.code]
        result.findings = internal + suppressions.apply(others, comments)
        if notices.UnmatchedSuppressionBlock.code in enabled:
            result.findings.extend(
                _unmatched(source.path, item) for item in found
                if isinstance(item, suppressions.Unmatched) and item.concerns(self.rule_names))
        if self.warn_unused and notices.UnusedSuppression.code in enabled:
            result.findings.extend(_unused(source, comments, enabled, frozenset(self.rule_names)))

    def _unreadable(self, path: str, error: SourceError) -> FileResult:
        result = FileResult(path, status="checked")
        if notices.UnreadableFile.code in self.settings.enabled_for(path):
            span = Span(error.line, error.column, error.line, error.column)
            result.findings.append(_notice(notices.UnreadableFile, path, span, error.message))
        return result

    def _too_large(self, path: str, size: int, enabled: frozenset[str]) -> FileResult:
        """A file some rule could fire on but too large to parse within bounded memory."""
        result = FileResult(path, status="skipped")
        if notices.TooLargeFile.code in enabled:
            limit = self.settings.max_file_size
            message = (f"not checked: {_size_text(size)} is more than max-file-size "
                       f"({_size_text(limit)})")
            help = ("the file holds words a rule looks for, but parsing it would cost too much "
                    f"memory; raise max-file-size above {size} to check it, or exclude it (or "
                    "per-file-ignores CUR004 to leave it unchecked without a finding)")
            result.findings.append(_notice(notices.TooLargeFile, path, Span(1, 1, 1, 1), message,
                                           help))
        return result

    # -- many files --------------------------------------------------------------------------
    def run(
        self, files: list[tuple[str, str]], jobs: int, project: Project | None = None
    ) -> list[FileResult]:
        """Lint (path, language) pairs on up to `jobs` processes; results in the order of `files`.
        Results of unchanged files come from the cache, here in the parent; new results go into
        it here too (workers only read it). With --fix, a file's other names (hard links,
        symlinks) are linted after the others, here in the parent.

        Files are linted without facts from other files first; a file whose rules could use
        some says so (`FileResult.needs`). With a `project`, the facts needed are then
        gathered once, from its files, and only the files that can use them are linted again
        with them: a run where no file needs facts reads nothing more than the lint does."""
        self.summarize_for_index = project is not None
        self.facts_key, self._modules = None, {}
        if self.cache:
            self.cache.begin_run()
        try:
            results = self._run_without_facts(files, jobs)
            summaries = []
            for result in results:
                summaries += result.index_summaries
                result.index_summaries = []
                self._store(result)
            if project is not None:
                self._run_with_facts(files, jobs, results, project, summaries)
        finally:
            self.summarize_for_index = self._defer_python = False
            if self._workers is not None:
                self._workers.close()
                self._workers = None
            self._kept_trees.clear()
            self._kept_budget = KEPT_TREE_BYTES
        if self.cache:
            self.cache.save()
        return results

    def _store(self, result: FileResult, facts: str | None = None) -> None:
        """Put a new result in the cache (found later by its file's stat, and `facts`, with
        the modules it cites when linted with facts)."""
        if self.cache and result.cache_key:
            if facts is not None:
                result.cited = self._cited(result)
            key, result.cache_key = result.cache_key, None
            stat, result.cache_stat = result.cache_stat, None
            self.cache.put(key, result, stat, facts=facts)

    def _run_without_facts(self, files: list[tuple[str, str]], jobs: int) -> list[FileResult]:
        results: list[FileResult | None] = [None] * len(files)
        todo = []
        for index, (path, language) in enumerate(files):
            cached = self.cache.lookup(path) if self.cache else None
            if cached is None:
                todo.append(index)
            else:
                results[index] = cached
        later = _other_names(files, todo) if self.fix else set()
        first = [index for index in todo if index not in later]
        self._defer_python = sum(_size(files[i][0]) for i in first) < PARALLEL_MIN_BYTES
        for index, result in zip(first, self._lint_all([files[i] for i in first], jobs)):
            results[index] = result
        if later:
            self.file_bytes.forget()  # bytes read ahead may predate the fixes just written
        for index in sorted(later):  # read as the fixes under its first name left it
            results[index] = self.lint_path(*files[index])
        return results

    def _run_with_facts(self, files: list[tuple[str, str]], jobs: int,
                        results: list[FileResult], project: Project,
                        summaries: list[tuple[str, str, Any]]) -> None:
        """`_gather_and_lint_again`, then each error of the facts' gathering reported."""
        errors = self._gather_and_lint_again(files, jobs, results, project, summaries)
        self._report_fact_errors(results, errors + self._fact_errors)
        self._fact_errors = []

    def _report_fact_errors(self, results: list[FileResult], errors: list[FactError]) -> None:
        """Each error of the facts' gathering as a CUR000 finding: on its file's result when
        that file is linted, else (a file the facts were drawn from) on the first result that
        asked for that indexer's facts, naming its file."""
        from cursedlint.formats.shared import as_given

        for error in dict.fromkeys(errors):
            path = os.path.abspath(error.path)
            owner = next((r for r in results if os.path.abspath(r.path) == path), None) or \
                next((r for r in results if error.indexer in r.needs), None) or \
                (results[0] if results else None)
            if owner is None:
                continue
            owner.findings.append(_fact_error(
                owner.path if os.path.abspath(owner.path) == path else as_given(path), error))
            owner.findings.sort(key=lambda finding: finding.sort_key)
            if self.show_traceback:
                owner.tracebacks.append(error.traceback)

    def _gather_and_lint_again(self, files: list[tuple[str, str]], jobs: int,
                               results: list[FileResult], project: Project,
                               summaries: list[tuple[str, str, Any]]) -> list[FactError]:
        """Gather the facts the results say they need (and those of rules whose facts add
        triggers when files outside the linted ones may hold some), from the `summaries` the
        lint made and from the files it did not parse, then lint again the files whose
        findings the facts found can change (`Indexer.affects`), those whose rules wait for
        the facts (`FileResult.deferred`), and those naming words the facts made triggers."""
        rules = self.indexing_rules()
        needed = {name for result in results for name in result.needs}
        wanted = set(needed)
        if not project.linted_all:  # (for the linted files' languages)
            languages = {language for _, language in files}
            wanted.update(rule.indexer.name for rule in rules if _adds_triggers(rule)
                          and languages.intersection(rule.indexer.languages))
        using = [rule for rule in rules if any(ix.name in wanted for ix in rule.indexers())]
        if not using:
            return []
        seeds: dict[str, set[str]] = {}
        for result in results:
            for name, words in result.seeds.items():
                seeds.setdefault(name, set()).update(words)
        near = project.near_files
        if near is None or project.linted_all:
            sources, for_triggers = project.list_files, {}
        else:  # what no linted file needs itself is gathered for its trigger words alone
            sources = project.list_files if needed else near
            for_triggers = {name: near() for name in wanted - needed}
        index = self.index_project(sources(), project.store, using, wanted, seeds,
                                   jobs, summaries, save=False, for_triggers=for_triggers)
        errors, self.fact_passes = index.errors, index.passes
        found = {name for name, facts in self.project.items() if facts}
        asked = {i for i, result in enumerate(results) if found.intersection(result.needs)}
        words = [
            (rule.indexer.languages, word) for rule in using if _adds_triggers(rule)
            and rule.indexer.name in self.project
            for word in rule.project_trigger_words(self.project[rule.indexer.name])
        ]

        def names_words(i: int) -> bool:
            path, language = files[i]
            return _names_any(path, [w for languages, w in words if language in languages])

        named = {i for i in range(len(files)) if i not in asked and names_words(i)} \
            if words else set()
        late = self._late_seeds([files[i] for i in sorted(named)], using)
        if any(not added <= seeds.get(name, set()) for name, added in late.items()):
            for name, added in late.items():  # what a file named by the facts calls
                seeds.setdefault(name, set()).update(added)
            index = self.index_project(sources(), project.store, using, wanted,
                                       seeds, jobs, summaries, save=False, for_triggers=for_triggers)
            errors, self.fact_passes = index.errors, index.passes
        indexers = {indexer.name: indexer for rule in using for indexer in rule.indexers()}
        deferred = {i for i, result in enumerate(results) if result.deferred}
        self.facts_key, self._modules = facts_digest(self.project, index) if self.cache \
            else (None, {})
        if project.store:
            project.store.save()
        cached = {}
        for i in (asked | named | deferred) if self.cache else ():
            result = self.cache.lookup(files[i][0], self.facts_key)
            if result is not None and self._cites_the_same(result):
                cached[i] = results[i] = result
        again = named | deferred | {
            i for i in asked - cached.keys()
            if self._affected(files[i][0], results[i], found, indexers) or names_words(i)}
        for i in asked - again - cached.keys() if self.cache else ():
            self.cache.same_with(files[i][0], self.facts_key)  # the facts change nothing
        order = sorted(again - cached.keys())
        if not order:
            return errors
        if self.facts_key is None:
            self.facts_key, self._modules = facts_digest(self.project, index)
        relinted = self._stored_with_facts([files[i][0] for i in order])
        relinted.update(self._lint_again_in_workers({files[i][0] for i in order} - relinted.keys()))
        rest = [i for i in order if files[i][0] not in relinted]
        for i, result in zip(rest, self._lint_all([files[i] for i in rest], jobs,
                                                  AGAIN_PARALLEL_MIN_BYTES)):
            relinted[files[i][0]] = result
        for i in order:
            result = relinted[files[i][0]]
            self._store(result, self.facts_key)
            first = results[i]  # what --fix wrote, and internal errors, stay told
            result.fixed += first.fixed
            result.notes[:0] = first.notes
            result.findings += [finding for finding in first.findings if finding.code ==
                                notices.InternalError.code and finding not in result.findings]
            result.findings.sort(key=lambda finding: finding.sort_key)
            result.write_failed = result.write_failed or first.write_failed
            results[i] = result
        return errors

    def _cited(self, result: FileResult) -> dict[str, str]:
        """The summarized modules a result linted with facts cites (`FileResult.cited`): a
        module whose file name its findings' text or chain steps hold."""
        text = "\n".join(f"{finding.message}\n{finding.help}\n" + "\n".join(
            f"{step.path}:{step.note}" for step in finding.related) for finding in result.findings)
        return {path: digest for path, digest in self._modules.items()
                if os.path.basename(path) in text}

    def _cites_the_same(self, result: FileResult) -> bool:
        """Whether each module a stored result cites has the summaries it had then."""
        return all(self._modules.get(path) == digest for path, digest in result.cited.items())

    def _affected(self, path: str, result: FileResult, found: set[str],
                  indexers: Mapping[str, Any]) -> bool:
        """Whether facts gathered for the file (`found`: the indexers that found some) can
        change its findings: its lint asked for them, and they reach what it reads them
        through."""
        for name in found.intersection(result.needs):
            lookups = result.lookups.get(name)
            if lookups is None or indexers[name].affects(self.project[name], path, lookups):
                return True
        return False

    def _late_seeds(self, files: list[tuple[str, str]],
                    rules: list[type[Rule]]) -> dict[str, set[str]]:
        """The first-round words of files the first lint had no reason to parse, found to
        name a word the facts made a trigger (a call of another module's capturing function):
        what they take from the project's other modules joins the index."""
        seeds: dict[str, set[str]] = {}
        indexers = {indexer.name: indexer for rule in rules for indexer in rule.indexers()}
        for path, language in files:
            try:
                source = Source.from_bytes(path, read_bytes(path), language)
            except SourceError:
                continue
            context = self._parse_for_index(source)
            for name, indexer in indexers.items():
                if context is not None and language in indexer.languages:
                    seeds.setdefault(name, set()).update(_seeds(indexer, context, self._fact_errors))
        return seeds

    def _lint_again_in_workers(self, paths: set[str]) -> dict[str, FileResult]:
        """Path -> result with the facts, for the files of `paths` that the workers kept from
        the first lint linted then (on the trees they kept); the workers end."""
        workers, self._workers = self._workers, None
        if workers is None:
            return {}
        done: dict[str, FileResult] = {}
        for answer in workers.finish((self.project, self.facts_key, self._modules, paths)):
            done.update(answer)
        return done

    def _lint_again(self, message) -> dict[str, FileResult]:
        """In a worker kept from the first lint: lint again, with the facts, the files of
        `paths` it linted first."""
        self.project, self.facts_key, self._modules, paths = message
        self.summarize_for_index = False
        self._prefilters.clear()
        return {path: self.lint_path(path, language)
                for path, language in self._linted_here if path in paths}

    def _lint_all(self, files: list[tuple[str, str]], jobs: int,
                  parallel_min_bytes: int | None = None) -> list[FileResult]:
        """Serially when the bytes to read are few (under `parallel_min_bytes`, default
        PARALLEL_MIN_BYTES as it is when called); else over a process pool in chunks of
        similar byte counts, largest files first, so that one huge file does not serialize the
        run and small files fill the gaps at the end. In the first lint of a run that builds
        an index, the forked workers stay (`_workers`) to lint again what they linted, with
        the facts, on the trees they kept."""
        sizes = [_size(path) for path, _ in files]
        total = sum(sizes)
        if parallel_min_bytes is None:
            parallel_min_bytes = PARALLEL_MIN_BYTES
        if jobs <= 1 or len(files) < 2 or total < parallel_min_bytes:
            return self._lint_chunk(files)
        order = sorted(range(len(files)), key=sizes.__getitem__, reverse=True)
        chunks: list[list[int]] = [[]]
        target, filled = max(1, total // min(jobs * CHUNKS_PER_JOB, MAX_CHUNKS)), 0
        for index in order:
            if filled >= target:
                chunks.append([])
                filled = 0
            chunks[-1].append(index)
            filled += sizes[index]
        work = [[files[i] for i in chunk] for chunk in chunks]
        jobs = min(jobs, len(chunks))
        if CAN_FORK and self.summarize_for_index and self.facts_key is None \
                and self._workers is None:  # the first lint of a run that gathers facts
            from cursedlint.forked import Workers

            self._workers = Workers(self._lint_chunk, work, jobs, then=self._lint_again)
            done = self._workers.results
        elif CAN_FORK:  # the children inherit the loaded rules and this linter
            from cursedlint.forked import forked_map

            done = forked_map(self._lint_chunk, work, jobs)
        else:  # Windows: new interpreters, each given a pickled copy of this linter
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(self,)) as pool:
                done = list(pool.map(_lint_in_worker, work))
        results: list[FileResult | None] = [None] * len(files)
        for chunk, chunk_results in zip(chunks, done):
            for index, result in zip(chunk, chunk_results):
                results[index] = result
        return results

    def _lint_chunk(self, files: list[tuple[str, str]]) -> list[FileResult]:
        if self.summarize_for_index:
            self._linted_here.extend(files)
        return [self.lint_path(path, language) for path, language in files]


_worker_linter: Linter | None = None


def _start_worker(linter: Linter) -> None:
    global _worker_linter
    _worker_linter = linter


def _lint_in_worker(files: list[tuple[str, str]]) -> list[FileResult]:
    return _worker_linter._lint_chunk(files)


def _other_names(files: list[tuple[str, str]], todo: list[int]) -> set[int]:
    """The indexes in `todo` of files an earlier index names too (a hard link, a symlink). With
    --fix they are linted after the others, so that one file is never written by two processes
    at once nor read half written."""
    seen: set[tuple[int, int]] = set()
    later = set()
    for index in todo:
        try:
            status = os.stat(files[index][0])
        except OSError:
            continue
        identity = (status.st_dev, status.st_ino)
        if identity in seen:
            later.add(index)
        seen.add(identity)
    return later


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _size_text(size: int) -> str:
    """Bytes for a message: `12.6 MB`, or `2 MiB` for a whole number of MiB."""
    if size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _notice(notice: type[Notice], path: str, span: Span, message: str, help: str = "") -> Finding:
    return Finding(path, span, notice.code, notice.name, message, notice.severity, help=help)


def _syntax_error(source: Source, error: BaseException) -> Finding:
    if "\0" in source.text:  # SyntaxError or ValueError without a position, by version
        line, column = source.offset_to_position(source.text.index("\0"))
        message = "syntax error: the file contains a NUL byte; no rule could check this file"
    elif isinstance(error, SyntaxError) and error.lineno:
        line = error.lineno
        column = max(error.offset or 1, 1)
        message = f"syntax error: {error.msg}; no rule could check this file"
    elif isinstance(error, MemoryError) and not _parser_stack_overflow(error):
        line, column = 1, 1
        message = ("the Python parser ran out of memory on this file (it is nested too deeply, "
                   "or the run has too little memory); no rule could check it")
    else:
        line, column = 1, 1
        message = "the file is nested too deeply for the Python parser; no rule could check it"
    return _notice(notices.SyntaxErrorNotice, source.path, Span(line, column, line, column), message)


def _parser_stack_overflow(error: MemoryError) -> bool:
    """Whether CPython's parser said the MemoryError is its stack's, for nesting (3.8: "s_push:
    parser stack overflow", 3.12+: "Parser stack overflowed"). 3.9-3.11 raise it bare, as
    they do when memory runs out: then either may be the cause."""
    return "stack overflow" in str(error).lower()


def _out_of_memory(source: Source) -> Finding:
    """A file the parser gave up on for memory, where CUR001 is not selected: no rule checked
    it, which a run must never report as a pass."""
    message = (f"the Python parser ran out of memory on this file ({len(source.data):,} bytes; "
               "or it is nested too deeply); no rule could check it")
    return _notice(notices.InternalError, source.path, Span(1, 1, 1, 1), message)


def _internal_error(path: str, rule: type[Rule], error: BaseException) -> Finding:
    message = (
        f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error}; "
        "the rule was skipped for this file (--show-traceback prints the stack)"
    )
    return _notice(notices.InternalError, path, Span(1, 1, 1, 1), message)


def _fact_error(path: str, error: FactError) -> Finding:
    message = (f"internal error gathering facts ({error.indexer}) from this file: "
               f"{error.error}; the facts it holds are missing (--show-traceback prints the "
               "stack)")
    return _notice(notices.InternalError, path, Span(1, 1, 1, 1), message)


def _unmatched(path: str, block) -> Finding:
    other = "NOLINTEND" if block.kind == "BEGIN" else "NOLINTBEGIN"
    where = "after" if block.kind == "BEGIN" else "before"
    return _notice(notices.UnmatchedSuppressionBlock, path, block.span,
                   f"NOLINT{block.kind} without a matching {other} {where} it: it suppresses "
                   "nothing")


def _unused(source: Source, found, enabled: frozenset[str], known: frozenset[str]
            ) -> list[Finding]:
    unused = []
    for suppression in found:
        if suppression.invalid:
            comment = source.line_text(suppression.span.line)[suppression.span.column - 1:]
            unused.append(_notice(
                notices.UnusedSuppression, source.path, suppression.span,
                f"`{comment.strip()}` is not `# noqa: CODE[,CODE]`: it suppresses nothing"))
            continue
        unknown = suppression.unknown_codes(known)
        if unknown:
            comment = _comment_text(source, suppression)
            unused.append(_notice(
                notices.UnusedSuppression, source.path, suppression.span,
                f"`{comment}` names {', '.join(unknown)}, which no cursedlint code is"))
            continue
        codes = suppression.named_codes()
        if suppression.used or not codes or not codes <= enabled:
            continue
        comment = _comment_text(source, suppression)
        message = (
            f"`{comment}` suppresses nothing: no finding of {', '.join(sorted(codes))} "
            "starts on the line it covers; remove it so it cannot hide the next real finding"
        )
        unused.append(_notice(notices.UnusedSuppression, source.path, suppression.span, message))
    return unused


def _comment_text(source: Source, suppression) -> str:
    text = source.line_text(suppression.span.line)
    return text[suppression.span.column - 1 : suppression.span.end_column - 1]


class Project(Struct):
    """Where facts from other files come from: the project's files (path, language), listed
    on first use (`list_files`); whether the linted files are all of them; the IndexStore that
    keeps the facts across runs (None: none kept); `near_files`, where the linted files are
    not all: the fewer files (those they reach, those beside them) that facts which can only
    add findings through what a linted file calls are drawn from, when no linted file needs
    them itself."""

    list_files: Callable[[], list[tuple[str, str]]]
    linted_all: bool
    store: Any = None
    near_files: Callable[[], list[tuple[str, str]]] | None = None


def _summarized(indexers: Iterable) -> list:
    """The indexers among `indexers` that summarize files one by one, with those they gather
    their facts through (an `IncludedHeaders`' header summaries), each once."""
    found: dict[str, Any] = {}
    for indexer in indexers:
        for one in (indexer.summarizers if isinstance(indexer, IncludedHeaders) else (indexer,)):
            found.setdefault(one.name, one)
    return list(found.values())


def _adds_triggers(rule: type[Rule]) -> bool:
    """Whether the rule's facts from other files can make more files worth linting."""
    return rule.indexer is not None and rule.indexer.adds_triggers


def _names_any(path: str, words: list[str]) -> bool:
    """Whether the file holds one of `words` as a whole name."""
    if not words:
        return False
    try:
        data = read_bytes(path)
    except SourceError:
        return False
    encoded = [word.encode() for word in words]
    if not any(word in data for word in encoded):
        return False
    pattern = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(map(re.escape, encoded)) + rb")(?![A-Za-z0-9_])")
    return pattern.search(data) is not None


def _needs(indexer, context, errors: list[FactError]) -> bool:
    """An indexer's look at a parsed file (True when the look fails: its error joins
    `errors`)."""
    try:
        return bool(indexer.needed_by(context))
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return True


def _lookups(indexer, context, errors: list[FactError]) -> list[str] | None:
    """What a parsed file reaches an indexer's facts through (None: any fact, also when the
    look fails: its error joins `errors`)."""
    try:
        lookups = indexer.lookups(context)
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return None
    return None if lookups is None else sorted(lookups)


def _seeds(indexer, context, errors: list[FactError]) -> list[str]:
    """An indexer's first-round words from a parsed file (none when the look fails: its error
    joins `errors`)."""
    try:
        return list(indexer.seed_words(context))
    except Exception as error:
        errors.append(FactError.of(context.source.path, indexer.name, error))
        return []
