"""The engine, by responsibility: one file from bytes to findings (`file_lint`), the notices
the engine itself reports (`reported_notices`), fixes (`fix_writer`, over `fixes` and
`structural_fixes`), suppression comments (`suppressions`), a run through the cache (`linter`),
its facts pass (`facts_run`, asking indexers through `indexer_looks`) and its processes
(`scheduler`, `forked`). `Linter` is the entry point."""

from cursedlint.engine.linter import Linter
from cursedlint.engine.results import FileResult, Project
from cursedlint.engine.scheduler import default_jobs

__all__ = ["FileResult", "Linter", "Project", "default_jobs"]
