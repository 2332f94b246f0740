import torch
import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback

from cells.data import InMemoryCellData


class EagerGraph(Callback):
    """The same capture as train.py's, under a loader without worker processes: the batches
    are pinned on the main thread, between steps."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if batch_idx == 5:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR403
                self.static_out = pl_module(batch[0])


def main(module, train_set):
    trainer = pl.Trainer(callbacks=[EagerGraph()])
    trainer.fit(module, InMemoryCellData(train_set))
