"""CUR402: a CUDA tensor read on the host to decide Python control flow, or turned into a
Python number, inside a capture: its __bool__/__int__/__float__ copy it to the host."""
import torch


def step(model, optimizer, static_x, threshold):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = torch.nn.functional.mse_loss(model(static_x), static_x)
        loss.backward()
        grad_norm = torch.linalg.vector_norm(static_x.grad)
        found_inf = torch.isinf(grad_norm).any()
        if found_inf:  # error: CUR402@12
            optimizer.zero_grad()
        if grad_norm > threshold:  # error: CUR402@12
            static_x.grad.mul_(threshold / grad_norm)
        scale = float(grad_norm)  # error: CUR402@17
        optimizer.step()
    return g, scale


def look_alikes(model, static_x, threshold, cpu_flags):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_x)
        if threshold > 0:  # ok: CUR402 (a Python number)
            out = out * threshold
        if cpu_flags is None:  # ok: CUR402 (identity: nothing is read)
            out = out + 1
        norm = torch.linalg.vector_norm(out)
        clipped = torch.where(norm > threshold, out / norm, out)  # ok: CUR402 (stays on the GPU)
    return g, clipped
