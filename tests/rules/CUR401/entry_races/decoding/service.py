"""The service: decoding steps run on executor threads next to other work."""

import threading
from concurrent.futures import ThreadPoolExecutor

from decoding.runners import (
    JoinedRunner, LazyRunner, LocalModeRunner, PrefillRunner, SerialRunner, TextRunner,
    WarmRunner,
)
from decoding.work import format_text, load_shard, score


class Service:
    def __init__(self, model, vocabulary):
        self.lazy = LazyRunner(model, 4096)
        self.prefill = PrefillRunner(model, 4096)
        self.local = LocalModeRunner(model, 4096)
        self.text = TextRunner(model, 4096)
        self.joined = JoinedRunner(model, 4096)
        self.warm = WarmRunner(model, 4096)
        self.serial = SerialRunner(model, 4096)
        self.vocabulary = vocabulary
        self.pool = ThreadPoolExecutor(max_workers=4)
        self.single = ThreadPoolExecutor(max_workers=1)

    def decode_all(self, batches):
        return [future.result() for future in
                [self.pool.submit(self.lazy.step, batch) for batch in batches]]  # error: CUR401@18 "may begin captures at once"

    def decode_all_locally(self, batches):
        return [future.result() for future in
                [self.pool.submit(self.local.step, batch) for batch in batches]]  # ok: CUR401

    def prefill_beside_scoring(self, batch, logits):
        scoring = threading.Thread(target=score, args=(logits,))
        scoring.start()
        prefill = threading.Thread(target=self.prefill.step, args=(batch,))
        prefill.start()  # error: CUR401@9 "may begin a global-mode capture while the thread started on line"
        scoring.join()
        prefill.join()

    def decode_beside_text(self, batch, token_ids):
        text = self.pool.submit(format_text, self.vocabulary, token_ids)
        out = self.pool.submit(self.text.step, batch)
        return text.result(), out.result()

    def decode_after_loading(self, batch, path):
        loading = threading.Thread(target=load_shard, args=(path,))
        loading.start()
        loading.join()
        decoding = threading.Thread(target=self.joined.step, args=(batch,))
        decoding.start()
        decoding.join()

    def decode_warm(self, batches):
        self.warm.step(batches[0])
        return [future.result() for future in
                [self.pool.submit(self.warm.step, batch) for batch in batches]]

    def decode_serially(self, batches):
        return [future.result() for future in
                [self.single.submit(self.serial.step, batch) for batch in batches]]
