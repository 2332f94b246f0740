import atexit

import torch.multiprocessing as mp

import torch

from sim.engine import Simulator
from sim.recorder import Recorder

if __name__ == "__main__":
    torch.cuda.set_device(0)
    sim = Simulator([1, 2, 3])
    mp.set_start_method("spawn", force=True)
    print(sim.generate())
    recorder = Recorder([4, 5])
    atexit.register(recorder.flush)
