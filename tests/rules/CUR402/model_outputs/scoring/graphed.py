"""Captured scoring steps, some of which read the score on the host."""

import logging

import torch
from torch import nn

from scoring.models import Calibrated, Scorer, Tokenizer

logger = logging.getLogger(__name__)


def warm_up(model, x):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(side)


def capture_gated(threshold):
    model = Scorer().cuda()
    static_x = torch.zeros(64, 1024, device="cuda")
    warm_up(model, static_x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_x).sum()
        if loss > threshold:  # error: CUR402@12 "`loss`"
            static_x.mul_(0.5)
    return graph, loss


def capture_annotated(model: nn.Module, threshold):
    static_x = torch.zeros(64, 1024, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        score = model(static_x).mean()
        scale = float(score)  # error: CUR402@17 "`score`"
    return graph, scale


class GraphedScorer:
    def __init__(self):
        self.model = Calibrated()
        self.static_x = torch.zeros(64, 1024, device="cuda")
        self.graph = torch.cuda.CUDAGraph()

    def capture(self, threshold):
        with torch.cuda.graph(self.graph):
            peak = self.model(self.static_x).max()
            if peak > threshold:  # error: CUR402@16 "`peak`"
                self.static_x.mul_(0.5)


def capture_unknown(model, x, threshold):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(x).sum()
        if loss > threshold:  # ok: CUR402 (what `model` and `x` are is not shown)
            loss = loss * 0.5
    return graph, loss


def capture_on_device(threshold):
    model = Scorer().cuda()
    static_x = torch.zeros(64, 1024, device="cuda")
    warm_up(model, static_x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_x).sum()
        loss = torch.where(loss > threshold, loss * 0.5, loss)  # ok: CUR402 (on the device)
        logger.info("captured %s", model)  # ok: CUR402 (a module moved to CUDA, no tensor)
    return graph, loss


def capture_cpu_limit(threshold):
    model = Scorer().cuda()
    static_x = torch.zeros(64, 1024, device="cuda")
    limit = torch.tensor(threshold)
    warm_up(model, static_x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        loss = model(static_x).sum()
        if limit > 1.0:  # ok: CUR402 (a CPU tensor)
            loss = loss * 0.5
    return graph, loss


def capture_tokens(text):
    tokenizer = Tokenizer()
    static_x = torch.zeros(64, 1024, device="cuda")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tokens = tokenizer(static_x)
        if tokens:  # ok: CUR402 (not an nn.Module: a list)
            static_x.mul_(0.5)
    return graph
