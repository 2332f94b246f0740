"""Policies the workers of other modules act with: one graphed by tensordict on its first
calls, one called as it is."""

from tensordict.nn import CudaGraphModule


class GraphedPolicy:
    def __init__(self, policy):
        self.graphed = CudaGraphModule(policy, warmup=3)

    def act(self, td):
        return self.graphed(td)


class PlainPolicy:
    def __init__(self, policy):
        self.policy = policy

    def act(self, td):
        return self.policy(td)
