"""CUR402: a comparison that answers a Python bool (`torch.equal`, `allclose`) or the norm that
gradient clipping returns, read on the host inside a capture."""
import torch
from torch.nn.utils import clip_grad_norm_


def train_step(model, optimizer, static_x, static_y, max_norm):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        logits = model(static_x)
        loss = torch.nn.functional.cross_entropy(logits, static_y)
        loss.backward()
        ones = torch.ones_like(loss)
        if torch.equal(loss, ones):  # error: CUR402@12
            optimizer.zero_grad()
        grad_norm = clip_grad_norm_(model.parameters(), max_norm)
        if grad_norm > 100 * max_norm:  # error: CUR402@12
            optimizer.zero_grad()
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        converged = total.allclose(torch.zeros_like(total))  # error: CUR402@21
        optimizer.step()
    return g, converged


def look_alikes(model, optimizer, static_x, expected, cpu_scale):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
        if torch.equal(expected, cpu_scale):  # ok: CUR402 (neither is known to be on the GPU)
            out = out * 2
        grad_norm = torch.linalg.vector_norm(out)
        clipped = torch.where(grad_norm > 1.0, out / grad_norm, out)  # ok: CUR402 (on the GPU)
        optimizer.step()
    if torch.equal(clipped, expected):  # ok: CUR402 (after the capture)
        print("unchanged")
    return g
