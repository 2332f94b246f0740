import torch


class StepGraph:
    def __init__(self, step):
        self.step = step
        self.graph = None

    def capture(self, static_batch):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.static_loss = self.step(static_batch)

    def replay(self):
        self.graph.replay()
