import torch
import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback

from cells.data import CellData, InMemoryCellData
from cells.graphs import StepGraph


class CellModel(pl.LightningModule):
    def __init__(self, width):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(),
                                       torch.nn.Linear(width, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01, capturable=True)


class WholeStepGraph(Callback):
    """Captures the whole training step once the allocator has warmed up."""

    def __init__(self, warmup_batches=10):
        self.warmup_batches = warmup_batches
        self.graph = None
        self.static_x = None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if batch_idx != self.warmup_batches:
            return
        self.static_x = batch[0].clone()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # error: CUR403 "WholeStepGraph.on_train_batch_start"
            pl_module.net(self.static_x).sum().backward()


class OptimizerStepGraph(Callback):
    def __init__(self):
        self.graphs = StepGraph()

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        if self.graphs.graph is None:
            self.graphs.capture(optimizer.step, None)  # error: CUR403 "in Trainer.fit's loop"


class IsolatedGraph(Callback):
    def __init__(self):
        self.graphs = StepGraph()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.graphs.graph is None:
            self.graphs.capture_isolated(pl_module.net, batch[0])  # ok: CUR403


class EpochEndGraph(Callback):
    """Captures after the step: the batch the step's next() asked for may still be pinning."""

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if batch_idx == 3:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR403 "in Trainer.fit's loop"
                self.static_out = pl_module.net(batch[0])


class StartupGraph(Callback):
    """Captures before the fit loop makes the training iterator."""

    def on_fit_start(self, trainer, pl_module):
        self.graph = torch.cuda.CUDAGraph()
        static_x = torch.zeros(256, 64, device="cuda")
        with torch.cuda.graph(self.graph):  # ok: CUR403
            self.static_out = pl_module.net(static_x)


class RelaxedGraph(Callback):
    def on_train_epoch_start(self, trainer, pl_module):
        self.graph = torch.cuda.CUDAGraph()
        self.graph.capture_begin(capture_error_mode="relaxed")  # ok: CUR403
        self.static_out = pl_module.net(self.static_x)
        self.graph.capture_end()


def main(train_set, val_set):
    trainer = pl.Trainer(max_epochs=10, callbacks=[WholeStepGraph(), OptimizerStepGraph(),
                                                   IsolatedGraph(), EpochEndGraph(),
                                                   StartupGraph(),
                                                   RelaxedGraph()])
    trainer.fit(CellModel(64), datamodule=CellData(train_set, val_set))
