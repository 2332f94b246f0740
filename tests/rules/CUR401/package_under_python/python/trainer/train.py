import threading

import torch

from trainer.health import log_progress, watch_memory


def record(model, static_input):
    watcher = threading.Thread(target=watch_memory, args=(5,), daemon=True)
    watcher.start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # error: CUR401@10 "watch_memory() (health.py)"
        static_output = model(static_input)
    return graph, static_output


def record_with_a_logger(model, static_input, steps):
    logger = threading.Thread(target=log_progress, args=(5, steps), daemon=True)
    logger.start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # ok: CUR401
        static_output = model(static_input)
    return graph, static_output
