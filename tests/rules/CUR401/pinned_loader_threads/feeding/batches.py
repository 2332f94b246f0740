"""Loading threads: each iterates a DataLoader and hands the batches on through a queue."""

from torch.utils.data import DataLoader


def feed_pinned(dataset, out):
    loader = DataLoader(dataset, batch_size=64, pin_memory=True)
    for batch in loader:
        out.put(batch)


def feed_pinned_by_workers(dataset, out):
    batches = iter(DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True))
    while True:
        out.put(next(batches))


def feed_plain(dataset, out):
    loader = DataLoader(dataset, batch_size=64)
    for batch in loader:
        out.put(batch)


def feed_unpinned(dataset, out):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=False)
    for step, batch in enumerate(loader):
        out.put(batch)


def make_pinned_loader(dataset, out):
    out.put(DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True))


class Prefetcher:
    """Keeps a pinned loader's batches coming on a thread of its own."""

    def __init__(self, dataset, out):
        self.loader = DataLoader(dataset, batch_size=64, num_workers=2, pin_memory=True)
        self.out = out

    def run(self):
        while True:
            for step, batch in enumerate(self.loader):
                self.out.put(batch)
