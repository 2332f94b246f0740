"""An inference server that runs model replicas on a thread pool."""

import asyncio
import concurrent.futures
from concurrent.futures import ThreadPoolExecutor

import torch

from serving.runners import IsolatedRunner, ReplicaRunner, capture_decoder_step


class LocalRunner:
    def __init__(self, model):
        self.model = model
        self.graph = None

    def step(self, batch):
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            self.graph.capture_begin()
            self.out = self.model(batch)
            self.graph.capture_end()
        self.graph.replay()
        return self.out


def serve_replicas(models, batches):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    with ThreadPoolExecutor(max_workers=len(runners)) as pool:
        futures = [pool.submit(runner.infer, batch)  # ok: CUR401 (workers not known)
                   for runner, batch in zip(runners, batches)]
    return [future.result() for future in futures]


def serve_on_four(models, batches):
    pool = ThreadPoolExecutor(max_workers=4)
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    futures = []
    for runner in runners:
        futures.append(pool.submit(runner.infer, batches[0]))  # error: CUR401@24
    return [future.result() for future in futures]


def serve_mapped(models, batch):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    with concurrent.futures.ThreadPoolExecutor() as pool:
        return list(pool.map(lambda runner: runner.infer(batch), runners))  # error: CUR401@21


def serve_local(models, batch):
    runners = [LocalRunner(model) for model in models]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return [pool.submit(r.step, batch) for r in runners]  # error: CUR401@17


def decode_in_parallel(decoders, tokens):
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(capture_decoder_step, decoders, tokens))  # error: CUR401@21


def serve_isolated(models, batch):
    runners = [IsolatedRunner(model, (8, 1024)) for model in models]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return [pool.submit(r.infer, batch) for r in runners]  # ok: CUR401 (thread_local)


def serve_one_worker(models, batch):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    with ThreadPoolExecutor(max_workers=1) as pool:
        return [pool.submit(r.infer, batch) for r in runners]  # ok: CUR401 (one worker)


def serve_warmed_up(models, batch):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    for runner in runners:
        runner.infer(batch)  # captured here, one at a time
    with ThreadPoolExecutor(max_workers=4) as pool:
        return [pool.submit(r.infer, batch) for r in runners]  # ok: CUR401 (replays only)


def serve_one_by_one(models, batch):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return [pool.submit(r.infer, batch).result() for r in runners]  # ok: CUR401


def serve_single(model, batch):
    runner = ReplicaRunner(model, (8, 1024))
    with ThreadPoolExecutor(max_workers=4) as pool:
        return pool.submit(runner.infer, batch).result()  # ok: CUR401 (one task)


class ReplicaPool:
    """Replicas made once, served by a pool each request."""

    def __init__(self, models):
        self.replicas = [ReplicaRunner(model, (8, 1024)) for model in models]
        self.pool = ThreadPoolExecutor(max_workers=4)

    def serve(self, batch):
        futures = [self.pool.submit(replica.infer, batch)  # error: CUR401@20
                   for replica in self.replicas]
        return [future.result() for future in futures]


async def serve_async(models, batch):
    loop = asyncio.get_running_loop()
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    return await asyncio.gather(
        *(loop.run_in_executor(None, runner.infer, batch)  # error: CUR401@11
          for runner in runners))


async def serve_async_threads(models, batch):
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    return await asyncio.gather(
        *[asyncio.to_thread(runner.infer, batch) for runner in runners])  # error: CUR401@11


async def serve_async_one_by_one(models, batch):
    loop = asyncio.get_running_loop()
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    for runner in runners:
        await loop.run_in_executor(None, runner.infer, batch)  # ok: CUR401 (awaited each)


async def serve_async_one_worker(models, batch):
    loop = asyncio.get_running_loop()
    runners = [ReplicaRunner(model, (8, 1024)) for model in models]
    single = ThreadPoolExecutor(max_workers=1)
    return await asyncio.gather(
        *(loop.run_in_executor(single, runner.infer, batch)  # ok: CUR401 (one worker)
          for runner in runners))
