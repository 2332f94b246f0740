"""An actor-learner loop: acting and learning overlap on threads and executor tasks."""

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from worker.graphs import GraphedPolicy
from worker.replay import ReplayBuffer


class Actor:
    def __init__(self, network, storage):
        self.policy = GraphedPolicy(network, (64, 128))
        self.replay = ReplayBuffer(storage)
        self.device_lock = threading.Lock()
        self.device = ThreadPoolExecutor(max_workers=1)

    def act_locked(self, observations):
        with self.device_lock:
            return self.policy.act(observations)

    def learn_locked(self, errors):
        with self.device_lock:
            self.replay.update_priorities(errors)

    def act_free(self, observations):
        return self.policy.act(observations)

    def learn_free(self, errors):
        self.replay.update_priorities(errors)

    def step(self, observations, errors):
        threading.Thread(target=self.act_free, args=(observations,)).start()  # error: CUR401@9
        threading.Thread(target=self.learn_free, args=(errors,)).start()

    def step_locked(self, observations, errors):
        threading.Thread(target=self.act_locked, args=(observations,)).start()  # ok: CUR401 (one lock)
        threading.Thread(target=self.learn_locked, args=(errors,)).start()

    def step_after_learning(self, observations, errors):
        learner = threading.Thread(target=self.learn_free, args=(errors,))
        learner.start()
        learner.join()
        threading.Thread(target=self.act_free, args=(observations,)).start()  # ok: CUR401 (joined)

    def step_and_save(self, observations, path):
        threading.Thread(target=self.act_free, args=(observations,)).start()  # ok: CUR401 (CPU only)
        threading.Thread(target=self.replay.save_index, args=(path,)).start()

    def step_warmed(self, observations, errors):
        self.act_free(observations)
        threading.Thread(target=self.act_free, args=(observations,)).start()  # ok: CUR401 (warmed)
        threading.Thread(target=self.learn_free, args=(errors,)).start()

    async def step_serial(self, observations, errors):
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            loop.run_in_executor(self.device, self.policy.act, observations),  # ok: CUR401 (one worker)
            loop.run_in_executor(self.device, self.replay.update_priorities, errors),
        )

    async def act_on_loop(self, observations):
        return self.policy.act(observations)

    async def learn_on_loop(self, errors):
        self.replay.update_priorities(errors)

    async def learn_in_executor(self, errors):
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.replay.update_priorities, errors)

    async def step_on_loop(self, observations, errors):
        await asyncio.gather(self.act_on_loop(observations), self.learn_on_loop(errors))  # ok: CUR401 (one thread)

    async def step_beside_executor(self, observations, errors):
        await asyncio.gather(self.act_on_loop(observations),  # error: CUR401@30 "the coroutine started on line 77"
                             self.learn_in_executor(errors))
