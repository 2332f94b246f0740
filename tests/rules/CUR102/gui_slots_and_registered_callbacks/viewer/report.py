"""The report written at exit, registered in this module once CUDA is up (as a function, and
through a lambda calling one); a refresh registered before that, whose child does CPU work."""

import atexit
import multiprocessing
import threading

import torch

from viewer import jobs


def write_report():
    child = multiprocessing.Process(target=jobs.rebuild_thumbnails, args=("report",))  # error: CUR102
    child.start()


def save_snapshot(folder):
    child = multiprocessing.Process(target=jobs.rebuild_thumbnails, args=(folder,))  # error: CUR102
    child.start()


def archive(folder):
    child = multiprocessing.Process(target=jobs.rebuild_thumbnails, args=(folder,))  # ok: CUR102
    child.start()


def refresh_counts():
    child = multiprocessing.Process(target=jobs.count_images, args=("report",))  # ok: CUR102
    child.start()


def start_reporting():
    threading.Timer(30, refresh_counts).start()
    torch.cuda.init()
    atexit.register(write_report)
    atexit.register(lambda: save_snapshot("exit"))
    atexit.register(lambda archive: archive("exit"), print)
