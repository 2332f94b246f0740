import torch


def capture_step(model, static_inputs):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = model(**static_inputs).loss
        static_loss.backward()
    return graph, static_loss
