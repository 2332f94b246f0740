"""CUR401: a thread that makes CUDA calls is alive when a CUDA graph capture starts."""

from __future__ import annotations

from cursedlint.analysis.capture_regions import REGION_TRIGGERS, UNIT_TRIGGERS, Region
from cursedlint.findings import Fix, Step
from cursedlint.languages import C, CPP, PYTHON
from cursedlint.rule import Example
from cursedlint.rules.graph_capture.capture_rule import CaptureRule


class CudaThreadDuringCapture(CaptureRule):
    """## What it does
    Finds a capture region (`with torch.cuda.graph(...)`, `capture_begin()`, CuPy
    `begin_capture()`, Warp `wp.ScopedCapture()`/`wp.capture_begin()` (thread-local unless
    `capture_mode` says otherwise), `cudaStreamBeginCapture`, `make_graphed_callables`, a
    call of tensordict's `CudaGraphModule` bound once to a name or `self` attribute: its
    `warmup`-th call captures the wrapped callable in global mode, and it takes no mode, so
    the fix is to stop the thread or make that call before it starts) that starts while a
    thread started earlier may make CUDA calls: a `threading.Thread` (or a `Thread` subclass
    with its own `run`), a `threading.Timer`, or a `ThreadPoolExecutor.submit`/`map` task,
    started before the region in the same function (or at module level, or in the class's
    `__init__`) and not joined, shut down or waited for before it; the region may be begun by
    a function the call there runs (`graph = record(model, x)`, `runner(x)` with `runner`
    an instance whose `__call__` captures; of the module, through its functions, or of
    another module), in global mode, reported at that call. The thread's code is
    followed through the module's functions and methods, and into the project's other modules
    (a target imported from one, and what its functions call). Across modules, a call of
    another module's function that starts such a thread and leaves it running (a monitor whose
    `start()` starts the thread its `__init__` made), followed in the same function by a
    capture begun there or by another module's function, is reported at the call that begins
    the capture, unless a call between joins the thread through the same object; CUDA work is a `torch.cuda`, CuPy or
    cuda-python call, `.cuda()`, `.to("cuda")`, a tensor created with `device="cuda"`,
    `.pin_memory()`, `.cpu()`, `.item()`, `.tolist()`, event or stream `.query()` /
    `.synchronize()`, and iterating a `DataLoader` made with `pin_memory=True` (a `for`
    loop over it, also through `enumerate`/`zip`/`cycle`/`islice`, or `iter(loader)`):
    each batch is pinned by the caching host allocator (`cudaHostAlloc`, event queries), in
    the iterating thread or, with workers, in the iterator's pin-memory thread. Under
    `capture_error_mode="thread_local"` or `"relaxed"` only a
    device-wide synchronization in the thread (`torch.cuda.synchronize()`,
    `cupy.cuda.Device().synchronize()`, `wp.synchronize()`, `cudaDeviceSynchronize`) is a
    finding. A thread whose
    code the module does not show is not a finding. Tasks of one `ThreadPoolExecutor` with
    more than one worker (none given, or a constant above one) that may each begin a capture
    are reported where they are started: `pool.map(f, items)`, or `pool.submit(f, ...)` in a
    loop or comprehension (not waited for on the spot), or asyncio's
    `loop.run_in_executor(executor, f, ...)` and `asyncio.to_thread(f, ...)` in a comprehension
    or in a loop that does not await each (the default executor has several workers), whose code (a function or method of
    the module or another module of the project, an instance of a project class (its
    `__call__`: `pool.submit(runner, batch)`), a method of the objects a loop or
    comprehension takes, `map`'s lambda calling its item's method) begins a `torch.cuda.graph`
    region in any mode or another region in global mode, unless the function ran that code
    itself before it started the tasks (a serial warm-up that captures each graph). A task
    whose code begins a global-mode region (a lazy capture on first use) is reported too when
    the same function starts, on the same pool of more than one worker (or the event loop's
    default executor), another task whose code reaches CUDA work (`.cpu()`, `.item()`, a
    kernel), with no wait (`await`, `.result()`, `wait()`, `gather()`) between the two
    starts. Across modules, the units a function runs at the same time (threads and
    executor tasks it starts, and coroutines it runs together with `asyncio.gather`,
    `create_task` or `ensure_future`, their code in this module or another, and, after one
    of those, a call of a function that runs work on other threads itself) are paired: a
    unit whose code begins a global-mode capture, on its own thread or in a thread or
    executor task it starts in turn (followed through the project's modules, callables
    handed to `run_in_executor`, `submit`, `to_thread` or a `Thread` included), is reported
    where it starts when another unit of the same function does CUDA work on another thread
    (two coroutines of one event loop share its thread), unless one was waited for (`await`,
    `.result()`, `join()`) before the other started, both are tasks of one pool (read as
    above), both run on the same single-worker executor, the code of both holds the same
    lock throughout, or the function ran the capturing code itself before. Such a pair
    started by another module's function (or a task started several times at once on a
    pool of more than one worker, which its copies pair) is also reported at the
    global-mode capture its code reaches, in the capture's module, the chain naming both
    starts. Two calls of one function, each of another module's function or class that
    starts a thread and leaves it running (an engine and an image encoder made by a server's
    `__init__`), are reported at the first call whose thread begins a global-mode capture
    (lazily, on its first request: so in either order) when the other's thread does CUDA
    work; the thread's code is followed through `self` attributes holding instances of the
    project's classes (`self.runner(x)` with `self.runner = GraphRunner(...)`). A capture
    in a thread's own code is not one that thread is alive beside. In C/C++ (CUDA
    sources included), the
    threads are `std::thread`/`std::jthread` declarations (also of the thread a same-file
    function returns, `return std::thread(f, ...)`) and `pthread_create` calls before a
    `cudaStreamBeginCapture`/`cuStreamBeginCapture` in the same function, not joined
    (`t.join()`, `pthread_join`) before it, whose lambda or same-file function reaches a
    `cuda*`/`cu*` call (in global mode, also through the project's functions in other files);
    the mode is read from the mode constant. A global-mode begin capture is reported too when
    a thread doing CUDA work was started earlier through calls, in any file: by a function
    called before the begin (or before the call that leads to the capturing function, within
    6 calls, in one of its callers, the caller's own threads included), which leaves it
    running (kept in a vector, a member or a global, detached, a `pthread_create` handle, with
    no join after it in that function; a thread it returns, a `std::async` task or a
    `std::jthread` does not count; a member vector declared in a header counts where the
    project declares that name a vector of threads and no other vector), with no call between
    that may join threads (a join, or a function joining within 2 calls). So is one in a
    member function of a class whose constructor starts such a thread and leaves it running
    (in its body, or in a member initializer of a member the project declares a thread,
    `worker_(&C::run, this)`): the thread runs by the time any other member function of the
    object does (not where the constructor calls the capturing function, the capture runs
    on that thread itself, or a join may come before it). A C/C++ thread whose code sets its own capture mode
    (`cudaThreadExchangeStreamCaptureMode`, as a proxy thread turning relaxed does) counts
    only for a device-wide synchronization. A global-mode begin capture in
    a function that runs on one of several threads the project starts on one function, in
    any file (started in a loop, into a vector of threads with `emplace_back`/`push_back`,
    twice or more in one function without a join between, or by a function called in a
    loop, such as a `makeThread` returning a `std::thread`; `std::async(std::launch::async,
    ...)` too; an OpenMP `#pragma omp parallel` or `parallel for` region, whose threads run
    its block at once), is reported at the begin capture when the threads' function reaches it
    within 6 calls: the sibling threads run the same code, with its CUDA API calls, while this
    one captures. A global-mode begin capture inside such a region's block is reported when
    the block (what every thread runs: `single`/`master`/`critical` parts left out) or, in
    `parallel sections`, another section reaches a CUDA API call through the file's
    functions, and one in any mode when it reaches a device-wide synchronization; a team of one (`num_threads(1)`), a region ended before the capture, and a
    block setting its threads' capture mode are not findings. The chain shows where the threads
    start, the path to the capture and the first CUDA API call on it. Calls resolve by name only where the project defines one function of that name
    (a caller defined once in its class is told apart from other classes' functions of its name);
    threads started in a loop and joined in the same iteration, a single thread, and threads
    a library starts are not findings.

    ## Why it is cursed
    In the default `"global"` mode, a capture-unsafe CUDA call from *any* thread while the
    capture runs (an event query, an allocation, a synchronization) invalidates it: capture
    fails with "operation failed due to a previous error during capture", only when the
    thread happens to call at that moment. Incident 001: a thread queried CUDA events during
    a full-iteration capture; it failed 1 run in 3 on 512 GPUs and took three days to find.
    A device-wide synchronization waits for the capturing stream, which is illegal in every
    mode. Verified on an H100 (PyTorch 2.11): a thread polling `Event.query()`, allocating
    CUDA tensors or calling `.cpu()` breaks a global-mode capture; `thread_local` fixes the
    query and allocation cases, not a thread's `torch.cuda.synchronize()`; a thread joined
    before capture, or doing CPU work only, is harmless. Tasks that capture at once break
    each other: `torch.cuda.graph` begins by synchronizing the device; on an H200 a pool of 4
    workers capturing 8 graphs failed in the first rounds (`cudaErrorStreamCaptureInvalidated`,
    or the process aborted), in thread_local mode too, and with `capture_begin()` in global
    mode; not with `capture_begin()` in thread_local mode, on one worker, or after a serial
    warm-up. A lazy global-mode capture in one task while two sibling tasks of its pool call
    `.cpu()` or `.item()` failed from the first round on an H200 (the siblings: 'operation not
    permitted when stream is capturing'; the capture: invalidated); in thread_local mode,
    0 of 10 rounds failed.

    ## Example
    ```python
    threading.Thread(target=poll_events, daemon=True).start()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = model(static_input)
    ```

    ## Fix
    Join or stop the thread before capture (or start it after), or capture with
    `torch.cuda.graph(g, capture_error_mode="thread_local")` so that other threads' calls no
    longer count; a thread that synchronizes the whole device must be stopped, or synchronize
    only its own stream or event. In C/C++, join the thread before `cudaStreamBeginCapture`, or
    begin with `cudaStreamCaptureModeThreadLocal`. Capture pool tasks' graphs before the
    tasks start (call each once, serially), or run them on one worker. `--fix --unsafe-fixes` passes
    `capture_error_mode="thread_local"` to a global-mode `torch.cuda.graph(...)` or
    `capture_begin()` of the file, unless the thread synchronizes the whole device (unsafe:
    the capture no longer fails on another thread's call, which may hide another race).

    ## References
    - `torch.cuda.graph` (`capture_error_mode`: "global" errors on actions in other threads):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.graphs.graph.html
    - `cudaStreamBeginCapture` and `cudaThreadExchangeStreamCaptureMode` (capture modes):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - NVIDIA, CUDA graph quick checklist ("No background thread queries"):
      https://docs.nvidia.com/dl-cuda-graph/torch-cuda-graph/quick-checklist.html
    - Incident 001 (see the README's "Incidents"): a full-iteration capture failed in one run
      of three on 512 GPUs because the NCCL watchdog, the caching allocator and the
      pin-memory thread called `cudaEventQuery` from other threads
    """

    code = "CUR401"
    name = "cuda-thread-during-capture"
    languages = (PYTHON, C, CPP)
    checkers = {PYTHON: "python:CudaThreadDuringCapturePython",
                C: "cpp:CudaThreadDuringCaptureC", CPP: "cpp:CudaThreadDuringCaptureC"}
    triggers = REGION_TRIGGERS
    fact_gated = UNIT_TRIGGERS
    """A module running coroutines or executor tasks beside each other is parsed where it names
    a function reaching a global-mode capture (`CudaReach.gated_trigger_words`)."""

    summary = "a thread that makes CUDA calls is alive when a CUDA graph capture starts"

    valid = (
        """
        import threading
        import torch

        def warm_cache(x):
            torch.cuda.current_stream().synchronize()
            return x.cpu()

        def capture(model, x):
            worker = threading.Thread(target=warm_cache, args=(x,))
            worker.start()
            worker.join()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y = model(x)
            return g, y
        """,
        """
        import threading
        import time
        import torch

        def heartbeat():
            while True:
                time.sleep(5)
                print("alive")

        def capture(model, x):
            threading.Thread(target=heartbeat, daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                y = model(x)
            return g, y
        """,
        """
        import threading
        import torch

        def poll(event, stop):
            while not stop.is_set():
                event.query()

        def capture(model, x, event, stop):
            threading.Thread(target=poll, args=(event, stop), daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, capture_error_mode="thread_local"):
                y = model(x)
            return g, y
        """,
        Example(
            """
            #include <thread>
            #include <cuda_runtime.h>

            void poll_copies(cudaEvent_t done) {
                while (cudaEventQuery(done) == cudaErrorNotReady) {
                }
            }

            cudaGraph_t capture(cudaStream_t stream, cudaEvent_t done) {
                cudaGraph_t graph;
                std::thread poller(poll_copies, done);
                poller.join();
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
                cudaStreamEndCapture(stream, &graph);
                return graph;
            }
            """,
            language="cpp",
        ),
    )
    invalid = (
        """
        import threading
        import torch

        def poll(event, stop):
            while not stop.is_set():
                event.query()

        def capture(model, x, event, stop):
            threading.Thread(target=poll, args=(event, stop), daemon=True).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # error: CUR401
                y = model(x)
            return g, y
        """,
        """
        from concurrent.futures import ThreadPoolExecutor
        import torch

        def flush():
            torch.cuda.synchronize()

        def capture(model, x):
            pool = ThreadPoolExecutor(max_workers=1)
            pool.submit(flush)
            g = torch.cuda.CUDAGraph()
            g.capture_begin(capture_error_mode="thread_local")  # error: CUR401
            y = model(x)
            g.capture_end()
            return g, y
        """,
        """
        import threading
        import torch

        class MetricsLogger(threading.Thread):
            def __init__(self, queue):
                super().__init__(daemon=True)
                self.queue = queue

            def run(self):
                while True:
                    self.write(self.queue.get())

            def write(self, loss):
                print(float(loss.cpu()))

        def capture(model, x, queue):
            MetricsLogger(queue).start()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # error: CUR401
                y = model(x)
            return g, y
        """,
        Example(
            """
            #include <thread>
            #include <cuda_runtime.h>

            void poll_copies(cudaEvent_t done) {
                while (cudaEventQuery(done) == cudaErrorNotReady) {
                }
            }

            cudaGraph_t capture(cudaStream_t stream, cudaEvent_t done) {
                cudaGraph_t graph;
                std::thread poller(poll_copies, done);
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401
                cudaStreamEndCapture(stream, &graph);
                poller.join();
                return graph;
            }
            """,
            language="cpp",
        ),
    )

    def _report_thread(self, target, thread: str, region: Region, reached: str,
                       device_wide: bool, steps: tuple[Step, ...] = (),
                       fix: Fix | None = None) -> None:
        message = f"{thread} is alive when {region.what} begins a capture ({region.mode_words} mode)"
        if device_wide:
            help = (f"Its code reaches line {reached}: a device-wide synchronization waits for "
                    "the capturing stream, which invalidates the capture in every mode, "
                    "thread_local included. Fix: join or stop the thread before the capture, or "
                    "have it synchronize only its own stream or event.")
        else:
            help = (f"Its code reaches line {reached}. In global mode a capture-unsafe CUDA call "
                    "from any thread invalidates the capture ('operation failed due to a "
                    "previous error during capture'), at random, when the thread happens to "
                    "call. Fix: join or stop the thread before the capture, or pass "
                    "capture_error_mode=\"thread_local\" (cudaStreamCaptureModeThreadLocal).")
        self.report(target, message, related=steps, fix=fix, help=help)

