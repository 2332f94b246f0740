"""Work spread over forked copies of this process, without multiprocessing.

concurrent.futures' process pool imports multiprocessing, logging, socket, tempfile, shutil and
subprocess (about 17 ms, a twentieth of a cold run over the standard library) to fork a few
children. Here the children are plain forks: they inherit everything the parent has loaded,
take chunk numbers from one shared pipe (a child that finishes early takes the next chunk),
and send their results back pickled, each through a pipe of its own. `Workers` can keep the
children, and what they hold, after the chunks: each then runs one more function on a message
the parent sends once it has the chunks' results (the lint again, with the facts gathered from
them, on the trees the children parsed). A child of a process with other threads inherits the
locks they hold, never released (cursedlint's own hazard CUR1xx): where another Python thread
runs (cursedlint imported by a threaded program), the work is done in this process instead.
"""

from __future__ import annotations

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
    workers = Workers(function, chunks, jobs)
    workers.close()
    return workers.results


class Workers:
    """`[function(chunk) for chunk in chunks]` as `results`, computed by up to `jobs` forked
    children. With `then`, the children stay after their chunks: `finish(message)` has each
    return `then(message)`, and `close` (always called) ends those still waiting. In this
    process while another thread runs (`finish` then gives one answer)."""

    def __init__(self, function: Callable[[Any], Any], chunks: Sequence[Any], jobs: int,
                 then: Callable[[Any], Any] | None = None):
        if len(chunks) > MAX_CHUNKS:
            raise ValueError(f"at most {MAX_CHUNKS} chunks, not {len(chunks)}")
        self.then = then
        self.children: dict[int, list] = {}  # result pipe -> [pid, control pipe, bytes read]
        self.forked = not _other_threads()
        if not self.forked:
            self.results = [function(chunk) for chunk in chunks]
            return
        try:
            self._start(function, chunks, jobs)
            results: list[Any] = [None] * len(chunks)
            done = [False] * len(chunks)
            for index, value in self._receive(until=_CHUNKS_DONE):
                results[index], done[index] = value, True
            if not all(done):
                raise WorkerError(self._ended())
        except BaseException:
            self._stop_all()
            raise
        self.results = results

    def _start(self, function, chunks, jobs: int) -> None:
        tasks_read, tasks_write = os.pipe()
        numbers = b"".join(index.to_bytes(_INDEX, "little") for index in range(len(chunks)))
        os.write(tasks_write, numbers)
        os.close(tasks_write)  # the children see the end of the tasks once all are taken
        try:
            for _ in range(min(jobs, len(chunks))):
                result_read, result_write = os.pipe()
                control_read, control_write = os.pipe() if self.then else (-1, -1)
                pid = os.fork()
                if pid == 0:
                    for pipe, (_, control, _) in self.children.items():
                        _close(pipe, control)
                    _close(result_read, control_write)
                    _child(function, chunks, tasks_read, result_write, control_read, self.then)
                _close(result_write, control_read)
                self.children[result_read] = [pid, control_write, bytearray()]
        finally:
            os.close(tasks_read)

    def finish(self, message: Any) -> list[Any]:
        """Each child's `then(message)`; the children end after it."""
        if not self.forked:
            return [self.then(message)]
        data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
        try:
            for child in self.children.values():
                _write_all(child[1], len(data).to_bytes(8, "little") + data)
                _close(child[1])
                child[1] = -1
            answers = [value for _, value in self._receive(until=None)]
            if len(answers) < len(self.children):
                raise WorkerError(self._ended())
        except BaseException:
            self._stop_all()
            raise
        self._end_all()
        return answers

    def close(self) -> None:
        """End the children still waiting for a message (they leave without one)."""
        if self.forked:
            self._end_all()

    def _receive(self, until) -> list[tuple[Any, Any]]:
        """(index, value) frames from every child, read as they come (so that no child waits
        on a full pipe), until each sent `until` or closed its pipe. A child's error raises."""
        open_pipes = list(self.children)
        items = []
        while open_pipes:
            readable, _, _ = select.select(open_pipes, [], [])
            for pipe in readable:
                block = os.read(pipe, 1 << 20)
                if not block:
                    open_pipes.remove(pipe)
                    continue
                buffer = self.children[pipe][2]
                buffer += block
                while len(buffer) >= 8 and len(buffer) >= 8 + int.from_bytes(buffer[:8], "little"):
                    size = int.from_bytes(buffer[:8], "little")
                    index, value = pickle.loads(buffer[8:8 + size])
                    del buffer[:8 + size]
                    if index == _ERROR:
                        raise WorkerError(f"a worker process raised:\n{value}")
                    if index == until:
                        open_pipes.remove(pipe)
                        break
                    items.append((index, value))
        return items

    def _ended(self) -> str:
        """Why a child's results are missing (it has ended: its pipe closed)."""
        for status in self._end_all():
            if os.WIFSIGNALED(status):
                name = signal.Signals(os.WTERMSIG(status)).name
                return f"a worker process was killed ({name}) before it finished"
        return "a worker process ended before it finished"

    def _end_all(self) -> list[int]:
        """Close the pipes (a waiting child leaves) and wait for every child; their statuses."""
        statuses = []
        for pipe, (pid, control, _) in self.children.items():
            _close(pipe, control)
            statuses.append(os.waitpid(pid, 0)[1])
        self.children = {}
        return statuses

    def _stop_all(self) -> None:
        for pipe, (pid, control, _) in self.children.items():
            _stop(pid)
            _close(pipe, control)
        self.children = {}


def _other_threads() -> bool:
    """Whether a Python thread besides this one runs (none can without `threading`)."""
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


_ERROR, _CHUNKS_DONE = "error", "chunks done"
"""Frame indexes besides chunk numbers: a child's traceback, and the end of its chunks."""


def _child(function, chunks, tasks: int, results: int, control: int, then) -> None:
    """Take chunk numbers until none is left, send (number, result) for each; with `then`,
    wait for the parent's message and send (0, then(message)); never return."""
    status = 0
    with os.fdopen(results, "wb") as out:
        try:
            while len(taken := os.read(tasks, _INDEX)) == _INDEX:
                index = int.from_bytes(taken, "little")
                _send(out, (index, function(chunks[index])))
            if then is not None:
                _send(out, (_CHUNKS_DONE, None))
                out.flush()
                message = _read_message(control)
                if message is not None:
                    _send(out, (0, then(pickle.loads(message))))
        except BaseException:
            import traceback

            _send(out, (_ERROR, traceback.format_exc()))
            status = 1
    os._exit(status)  # no cleanup of the parent's: its buffers and exit handlers are not ours


def _send(out, item) -> None:
    """One frame: the pickle's length, then the pickle (a frame cut short is not read)."""
    data = pickle.dumps(item, pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(8, "little") + data)


def _read_message(control: int) -> bytes | None:
    """The parent's message, or None when it closed the pipe without one."""
    data = bytearray()
    while len(data) < 8 or len(data) < 8 + int.from_bytes(data[:8], "little"):
        block = os.read(control, 1 << 20)
        if not block:
            return None
        data += block
    return bytes(data[8:])


def _close(*pipes: int) -> None:
    for pipe in pipes:
        if pipe >= 0:
            os.close(pipe)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
