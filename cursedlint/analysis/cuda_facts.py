"""The kinds of fact the `cuda-reach` index keeps per project function (`analysis.cuda_reach`),
and the mark that names the kind answering a check of one module's code for a function of
another module (`remote_kind`). A kind is a `CudaFact`, never a bare string: a misspelt kind
is an error, not a lookup that silently finds nothing. The members are strings, so summaries
stay plain data: stored and digested by their values, and read back as those strings, which
look up the same entries."""

from __future__ import annotations

from enum import Enum


class CudaFact(str, Enum):
    """What a function does, by itself or through its module's functions."""

    DEVICE_WIDE = "device_wide"
    """Synchronizes the whole device (`CudaUse.device_wide_use`)."""
    CUDA = "cuda"
    """Uses CUDA (`CudaUse.any_use`)."""
    SURE_CUDA = "sure_cuda"
    """Surely uses CUDA, not only on a CUDA tensor (`CudaUse.sure_use`)."""
    CUDA_INIT = "cuda_init"
    """Leaves CUDA initialized in the process (`CudaUse.initializes`)."""
    CUDA_NEEDED = "cuda_needed"
    """Needs a working CUDA runtime (`CudaUse.needs_cuda`)."""
    HOST_SYNC = "host_sync"
    """Waits for the GPU, whenever it runs (`CudaUse.host_sync`, not under an `if`)."""
    BACKWARD_SYNC = "backward_sync"
    """Applies an autograd Function whose `backward` waits for the GPU (a finding where a
    captured region runs the backward)."""
    GLOBAL_CAPTURE = "global_capture"
    """Begins a global-mode capture (`CaptureAnalysis.begins`)."""
    LIBRARY_WORK = "library_work"
    """Runs cuBLAS or cuDNN (`LibraryWork.library_work`)."""
    PINNED_LOADER = "pinned_loader"
    """Returns a pinned DataLoader with worker processes."""
    THREAD_DEVICE_WIDE = "thread_device_wide"
    """Starts a thread, left running, whose code synchronizes the whole device."""
    THREAD_CUDA = "thread_cuda"
    """Starts a thread, left running, whose code uses CUDA."""
    THREAD_CAPTURE = "thread_capture"
    """Starts a thread, left running, whose code begins a global-mode capture (at a time
    the caller does not see: a lazy capture on the thread's first request)."""
    JOINS = "joins"
    """Joins or shuts down a thread or executor held in a `self` attribute."""
    TASK_CAPTURE = "task_capture"
    """Runs code on another thread (a thread or executor task it starts, waited for or not)
    that begins a global-mode capture."""
    TASK_CUDA = "task_cuda"
    """Runs code on another thread (as for `TASK_CAPTURE`) that uses CUDA."""
    SUBMITS_PARAMETER = "submits_parameter"
    """Submits its parameter to a thread pool of more than one worker (`run_async(fn)`:
    `ThreadStarts.submitted_parameter`, its `detail`), by itself alone."""
    TASKS_BESIDE = "tasks_beside"
    """Starts units that may run at the same time (`task_pairs.pairs_fact`: the pairs in
    `via`)."""


def remote_kind(kind: CudaFact):
    """Mark a check of one module's code (`CudaUse.first`'s kind: a method taking a node,
    answering why it does the thing or None) with the kind of fact that answers it for a
    function of another module: `CudaUse.remote` asks the project for that kind (the mark
    travels with the method, whatever its name)."""
    if not isinstance(kind, CudaFact):
        raise TypeError(f"a fact kind is a CudaFact, not {kind!r}")

    def mark(check):
        check.remote_kind = kind
        return check
    return mark
