"""Rebuilding a particle partition: cell offsets computed on the device."""

import numpy as np
import warp as wp


@wp.kernel
def count_cells(cells: wp.array(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(counts, cells[i], 1)


class CellPartition:
    def __init__(self, cell_count, device):
        self.counts = wp.zeros(cell_count, dtype=int, device=device)
        self.offsets = wp.zeros(cell_count + 1, dtype=int, device=device)
        self.device = device

    def rebuild(self, cells):
        self.counts.zero_()
        wp.launch(count_cells, dim=cells.shape[0], inputs=[cells, self.counts],
                  device=self.device)
        wp.utils.array_scan(self.counts, self.offsets, inclusive=False)
        # the host needs the total to size the next buffer: a copy back during capture
        total = int(self.offsets.numpy()[-1])
        return total

    def rebuild_bounded(self, cells):
        self.counts.zero_()
        wp.launch(count_cells, dim=cells.shape[0], inputs=[cells, self.counts],
                  device=self.device)
        wp.utils.array_scan(self.counts, self.offsets, inclusive=False)
        return self.offsets

    def report(self):
        return np.asarray(self.offsets.numpy())


def wait_all():
    wp.synchronize()
