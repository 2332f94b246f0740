"""Records the decoder's CUDA graph on a background thread while the server warms up."""

import threading

import torch


def capture_in_background(model, static_input):
    graph = torch.cuda.CUDAGraph()

    def record():
        with torch.cuda.graph(graph):
            model(static_input)

    thread = threading.Thread(target=record, daemon=True)
    thread.start()
    return graph, thread
