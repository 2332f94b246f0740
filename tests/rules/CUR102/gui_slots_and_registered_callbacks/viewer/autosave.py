"""Background saving: a timer made before the window asks about the GPU (its child counts
files), and an exit handler registered after it."""

import multiprocessing

from viewer import jobs


def autosave():
    child = multiprocessing.Process(target=jobs.count_images, args=("images",))  # ok: CUR102
    child.start()


def flush_cache():
    child = multiprocessing.Process(target=jobs.rebuild_thumbnails, args=("cache",))  # error: CUR102
    child.start()
    counter = multiprocessing.Process(target=jobs.count_images, args=("cache",))  # ok: CUR102
    counter.start()
