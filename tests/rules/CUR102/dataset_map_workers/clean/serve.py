import multiprocess
import torch

from clean.refresh import refresh
from clean.offline import build_cache


def main(dataset, rows):
    build_cache(dataset)  # before anything initializes CUDA
    multiprocess.set_start_method("spawn")
    torch.cuda.init()
    return refresh(dataset, rows)


if __name__ == "__main__":
    main(None, [])
