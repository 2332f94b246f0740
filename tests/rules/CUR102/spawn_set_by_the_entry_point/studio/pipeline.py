"""Forks to render by default; the entry point chooses spawn for the whole program."""

import multiprocessing

from studio import render


def export(path):
    child = multiprocessing.Process(target=render.upscale, args=(path,))  # ok: CUR102
    child.start()
    child.join()
