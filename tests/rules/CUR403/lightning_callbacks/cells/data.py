import lightning.pytorch as pl
from torch.utils.data import DataLoader


class CellData(pl.LightningDataModule):
    def __init__(self, train_set, val_set, workers=8):
        super().__init__()
        self.train_set = train_set
        self.val_set = val_set
        self.workers = workers

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=256, shuffle=True,
                          num_workers=self.workers, pin_memory=True, persistent_workers=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=256, num_workers=2)


class InMemoryCellData(pl.LightningDataModule):
    def __init__(self, train_set):
        super().__init__()
        self.train_set = train_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=256, shuffle=True, pin_memory=True)
