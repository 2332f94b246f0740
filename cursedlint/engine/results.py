"""What a run hands back per file (`FileResult`), and where a run's facts come from
(`Project`)."""

from __future__ import annotations

from typing import Any, Callable

from msgspec import Struct, field

from cursedlint.findings import Finding


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
    trigger_facts: list[str] = field(default_factory=list)
    """Indexers whose facts can add triggers (`Indexer.adds_triggers`) for rules the file's
    lint ran, which none of its rules asked of: gathered for their trigger words alone, the
    file linted again when it names one."""
    deferred: bool = False
    """The rules did not run yet: they run when the facts in `needs` are gathered
    (`Linter._may_defer`)."""
    seeds: dict[str, list[str]] = field(default_factory=dict)
    """With `needs`: per indexer, words the file makes worth looking for in the project."""
    lookups: dict[str, list[str]] = field(default_factory=dict)
    """With `needs`: per indexer that tells, what the file reaches its facts through
    (`Indexer.lookups`; an indexer not named: any of its facts)."""
    cited: dict[str, str] = field(default_factory=dict)
    """Linted with facts: the modules of the project its findings cite (`Finding.cites`),
    each with the digest of its summaries then (`project_index.FactsDigest`)."""
    index_summaries: list[tuple[str, str, Any]] = field(default_factory=list)
    """(indexer name, content hash, summary) made from this lint's parse, for the index the
    run builds next (`Linter.summarize_for_index`); taken before the result is cached."""
    uncached: bool = False
    """What it says holds for this run alone (a file left unchecked for the memory the run
    had): never stored in the cache."""
    cache_key: str | None = None  # set on a new result the run should store in the cache
    cache_stat: tuple[int, int, int, int] | None = None  # with cache_key: the file's stat before it was read



class Project(Struct):
    """Where facts from other files come from: the project's files (path, language), listed
    on first use (`list_files`); whether the linted files are all of them; the IndexStore that
    keeps the facts across runs (None: none kept); `near_files`, where the linted files are
    not all: the fewer files (those they reach, those beside them) that facts which can only
    add findings through what a linted file calls are drawn from, when no linted file needs
    them itself; `summaries`, where other groups of the run summarize files with the same
    settings: (indexer name, content hash) -> summary, shared with them."""

    list_files: Callable[[], list[tuple[str, str]]]
    linted_all: bool
    store: Any = None
    near_files: Callable[[], list[tuple[str, str]]] | None = None
    summaries: dict | None = None

