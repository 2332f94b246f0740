"""CUR402: a call that waits for the GPU inside a CUDA graph capture region."""

from __future__ import annotations

from cursedlint.analysis.c_capture_streams import CAPTURE_STREAMS
from cursedlint.analysis.c_thread_reach import C_THREAD_REACH
from cursedlint.analysis.capture_regions import REGION_TRIGGERS
from cursedlint.analysis.pushed_hooks import CALLED, TRIGGER as PUSHED_HOOK_WORDS
from cursedlint.findings import Step
from cursedlint.languages import C, CPP, PYTHON
from cursedlint.rule import Example
from cursedlint.rules.graph_capture.capture_rule import CaptureRule


class SyncInCapture(CaptureRule):
    """## What it does
    Finds a call inside a capture region (the body of `with torch.cuda.graph(...)`, the
    statements between `capture_begin()` and `capture_end()`, CuPy `begin_capture()` ...
    `end_capture()`, NVIDIA Warp's `with wp.ScopedCapture()` and `wp.capture_begin()` ...
    `wp.capture_end()` (not on `device="cpu"`, which Warp records without CUDA), cuda-python
    `cudaStreamBeginCapture` ... `cudaStreamEndCapture`) that
    waits for the GPU or is prohibited while a stream captures: `.item()`, `.cpu()`,
    `.tolist()`, `.numpy()`, `.nonzero()` and `torch.nonzero`, boolean-mask indexing
    (`x[x > 0]`), event or stream `.synchronize()` / `.query()`, `torch.cuda.synchronize()`,
    `torch.cuda.empty_cache()`, `cupy.asnumpy`, `wp.synchronize()`,
    `wp.synchronize_device()`/`_stream()`/`_event()` (a Warp array's `.numpy()` is the
    `.numpy()` above), `.get()` of a CuPy array and `.list()` of a Warp array known to be on
    the GPU (as below: a `cupy` function's result other than NumPy's scalar types and host
    queries, `wp.zeros(..., device="cuda:0")` and the other Warp factories given a CUDA
    device), and cuda-python's synchronizations, queries,
    `cudaMalloc`/`cudaFree` and synchronous `cudaMemcpy`/`cudaMemset` (and driver forms), and
    printing or formatting a CUDA tensor: `print(t)`, `str(t)`, `repr(t)`, `format(t)`,
    `f"{t}"`, `"%s" % t`, `"{}".format(t)`, and `logging` calls (module functions or a
    `logging.getLogger(...)` logger's methods) with `t` as an argument, and reading a CUDA
    tensor's value on the host: a condition of `if`, `while`, a conditional expression or
    `assert` that is the tensor, a comparison with it (not `is`, `in`), `not` of these, or
    the first operand of `and`/`or` (the later ones run only when it lets them) (`if
    found_inf:`, `if grad_norm > threshold:`), and `bool(t)`, `int(t)`,
    `float(t)`, `complex(t)`, `torch.equal`, `torch.allclose`, `t.equal(...)`,
    `t.allclose(...)` (observed on an H200: the capture fails with
    `cudaErrorStreamCaptureUnsupported`, or is invalidated; `torch.where(norm > 1, ...)` stays
    on the GPU and captures); and host data copied to a CUDA device, which waits for the
    copy: `torch.tensor(data, device=D)` or `torch.as_tensor(data, device=D)` of data not
    known to be on the GPU, `t.to(D)` or `t.cuda()` of a tensor the module makes once on the
    CPU (`torch.Tensor(...)`, a factory given no device, not pinned), without
    `non_blocking=True`, D a CUDA device or `x.device` of a CUDA tensor. A formatted or read value counts only when it is known to be a CUDA tensor: made on the GPU (`.cuda()`,
    `.to("cuda")`, `device="cuda"`), a CuPy function's array, a Warp factory's array on a
    CUDA device, the result of a torch op or `@` (the total norm
    `clip_grad_norm_` returns included), a tensor method,
    arithmetic, indexing, negation or one comparison (`out == target`: a bool tensor) on such
    a tensor, a name bound once, inside the region, to one
    of these, or a name (or `self` attribute) bound once anywhere to a tensor made on the
    GPU; and the output of an `nn.Module` (a `torch.nn` layer or a class deriving from
    `torch.nn.Module`, of this module or another, bound once to a name or `self` attribute,
    or a parameter annotated so) that is moved to CUDA (`.cuda()`, `.to("cuda")`,
    `device="cuda"`) or given such a tensor (`loss = model(static_x).sum()`, then `if loss >
    threshold:`; observed on an H200: the capture is invalidated). A parameter, a name
    bound outside the region to anything else, the output of a callable not known to be a
    module, `t.shape`, `t.dtype` and `len(t)` are not. Calls into the module's own functions and methods, and
    into another module's functions, are followed for the synchronizing calls, also where a
    name or `self` attribute the module binds once holds the function (`self.after_step =
    drain_device`, then `self.after_step()`) or a method of an instance of a project class
    (`self.step_fn = NormGatedOptimizer(params, inner).step`, or `optimizer.step` with the
    parameter `optimizer: NormGatedOptimizer`, or with an unannotated `__init__` parameter
    `optimizer` where every construction of the class in the module passes an instance of
    the same project class: `GraphedStep(model, NormGatedOptimizer(...))`), also where
    `__init__` sets the attribute to its parameter and the module's constructions of the
    class all pass the same function (`self.finish = finish`, `GraphedStep(...,
    finish=drain_device)`; given two, which one a capture runs is not known), and where an
    instance whose class defines `__call__` is called, or an instance of a project
    `torch.nn.Module` class (its `forward`), bound once, annotated, or given so by the
    constructions (`self.model = model`, `GraphedScorer(CheckedScorer(256).cuda(), ...)`);
    below it, the modules a `forward` calls are followed in turn, in other modules too, to
    the same depth (a `self` attribute bound once to `Block(...)`, a loop over an
    `nn.ModuleList`, an `nn.Sequential` or an `nn.ModuleDict`'s `.values()` of them, an
    `nn.Sequential`'s own call), where the call runs whenever the `forward` does (not under
    an `if`: `if not torch.cuda.is_current_stream_capturing(): x = self.check(x)` is left alone);
    a called function that reads or formats a CUDA tensor on the host as above
    (`if total > max_norm:` or `print(f"{total}")` on a torch op's result; not an `assert`'s
    message, made only when it fails), not under a condition of its own, is a
    finding too (observed on an H200 like the read in the region itself); the finding is the
    call in the region; so is a called function of the module that reads so, not under a
    condition of its own, a parameter the call passes such a tensor to (and the function
    never rebinds): `skip_if_overflow(found_inf, opt)` with `if found_inf:` in it, and a
    method of the module's own class called on an instance or through a stored bound method
    (`self.monitor.check(loss)`, an `nn.Module`'s `forward` for `self.unet(x, t)`). Where the
    region runs a backward (`loss.backward()`,
    `torch.autograd.backward`/`grad`, itself or in the module's functions it calls), a call
    that applies an autograd Function (`F.apply(...)`, of this module or reached in another)
    whose `backward` waits for the GPU whenever it runs, or reads on the host one of the
    gradients it is given (`if torch.equal(grad_output, ...)`: the captured backward's CUDA
    tensors), is a finding (observed on an H200: the capture is invalidated). Hooks the
    region runs are read like called functions, whenever they wait for the GPU: the pack hook
    of a `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):` in the region (its
    parameter is a tensor the captured forward saves, on the GPU), its unpack hook where a
    backward runs after it (given a CUDA tensor where the pack hook may return the one it is
    given), and the same hooks of `with Offload():` in the region, an instance of a class of
    the module that pushes them in its `__enter__`
    (`torch._C._autograd._push_saved_tensors_default_hooks`) or subclasses
    `saved_tensors_hooks`; a gradient hook `t.register_hook(fn)` registered in the region
    before a backward (its parameter a CUDA tensor where `t` is known to be one); a module's
    forward hooks (`register_forward_hook`, `register_forward_pre_hook`) and backward hooks
    (`register_full_backward_hook`, `_pre_hook`, `register_backward_hook`) registered on `m` in
    the region, on `self.m` by the statements of the class's `__init__`, or on `m` by the
    statements of the region's function before it (`m` not bound again after, the handle not
    removed), where the region calls `m(...)` (and, for backward hooks, runs a backward after it); the hook's function
    may be another module's; a forward hook's `output` parameter is a CUDA tensor where
    `m(...)` is known to return one. The finding is where the region runs it (the registration, or
    the module's call). A hook registered under a condition, on an object the module does not
    show, or by a library is not read. A module with no region that asks whether a capture
    is under way (`torch.cuda.is_current_stream_capturing()`, or a wrapper named
    `is_..._capturing()`, such as a project's `is_graph_capturing()`) says that its code runs
    in captures: the saved-tensors hooks it pushes itself
    (`torch._C._autograd._push_saved_tensors_default_hooks(pack, unpack)` in a context
    manager's `__enter__`, `saved_tensors_hooks(pack, unpack)`, `super().__init__(pack,
    unpack)` in a subclass of it; not under a test of the capture status) run in the captured
    forward (`pack`, given the saved CUDA tensor) and backward (`unpack`, given what `pack`
    returned: the tensor, where `pack` may return it as it is, itself or through a function
    or method of the module that returns its argument); such a hook that formats or reads its
    tensor on the host, or waits for the GPU, whenever it runs is a finding where it does
    (`debug(f"restoring {saved}")`: the f-string is built before `debug` tests its flag). In C/C++
    (CUDA sources included), the region is the statements of one block
    between `cudaStreamBeginCapture`/`cuStreamBeginCapture` and the
    `cudaStreamEndCapture`/`cuStreamEndCapture` of the same stream, and the calls are
    `cudaDeviceSynchronize`, `cudaStreamSynchronize`, `cudaEventSynchronize`,
    `cudaEventQuery`, `cudaStreamQuery`, `cudaMalloc` (not `cudaMallocAsync`), `cudaFree`,
    synchronous `cudaMemcpy`/`cudaMemset`, and their driver forms. `cudaMalloc`, `cudaFree`,
    `cuMemAlloc` and `cuMemFree` are reported only when the capture mode is not relaxed
    (`cudaStreamCaptureModeRelaxed`, `CU_STREAM_CAPTURE_MODE_RELAXED`, `"relaxed"`). A call
    in the region of a function of the project (this file or another, a header's method too)
    that reaches one of these calls within 6 calls is reported at the call in the region, with
    the chain down to it, where each call on the way runs whenever its function does (not
    under an `if`, `switch`, `?:`, `&&`/`||` or a preprocessor conditional such as `#ifdef
    DEBUG`) and every function on the way is the project's only definition of its name (a member call `obj.f()` included); calls through pointers and unknown functions
    are not followed. Two C++ shapes run while *another* capture is under way, one the
    region cannot show: a device-wide synchronization (`cudaDeviceSynchronize`,
    `cuCtxSynchronize`) whose guard asks only whether one stream captures
    (`cudaStreamIsCapturing(s, &status)`, `cuStreamIsCapturing`, a wrapper named so, then
    `if (status == cudaStreamCaptureStatusNone)` or an early return when it is not), in a
    project that begins a capture (in any file) on a stream written otherwise: synchronizing
    the device is invalid while any of its streams captures, so the check guards the wrong
    stream (a guard that also asks anything else about captures, `is_context_capturing(ctx)`,
    is left alone); and a `wait` override of a `c10d::Work` subclass (directly or through
    the file's classes) that waits on the host (`cudaEventSynchronize`,
    `cudaStreamSynchronize`, `cudaDeviceSynchronize`, driver forms, `synchronize()` of a
    member declared as an event or stream) whenever it runs with no timeout (no condition
    but `timeout == kNoTimeout`) and never asks about captures: PyTorch's collectives call
    `work.wait()` on the thread that issued them (`dist.barrier()`, `dist.all_reduce(t)`), the
    capturing thread where the application captures the collective.

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
    of the capturing stream fail with 900 and 901 in all three modes. CUDA's programming guide makes
    synchronizing "a broader handle which encompasses an active stream capture, such as a
    device or context handle" invalid too, whichever stream the caller checked
    (`tests/test_capture_guard_gpu.py` checks it on a GPU). Formatting a CUDA tensor copies
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
    triggers = (*REGION_TRIGGERS, ("IsCapturing", "Synchronize"), ("c10d", "wait"),
                PUSHED_HOOK_WORDS)
    """A region's words; a capture-status guard and a device synchronization
    (`c_capture_guards`); a `c10d::Work` subclass's `wait` (`c_framework_waits`); saved-tensors
    hooks of a module that asks whether it is captured (`pushed_hooks`)."""

    @classmethod
    def look(cls, options, target_python, language):
        """The capture rules' look, or the words of `pushed_hooks`."""
        from cursedlint.triggers.second_look import AllOf, AnyOf, Pattern, Text

        shape = super().look(options, target_python, language)
        if shape is None:
            return None
        return AnyOf((shape, AllOf((Text(frozenset({b"saved_tensors"})), Pattern(CALLED)))))
    reads_facts_of = (C_THREAD_REACH, CAPTURE_STREAMS)
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

