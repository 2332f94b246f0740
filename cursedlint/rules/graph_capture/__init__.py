"""CUR4xx: CUDA work that breaks CUDA graph capture.

CUR401 looks for threads alive when a capture region starts, CUR402 for synchronizing calls
inside a region, CUR403 for the incident's pinned DataLoader iterator, CUR404 for cuBLAS/cuDNN
work captured with no warm-up before it. The rules and their docs are here; each language's
checker is in its own module (`python`, `cpp`), over the shared analyses of regions
(`analysis.capture_regions`), CUDA use (`analysis.cuda_use`), threads
(`analysis.thread_starts`) and the project's functions (`analysis.cuda_reach`). A mode, a
thread target or a loader setting that the code does not show is not a finding.
"""

from __future__ import annotations

from cursedlint.analysis.capture_regions import (
    GRAPH_NAMES, REGION_TRIGGERS, REGION_WORDS, Region,
)
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.findings import Fix, Severity, Step
from cursedlint.languages import C, CPP, PYTHON
from cursedlint.rule import Example, Rule
from cursedlint.second_look import AnyOf, Call, Text

GRAPH_WORDS = tuple(w for w in REGION_TRIGGERS if isinstance(w, tuple))


class CaptureRule(Rule):
    """Base of the CUR4xx rules: their second look and the project index they read."""

    @classmethod
    def look(cls, options, target_python, language):
        """In Python every finding needs a capture region: one of the words that begin one,
        or torch.cuda.graph called by its own name (`torch.cuda.graph(`, not
        `allow_in_graph(`) or by a name it is imported `as`."""
        if language != "python":
            return None
        return AnyOf((Text(REGION_WORDS), Call(GRAPH_NAMES)))

    indexer = CUDA_REACH


class CudaThreadDuringCapture(CaptureRule):
    """## What it does
    Finds a capture region (`with torch.cuda.graph(...)`, `capture_begin()`, CuPy
    `begin_capture()`, `cudaStreamBeginCapture`, `make_graphed_callables`) that starts while a
    thread started earlier may make CUDA calls: a `threading.Thread` (or a `Thread` subclass
    with its own `run`), a `threading.Timer`, or a `ThreadPoolExecutor.submit`/`map` task,
    started before the region in the same function (or at module level, or in the class's
    `__init__`) and not joined, shut down or waited for before it. The thread's code is
    followed through the module's functions and methods, and into the project's other modules
    (a target imported from one, and what its functions call). Across modules, a call of
    another module's function that starts such a thread and leaves it running (a monitor whose
    `start()` starts the thread its `__init__` made), followed in the same function by a
    capture begun there or by another module's function, is reported at the call that begins
    the capture, unless a call between joins the thread through the same object; CUDA work is a `torch.cuda`, CuPy or
    cuda-python call, `.cuda()`, `.to("cuda")`, a tensor created with `device="cuda"`,
    `.pin_memory()`, `.cpu()`, `.item()`, `.tolist()`, and event or stream `.query()` /
    `.synchronize()`. Under `capture_error_mode="thread_local"` or `"relaxed"` only a
    device-wide synchronization in the thread (`torch.cuda.synchronize()`,
    `cupy.cuda.Device().synchronize()`, `cudaDeviceSynchronize`) is a finding. A thread whose
    code the module does not show is not a finding. In C/C++ (CUDA sources included), the
    threads are `std::thread`/`std::jthread` declarations and `pthread_create` calls before a
    `cudaStreamBeginCapture`/`cuStreamBeginCapture` in the same function, not joined
    (`t.join()`, `pthread_join`) before it, whose lambda or same-file function reaches a
    `cuda*`/`cu*` call; the mode is read from the mode constant.

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
    before capture, or doing CPU work only, is harmless.

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
    begin with `cudaStreamCaptureModeThreadLocal`. `--fix --unsafe-fixes` passes
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
        """,        Example(
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
        """,        Example(
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


class SyncInCapture(CaptureRule):
    """## What it does
    Finds a call inside a capture region (the body of `with torch.cuda.graph(...)`, the
    statements between `capture_begin()` and `capture_end()`, CuPy `begin_capture()` ...
    `end_capture()`, cuda-python `cudaStreamBeginCapture` ... `cudaStreamEndCapture`) that
    waits for the GPU or is prohibited while a stream captures: `.item()`, `.cpu()`,
    `.tolist()`, `.numpy()`, `.nonzero()` and `torch.nonzero`, boolean-mask indexing
    (`x[x > 0]`), event or stream `.synchronize()` / `.query()`, `torch.cuda.synchronize()`,
    `torch.cuda.empty_cache()`, `cupy.asnumpy`, and cuda-python's synchronizations, queries,
    `cudaMalloc`/`cudaFree` and synchronous `cudaMemcpy`/`cudaMemset` (and driver forms), and
    printing or formatting a CUDA tensor: `print(t)`, `str(t)`, `repr(t)`, `format(t)`,
    `f"{t}"`, `"%s" % t`, `"{}".format(t)`, and `logging` calls (module functions or a
    `logging.getLogger(...)` logger's methods) with `t` as an argument. A formatted value
    counts only when it is known to be a CUDA tensor: made on the GPU (`.cuda()`,
    `.to("cuda")`, `device="cuda"`), the result of a torch op or `@`, a tensor method,
    arithmetic or indexing on such a tensor, or a name bound once, inside the region, to one
    of these; a parameter, a name bound outside the region, a model's output, `t.shape`,
    `t.dtype` and `len(t)` are not. Calls into the module's own functions and methods are
    followed for the synchronizing calls; the finding is the call in the region. In C/C++
    (CUDA sources included), the region is the statements of one block
    between `cudaStreamBeginCapture`/`cuStreamBeginCapture` and the
    `cudaStreamEndCapture`/`cuStreamEndCapture` of the same stream, and the calls are
    `cudaDeviceSynchronize`, `cudaStreamSynchronize`, `cudaEventSynchronize`,
    `cudaEventQuery`, `cudaStreamQuery`, `cudaMalloc` (not `cudaMallocAsync`), `cudaFree`,
    synchronous `cudaMemcpy`/`cudaMemset`, and their driver forms. `cudaMalloc`, `cudaFree`,
    `cuMemAlloc` and `cuMemFree` are reported only when the capture mode is not relaxed
    (`cudaStreamCaptureModeRelaxed`, `CU_STREAM_CAPTURE_MODE_RELAXED`, `"relaxed"`).

    ## Why it is cursed
    Capture records GPU work without running it, so nothing can wait for a result, copy it to
    the host, or ask whether work finished: the call fails with "operation not permitted when
    stream is capturing" and invalidates the capture, in every capture mode. Verified on an
    H100 (PyTorch 2.11): `.item()` inside `torch.cuda.graph`, and `torch.cuda.synchronize()`
    between `capture_begin()` and `capture_end()`, both fail. Allocating and freeing
    (`cudaMalloc`, `cudaFree`, `cuMemAlloc`, `cuMemFree`) are "potentially unsafe" calls that
    global and thread-local captures prohibit and a relaxed capture allows. Verified on an
    H100 (driver 580, CUDA 13 runtime, `tests/test_capture_alloc_gpu.py`): in global and
    thread-local captures they return `cudaErrorStreamCaptureUnsupported` (900) and ending
    the capture returns `cudaErrorStreamCaptureInvalidated` (901); in a relaxed capture they
    return 0 and the capture ends with 0, while `cudaStreamSynchronize`/`cuStreamSynchronize`
    of the capturing stream fail with 900 and 901 in all three modes. Formatting a CUDA tensor copies
    its values to the host first (the same synchronizing copy as `.cpu()`), so a debugging
    `print(t)` or a log line in the captured step breaks the capture too. Where it does not
    raise, a host value read during capture would be frozen into the graph and never refreshed
    on replay.

    ## Example
    ```python
    with torch.cuda.graph(g):
        loss = criterion(model(static_input), static_target)
        print(loss.item())
    ```

    ## Fix
    Move the call out of the region: read values after `g.replay()` (or after
    `capture_end()`), keep data-dependent decisions on the GPU (`torch.where`, masks
    multiplied in), synchronize before the capture, and allocate before it.

    ## References
    - NVIDIA, CUDA graph constraints (no host-device synchronization during capture):
      https://docs.nvidia.com/dl-cuda-graph/cuda-graph-basics/constraints.html
    - NVIDIA, CUDA graph capture failures (`.item()`, `.cpu()` during capture):
      https://docs.nvidia.com/dl-cuda-graph/troubleshooting/capture-failures.html
    - `cudaStreamBeginCapture` (prohibited calls, capture modes):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    """

    code = "CUR402"
    name = "sync-in-capture"
    languages = (PYTHON, C, CPP)
    checkers = {PYTHON: "python:SyncInCapturePython", C: "cpp:SyncInCaptureC",
                CPP: "cpp:SyncInCaptureC"}
    triggers = REGION_TRIGGERS
    summary = "a call that waits for the GPU inside a CUDA graph capture region"

    valid = (
        """
        import torch

        def capture(model, criterion, x, target):
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    criterion(model(x), target).backward()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                loss = criterion(model(x), target)
                loss.backward()
            g.replay()
            print(loss.item())
            return g
        """,
        """
        import torch

        def capture(model, x):
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            g.capture_begin()
            y = model(x)
            g.capture_end()
            return g, y.sum()
        """,
        """
        import logging
        import torch

        log = logging.getLogger(__name__)

        def capture(model, x, steps):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for step in range(steps):
                    x = torch.tanh(model(x))
                    log.info("captured step %d, output %s %s", step, x.shape, x.dtype)
                print(f"captured {steps} steps of {type(model).__name__}")
            return g, x
        """,
        Example(
            """
            #include <cuda_runtime.h>

            __global__ void scale(const float *in, float *out) { out[threadIdx.x] = 2 * in[threadIdx.x]; }

            // relaxed mode allows allocating while the stream captures
            cudaGraph_t capture_step(cudaStream_t stream, const float *input, size_t bytes) {
                cudaGraph_t graph;
                float *scratch;
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
                cudaMalloc((void **)&scratch, bytes);
                scale<<<1, 256, 0, stream>>>(input, scratch);
                cudaStreamEndCapture(stream, &graph);
                return graph;
            }
            """,
            language="cpp",
        ),
    )
    invalid = (
        """
        import torch

        def capture(model, criterion, x, target):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                loss = criterion(model(x), target)
                print(loss.item())  # error: CUR402
            return g
        """,
        """
        import torch

        def capture(model, x):
            g = torch.cuda.CUDAGraph()
            g.capture_begin()
            y = model(x)
            torch.cuda.synchronize()  # error: CUR402
            g.capture_end()
            return g, y
        """,
        """
        import torch

        def capture(model, x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                probs = torch.softmax(model(x), dim=-1)
                print(f"probs: {probs}")  # error: CUR402
            return g, probs
        """,
        """
        import cupy as cp

        class Step:
            def capture(self, x):
                stream = cp.cuda.Stream(non_blocking=True)
                with stream:
                    stream.begin_capture()
                    y = self.normalize(x)  # error: CUR402
                    graph = stream.end_capture()
                return graph, y

            def normalize(self, x):
                return x / float(x.max().item())
        """,
        Example(
            """
            #include <cuda_runtime.h>

            cudaGraph_t capture_step(cudaStream_t stream, float *input, size_t bytes) {
                cudaGraph_t graph;
                float *scratch;
                cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
                cudaMalloc((void **)&scratch, bytes);  // error: CUR402
                scale<<<64, 256, 0, stream>>>(input, scratch);
                cudaStreamSynchronize(stream);  // error: CUR402
                cudaStreamEndCapture(stream, &graph);
                cudaStreamSynchronize(stream);
                return graph;
            }
            """,
            language="cpp",
        ),
    )

    def _report(self, node, begun_by: str, line: int, why: str, allocation: bool = False,
                steps: tuple[Step, ...] = ()) -> None:
        """`allocation`: the call is prohibited in global and thread-local captures only;
        `steps`: the chain through other modules."""
        modes = ("in a global or thread-local capture (a relaxed one allows it)" if allocation
                 else "whatever the capture mode")
        self.report(
            node,
            f"{why}, in the capture begun on line {line}",
            help=f"{begun_by} begins the capture on line {line}. A capturing stream records work without running it, so the call fails "
            "('operation not permitted when stream is capturing') and invalidates the "
            f"capture, {modes}. Fix: move it out of the region (read results after replay, "
            "synchronize or allocate before capture).",
            related=steps,
        )


class PinnedLoaderDuringCapture(CaptureRule):
    """## What it does
    Finds a global-mode capture region (`torch.cuda.graph` and `capture_begin()` without
    `capture_error_mode`, `make_graphed_callables`) that starts while the iterator of a
    `torch.utils.data.DataLoader` with `pin_memory=True` and worker processes
    (`num_workers > 0`, or a value the module does not show) exists: the region sits inside a
    `for` loop over the loader (also through `enumerate`/`zip`), or an `iter(loader)` was bound
    before it in the same function, or in an attribute by the class's `__init__`. The loader
    is found through its name, the `self` attribute the class assigns it to, or a factory of
    another module of the project that returns it; a call in the loop of another module's
    function that begins a global-mode capture is reported at that call, with the chain.

    ## Why it is cursed
    Such an iterator runs a pin-memory thread that copies each batch into pinned host memory;
    PyTorch's caching host allocator queries CUDA events to recycle pinned blocks. In the
    default global capture mode, that query from another thread invalidates the capture of the
    main thread, but only when it lands inside the capture: the exact shape of incident 001
    ("operation failed due to a previous error during capture", 1 run in 3 on 512 GPUs, three
    days to find). Verified on an H100 (PyTorch 2.11): iterating such a loader before and
    during capture fails every run, the pin-memory thread raising "operation not permitted
    when stream is capturing"; with `capture_error_mode="thread_local"`, or with the graph
    captured before the loader is created and iterated, capture succeeds.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for step, (x, y) in enumerate(loader):
        if step == 0:
            with torch.cuda.graph(g):
                loss = train_step(static_x, static_y)
    ```

    ## Fix
    Capture before the loader's iterator starts (capture once on static inputs, then loop over
    the loader and copy each batch into them), or pass
    `capture_error_mode="thread_local"` so that the pin-memory thread's calls no longer count
    (`--fix --unsafe-fixes` does this for a capture of the file).

    ## References
    - `torch.cuda.graph` (`capture_error_mode`):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.graphs.graph.html
    - `torch.utils.data` memory pinning (the pin-memory thread):
      https://docs.pytorch.org/docs/stable/data.html#memory-pinning
    - `cudaStreamBeginCapture` / `cudaThreadExchangeStreamCaptureMode` (global mode
      prohibits unsafe calls from every thread):
      https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html
    - NVIDIA, CUDA graph quick checklist ("DataLoader with pin_memory=True: use thread_local
      mode or disable pin_memory"):
      https://docs.nvidia.com/dl-cuda-graph/torch-cuda-graph/quick-checklist.html
    - Incident 001 (see the README's "Incidents"): the pin-memory thread's `cudaEventQuery`
      was one of the other threads' calls that broke a full-iteration capture
    """

    code = "CUR403"
    name = "pinned-loader-during-capture"
    languages = (PYTHON,)
    checkers = {PYTHON: "python:PinnedLoaderDuringCapturePython"}
    triggers = REGION_TRIGGERS  # the loader may come from another module's factory
    summary = "a pinned-memory DataLoader iterator is alive when a global-mode capture starts"

    valid = (
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_loss = model(static_x).sum()
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            for x in loader:
                static_x.copy_(x, non_blocking=True)
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            g = torch.cuda.CUDAGraph()
            for step, x in enumerate(loader):
                static_x.copy_(x, non_blocking=True)
                if step == 0:
                    with torch.cuda.graph(g, capture_error_mode="thread_local"):
                        static_loss = model(static_x).sum()
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, pin_memory=True)
            batches = iter(loader)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_loss = model(static_x).sum()
        """,
    )
    invalid = (
        """
        import torch
        from torch.utils.data import DataLoader

        def train(model, dataset, static_x):
            loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
            g = torch.cuda.CUDAGraph()
            for step, x in enumerate(loader):
                static_x.copy_(x, non_blocking=True)
                if step == 0:
                    with torch.cuda.graph(g):  # error: CUR403
                        static_loss = model(static_x).sum()
                g.replay()
        """,
        """
        import torch
        from torch.utils.data import DataLoader

        class Trainer:
            def __init__(self, dataset, workers):
                self.loader = DataLoader(dataset, num_workers=workers, pin_memory=True)
                self.batches = iter(self.loader)

            def capture(self, model, static_x):
                self.graph = torch.cuda.CUDAGraph()
                self.graph.capture_begin()  # error: CUR403
                self.out = model(static_x)
                self.graph.capture_end()
        """,
    )


class CaptureWithoutWarmup(CaptureRule):
    """## What it does
    Finds a `with torch.cuda.graph(...)` region that captures cuBLAS or cuDNN work while the
    function (or the module-level script) that holds it runs none before it. Library work is
    `@`, `torch.matmul`/`mm`/`bmm`/`addmm`/`baddbmm`/`addbmm`/`einsum`, the tensor methods
    `.matmul()`/`.mm()`/`.bmm()`, `torch.nn.functional.linear`/`bilinear`/`conv*`, and a call of
    a `torch.nn` layer the module creates (`Linear`, `Conv*d`, `ConvTranspose*d`, `LSTM`,
    `GRU`, `RNN`, `MultiheadAttention`, also inside `Sequential`, also moved with
    `.cuda()`/`.to(...)`), of a module class whose `forward` reaches one, or of a module
    function or method that reaches one; also across the project's modules: an instance of a
    class defined in another module whose `forward` reaches library work, or a function of
    another module that does (the finding shows the chain). A warm-up is anything before the region in the same
    function that initializes the libraries or may do so: a call of a callable the region
    calls (`model(x)` before `with torch.cuda.graph(g): model(x)`), a call that is passed such
    a callable (`warm_up(model)`, `torch.cuda.make_graphed_callables(model, ...)`), library
    work of its own or through the module's functions, or a `with torch.cuda.stream(...)` block
    that calls anything (PyTorch's documented warm-up loop). A model or function the module
    does not show (a parameter, a library's class) is not library work, and regions of
    `make_graphed_callables`, which warms up itself, are not checked.

    ## Why it is cursed
    cuBLAS and cuDNN create their handles and workspaces lazily, on a thread's first call.
    That set-up is not permitted while the stream captures: inside the region, the first
    matrix product fails with `CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate(handle)`
    and the capture is invalidated ("operation failed due to a previous error during
    capture"). PyTorch's CUDA graph examples run the captured work a few times on a side
    stream before capturing it, `make_graphed_callables` does the same, and warm-up is the
    answer PyTorch's forum gives to this error. Verified on an H100 (PyTorch 2.11, CUDA 13.0,
    cuDNN 9.19): a `torch.matmul` or an `nn.Linear` captured in a fresh process fails, and so
    does an `nn.Conv2d` (`CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED`); the
    `nn.Linear` capture after three warm-up calls on a side stream, and a matrix product
    captured after one run on the current stream, succeed. The failure appears only where
    nothing ran a matrix product earlier, so code that captures fine inside a long script can
    fail when the capture moves into a fresh process, test or server.

    ## Example
    ```python
    layer = torch.nn.Linear(1024, 1024).cuda()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = layer(static_in)
    ```

    ## Fix
    Warm up before capture, as PyTorch's CUDA graph examples do: on a side stream
    (`s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())`, then
    `with torch.cuda.stream(s):` run the captured step three times, then
    `torch.cuda.current_stream().wait_stream(s)`), or graph the callable with
    `torch.cuda.make_graphed_callables`, which runs the warm-up itself.

    ## References
    - PyTorch, CUDA semantics, "Whole-network capture" (warm-up on a side stream before
      capture): https://docs.pytorch.org/docs/stable/notes/cuda.html#whole-network-capture
    - `torch.cuda.make_graphed_callables` (`num_warmup_iters`, warms up before capturing):
      https://docs.pytorch.org/docs/stable/generated/torch.cuda.make_graphed_callables.html
    - PyTorch forums, "CUBLAS_STATUS_NOT_INITIALIZED when running CUDAGraph" (fixed by warm-up
      iterations):
      https://discuss.pytorch.org/t/cublas-status-not-initialized-when-running-cudagraph/170490
    - ROCm/pytorch#3354 (lazy hipBLASLt handle creation during capture fails; warm up first):
      https://github.com/ROCm/pytorch/pull/3354
    """

    code = "CUR404"
    name = "capture-without-warmup"
    languages = (PYTHON,)
    checkers = {PYTHON: "python:CaptureWithoutWarmupPython"}
    triggers = GRAPH_WORDS
    severity = Severity.WARNING
    summary = "cuBLAS or cuDNN work captured in a CUDA graph with no warm-up before it"

    valid = (
        """
        import torch

        def capture(static_x):
            layer = torch.nn.Linear(1024, 1024).cuda()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    layer(static_x)
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_y = layer(static_x)
            return g, static_y
        """,
        """
        import torch

        def capture(model, static_x):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_y = model(static_x)
            return g, static_y
        """,
        """
        import torch

        def capture(static_x, weight):
            graphed = torch.cuda.make_graphed_callables(torch.nn.Linear(64, 64).cuda(),
                                                        (static_x,))
            return graphed(static_x) @ weight
        """,
    )
    invalid = (
        """
        import torch

        def capture(static_x):
            layer = torch.nn.Linear(1024, 1024).cuda()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # warning: CUR404
                static_y = layer(static_x)
            return g, static_y
        """,
        """
        import torch
        from torch import nn

        class Attention(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.qkv = nn.Linear(width, 3 * width)

            def forward(self, x):
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v

        def capture(static_x):
            block = Attention(512).cuda()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # warning: CUR404
                static_y = block(static_x)
            return g, static_y
        """,
    )
