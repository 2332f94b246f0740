"""What the server does with the previous step's logits."""

import json


def to_host(logits):
    return logits.float().cpu()


def encode(tokens):
    return json.dumps(tokens)
