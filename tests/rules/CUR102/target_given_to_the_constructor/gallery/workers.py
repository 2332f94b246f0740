"""Batch workers that run a processing step, given by whoever makes them, in a child."""

import multiprocessing

import torch

from gallery import steps


class BatchWorker:
    def __init__(self, processing_function, paths):
        self.processing_function = processing_function
        self.paths = paths

    def launch(self):
        print("indexing on", torch.cuda.get_device_name(0))  # initializes CUDA
        child = multiprocessing.Process(target=self.processing_function, args=(self.paths,))  # error: CUR102
        child.start()
        child.join()


class AuditWorker:
    """Given CPU-only steps here: the child uses no CUDA that the project shows."""

    def __init__(self, paths, processing_function=steps.checksum_images):
        self.paths = paths
        self.processing_function = processing_function

    def launch(self):
        torch.cuda.init()
        child = multiprocessing.Process(target=self.processing_function, args=(self.paths,))  # ok: CUR102
        child.start()
        child.join()


class TagWorker:
    """Made with a step a local picks in branches, one of them on the GPU."""

    def __init__(self, paths, processing_function):
        self.paths = paths
        self.processing_function = processing_function

    def launch(self):
        if torch.cuda.is_available():  # initializes CUDA
            child = multiprocessing.Process(target=self.processing_function, args=(self.paths,))  # error: CUR102
            child.start()
            child.join()


class PlainWorker:
    """The parent initializes no CUDA before the fork."""

    def __init__(self, processing_function, paths):
        self.processing_function = processing_function
        self.paths = paths

    def launch(self):
        child = multiprocessing.Process(target=self.processing_function, args=(self.paths,))  # ok: CUR102
        child.start()
        child.join()


class SpawnedWorker:
    """The child is spawned: it starts CUDA afresh."""

    def __init__(self, processing_function, paths):
        self.processing_function = processing_function
        self.paths = paths

    def launch(self):
        torch.cuda.init()
        context = multiprocessing.get_context("spawn")
        child = context.Process(target=self.processing_function, args=(self.paths,))  # ok: CUR102
        child.start()
        child.join()


def index_gallery(paths):
    BatchWorker(steps.embed_images, paths).launch()
    BatchWorker(processing_function=steps.count_pixels, paths=paths).launch()
    AuditWorker(paths).launch()
    if len(paths) > 1000:
        audit = steps.count_pixels
    else:
        audit = steps.checksum_images
    AuditWorker(paths, audit).launch()
    if paths[0].endswith(".png"):
        tagging = steps.embed_images
    else:
        tagging = steps.count_pixels
    TagWorker(paths, tagging).launch()
    SpawnedWorker(steps.embed_images, paths).launch()


def index_plain(paths):
    """Alone: after index_gallery(), whose workers initialize CUDA, its fork would break."""
    PlainWorker(steps.embed_images, paths).launch()
