"""Starts the workers by fork; what the process holds is the entry point's."""

import multiprocessing

from lab import jobs


def run_all(path):
    embedder = multiprocessing.Process(target=jobs.embed, args=(path,))  # error: CUR102
    embedder.start()
    scorer = multiprocessing.Process(target=jobs.score, args=(path,))  # error: CUR102
    scorer.start()
    embedder.join()
    scorer.join()


def run_flagged(path, use_gpu):
    flagged = multiprocessing.Process(target=jobs.score_on, args=(path, use_gpu))  # ok: CUR102
    flagged.start()
    allowed = multiprocessing.Process(target=jobs.score_if_allowed,  # ok: CUR102
                                      args=(path, use_gpu))
    allowed.start()
    flagged.join()
    allowed.join()
    late = multiprocessing.Process(target=jobs.score_late, args=(path, "cpu"))  # ok: CUR102
    late.start()
    late.join()


def run_counts(path):
    worker = multiprocessing.Process(target=jobs.count, args=(path,))  # ok: CUR102
    worker.start()
    worker.join()


def run_spawned(path):
    context = multiprocessing.get_context("spawn")
    worker = context.Process(target=jobs.embed, args=(path,))  # ok: CUR102
    worker.start()
    worker.join()


def run_first(path):
    worker = multiprocessing.Process(target=jobs.score, args=(path,))  # ok: CUR102
    worker.start()
    worker.join()
