import torch.multiprocessing as mp

import torch

from sim.engine import Simulator

if __name__ == "__main__":
    torch.cuda.set_device(0)
    sim = Simulator([1, 2, 3])
    print(sim.generate())
