"""Image features for multimodal requests, and text for finished ones."""

import torch


class ImageEncoder:
    def __init__(self, backbone):
        self.backbone = backbone

    def encode(self, pixels):
        features = self.backbone(pixels.cuda(non_blocking=True))
        return features.cpu()


def detokenize(vocabulary, token_ids):
    return "".join(vocabulary[token] for token in token_ids)
