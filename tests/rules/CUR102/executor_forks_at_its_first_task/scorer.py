"""A ProcessPoolExecutor starts its workers at the first task, not when it is made."""

from concurrent.futures import ProcessPoolExecutor

import torch


def score(path):
    model = torch.load(path).cuda()
    return model(torch.ones(1, 8, device="cuda")).item()


class Scorer:
    def __init__(self):
        self.pool = ProcessPoolExecutor(max_workers=2)  # error: CUR102

    def run(self, paths):
        torch.cuda.set_device(0)
        futures = [self.score_one(path) for path in paths]
        return [future.result() for future in futures]

    def score_one(self, path):
        return self.pool.submit(score, path)


class IdleScorer:
    """Made, never given a task: no worker is ever forked."""

    def __init__(self):
        torch.cuda.init()
        self.pool = ProcessPoolExecutor(max_workers=2)  # ok: CUR102

    def close(self):
        self.pool.shutdown()
