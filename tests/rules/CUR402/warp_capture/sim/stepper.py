"""Graph-captured simulation steps built on the partition of another module."""

import warp as wp

from sim.partition import CellPartition, wait_all


class Stepper:
    def __init__(self, cell_count, device="cuda:0"):
        self.partition = CellPartition(cell_count, device)
        self.device = device

    def capture_rebuild(self, cells):
        with wp.ScopedCapture(device=self.device) as capture:
            self.partition.rebuild(cells)  # error: CUR402 "numpy"
        return capture.graph

    def capture_bounded(self, cells):
        with wp.ScopedCapture(device=self.device) as capture:
            self.partition.rebuild_bounded(cells)  # ok: CUR402 (offsets stay on the device)
        self.partition.report()  # ok: CUR402 (after the capture)
        return capture.graph

    def capture_and_wait(self, cells):
        wp.capture_begin(self.device)
        self.partition.rebuild_bounded(cells)  # ok: CUR402
        wait_all()  # error: CUR402 "wp.synchronize()"
        graph = wp.capture_end(self.device)
        wp.synchronize()  # ok: CUR402 (the capture has ended)
        return graph

    def capture_synchronizing(self, cells):
        with wp.ScopedCapture() as capture:
            self.partition.rebuild_bounded(cells)
            wp.synchronize_stream()  # error: CUR402 "waits for the stream"
        return capture.graph


def record_on_cpu(cells):
    """Warp records CPU work itself: nothing is captured by CUDA."""
    partition = CellPartition(64, "cpu")
    with wp.ScopedCapture(device="cpu") as capture:
        partition.rebuild(cells)  # ok: CUR402 (a CPU recording)
        wp.synchronize()  # ok: CUR402 (a CPU recording)
    return capture.graph


def uncaptured(cells):
    partition = CellPartition(64, "cuda:0")
    total = partition.rebuild(cells)  # ok: CUR402 (no capture)
    wp.synchronize()  # ok: CUR402 (no capture)
    return total
