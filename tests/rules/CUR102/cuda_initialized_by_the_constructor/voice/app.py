"""The entry point: an early worker made and run before CUDA is used; a batch worker made
after, whose run the program leaves to exit time."""

import atexit

import torch

from voice.batch import BatchWorker, EarlyWorker


def main(files):
    early = EarlyWorker(files)
    early.go()
    torch.cuda.init()
    batch = BatchWorker(files)
    atexit.register(batch.go)


if __name__ == "__main__":
    main(["a.wav", "b.wav"])
