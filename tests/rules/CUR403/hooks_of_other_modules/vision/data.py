from torch.utils.data import DataLoader


def image_loader(dataset, workers=8):
    return DataLoader(dataset, batch_size=128, shuffle=True, num_workers=workers,
                      pin_memory=True)


def cached_image_loader(dataset):
    return DataLoader(dataset, batch_size=128, shuffle=True, num_workers=8)
