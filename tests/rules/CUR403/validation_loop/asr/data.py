from torch.utils.data import DataLoader


def utterance_loader(dataset, collate, workers=4):
    return DataLoader(dataset, batch_size=16, collate_fn=collate, num_workers=workers,
                      pin_memory=True)


def plain_loader(dataset, collate):
    return DataLoader(dataset, batch_size=16, collate_fn=collate, num_workers=4)
