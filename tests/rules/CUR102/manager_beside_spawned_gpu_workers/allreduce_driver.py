"""A driver: the GPU work runs in spawned ranks; the driver only collects results."""

import torch
import torch.multiprocessing as mp


def run_rank(rank, results):
    torch.cuda.set_device(rank)
    results[rank] = torch.ones(4, device="cuda").sum().item()


def check_allreduce_on_every_rank():
    world = torch.cuda.device_count()
    # the Manager's server runs multiprocessing's own code: no CUDA there
    manager = mp.Manager()  # ok: CUR102
    results = manager.dict()
    mp.spawn(run_rank, args=(results,), nprocs=world)
    assert sorted(results.values()) == [4.0] * world
