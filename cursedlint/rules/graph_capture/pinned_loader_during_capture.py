"""CUR403: a pinned-memory DataLoader iterator is alive when a global-mode capture starts."""

from __future__ import annotations

from cursedlint.analysis.capture_regions import REGION_TRIGGERS
from cursedlint.languages import PYTHON
from cursedlint.rules.graph_capture.capture_rule import CaptureRule


class PinnedLoaderDuringCapture(CaptureRule):
    """## What it does
    Finds a global-mode capture region (`torch.cuda.graph` and `capture_begin()` without
    `capture_error_mode`, `make_graphed_callables`, a call of tensordict's `CudaGraphModule`
    bound once to a name or `self` attribute: its `warmup`-th call captures, in global mode,
    with no mode to choose) that starts while the iterator of a
    `torch.utils.data.DataLoader` with `pin_memory=True` and worker processes
    (`num_workers > 0`, or a value the module does not show) exists: the region sits inside a
    `for` loop over the loader (also through `enumerate`/`zip`/`itertools.cycle`/`islice`),
    or an `iter(loader)` (`itertools.cycle(loader)`, `islice(loader, n)`: each takes the
    loader's iterator when made) was bound before it in the same function, or in an attribute
    by the class's `__init__`. The loader
    is found through its name, the `self` attribute the class assigns it to, or a factory of
    another module of the project that returns it; a call in the loop of another module's
    function that begins a global-mode capture is reported at that call, with the chain.

    The loop may also be a framework's: a hook that PyTorch Lightning's `Trainer.fit` runs
    soon after each `next()` on its training iterator (a `Callback`'s `on_train_batch_start`,
    backward, zero-grad and `on_before_optimizer_step` hooks; a `LightningModule`'s same hooks,
    batch-transfer hooks, `training_step`, `backward`, `optimizer_step`), or that Hugging
    Face's `Trainer.train` runs likewise (a `TrainerCallback`'s `on_step_begin`,
    `on_pre_optimizer_step`, `on_optimizer_step` and `on_step_end`; a `Trainer` subclass's
    `training_step` and `compute_loss`),
    begins a global-mode capture, directly or through calls. The loader is the one the module
    gives the framework: `fit`'s `train_dataloaders`, the `train_dataloader()` of the
    datamodule or of the LightningModule (of the module, or another module's class), or
    transformers' default loader under the `TrainingArguments` the module makes (pinned by
    default, with a pin-memory thread only with `dataloader_num_workers > 0`). Lightning's
    validation loop (`Trainer.validate`, and `Trainer.fit`'s) is read the same way: a
    `Callback`'s `on_validation_batch_start`, a `LightningModule`'s `validation_step` and
    `on_validation_batch_start`, over `validate`'s `dataloaders`, `fit`'s `val_dataloaders`,
    or the `val_dataloader()` of the datamodule or LightningModule. Hooks that run
    before the iterator exists (`setup`, `on_fit_start`, `on_train_begin`, `on_epoch_begin`),
    or where the pin-memory thread was observed idle (`on_train_start`), are not reported
    (Lightning's `on_train_batch_end` and transformers' `on_step_end` are: captures there
    failed on an H200). A hook of a class of another module of the project is
    reported where the module hands the class to the Trainer; a Trainer whose loader the
    module does not show (arguments parsed from the command line) is not.

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

