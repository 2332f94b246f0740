"""What runs beside the decoders: loading weights to the GPU, scoring, formatting text."""

import torch


def load_shard(path):
    return torch.load(path, map_location="cuda")


def score(logits):
    return logits.softmax(-1).max().item()


def format_text(vocabulary, token_ids):
    return " ".join(vocabulary[token] for token in token_ids)
