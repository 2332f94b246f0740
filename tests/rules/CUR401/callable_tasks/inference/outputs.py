"""What the server does with a batch's results."""

import json


def to_host(logits):
    return logits.cpu().numpy()


def encode(tokens):
    return json.dumps(tokens)
