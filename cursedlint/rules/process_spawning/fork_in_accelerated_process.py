"""CUR102: a fork whose child breaks on the CUDA or RDMA state the parent holds."""

from __future__ import annotations

from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.analysis.start_methods import START_METHODS
from cursedlint.findings import Severity
from cursedlint.languages import PYTHON
from cursedlint.rule import MODULE_NAME, Example, Option, Rule

ACCELERATOR_MODULES = (
    "torch", "cupy", "numba.cuda", "jax", "tensorflow", "pyverbs", "pycuda", "cuda", "nccl",
)
_FORK_WORDS = ("fork", "Process", "Pool", "Manager")
_PROCESS_MODULES = ("multiprocessing", "concurrent")


def _fork_and_library_words(modules) -> tuple[tuple[str, ...], ...]:
    """Triggers: a fork word together with the top-level name of an accelerator library; a
    fork word other than `fork` only with the module that can define it (every call CUR102
    reports is found through the import table: os.fork, os.forkpty and pty.fork hold `fork`,
    the rest are imported from (torch.)multiprocessing or concurrent.futures); and a
    DataLoader given `num_workers` in a file that names CUDA (a loader reported shows CUDA
    initialized before it, or a dataset that uses it, or calls into them by name); and a
    `multiprocessing` process given a `target` without a library (its code and the parent's
    CUDA state may be the project's other modules'), and a dataset's map given `num_proc`
    (likewise)."""
    libraries = sorted({module.partition(".")[0] for module in modules})
    return (
        *((("DataLoader", "num_workers", "cuda"),) if "torch" in libraries else ()),
        *(("fork", library) for library in libraries),
        *(
            (fork_word, process_module, library)
            for fork_word in _FORK_WORDS[1:]
            for process_module in _PROCESS_MODULES
            for library in libraries
        ),
        ("Process", "multiprocessing", "target"),
        ("num_proc",),
    )


class ForkInAcceleratedProcess(Rule):
    """## What it does
    Finds fork-based process starts that break because of what the forking process holds:
    - **the child uses CUDA, and CUDA was initialized before the fork** (error). The child's
      first CUDA call fails: "Cannot re-initialize CUDA in forked subprocess" (pinned memory:
      "CUDA error: initialization error");
    - **RDMA fork protection was turned on before the fork** (error): `os.environ` given
      `RDMAV_FORK_SAFE`, `IBV_FORK_SAFE`, `FI_EFA_FORK_SAFE` or `CXI_FORK_SAFE` (CUR103), so
      the child has none of the pages a registration shares.

    A fork-based start is `os.fork()`, `os.forkpty()`, `pty.fork()`, a `"fork"` start method
    (`multiprocessing.get_context("fork")` where it makes processes: `ctx.Pool()`,
    `ctx.Process()`, `ProcessPoolExecutor(mp_context=ctx)` (or the context written there),
    `self.ctx.Process()`;
    `torch.multiprocessing.start_processes(..., start_method="fork")`), and
    `multiprocessing.Process`/`Pool`/`Manager`, `multiprocessing.pool.Pool` and
    `concurrent.futures.ProcessPoolExecutor` without a context, which fork on Linux before
    Python 3.14 (3.14 made `forkserver` the default) or after `set_start_method("fork")`;
    and Hugging Face `datasets`' `map`/`filter` given `num_proc` (not a constant None, 0 or
    1), whose workers start from `multiprocess`, which forks on Linux on every Python until
    `multiprocess.set_start_method("spawn")` (multiprocessing's setting does not change it). The
    start method is followed through the code: a local, a `self` attribute, a parameter (its
    default, or what each call in the project passes), a constant of another module, a config
    class's default; where it is unknown, nothing is reported. The module must import a CUDA
    or RDMA library (option `modules`), or a module of the project: a `multiprocessing`
    start or a dataset's map there is judged on what the project's other modules show (the
    child's code from another module, CUDA initialized by a caller in another module); where
    they show no CUDA work in the child, it is not reported, with `all-forks` neither.

    **CUDA initialized** is shown by what runs before the start: in its function (earlier
    statements of each enclosing block, an earlier loop iteration), at import time, in the
    `__main__` block, and before each call of the function, in the module and in the project's
    other modules (the callers' callers too); for a method, in the constructor of its instance
    (the class's `__init__`, the base's it inherits or calls through `super().__init__()`,
    in the module or the project) and before each construction of its class (`Worker(...)`,
    in the module and the project), since the instance was made before any method ran on
    it; before each registration of the function, which a library runs later in the same
    process (a slot, `button.clicked.connect(self.on_click)`; `threading.Thread(target=f)`,
    `threading.Timer(t, f)`, `QTimer.singleShot(t, f)`, `atexit.register(f)`,
    `signal.signal(s, f)`, also through `functools.partial`); a class called through a loop
    variable over a literal collection (`for title, (cls, n) in {"a": (A, 1)}.items():
    cls()`) is constructed there. A caller in another module counts what the functions it
    calls there do, and a caller that runs only after its entry point set 'spawn' is no way
    to a default-context fork. CUDA work initializes it (`.cuda()`,
    `.to("cuda")`, a tensor made on a CUDA device, `torch.cuda.*`, `cupy`, `numba.cuda`), and
    so do the queries that ask the runtime: `torch.cuda.is_available()` (unless
    `PYTORCH_NVML_BASED_CUDA_CHECK=1` makes it ask NVML), `current_device()`, `set_device()`,
    `get_device_*()`, `mem_get_info()`, and an NCCL process group. Importing torch, CPU
    tensors, `torch.cuda.is_initialized()` and `device_count()` (PyTorch asks NVML first)
    initialize nothing.
    **The child uses CUDA** where the code it runs is shown and surely does CUDA work or
    allocates pinned memory, or puts a tensor on a device chosen by
    `torch.cuda.is_available()` (`"cuda" if torch.cuda.is_available() else "cpu"`, a function
    of the module that returns "cuda" first under that test): the child answers as its parent
    did, so after a parent that initialized CUDA it picks CUDA. Code the children run: `Process(target=f)` (`target=self.f`, where `__init__` sets
    `self.f` from its parameter: each callable the module's calls of the class pass for it,
    each value of a local they pass),
    the `run()` of a `multiprocessing.Process`
    subclass the module defines (`Worker(...).start()`), `pool.map(f, ...)`/`apply`/`submit` on the
    pool or executor the start makes (also through `self.pool` in the class), its
    `initializer`, a DataLoader's dataset `__getitem__`, `collate_fn` and `worker_init_fn`
    (its workers fork where it is iterated, when `num_workers` is given and no
    `multiprocessing_context`), the function a dataset's `map`/`filter` is given, the branch
    after `os.fork()` that tests the result against 0 (`if pid == 0:`), into the module's and
    the project's functions. A `Manager()`'s server
    runs multiprocessing's own code.

    Not reported: a start on a branch the module's constants rule out (`workers = None` then
    `if workers is not None and workers > 1:`) or that only Windows takes; a start behind a
    check that refuses it when CUDA is initialized (`if torch.cuda.is_initialized(): raise`);
    a default-context start in a function every call of which runs after the entry point set
    `spawn` or `forkserver` (also a method called on an object made before the setting, or
    one whose class is constructed only after it; for a dataset's map, multiprocess's
    setting); a
    test of fork behaviour (a test module, class or function whose name says fork); anything
    in a project that runs only on Windows, which has no fork (see CUR101: its packaging
    classifiers name Windows alone and its configuration sets no `libc`).

    **`all-forks = true`** also lists, as warnings, the fork-based starts the project leaves
    open: CUDA initialized but the children's code not shown; a child that uses CUDA where
    the project does not show whether CUDA was initialized ("callers of f() decide"); neither
    shown; and `set_start_method("fork")` itself. A start in the entry point before any CUDA
    work whose children are known to do CPU work only stays silent, as does one whose
    children do CPU work only after CUDA was initialized (such a fork works).

    ## Why it is cursed
    A forked child is a copy of the parent without its threads. A CUDA runtime initialized in
    the parent cannot be used in it, and PyTorch refuses ("Cannot re-initialize CUDA in forked
    subprocess") or the driver fails ("initialization error"); a child doing CPU work is fine,
    so the same pool works for one task and breaks for the next. Memory registered with
    libibverbs under fork protection is marked `MADV_DONTFORK`, so those pages are missing in
    the child: reading them crashes, and the malloc arenas or strings that share a page with
    a small registration go with them. Whether it breaks depends on what the parent did
    before the fork, often in another module, so it breaks rarely, far from the cause.

    ## Example
    ```python
    import multiprocessing
    import torch

    def embed(shard):
        return model(torch.load(shard).cuda())

    device = "cuda" if torch.cuda.is_available() else "cpu"  # initializes CUDA
    with multiprocessing.Pool(4) as pool:  # fork on Linux before 3.14
        pool.map(embed, shards)  # the child's .cuda() fails
    ```

    ## Fix
    Create processes from a `spawn` or `forkserver` context
    (`multiprocessing.get_context("spawn").Pool(4)`,
    `ProcessPoolExecutor(mp_context=multiprocessing.get_context("forkserver"))`,
    `torch.multiprocessing.spawn`), or fork before anything initializes CUDA, or keep CUDA
    out of the children. `--fix --unsafe-fixes` does the first for a default-context start
    where the module imports multiprocessing (`mp.Pool(4)` -> `mp.get_context("spawn").Pool(4)`,
    `mp_context=` added to `ProcessPoolExecutor(...)`); unsafe, since a spawned child imports
    the main module afresh and every argument and result must pickle.

    ## References
    - CUDA and fork: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#initialization
    - PyTorch, CUDA in multiprocessing:
      https://pytorch.org/docs/stable/notes/multiprocessing.html#cuda-in-multiprocessing
    - Start methods, and the 3.14 default:
      https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods
    - Incident 000, pages missing after fork: https://blog.nelhage.com/post/a-cursed-bug/
    - What breaks, observed on an H200: tests/gpu_fork_cases.py
    """

    code = "CUR102"
    name = "fork-in-accelerated-process"
    languages = (PYTHON,)
    checkers = {PYTHON: "python:ForkInAcceleratedProcessPython"}
    indexer = START_METHODS
    reads_facts_of = (CUDA_REACH,)
    triggers = _fork_and_library_words(ACCELERATOR_MODULES)
    summary = ("a fork whose child uses CUDA after CUDA was initialized, or after RDMA fork "
               "protection was turned on")
    severity = Severity.ERROR  # what it reports by default; `all-forks` adds warnings
    precision = "high"  # both sides shown (benchmarks/real_code_review.md, session 12)
    posix_only = True
    options = {
        "modules": Option(
            (list, tuple),
            ACCELERATOR_MODULES,
            "modules (and their submodules) whose import means the process may hold CUDA or "
            "RDMA state.",
            item=str, form=MODULE_NAME,
        ),
        "all-forks": Option(
            bool, False,
            "also report, as warnings, the fork-based starts whose hazard the project does not "
            "decide: CUDA state left to callers, children whose code is not shown, "
            "set_start_method('fork') itself.",
        ),
    }

    @classmethod
    def triggers_for(cls, options):
        return _fork_and_library_words(options["modules"])

    valid = (
        """
        import multiprocessing
        import torch

        def embed(shard):
            return torch.load(shard).cuda()

        torch.cuda.init()
        with multiprocessing.get_context("spawn").Pool(4) as pool:
            pool.map(embed, ["a.pt", "b.pt"])
        """,
        """
        import multiprocessing
        import torch

        model = torch.nn.Linear(8, 8).cuda()
        with multiprocessing.Pool(4) as pool:  # the children do CPU work: this fork works
            pool.map(str.split, ["a b", "c d"])
        """,
        """
        import multiprocessing
        import torch

        def embed(shard):
            return torch.load(shard).cuda()

        def embed_all(shards):  # nothing here initializes CUDA before the fork
            with multiprocessing.Pool(4) as pool:
                return pool.map(embed, shards)
        """,
        """
        import multiprocessing
        import torch

        def embed(shard):
            return torch.load(shard).cuda()

        def embed_all(shards, method):
            if method == "fork" and torch.cuda.is_initialized():
                raise RuntimeError("CUDA is initialized: use spawn")
            with multiprocessing.get_context(method).Pool(4) as pool:
                return pool.map(embed, shards)
        """,
        """
        import torch
        from datasets import load_dataset
        from multiprocess import set_start_method

        def embed(row):
            return {"norm": torch.tensor(row["vector"], device="cuda").norm().item()}

        torch.cuda.init()
        set_start_method("spawn")  # datasets starts its workers from multiprocess
        rows = load_dataset("json", data_files="rows.jsonl", split="train")
        rows = rows.map(embed, num_proc=8)
        """,
        Example(
            """
            from concurrent.futures import ProcessPoolExecutor
            import jax
            import torch

            torch.cuda.init()
            executor = ProcessPoolExecutor(max_workers=4)
            executor.submit(torch.ones, 4, device="cuda")
            """,
            settings={"target-python": "3.14"},
        ),
    )
    invalid = (
        """
        import torch
        from datasets import load_dataset

        def embed(row):
            return {"norm": torch.tensor(row["vector"], device="cuda").norm().item()}

        torch.cuda.init()
        rows = load_dataset("json", data_files="rows.jsonl", split="train")
        rows = rows.map(embed, num_proc=8)  # error: CUR102
        """,
        Example(
            """
            import multiprocessing
            import torch

            def embed(shard):
                return torch.load(shard).cuda()

            def embed_all(shards):
                if torch.cuda.is_available() and torch.cuda.device_count() > 1:
                    shards = shards[::2]
                with multiprocessing.Pool(8) as pool:  # error: CUR102
                    return pool.map(embed, shards)
            """,
            settings={"target-python": "3.12"},
        ),
        """
        import os
        import multiprocessing as mp
        from pyverbs.device import Context

        os.environ["RDMAV_FORK_SAFE"] = "1"  # warning: CUR103
        ctx = mp.get_context("fork")
        worker = ctx.Process(target=print)  # error: CUR102
        """,
        Example(
            """
            import torch.multiprocessing as mp

            mp.set_start_method("fork")  # warning: CUR102
            """,
            settings={"options": {"all-forks": True}},
        ),
        Example(
            """
            from concurrent.futures import ProcessPoolExecutor
            from numba import cuda

            pool = ProcessPoolExecutor(4)  # warning: CUR102
            """,
            settings={"target-python": "3.10", "options": {"all-forks": True}},
        ),
    )
