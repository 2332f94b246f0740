import torch
from pytorch_lightning import LightningModule

from speech.loaders import cached_loader, utterance_loader


class GraphedEncoder(LightningModule):
    """Replays the encoder's forward and backward from a graph captured on the first batch."""

    def __init__(self, encoder, dataset, collate):
        super().__init__()
        self.encoder = encoder
        self.dataset = dataset
        self.collate = collate
        self.graph = None

    def train_dataloader(self):
        return utterance_loader(self.dataset, self.collate)

    def training_step(self, batch, batch_idx):
        if self.graph is None:
            self._capture(batch)
        self.static_feats.copy_(batch["feats"])
        self.graph.replay()
        return self.static_loss.detach()

    def _capture(self, batch):
        self.static_feats = batch["feats"].clone()
        self.graph = torch.cuda.CUDAGraph()
        self.graph.capture_begin()  # error: CUR403 "GraphedEncoder.training_step"
        self.static_loss = self.encoder(self.static_feats).mean()
        self.static_loss.backward()
        self.graph.capture_end()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), capturable=True)


class PrecapturedEncoder(GraphedEncoder):
    """Captures in setup, before Lightning makes the training iterator."""

    def setup(self, stage):
        self.static_feats = torch.zeros(32, 80, 400, device="cuda")
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):  # ok: CUR403
            self.static_loss = self.encoder(self.static_feats).mean()


class CachedEncoder(LightningModule):
    """Same lazy capture, over a loader that pins nothing."""

    def __init__(self, encoder, dataset, collate):
        super().__init__()
        self.encoder = encoder
        self.dataset = dataset
        self.collate = collate
        self.graph = None

    def train_dataloader(self):
        return cached_loader(self.dataset, self.collate)

    def on_train_batch_start(self, batch, batch_idx):
        if self.graph is None:
            self.static_feats = batch["feats"].clone()
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # ok: CUR403
                self.static_loss = self.encoder(self.static_feats).mean()


class ThreadLocalEncoder(GraphedEncoder):
    def on_train_batch_start(self, batch, batch_idx):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):  # ok: CUR403
                self.static_loss = self.encoder(batch["feats"]).mean()
