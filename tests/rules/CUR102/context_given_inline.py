"""A start method handed to the executor or pool inline, not through a name first."""

import multiprocessing
import multiprocessing.pool
from concurrent.futures import ProcessPoolExecutor

import torch


def embed(texts):
    encoder = torch.load("encoder.pt").cuda()
    return encoder(torch.tensor(texts, device="cuda")).cpu()


def tokenize(text):
    return text.lower().split()


def embed_all(batches):
    torch.cuda.set_device(0)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:  # error: CUR102
        return list(pool.map(embed, batches))


def embed_all_in_pool(batches):
    torch.cuda.init()
    with multiprocessing.pool.Pool(2, context=multiprocessing.get_context("fork")) as pool:  # error: CUR102
        return pool.map(embed, batches)


def embed_all_spawned(batches):
    torch.cuda.set_device(0)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:  # ok: CUR102
        return list(pool.map(embed, batches))


def tokenize_all(texts):
    torch.cuda.set_device(0)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:  # ok: CUR102
        return list(pool.map(tokenize, texts))
