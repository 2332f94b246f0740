"""Decoder runners that capture their forward pass into a CUDA graph on first use."""

import torch


class LazyGraphRunner:
    def __init__(self, model, max_tokens):
        self.model = model
        self.static_ids = torch.zeros(max_tokens, dtype=torch.long, device="cuda")
        self.graph = None

    def forward(self, token_ids):
        self.static_ids[: token_ids.numel()].copy_(token_ids)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the coroutine running Engine.decode_loop()"
                self.static_logits = self.model(self.static_ids)
        self.graph.replay()
        return self.static_logits


class IsolatedGraphRunner(LazyGraphRunner):
    def forward(self, token_ids):
        self.static_ids[: token_ids.numel()].copy_(token_ids)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):  # ok: CUR401
                self.static_logits = self.model(self.static_ids)
        self.graph.replay()
        return self.static_logits
