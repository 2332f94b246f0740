"""Many files across processes: chunks of similar byte counts over forked workers (a process
pool where there is no fork), or serially when the bytes are few."""

from __future__ import annotations

import os
from typing import Any, Callable

from cursedlint.engine.results import FileResult

Chunk = list[tuple[str, str]]

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


def lint_all(lint_chunk: Callable[[Chunk], list[FileResult]], files: Chunk, jobs: int,
             parallel_min_bytes: int | None = None,
             then: Callable[[Any], dict[str, FileResult]] | None = None,
             ) -> tuple[list[FileResult], Any]:
    """`lint_chunk(files)`, serially when the bytes to read are few (under
    `parallel_min_bytes`, default PARALLEL_MIN_BYTES as it is when called); else over a
    process pool in chunks of similar byte counts, largest files first, so that one huge file
    does not serialize the run and small files fill the gaps at the end. With `then`, forked
    workers stay after the lint (returned, else None) to answer `then(message)` later: in the
    first lint of a run that gathers facts, to lint again what they linted, with the facts,
    on the trees they kept."""
    sizes = [size(path) for path, _ in files]
    total = sum(sizes)
    if parallel_min_bytes is None:
        parallel_min_bytes = PARALLEL_MIN_BYTES
    if jobs <= 1 or len(files) < 2 or total < parallel_min_bytes:
        return lint_chunk(files), None
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
    workers = None
    if CAN_FORK and then is not None:
        from cursedlint.engine.forked import Workers

        workers = Workers(lint_chunk, work, jobs, then=then)
        done = workers.results
    elif CAN_FORK:  # the children inherit the loaded rules and this linter
        from cursedlint.engine.forked import forked_map

        done = forked_map(lint_chunk, work, jobs)
    else:  # Windows: new interpreters, each given a pickled copy of the linter
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(lint_chunk,)) as pool:
            done = list(pool.map(_lint_in_worker, work))
    results: list[FileResult | None] = [None] * len(files)
    for chunk, chunk_results in zip(chunks, done):
        for index, result in zip(chunk, chunk_results):
            results[index] = result
    return results, workers


_worker_lint: Callable[[Chunk], list[FileResult]] | None = None


def _start_worker(lint_chunk: Callable[[Chunk], list[FileResult]]) -> None:
    global _worker_lint
    _worker_lint = lint_chunk  # (a bound method: its linter came pickled)


def _lint_in_worker(files: Chunk) -> list[FileResult]:
    return _worker_lint(files)


def other_names(files: list[tuple[str, str]], todo: list[int]) -> set[int]:
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


def size(path: str) -> int:
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
