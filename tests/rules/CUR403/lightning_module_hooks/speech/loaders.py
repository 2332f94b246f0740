from torch.utils.data import DataLoader


def utterance_loader(dataset, collate, workers=6):
    return DataLoader(dataset, batch_size=32, collate_fn=collate, num_workers=workers,
                      pin_memory=True, drop_last=True)


def cached_loader(dataset, collate):
    return DataLoader(dataset, batch_size=32, collate_fn=collate, num_workers=6)
