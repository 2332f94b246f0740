import time

import torch


def watch_memory(every):
    while True:
        torch.cuda.synchronize()
        print(torch.cuda.memory_allocated())
        time.sleep(every)


def log_progress(every, steps):
    while True:
        print(f"{steps.value} steps")
        time.sleep(every)
