"""Captured scoring, with the model and the post-processing given to the constructor."""

import torch

from stepping.models import CheckedScorer, Normalizer, PlainScorer, SyncedNormalizer


class GraphedScorer:
    def __init__(self, model, post):
        self.model = model
        self.post = post
        self.static_x = torch.zeros(64, 256, device="cuda")

    def warm_up(self):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            self.post(self.model(self.static_x))
        torch.cuda.current_stream().wait_stream(side)

    def capture(self, threshold):
        self.warm_up()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            scores = self.model(self.static_x)  # error: CUR402@22 "self.model() reaches it"
            self.post(scores)  # error: CUR402@13 "self.post() reaches it"
            if scores.max() > threshold:  # error: CUR402@16 "`scores.max()`"
                scores.mul_(0.5)
        return graph


def build_checked():
    model = CheckedScorer(256).cuda()
    return GraphedScorer(model, SyncedNormalizer())


class PlainGraphedScorer:
    """Given a model with no host read and a post-processing without a wait."""

    def __init__(self, model, post):
        self.model = model
        self.post = post
        self.static_x = torch.zeros(64, 256, device="cuda")

    def capture(self):
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            self.post(self.model(self.static_x))
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            scores = self.model(self.static_x)  # ok: CUR402 (no host read in its forward)
            self.post(scores)  # ok: CUR402 (no wait)
        return graph


def build_plain():
    return PlainGraphedScorer(PlainScorer(256).cuda(), Normalizer())


class ChosenScorer:
    """Built with either model: which one a capture runs is not known."""

    def __init__(self, model, post):
        self.model = model
        self.post = post
        self.static_x = torch.zeros(64, 256, device="cuda")

    def capture(self):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            scores = self.model(self.static_x)  # ok: CUR402 (two models given)
            self.post(scores)  # ok: CUR402 (two post-processings given)
        return graph


def build_chosen(checked):
    if checked:
        return ChosenScorer(CheckedScorer(256).cuda(), SyncedNormalizer())
    return ChosenScorer(PlainScorer(256).cuda(), Normalizer())
