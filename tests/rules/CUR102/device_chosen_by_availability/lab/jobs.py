"""What the workers run: each picks its device itself."""

import torch


def pick_device():
    """The best device this machine has."""
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def pick_device_late(preferred):
    if preferred == "cpu":
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def embed(path):
    model = torch.load(path).to(pick_device())
    torch.save(model.state_dict(), path + ".out")


def score(path):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    weights = torch.ones(16, device=device)
    return float(torch.load(path).matmul(weights).sum())


def score_on(path, use_gpu):
    device = torch.device("cuda" if use_gpu else "cpu")
    return float(torch.load(path).to(device).sum())


def score_if_allowed(path, use_gpu):
    device = "cuda" if torch.cuda.is_available() and use_gpu else "cpu"
    return float(torch.load(path).to(device).sum())


def score_late(path, preferred):
    return float(torch.load(path).to(pick_device_late(preferred)).sum())


def count(path):
    return len(torch.load(path))
