"""Warp captures (thread-local by default) beside threads that synchronize."""

import threading

import warp as wp


def drain():
    while True:
        wp.synchronize()


def poll(arrays):
    for array in arrays:
        wp.launch(touch, dim=array.shape[0], inputs=[array])


@wp.kernel
def touch(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = values[i] + 1.0


def capture_beside_a_drainer(values):
    threading.Thread(target=drain, daemon=True).start()
    with wp.ScopedCapture() as capture:  # error: CUR401 "thread"
        wp.launch(touch, dim=values.shape[0], inputs=[values])
    return capture.graph


def capture_beside_a_launcher(values, others):
    threading.Thread(target=poll, args=(others,), daemon=True).start()
    with wp.ScopedCapture() as capture:  # ok: CUR401 (thread-local: another thread's launches are not captured)
        wp.launch(touch, dim=values.shape[0], inputs=[values])
    return capture.graph
