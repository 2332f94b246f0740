import torch.multiprocessing as mp

import torch

from sim.engine import Simulator

if __name__ == "__main__":
    torch.cuda.set_device(0)
    sim = Simulator([1, 2, 3])
    mp.set_start_method("spawn", force=True)
    print(sim.generate())
