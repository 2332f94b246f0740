"""Captures the serving models' decode step once per batch shape."""

import torch

from serving.model import Decoder, MultiHead, Pipeline, SafeDecoder, Tower


class GraphRunner:
    def __init__(self, depth, heads):
        self.decoder = Decoder(depth, heads).cuda()
        self.tower = Tower(heads).cuda()
        self.multi = MultiHead(heads).cuda()
        self.pipeline = Pipeline().cuda()
        self.safe = SafeDecoder(depth, heads).cuda()
        self.x = torch.zeros(8, 64, device="cuda")
        self.lengths = torch.ones(8, dtype=torch.long, device="cuda")
        self.graph = torch.cuda.CUDAGraph()

    def capture_decoder(self):
        with torch.cuda.graph(self.graph):
            self.y = self.decoder(self.x, self.lengths)  # error: CUR402 "attention.py:15"

    def capture_tower(self):
        with torch.cuda.graph(self.graph):
            self.y = self.tower(self.x, self.lengths)  # error: CUR402 "self.tower() reaches it"

    def capture_multi_head(self):
        with torch.cuda.graph(self.graph):
            self.y = self.multi(self.x, self.lengths)  # error: CUR402 "attention.py:15"

    def capture_pipeline(self):
        with torch.cuda.graph(self.graph):
            self.y = self.pipeline(self.x)  # error: CUR402 "attention.py:51"

    def capture_safe(self):
        self.safe.prefill(self.x, self.lengths)
        with torch.cuda.graph(self.graph):
            self.y = self.safe(self.x, self.lengths)  # ok: CUR402
