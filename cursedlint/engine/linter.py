"""A run: lint files (from the cache where it can), apply fixes, gather the facts from other
files that the lint asked for and lint again what they can change (`facts_run`), across
processes (`scheduler`)."""

from __future__ import annotations

import gc
import os
import sys
from typing import Any, Iterable, Mapping

from cursedlint import notices
from cursedlint.languages import C, CPP, LANGUAGES
from cursedlint.project.cache import file_stat
import cursedlint.engine.scheduler as scheduler
from cursedlint.engine.facts_run import FactsRun
from cursedlint.engine.file_lint import FileLinter, kept_tree_bytes
from cursedlint.engine.fix_writer import FixWriter
from cursedlint.engine.results import FileResult, Project
from cursedlint.project.index import KEPT_BYTES, FactPass, ProjectIndex
from cursedlint.rule import Rule
from cursedlint.settings import Settings
from cursedlint.source import FileBytes, SourceError


FROZEN_GROWTH = 1 << 30
"""Bytes by which the process's peak memory may grow over its peak at the last whole
collection before what `settle_survivors` froze is put back and collected whole. The stdlib
worst case (1,790 files, peak 605 MB) is never collected whole."""
_collected_at: list[int] = []  # the peak memory after the last whole collection


def settle_survivors() -> None:
    """After a file's lint, move what outlives it (the results, the trees kept for the lint
    with facts, the index's caches) out of the cyclic collector's generations (`gc.freeze`):
    collections traversed those objects again and again, not the file's own, which reference
    counting frees (the stdlib worst case spent 8% of its CPU in them, to collect 500
    objects). The few cycles a file leaves wait with them; once the peak memory has grown by
    FROZEN_GROWTH all is put back and collected (cycles cannot hold memory without bound).
    Not where the collector is off (a host's choice) or the peak cannot be read (Windows)."""
    peak = _peak_bytes()
    if peak is None or not gc.isenabled():
        return
    gc.freeze()
    if not _collected_at:
        _collected_at.append(peak)
    elif peak - _collected_at[0] > FROZEN_GROWTH:
        gc.unfreeze()
        gc.collect()
        _collected_at[0] = _peak_bytes() or peak


def _peak_bytes() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # (kilobytes but on macOS)


class Linter(FileLinter):
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
        languages: Iterable[str] = LANGUAGES,
    ):
        """`fix`: None (report only), "safe" or "unsafe" (also apply fixes marked unsafe).
        `fix_roots`: the real paths fixes may be written within (`fixes.write_roots`; default:
        each file's own directory). `show_diff`: with `fix`, write nothing; each result holds
        its fixes as a unified diff. `cache`: a ResultCache whose fingerprint covers these
        settings (never used with fix). `languages`: those of the files it lints (the rules
        of other languages are not imported)."""
        super().__init__(settings, rules, warn_unused_suppressions=warn_unused_suppressions,
                         show_traceback=show_traceback, languages=languages)
        self.fix = fix
        self.fixes = FixWriter(self.lint_bytes, fix, fix_roots, show_diff) if fix else None
        self.cache = None if fix else cache
        self.file_bytes = FileBytes(KEPT_BYTES)  # files read before linting, read once
        self.fact_passes: list[FactPass] = []  # what the run's facts gathering did (-v)
        self.modules: dict[str, str] = {}  # with facts_key: summarized module -> its digest
        self.workers = None  # forked workers waiting to lint again what they linted first
        self._linted_here: list[tuple[str, str]] = []  # files this process linted first

    def index_project(self, files: list[tuple[str, str]], store=None, **options) -> ProjectIndex:
        """Facts of the project's files for the enabled rules that use them
        (`FactsRun.index_project`, which names the options)."""
        return FactsRun(self).index_project(files, store, **options)

    def fix_bytes(self, path: str, data: bytes, language: str) -> tuple[bytes, FileResult]:
        """The bytes of a file that is no file (standard input) with its fixes applied, and
        their result (`FixWriter.fix_bytes`)."""
        return self.fixes.fix_bytes(path, data, language)

    # -- one file, through the cache -----------------------------------------------------------
    def lint_path(self, path: str, language: str) -> FileResult:
        try:
            stat, data, key = self._read(path)
        except SourceError as error:
            return self._unreadable(path, error)
        stored = self._stored(key, stat) if key else None
        if stored is not None:
            return stored
        result = self.lint_bytes(path, data, language)
        if self.fixes and self.fixes.fixable(result):
            result = self.fixes.fix_file(path, data, language, result)
        elif key and not result.uncached and \
                not any(f.code == notices.InternalError.code for f in result.findings):
            result.cache_key, result.cache_stat = key, stat
        return result

    def _keep_tree(self, context) -> None:
        """`FileLinter._keep_tree`, and a C/C++ file's bytes the tree was parsed from, for
        the index's reads (its gathering reads every C/C++ file holding an indexer's words:
        the C/C++ worst case read its 1,286 files again). The lint reads with `keep=False`: a
        Python file no index reads is not held for it."""
        super()._keep_tree(context)
        path = os.path.abspath(context.source.path)
        kept = self._kept_trees.get(path)
        if kept is not None and kept[0] is context.source.data and \
                context.source.language in (C, CPP):
            self.file_bytes.keep(path, kept[0])

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
        if cached is None or not self.cites_the_same(cached):
            return None
        if stat is None:
            return cached
        import copy  # (only a cached result needs it)

        result = copy.copy(cached)  # same bytes, new stat: the run records it
        result.cache_key, result.cache_stat = key, stat
        return result

    def stored_with_facts(self, paths: list[str]) -> dict[str, FileResult]:
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

    def store(self, result: FileResult, facts: str | None = None) -> None:
        """Put a new result in the cache (found later by its file's stat, and `facts`, with
        the modules it cites when linted with facts)."""
        if self.cache and result.cache_key:
            if facts is not None:
                result.cited = self._cited(result)
            key, result.cache_key = result.cache_key, None
            stat, result.cache_stat = result.cache_stat, None
            self.cache.put(key, result, stat, facts=facts)

    def _cited(self, result: FileResult) -> dict[str, str]:
        """The summarized modules a result linted with facts cites (`FileResult.cited`): the
        files its findings cite (`Finding.cites`), each with the digest of its summaries."""
        cited = {path for finding in result.findings for path in finding.cites}
        return {path: digest for path, digest in self.modules.items()
                if os.path.abspath(path) in cited}

    def cites_the_same(self, result: FileResult) -> bool:
        """Whether each module a stored result cites has the summaries it had then."""
        return all(self.modules.get(path) == digest for path, digest in result.cited.items())

    # -- many files ----------------------------------------------------------------------------
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
        self.facts_key, self.modules = None, {}
        self.keep_trees_within(kept_tree_bytes(jobs))
        if self.cache:
            self.cache.begin_run()
        try:
            results = self._run_without_facts(files, jobs)
            summaries = []
            for result in results:
                summaries += result.index_summaries
                result.index_summaries = []
                self.store(result)
            if project is not None:
                FactsRun(self).run(files, jobs, results, project, summaries)
        finally:
            self.summarize_for_index = False
            if self.workers is not None:
                self.workers.close()
                self.workers = None
            self.forget_kept_trees()
        if self.cache:
            self.cache.save()
        return results

    def _run_without_facts(self, files: list[tuple[str, str]], jobs: int) -> list[FileResult]:
        results: list[FileResult | None] = [None] * len(files)
        todo = []
        for index, (path, language) in enumerate(files):
            cached = self.cache.lookup(path) if self.cache else None
            if cached is None:
                todo.append(index)
            else:
                results[index] = cached
        later = scheduler.other_names(files, todo) if self.fix else set()
        first = [index for index in todo if index not in later]
        for index, result in zip(first, self.lint_files([files[i] for i in first], jobs)):
            results[index] = result
        if later:
            self.file_bytes.forget()  # bytes read ahead may predate the fixes just written
        for index in sorted(later):  # read as the fixes under its first name left it
            results[index] = self.lint_path(*files[index])
        return results

    def lint_files(self, files: list[tuple[str, str]], jobs: int,
                   parallel_min_bytes: int | None = None) -> list[FileResult]:
        """The files linted on up to `jobs` processes (`scheduler.lint_all`). In the first
        lint of a run that gathers facts, the forked workers stay (`workers`) to lint again
        what they linted, with the facts, on the trees they kept (`lint_again`)."""
        first = self.summarize_for_index and self.facts_key is None and self.workers is None
        results, workers = scheduler.lint_all(self.lint_chunk, files, jobs, parallel_min_bytes,
                                              self.lint_again if first else None)
        self.workers = workers or self.workers
        return results

    def lint_chunk(self, files: list[tuple[str, str]]) -> list[FileResult]:
        """A worker's share of files (`scheduler.lint_all`)."""
        if self.summarize_for_index:
            self._linted_here.extend(files)
        results = []
        for path, language in files:
            results.append(self.lint_path(path, language))
            settle_survivors()
        return results

    def parse_for_index(self, source):
        """`FileLinter.parse_for_index`, after what the last file's summary left is settled
        as after each file's lint (`settle_survivors`): a collection in the gathering
        traversed every tree and summary kept since its start (0.1-0.3 s of a cold run over
        Megatron-LM or torch's files)."""
        settle_survivors()
        return super().parse_for_index(source)

    def lint_again_in_workers(self, paths: set[str]) -> dict[str, FileResult]:
        """Path -> result with the facts, for the files of `paths` that the workers kept from
        the first lint linted then (on the trees they kept); the workers end."""
        workers, self.workers = self.workers, None
        if workers is None:
            return {}
        done: dict[str, FileResult] = {}
        for answer in workers.finish((self.project, self.facts_key, self.modules, paths,
                                      self.again_only)):
            done.update(answer)
        return done

    def lint_again(self, message) -> dict[str, FileResult]:
        """In a worker kept from the first lint: lint again, with the facts, the files of
        `paths` it linted first."""
        self.project, self.facts_key, self.modules, paths, self.again_only = message
        self.summarize_for_index = False
        self.facts_changed()
        return {path: self.lint_path(path, language)
                for path, language in self._linted_here if path in paths}
