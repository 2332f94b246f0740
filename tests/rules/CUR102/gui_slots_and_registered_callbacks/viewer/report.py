"""The report written at exit, registered in this module once CUDA is up; a refresh registered
before that, whose child does CPU work."""

import atexit
import multiprocessing
import threading

import torch

from viewer import jobs


def write_report():
    child = multiprocessing.Process(target=jobs.rebuild_thumbnails, args=("report",))  # error: CUR102
    child.start()


def refresh_counts():
    child = multiprocessing.Process(target=jobs.count_images, args=("report",))  # ok: CUR102
    child.start()


def start_reporting():
    threading.Timer(30, refresh_counts).start()
    torch.cuda.init()
    atexit.register(write_report)
