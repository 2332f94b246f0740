"""A start method given as a parameter, rebound to its context under the same name."""

import multiprocessing as mp

import torch


def embed(batch):
    return torch.tensor(batch).cuda().sum().item()


def launch(batches, ctx="fork"):
    torch.cuda.init()
    ctx = mp.get_context(ctx)
    with ctx.Pool(2) as pool:  # error: CUR102
        return pool.map(embed, batches)


def launch_spawned(batches, ctx="spawn"):
    torch.cuda.init()
    ctx = mp.get_context(ctx)
    with ctx.Pool(2) as pool:  # ok: CUR102
        return pool.map(embed, batches)
