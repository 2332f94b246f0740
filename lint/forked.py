"""Work spread over forked copies of this process, without multiprocessing.

concurrent.futures' process pool imports multiprocessing, logging, socket, tempfile, shutil and
subprocess (about 17 ms, a twentieth of a cold run over the standard library) to fork a few
children. Here the children are plain forks: they inherit everything the parent has loaded,
take chunk numbers from one shared pipe (a child that finishes early takes the next chunk),
and send their results back pickled, each through a pipe of its own. A child of a process
with other threads inherits the locks they hold, never released (cursedlint's own hazard
CUR1xx): where another Python thread runs (cursedlint imported by a threaded program), the
work is done in this process instead.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import signal
import sys
from typing import Any, Callable, Sequence

_INDEX = 4  # bytes per chunk number in the task pipe
MAX_CHUNKS = 4096
"""The task pipe is filled before any child starts: its numbers must fit in a pipe's buffer."""


class WorkerError(RuntimeError):
    """A child raised (the message holds its traceback) or died before it finished."""


def forked_map(function: Callable[[Any], Any], chunks: Sequence[Any], jobs: int) -> list[Any]:
    """`[function(chunk) for chunk in chunks]`, computed by up to `jobs` forked children (in
    this process while another thread runs)."""
    if len(chunks) > MAX_CHUNKS:
        raise ValueError(f"at most {MAX_CHUNKS} chunks, not {len(chunks)}")
    if _other_threads():
        return [function(chunk) for chunk in chunks]
    tasks_read, tasks_write = os.pipe()
    numbers = b"".join(index.to_bytes(_INDEX, "little") for index in range(len(chunks)))
    os.write(tasks_write, numbers)
    os.close(tasks_write)  # the children see the end of the tasks once all are taken
    children: dict[int, int] = {}  # result pipe -> pid
    try:
        for _ in range(min(jobs, len(chunks))):
            result_read, result_write = os.pipe()
            pid = os.fork()
            if pid == 0:
                for other in (result_read, *children):
                    os.close(other)
                _child(function, chunks, tasks_read, result_write)
            os.close(result_write)
            children[result_read] = pid
        os.close(tasks_read)
        tasks_read = -1
        received = _receive(list(children))
    except BaseException:
        for pid in children.values():
            _stop(pid)
        raise
    finally:
        if tasks_read >= 0:
            os.close(tasks_read)
    results: list[Any] = [None] * len(chunks)
    done = [False] * len(chunks)
    for result_pipe, pid in children.items():
        _, status = os.waitpid(pid, 0)
        for index, value in received[result_pipe]:
            if index is None:
                raise WorkerError(f"a worker process raised:\n{value}")
            results[index], done[index] = value, True
        if not all(done) and os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            raise WorkerError(f"a worker process was killed ({name}) before it finished")
    if not all(done):
        raise WorkerError("a worker process ended before it finished")
    return results


def _other_threads() -> bool:
    """Whether a Python thread besides this one runs (none can without `threading`)."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


def _child(function, chunks, tasks: int, results: int) -> None:
    """Take chunk numbers until none is left, send (number, result) for each; never return."""
    status = 0
    with os.fdopen(results, "wb") as out:
        try:
            while len(taken := os.read(tasks, _INDEX)) == _INDEX:
                index = int.from_bytes(taken, "little")
                pickle.dump((index, function(chunks[index])), out, pickle.HIGHEST_PROTOCOL)
        except BaseException:
            import traceback

            pickle.dump((None, traceback.format_exc()), out)
            status = 1
    os._exit(status)  # no cleanup of the parent's: its buffers and exit handlers are not ours


def _receive(pipes: list[int]) -> dict[int, list[tuple[Any, Any]]]:
    """Everything each pipe carries until its end, unpickled: read as it comes, so that no
    child waits on a full pipe."""
    data = {pipe: bytearray() for pipe in pipes}
    open_pipes = list(pipes)
    while open_pipes:
        readable, _, _ = select.select(open_pipes, [], [])
        for pipe in readable:
            block = os.read(pipe, 1 << 20)
            if block:
                data[pipe] += block
            else:
                os.close(pipe)
                open_pipes.remove(pipe)
    received = {}
    for pipe, raw in data.items():
        stream, items = io.BytesIO(raw), []
        while stream.tell() < len(raw):
            try:
                items.append(pickle.load(stream))
            except (EOFError, pickle.UnpicklingError):
                break  # a child killed while it wrote: what came whole still counts
        received[pipe] = items
    return received


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
