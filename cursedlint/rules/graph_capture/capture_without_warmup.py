"""CUR404: cuBLAS or cuDNN work captured in a CUDA graph with no warm-up before it."""

from __future__ import annotations

from cursedlint.analysis.capture_regions import REGION_TRIGGERS
from cursedlint.findings import Severity
from cursedlint.languages import PYTHON
from cursedlint.rules.graph_capture.capture_rule import CaptureRule

GRAPH_WORDS = tuple(w for w in REGION_TRIGGERS if isinstance(w, tuple))
"""The region words that are pairs (`cuda` with `graph(`): `torch.cuda.graph` regions."""


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
