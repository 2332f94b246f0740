"""A policy network whose inference step is captured into a CUDA graph on its first call."""

import torch


class GraphedPolicy:
    def __init__(self, network, observation_shape):
        self.network = network
        self.observations = torch.zeros(observation_shape, device="cuda")
        self.graph = None

    def act(self, observations):
        self.observations.copy_(observations)
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):  # error: CUR401@18 "reached by the thread running Actor.act_free()"
                self.actions = self.network(self.observations)
        self.graph.replay()
        return self.actions
