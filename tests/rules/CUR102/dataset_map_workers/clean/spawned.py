"""The fix the datasets documentation gives: multiprocess's own start method."""

import torch
from multiprocess import set_start_method

from clean.shards import embed_rows


def embed_on_gpu(dataset):
    torch.cuda.init()
    set_start_method("spawn")
    return dataset.map(embed_rows, num_proc=4)  # ok: CUR102
