"""Workers a launcher in another module calls after it asked CUDA for its devices."""

import multiprocessing as mp

import torch


def embed(batch):
    return torch.tensor(batch, device="cuda").sum().item()


def tokenize(text):
    return text.lower().split()


def embed_all(batches):
    with mp.Pool(4) as pool:  # error: CUR102
        return pool.map(embed, batches)


def tokenize_all(texts):
    # the children do CPU work only: a fork of a process holding CUDA works for them
    with mp.Pool(4) as pool:  # ok: CUR102
        return pool.map(tokenize, texts)
