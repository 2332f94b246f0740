"""The forked workers: results in order whatever child computed them, a busy child does not
hold up the others, and a child that raises or dies is reported, never a silent gap."""

from __future__ import annotations

import os
import signal
import time

import pytest

from cursedlint.engine.forked import MAX_CHUNKS, WorkerError, forked_map

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def test_results_come_back_in_the_order_of_the_chunks():
    chunks = [list(range(n)) for n in range(40)]
    assert forked_map(sum, chunks, 3) == [sum(chunk) for chunk in chunks]


def test_every_chunk_is_computed_once_and_by_a_child():
    parent = os.getpid()
    pids = forked_map(lambda _: os.getpid(), list(range(30)), 2)
    assert parent not in pids and 1 <= len(set(pids)) <= 2


def test_a_slow_chunk_does_not_hold_up_the_others():
    """Chunk 0 sleeps; the other child takes every other chunk meanwhile."""

    def work(index):
        if index == 0:
            time.sleep(0.5)
        return os.getpid()

    pids = forked_map(work, list(range(20)), 2)
    assert pids.count(pids[0]) == 1


def test_large_results_do_not_block_the_children():
    chunks = list(range(8))
    results = forked_map(lambda n: bytes([n]) * (3 << 20), chunks, 2)
    assert [len(result) for result in results] == [3 << 20] * 8


def test_a_child_that_raises_is_reported_with_its_traceback():
    def work(n):
        if n == 3:
            raise KeyError("the third")
        return n

    with pytest.raises(WorkerError, match="KeyError: 'the third'"):
        forked_map(work, list(range(6)), 2)


def test_a_child_that_is_killed_is_reported():
    def work(n):
        if n == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return n

    with pytest.raises(WorkerError, match="SIGKILL"):
        forked_map(work, list(range(6)), 2)


def test_no_chunks_and_too_many_chunks():
    assert forked_map(len, [], 4) == []
    with pytest.raises(ValueError):
        forked_map(len, [[]] * (MAX_CHUNKS + 1), 2)


def test_work_stays_in_this_process_while_another_thread_runs(monkeypatch):
    """A fork beside a running thread would give the children its held locks forever."""
    import threading

    release = threading.Event()
    waiter = threading.Thread(target=release.wait)
    waiter.start()
    try:
        monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked beside a running thread"))
        assert forked_map(lambda chunk: (chunk, os.getpid()), [1, 2, 3], 2) == [
            (1, os.getpid()), (2, os.getpid()), (3, os.getpid())
        ]
    finally:
        release.set()
        waiter.join()


def test_kept_children_answer_a_later_message_with_what_they_hold():
    """`Workers` with `then`: each child keeps what its chunks left and answers the parent's
    message once every chunk's result is in; closing without a message ends them."""
    from cursedlint.engine.forked import Workers

    held: list[int] = []

    def work(n):
        held.append(n)
        return n * 2

    workers = Workers(work, list(range(10)), 2, then=lambda add: sorted(n + add for n in held))
    try:
        assert workers.results == [n * 2 for n in range(10)]
        answers = workers.finish(100)
    finally:
        workers.close()
    assert sorted(n for answer in answers for n in answer) == [n + 100 for n in range(10)]

    unused = Workers(work, list(range(4)), 2, then=lambda _: pytest.fail("no message was sent"))
    unused.close()
    assert unused.results == [0, 2, 4, 6] and unused.children == {}
