"""Feature preparation the trainer runs before its first step."""

import os

from datasets import load_dataset

from corpus.encode import embed_batch, normalize_batch

WORKERS = min(os.cpu_count() or 1, 8)


def embed_corpus(path, workers=WORKERS):
    dataset = load_dataset("json", data_files=path, split="train")
    return dataset.map(embed_batch, batched=True, num_proc=workers)  # error: CUR102


def embed_splits(splits):
    kept = splits.filter(lambda row: len(row["ids"]) > 0, num_proc=4)  # ok: CUR102
    return kept.map(function=embed_batch, batched=True, num_proc=4)  # error: CUR102


def clean_corpus(dataset, workers):
    # the children do CPU work only: a fork of a process holding CUDA works for them
    return dataset.map(normalize_batch, batched=True, num_proc=workers)  # ok: CUR102


def embed_small(dataset):
    one = dataset.map(embed_batch, batched=True, num_proc=1)  # ok: CUR102
    none = dataset.map(embed_batch, batched=True, num_proc=None)  # ok: CUR102
    return one, none, dataset.map(embed_batch, batched=True)  # ok: CUR102
