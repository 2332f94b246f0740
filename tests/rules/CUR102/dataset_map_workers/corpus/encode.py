"""Per-batch work the preparation maps over a dataset."""

import torch

from corpus.model import encoder


def embed_batch(batch):
    ids = torch.tensor(batch["ids"]).cuda()
    return {"embedding": encoder()(ids).cpu().tolist()}


def normalize_batch(batch):
    return {"text": [text.strip().lower() for text in batch["text"]]}
