"""The entry point sets spawn before anything else, then initializes CUDA and exports."""

import multiprocessing

import torch

from studio.pipeline import export


def main(path):
    torch.cuda.set_device(0)  # initializes CUDA
    export(path)


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    main("clip.pt")
