"""Decoding loops that copy the previous step's tokens out on a helper thread."""

import threading

import torch

from decoding.graphs import LazyDecoder, record_isolated


def copy_out(tokens, sink):
    sink.append(tokens.cpu())


def count_words(text, sink):
    sink.append(len(text.split()))


def record(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = model(static_input)
    return graph, static_output


def prepare(model, static_input):
    return record(model, static_input)


def decode_first(model, static_input, previous, sink):
    worker = threading.Thread(target=copy_out, args=(previous, sink))
    worker.start()
    graph, output = record(model, static_input)  # error: CUR401@21 "record() (line 20)"
    worker.join()
    return graph, output


def decode_prepared(model, static_input, previous, sink):
    worker = threading.Thread(target=copy_out, args=(previous, sink))
    worker.start()
    graph, output = prepare(model, static_input)  # error: CUR401@21 "prepare() through record() (line 20)"
    worker.join()
    return graph, output


def decode_joined(model, static_input, previous, sink):
    worker = threading.Thread(target=copy_out, args=(previous, sink))
    worker.start()
    worker.join()
    return record(model, static_input)  # ok: CUR401 (joined before)


def decode_counting(model, static_input, text, sink):
    worker = threading.Thread(target=count_words, args=(text, sink))
    worker.start()
    graph, output = record(model, static_input)  # ok: CUR401 (no CUDA in the thread)
    worker.join()
    return graph, output


def decode_isolated(model, static_input, previous, sink):
    worker = threading.Thread(target=copy_out, args=(previous, sink))
    worker.start()
    graph, output = record_isolated(model, static_input)  # ok: CUR401 (thread_local)
    worker.join()
    return graph, output


def decode_lazy(model, batch, previous, sink):
    decoder = LazyDecoder(model, (8, 512))
    worker = threading.Thread(target=copy_out, args=(previous, sink))
    worker.start()
    output = decoder(batch)  # error: CUR401@14 "decoder() (graphs.py:16)"
    worker.join()
    return output
