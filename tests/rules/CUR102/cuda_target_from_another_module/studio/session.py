"""The entry point: it asks CUDA for its devices, then exports."""

import torch

from studio.pipeline import export, export_spawned


def main(path):
    if not torch.cuda.is_available():  # initializes CUDA
        raise SystemExit("no GPU")
    export(path)
    export_spawned(path)


if __name__ == "__main__":
    main("clip.pt")
