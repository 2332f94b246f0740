"""Rollout workers whose policies tensordict's CudaGraphModule captures on first use."""

import threading
import time

import torch
from tensordict.nn import CudaGraphModule

from rollout import graphs
from rollout.acting import GraphedPolicy, PlainPolicy
from rollout.monitor import report_device_stats, report_wall_time


class RolloutWorker:
    def __init__(self, policy, env):
        self.policy = CudaGraphModule(policy, warmup=3)
        self.env = env
        self.stats = torch.zeros(8, device="cuda")

    def run(self, steps):
        monitor = threading.Thread(target=report_device_stats, args=(self.stats,), daemon=True)
        monitor.start()
        td = self.env.reset()
        for _ in range(steps):
            td = self.policy(td)  # error: CUR401@18 "when CudaGraphModule begins a capture"
            td = self.env.step(td)

    def run_timed(self, steps):
        clock = threading.Thread(target=report_wall_time, args=(time.monotonic(),), daemon=True)
        clock.start()
        td = self.env.reset()
        for _ in range(steps):
            td = self.policy(td)  # ok: CUR401 (the thread does no CUDA work)
            td = self.env.step(td)

    def run_checked(self, steps):
        check = threading.Thread(target=report_device_stats, args=(self.stats,))
        check.start()
        check.join()
        td = self.env.reset()
        for _ in range(steps):
            td = self.policy(td)  # ok: CUR401 (joined before)
            td = self.env.step(td)


def rollout(policy, env, steps, stats, graphed):
    if graphed:
        policy = CudaGraphModule(policy, warmup=3)
    monitor = threading.Thread(target=report_device_stats, args=(stats,), daemon=True)
    monitor.start()
    td = env.reset()
    for _ in range(steps):
        td = policy(td)  # ok: CUR401 (graphed or not: the caller's choice)
        td = env.step(td)


def rollout_wrapped(policy, env, steps, stats):
    wrapped = graphs.CudaGraphModule(policy)
    monitor = threading.Thread(target=report_device_stats, args=(stats,), daemon=True)
    monitor.start()
    td = env.reset()
    for _ in range(steps):
        td = wrapped(td)  # ok: CUR401 (the project's own class, no capture)
        td = env.step(td)


def rollout_graphed(make_policy, env, steps, stats):
    graphed = CudaGraphModule(make_policy(), warmup=2)
    monitor = threading.Thread(target=report_device_stats, args=(stats,), daemon=True)
    monitor.start()
    td = env.reset()
    for _ in range(steps):
        td = graphed(td)  # error: CUR401@14 "thread `monitor`"
        td = env.step(td)


def rollout_acting(policy, env, steps, stats):
    pi = GraphedPolicy(policy)
    monitor = threading.Thread(target=report_device_stats, args=(stats,), daemon=True)
    monitor.start()
    td = env.reset()
    for _ in range(steps):
        td = pi.act(td)  # error: CUR401@14 "pi.act() (acting.py:12)"
        td = env.step(td)


def rollout_plain(policy, env, steps, stats):
    pi = PlainPolicy(policy)
    monitor = threading.Thread(target=report_device_stats, args=(stats,), daemon=True)
    monitor.start()
    td = env.reset()
    for _ in range(steps):
        td = pi.act(td)  # ok: CUR401 (the plain policy captures nothing)
        td = env.step(td)
