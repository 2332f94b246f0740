"""Averages checkpoints on the CPU: the pool loads them with map_location="cpu"."""

import functools
import multiprocessing
import sys

import torch

load = functools.partial(torch.load, map_location="cpu")
print("CUDA", torch.cuda.is_available(), file=sys.stderr)

with multiprocessing.Pool(8) as pool:  # ok: CUR102
    states = pool.map(load, sys.argv[1:])
average = {key: sum(state[key] for state in states) / len(states) for key in states[0]}
torch.save(average, "average.pt")
