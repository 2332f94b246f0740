"""One tensor-parallel rank (the directory holds no __init__.py: a namespace package)."""

import torch
import torch.distributed as dist


class Runner:
    def __init__(self, rank, world):
        dist.init_process_group("nccl", "tcp://localhost:2333", world_size=world, rank=rank)
        torch.cuda.set_device(rank)
        self.cache = torch.empty(1 << 20, device="cuda")
