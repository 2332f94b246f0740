from torch.utils.data import DataLoader


def make_loader(dataset, workers=4):
    return DataLoader(dataset, batch_size=64, num_workers=workers, pin_memory=True)


def make_eval_loader(dataset):
    return DataLoader(dataset, batch_size=64, num_workers=2)
