"""Starts whose branch cannot run, or that a guard refuses, beside one that forks."""

import multiprocessing

import torch


def embed(batch):
    return torch.tensor(batch).cuda().sum().item()


def embed_serially(batches):
    torch.cuda.init()
    workers = None
    if workers is not None and workers > 1:  # never: workers is None
        with multiprocessing.Pool(workers) as pool:  # ok: CUR102
            return pool.map(embed, batches)
    return [embed(batch) for batch in batches]


def embed_in_parallel(batches):
    torch.cuda.init()
    workers = 4
    if workers is not None and workers > 1:
        with multiprocessing.Pool(workers) as pool:  # error: CUR102
            return pool.map(embed, batches)
    return [embed(batch) for batch in batches]


def embed_with(batches, start_method):
    if start_method == "fork" and torch.cuda.is_initialized():
        raise RuntimeError("CUDA is initialized: a forked worker could not use it")
    with multiprocessing.get_context(start_method).Pool(4) as pool:  # ok: CUR102
        return pool.map(embed, batches)


def embed_unless_initialized(batches):
    if not torch.cuda.is_initialized():
        with multiprocessing.get_context("fork").Pool(4) as pool:  # ok: CUR102
            return pool.map(embed, batches)
    return [embed(batch) for batch in batches]
