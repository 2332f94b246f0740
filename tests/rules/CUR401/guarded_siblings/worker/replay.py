"""The replay buffer: samples are moved to the GPU, priorities read back."""

import json


class ReplayBuffer:
    def __init__(self, storage):
        self.storage = storage

    def sample(self, batch_size):
        batch = self.storage.draw(batch_size)
        return batch.to("cuda", non_blocking=True)

    def update_priorities(self, errors):
        self.storage.set_priorities(errors.abs().cpu().numpy())

    def save_index(self, path):
        with open(path, "w") as handle:
            json.dump(self.storage.index(), handle)
