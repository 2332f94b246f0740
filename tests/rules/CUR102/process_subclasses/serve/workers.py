"""Worker processes written as multiprocessing.Process subclasses."""

import multiprocessing as mp

import torch

SPAWN = mp.get_context("spawn")


class Encoder(mp.Process):
    def __init__(self, requests, replies):
        super().__init__(daemon=True)
        self.requests = requests
        self.replies = replies

    def run(self):
        model = torch.jit.load("encoder.pt").cuda()
        for batch in iter(self.requests.get, None):
            self.replies.put(model(batch.cuda()).cpu())


class Heartbeat(mp.Process):
    """Writes a timestamp now and then: CPU work only."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path

    def run(self):
        import time

        while True:
            with open(self.path, "w") as handle:
                handle.write(str(time.time()))
            time.sleep(5)


class SpawnedEncoder(SPAWN.Process):
    def __init__(self, requests, replies):
        super().__init__(daemon=True)
        self.requests = requests
        self.replies = replies

    def run(self):
        model = torch.jit.load("encoder.pt").cuda()
        for batch in iter(self.requests.get, None):
            self.replies.put(model(batch.cuda()).cpu())


def serve(requests, replies):
    torch.cuda.set_device(0)  # initializes CUDA
    encoder = Encoder(requests, replies)  # error: CUR102
    encoder.start()
    Heartbeat("/tmp/alive").start()  # ok: CUR102
    SpawnedEncoder(requests, replies).start()  # ok: CUR102


def serve_first(requests, replies):
    # the encoder forks before anything here touches CUDA
    encoder = Encoder(requests, replies)  # ok: CUR102
    encoder.start()
    return encoder
