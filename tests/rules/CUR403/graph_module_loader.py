"""CUR403: tensordict's CudaGraphModule captures on a call while a pinned loader iterates."""

from tensordict.nn import CudaGraphModule
from torch.utils.data import DataLoader


def train(dataset, loss_fn):
    update = CudaGraphModule(loss_fn, in_keys=[], out_keys=[], warmup=5)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for batch in loader:
        update(batch.cuda(non_blocking=True))  # error: CUR403@9 "CudaGraphModule begins"


def train_unpinned(dataset, loss_fn):
    update = CudaGraphModule(loss_fn, in_keys=[], out_keys=[], warmup=5)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=False)
    for batch in loader:
        update(batch.cuda())  # ok: CUR403 (no pin-memory thread)


def train_eager(dataset, loss_fn):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for batch in loader:
        loss_fn(batch.cuda(non_blocking=True))  # ok: CUR403 (nothing captures)
