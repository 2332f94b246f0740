"""A recorder whose flush the program runs at exit, on an instance made after 'spawn' was set."""

import multiprocessing as mp

import torch


def replay(seed):
    return torch.randn(4, device="cuda").sum().item()


class Recorder:
    def __init__(self, seeds):
        self.seeds = seeds

    def flush(self):
        with mp.Pool(2) as pool:  # ok: CUR102
            return pool.map(replay, self.seeds)
