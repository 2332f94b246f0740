"""Background monitoring a rollout worker may run beside its policy."""

import time

import torch


def report_device_stats(stats):
    """Prints the running statistics, copying them from the device."""
    while True:
        print(stats.cpu())
        time.sleep(5.0)


def report_wall_time(started):
    while True:
        print(time.monotonic() - started)
        time.sleep(5.0)
