"""Functions called in a capture region that format a CUDA tensor: a synchronizing copy."""

import logging

import torch

log = logging.getLogger(__name__)
VERBOSE = False


def report_total(y):
    total = torch.sum(y)
    print(f"total {total}")


def describe(t):
    return "value %s" % (t,)


def report_shape(y):
    print(f"output {y.shape} {y.dtype}")


def check_nonempty(y):
    norm = torch.linalg.vector_norm(y)
    assert y.shape[0] > 0, f"empty output, norm {norm}"


def trace(y):
    if VERBOSE:
        print(torch.sum(y))


def capture(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = torch.relu(model(static_input))
        report_total(y)  # error: CUR402 "f-string formats the CUDA tensor `total`"
        message = describe(torch.sigmoid(y))  # error: CUR402 "formats the CUDA tensor `t`"
        report_shape(y)  # ok: CUR402 (shape and dtype are host values)
        check_nonempty(y)  # ok: CUR402 (the message is made only when the assert fails)
        trace(y)  # ok: CUR402 (only when verbose)
        describe(static_input)  # ok: CUR402 (a parameter: not known to be on the GPU)
        describe(torch.zeros(4))  # ok: CUR402 (a CPU tensor)
    return graph, message
