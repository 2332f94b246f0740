"""The entry point: one start before the device is asked for, the rest after."""

import torch

from lab import launch


def main(path):
    launch.run_first(path)
    print("GPU:", torch.cuda.is_available())
    launch.run_all(path)
    launch.run_flagged(path, use_gpu=True)
    launch.run_counts(path)
    launch.run_spawned(path)


if __name__ == "__main__":
    main("batch.pt")
