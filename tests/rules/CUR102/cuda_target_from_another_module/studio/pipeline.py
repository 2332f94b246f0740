"""Forks to render after the session picked its device: two starts, one child on the GPU."""

import multiprocessing

from studio import render


def export(path):
    render_child = multiprocessing.Process(target=render.upscale, args=(path,))  # error: CUR102
    render_child.start()
    render_child.join()
    thumb_child = multiprocessing.Process(target=render.thumbnail, args=(path,))  # ok: CUR102
    thumb_child.start()
    thumb_child.join()


def export_spawned(path):
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=render.upscale, args=(path,))  # ok: CUR102
    child.start()
    child.join()


def start_child(*args, **kwargs):
    # the target is in `*args` or `**kwargs`: the code does not show it
    child = multiprocessing.Process(*args, **kwargs)  # ok: CUR102
    child.start()
    return child
