import torch
import torch.multiprocessing as mp

from serve.engine.runner import Runner


class Engine:
    def __init__(self, world=None):
        world = world or torch.cuda.device_count()
        torch.cuda.set_device(0)  # initializes CUDA in this process
        self.workers = []
        for rank in range(1, world):
            worker = mp.Process(target=Runner, args=(rank, world))  # error: CUR102
            worker.start()
            self.workers.append(worker)
        self.runner = Runner(0, world)


class SpawningEngine:
    def __init__(self, world):
        torch.cuda.set_device(0)
        ctx = mp.get_context("spawn")
        self.workers = [ctx.Process(target=Runner, args=(rank, world)) for rank in range(1, world)]
