import torch
from lightning.pytorch.callbacks import Callback


class GraphedStep(Callback):
    """Replays the model's forward from a graph captured on the fifth batch."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if batch_idx == 5:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_out = pl_module(batch[0])


class WarmStartGraph(Callback):
    """Captures in on_fit_start, before the fit loop makes the training iterator."""

    def on_fit_start(self, trainer, pl_module):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_out = pl_module(pl_module.example_input_array.cuda())
