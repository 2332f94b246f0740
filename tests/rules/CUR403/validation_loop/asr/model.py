import pytorch_lightning as pl
import torch

from asr.data import plain_loader, utterance_loader
from asr.decoding import GraphDecoder, LocalGraphDecoder


class Transducer(pl.LightningModule):
    """Reports greedy word error rates on the validation set, decoding with a graph."""

    def __init__(self, encoder, joint, dataset, collate):
        super().__init__()
        self.encoder = encoder
        self.decoder = GraphDecoder(joint, max_symbols=10)
        self.dataset = dataset
        self.collate = collate

    def val_dataloader(self):
        return utterance_loader(self.dataset, self.collate)

    def validation_step(self, batch, batch_idx):
        encoded = self.encoder(batch["audio"])
        labels = self.decoder.decode(encoded)  # error: CUR403 "in Lightning's validation loop"
        return (labels != batch["labels"]).float().mean()


class LocalTransducer(Transducer):
    def __init__(self, encoder, joint, dataset, collate):
        super().__init__(encoder, joint, dataset, collate)
        self.decoder = LocalGraphDecoder(joint, max_symbols=10)

    def validation_step(self, batch, batch_idx):
        encoded = self.encoder(batch["audio"])
        labels = self.decoder.decode(encoded)  # ok: CUR403 (thread_local)
        return (labels != batch["labels"]).float().mean()


class PlainTransducer(pl.LightningModule):
    """The same decoding over a loader that pins nothing."""

    def __init__(self, encoder, joint, dataset, collate):
        super().__init__()
        self.encoder = encoder
        self.decoder = GraphDecoder(joint, max_symbols=10)
        self.dataset = dataset
        self.collate = collate

    def val_dataloader(self):
        return plain_loader(self.dataset, self.collate)

    def validation_step(self, batch, batch_idx):
        encoded = self.encoder(batch["audio"])
        labels = self.decoder.decode(encoded)  # ok: CUR403 (no pin-memory thread)
        return (labels != batch["labels"]).float().mean()


class WarmTransducer(PlainTransducer):
    """Captures in setup, before any validation iterator exists."""

    def val_dataloader(self):
        return utterance_loader(self.dataset, self.collate)

    def setup(self, stage):
        example = torch.zeros(16, 200, 512, device="cuda")
        self.decoder.decode(example)  # ok: CUR403 (before the loop)

    def validation_step(self, batch, batch_idx):
        return self.encoder(batch["audio"]).mean()
