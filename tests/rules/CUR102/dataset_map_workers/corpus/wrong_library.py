"""A spawn start method set for multiprocessing: datasets' workers start from multiprocess."""

import multiprocessing

from corpus.encode import embed_batch

multiprocessing.set_start_method("spawn")


def embed_again(dataset):
    return dataset.map(embed_batch, batched=True, num_proc=8)  # error: CUR102
