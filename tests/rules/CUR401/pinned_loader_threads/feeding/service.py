"""A service decoding batches while loading threads keep the next ones coming."""

import queue
import threading
from concurrent.futures import ThreadPoolExecutor

from feeding.batches import (
    Prefetcher, feed_pinned, feed_pinned_by_workers, feed_plain, feed_unpinned,
    make_pinned_loader,
)
from feeding.graphs import LazyDecoder, LocalDecoder


class Service:
    def __init__(self, model, dataset):
        self.decoder = LazyDecoder(model)
        self.local = LocalDecoder(model)
        self.dataset = dataset
        self.batches = queue.Queue(maxsize=8)
        self.pool = ThreadPoolExecutor(max_workers=4)

    def decode_beside_pinning(self):
        threading.Thread(target=feed_pinned, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.decoder.step(self.batches.get())  # error: CUR401@16 "is alive when self.decoder.step() (graphs.py:16) begins a capture"

    def decode_beside_pin_thread(self):
        threading.Thread(target=feed_pinned_by_workers, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.decoder.step(self.batches.get())  # error: CUR401@16 "feed_pinned_by_workers() (batches.py)"

    def decode_in_pool(self, batch):
        loading = self.pool.submit(feed_pinned, self.dataset, self.batches)
        decoding = self.pool.submit(self.decoder.step, batch)  # error: CUR401@20 "may capture while other tasks of the pool run CUDA work"
        return loading, decoding.result()

    def decode_beside_prefetcher(self):
        prefetcher = Prefetcher(self.dataset, self.batches)
        threading.Thread(target=prefetcher.run, daemon=True).start()
        return self.decoder.step(self.batches.get())  # error: CUR401@16 "is alive when"

    def decode_beside_plain_loading(self):
        threading.Thread(target=feed_plain, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.decoder.step(self.batches.get())  # ok: CUR401 (no pin_memory, no workers)

    def decode_beside_unpinned_workers(self):
        threading.Thread(target=feed_unpinned, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.decoder.step(self.batches.get())  # ok: CUR401 (pin_memory=False)

    def decode_locally_beside_pinning(self):
        threading.Thread(target=feed_pinned, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.local.step(self.batches.get())  # ok: CUR401 (thread_local)

    def decode_after_pinning(self):
        loading = threading.Thread(target=feed_pinned, args=(self.dataset, self.batches))
        loading.start()
        loading.join()
        return self.decoder.step(self.batches.get())  # ok: CUR401 (joined before the capture)

    def decode_beside_loader_maker(self):
        threading.Thread(target=make_pinned_loader, args=(self.dataset, self.batches),
                         daemon=True).start()
        return self.decoder.step(self.batches.get())  # ok: CUR401 (made there, iterated nowhere)
