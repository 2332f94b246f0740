"""CUR402: a helper called in a capture reads on the host a CUDA tensor the region passes it."""
import torch


def skip_if_overflow(found_inf, optimizer):
    if found_inf:
        optimizer.zero_grad()


class Clipper:
    def __init__(self, max_norm):
        self.max_norm = max_norm

    def clip(self, total_norm, params):
        if total_norm > self.max_norm:
            torch._foreach_mul_(params, self.max_norm / total_norm)


def warn_if(found_inf, verbose):
    if verbose and found_inf:
        print("overflow")


def normalize(norm, out):
    norm = norm.clamp(min=1e-6)
    return out / norm


def train_step(model, optimizer, static_x, clipper, use_amp):
    params = list(model.parameters())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = model(static_x).sum()
        loss.backward()
        found_inf = torch.isinf(loss)
        skip_if_overflow(found_inf, optimizer)  # error: CUR402@9
        total = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params]))
        clipper.clip(total, params)  # ok: CUR402 (the clipper's class is not known here)
        Clipper(1.0).clip(total, params)  # ok: CUR402 (a call on a new object: not followed)
        skip_if_overflow(use_amp, optimizer)  # ok: CUR402 (a parameter of the step: not known)
        warn_if(found_inf, False)  # ok: CUR402 (read only when verbose)
        out = normalize(total, loss)  # ok: CUR402 (stays on the GPU)
        optimizer.step()
    return g, out
