"""Batch recognition: a worker object made by the entry point forks for each file."""

import multiprocessing

from voice import decode


class BatchWorker:
    def __init__(self, files):
        self.files = files

    def go(self):
        for path in self.files:
            child = multiprocessing.Process(target=decode.recognize, args=(path,))  # error: CUR102
            child.start()
            child.join()


class EarlyWorker:
    def __init__(self, files):
        self.files = files

    def go(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.files[0],))  # ok: CUR102
        child.start()
        child.join()


class LocalWorker:
    def __init__(self, files):
        self.files = files

    def go(self):
        child = multiprocessing.Process(target=decode.recognize, args=(self.files[0],))  # error: CUR102
        child.start()
        child.join()


def run_local(files):
    decode.recognize(files[0])
    LocalWorker(files).go()
