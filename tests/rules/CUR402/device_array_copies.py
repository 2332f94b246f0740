"""CuPy and Warp arrays on the GPU copied to the host inside a capture."""

import queue

import cupy as cp
import warp as wp


def normalize(x):
    peak = cp.max(cp.abs(x))
    if peak > 0:  # reads a CuPy array on the host
        return x / peak
    return x


def capture_cupy(x, jobs: queue.Queue):
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        y = cp.sqrt(x)
        host = y.get()  # error: CUR402 "`.get()` copies the device array `y`"
        job = jobs.get()  # ok: CUR402 (a queue, not an array)
        scale = cp.float32(2.0)  # ok: CUR402 (a host scalar)
        print(f"scale {scale}")  # ok: CUR402 (a host scalar formatted)
        z = normalize(y)  # error: CUR402 "tests the CUDA tensor `peak`"
        print(cp.linalg.norm(z))  # error: CUR402 "formats the CUDA tensor"
        graph = stream.end_capture()
    return graph, host, job


def capture_warp(n):
    staged = wp.zeros(n, dtype=float, device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        scratch = wp.zeros(n, dtype=float, device="cuda:0")
        values = scratch.list()  # error: CUR402 "Warp's `.list()`"
        on_cpu = wp.zeros(n, dtype=float, device="cpu").list()  # ok: CUR402 (a CPU array)
        before = staged.list()  # ok: CUR402 (bound outside the capture: not known here)
    return capture.graph, values, on_cpu, before
