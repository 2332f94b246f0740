"""What the server does with a step's logits."""

import json


def sample(logits):
    return logits.argmax(dim=-1).cpu().tolist()


def best_score(logits):
    return logits.max().item()


def to_json(tokens):
    return json.dumps({"tokens": tokens})
