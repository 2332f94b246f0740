"""Datasets a training loop in another module iterates with worker processes."""

import torch
from torch.utils.data import Dataset


class AugmentedImages(Dataset):
    """Augments on the GPU in __getitem__: in a forked worker of a process holding CUDA, the
    first .cuda() fails."""

    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image = self.images[index].cuda()
        return torch.flip(image, dims=(-1,)).cpu()


class Images(Dataset):
    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return torch.flip(self.images[index], dims=(-1,))
