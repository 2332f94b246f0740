import torch
from torch.utils.data import DataLoader

from train.data import AugmentedImages, Images


def train(images, workers):
    model = torch.nn.Linear(32, 32).cuda()
    loader = DataLoader(AugmentedImages(images), batch_size=8, num_workers=workers)  # error: CUR102
    for batch in loader:
        model(batch.cuda()).sum().backward()


def train_plain(images, workers):
    model = torch.nn.Linear(32, 32).cuda()
    loader = DataLoader(Images(images), batch_size=8, num_workers=workers)  # ok: CUR102
    for batch in loader:
        model(batch.cuda()).sum().backward()


def train_spawned(images, workers):
    model = torch.nn.Linear(32, 32).cuda()
    loader = DataLoader(AugmentedImages(images), batch_size=8, num_workers=workers,
                        multiprocessing_context="spawn")
    for batch in loader:
        model(batch.cuda()).sum().backward()


def evaluate(images):
    model = torch.nn.Linear(32, 32).cuda()
    loader = DataLoader(AugmentedImages(images), batch_size=8, num_workers=0)  # ok: CUR102
    return [model(batch.cuda()) for batch in loader]


def train_lazily(images):
    # the workers are forked when the loop starts, after the model went to the GPU
    loader = DataLoader(AugmentedImages(images), batch_size=8, num_workers=4)  # error: CUR102
    model = torch.nn.Linear(32, 32).cuda()
    for batch in loader:
        model(batch.cuda()).sum().backward()


def train_configured(images, **loader_options):
    model = torch.nn.Linear(32, 32).cuda()
    # a spread may give num_workers, or a context: whether workers fork is not shown
    loader = DataLoader(AugmentedImages(images), **loader_options)  # ok: CUR102
    for batch in loader:
        model(batch.cuda()).sum().backward()
