"""Forks to render; nothing in this program touches CUDA before the fork."""

import multiprocessing

from studio import render


def export(path):
    child = multiprocessing.Process(target=render.upscale, args=(path,))  # ok: CUR102
    child.start()
    child.join()
