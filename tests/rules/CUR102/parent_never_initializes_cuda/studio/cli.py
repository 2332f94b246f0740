"""The entry point: it reads its arguments and exports; the GPU is the child's alone."""

import sys

import torch

from studio.pipeline import export


def main(argv):
    torch.set_num_threads(1)  # CPU settings only: CUDA is not initialized
    for path in argv[1:]:
        export(path)


if __name__ == "__main__":
    main(sys.argv)
