"""CUR1xx: process creation that fork()s a large process, and switches that turn on fork
protection.

CUR101 finds subprocess calls that make CPython fork the whole process on the configured
Python version and C library (`analysis.subprocess_spawn` decides which way CPython starts the
program). CUR102 finds fork-based process creation where the process may hold CUDA or RDMA
state. CUR103 finds code and configuration that turn on libibverbs' legacy fork protection.
The rules and their docs are here; each language's checker is in its own module (`python`,
`native` for C/C++, `text` for shell, Dockerfile and YAML).
"""

from __future__ import annotations

from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.analysis.fork_protection import FORK_SETTINGS, PROVIDER_FORK_SAFE_VARIABLES
from cursedlint.analysis.start_methods import START_METHODS
from cursedlint.analysis.subprocess_spawn import GLIBC, MACOS, MUSL, OLD_GLIBC
from cursedlint.findings import Severity
from cursedlint.languages import C, CPP, DOCKERFILE, PYTHON, SHELL, YAML
from cursedlint.rule import MODULE_NAME, Example, Option, Rule


class SubprocessForkPath(Rule):
    """## What it does
    Finds `subprocess.Popen`/`run`/`call`/`check_call`/`check_output`,
    `asyncio.create_subprocess_exec`/`_shell` and `os.popen` calls that make CPython `fork()`
    the whole calling process to start the program, on the configured `target-python` and
    `libc`, and lists every argument that causes it.

    CPython starts a program in one of three ways. `posix_spawn` (a vfork-like clone) when
    every condition of `Popen._execute_child` holds: the program has a directory part,
    `close_fds=False` (or Python 3.13+ with glibc >= 2.34), and no `preexec_fn`, `pass_fds`,
    `cwd`, `start_new_session`, `process_group`, `user`, `group`, `extra_groups`, `umask`, or
    redirection of the child's stdin/stdout/stderr to fds 0-2. Otherwise `_posixsubprocess`,
    which on Linux since Python 3.10 uses `vfork()` unless `preexec_fn`, `user`, `group` or
    `extra_groups` is given, and `fork()` in every other case (always on macOS and before 3.10).
    Only the full `fork()` is reported. Arguments the linter cannot evaluate make it silent,
    unless a condition it can see already forces the fork.

    Calls in code the target platform never runs are not reported: a branch whose condition is
    false there (`if sys.platform == "win32":`, `os.name == "nt"`, `platform.system() ==
    "Windows"`, a module constant defined once from them such as `IS_WINDOWS`, the `else` of
    `if IS_LINUX:`, the right side of `IS_WINDOWS and ...`), code after an early exit the
    platform takes (`if sys.platform != "linux": return`, or `pytest.skip(...,
    allow_module_level=True)`), and tests the platform skips: a function or the methods of a
    class decorated with `@unittest.skipUnless(IS_WINDOWS, ...)`, `@unittest.skipIf(...)` or
    `@pytest.mark.skipif(...)` whose condition skips there (a pytest string condition such as
    `"sys.platform == 'win32'"` is parsed, never run), and the tests of a module whose
    `pytestmark` skips. A test skipped always (`@unittest.skip("slow")`) runs nowhere: its
    calls are reported again when the skip is removed. `libc = "macos"` means Darwin, every
    other `libc` Linux. A condition the linter cannot evaluate (a call, a configuration value,
    a constant imported from another module) leaves the call reported.

    ## Why it is cursed
    `fork()` duplicates the page tables of a process that may map tens of GB, which is slow,
    and the copy is not faithful: pages that libibverbs marked `MADV_DONTFORK` for RDMA are
    absent in the child, and locks held by other threads (malloc arenas) stay held. Between
    fork and exec the child then crashes in `__malloc_fork_unlock_child` or fails with
    `OSError: [Errno 14] Bad address`, on a fraction of a percent of the nodes. Nothing in the
    `subprocess` documentation says which arguments decide the way a child is started.

    ## Example
    ```python
    import os
    import subprocess

    # everywhere: preexec_fn forces a fork
    subprocess.Popen(["/usr/bin/nvidia-smi"], preexec_fn=os.setsid)
    # macOS (and Linux before 3.10, the incident's 3.8): executable 's5cmd' has no directory
    # part; close_fds=True (the default). On Linux 3.10+ this call uses vfork: not reported.
    subprocess.run(["s5cmd", "cp", src, dst])
    ```

    ## Fix
    Remove the arguments the message names: pass the program's path (`shutil.which`),
    `close_fds=False`, no `cwd=` or `preexec_fn=` (`start_new_session=True` or
    `process_group=0` cover the usual use of `preexec_fn`, and on Linux with Python 3.10+ they
    keep the vfork path). `--fix` rewrites `preexec_fn=os.setsid` as `start_new_session=True`,
    and `preexec_fn=os.setpgrp` as `process_group=0` on Python 3.11+, where that is the only
    condition (safe: the child does the same). Where the only condition is a bare program name
    written as a string literal, an unsafe fix resolves it with `shutil.which` (unsafe: the
    lookup moves from the child's exec to the call, with the parent's `PATH`).

    ## References
    - Incident 000, "A Cursed Bug": https://blog.nelhage.com/post/a-cursed-bug/
    - `Popen._execute_child`, the posix_spawn conditions:
      https://github.com/python/cpython/blob/v3.13.0/Lib/subprocess.py#L1836-L1856
    - vfork in `_posixsubprocess` since 3.10: https://github.com/python/cpython/issues/80004
    - posix_spawn with `close_fds=True` since 3.13: https://github.com/python/cpython/issues/113117
    - `madvise(MADV_DONTFORK)`: https://man7.org/linux/man-pages/man2/madvise.2.html
    """

    code = "CUR101"
    name = "subprocess-fork-path"
    languages = (PYTHON,)
    checkers = {PYTHON: "python:SubprocessForkPathPython"}
    triggers = ("subprocess", "popen")
    summary = "a subprocess call that makes CPython fork() the whole calling process"
    severity = Severity.WARNING
    options = {
        "libc": Option(
            str,
            GLIBC,
            "the C library the code runs on: glibc 2.34 or newer, glibc 2.24 to 2.33, musl, "
            "or macOS (libSystem). On Linux it only decides between posix_spawn and vfork, "
            "except before Python 3.10 with musl, where CPython always forks. It also names the "
            "system for platform branches: macOS is Darwin, the others Linux.",
            choices=(GLIBC, OLD_GLIBC, MUSL, MACOS),
        )
    }
    valid = (
        Example(
            """
            import subprocess

            subprocess.run(["/usr/local/bin/s5cmd", "cp", SRC, DST], close_fds=False)
            """,
            settings={"target-python": "3.12", "options": {"libc": MACOS}},
        ),
        Example(
            """
            import subprocess

            subprocess.check_call("make -j8", shell=True, close_fds=False, cwd=None)
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
        """
        import subprocess

        # Linux, Python 3.10+: vfork, no copy of this process
        subprocess.run(["s5cmd", "cp", "s3://bucket/ckpt", "/scratch"], cwd="/scratch")
        """,
        Example(
            """
            import subprocess

            # Python 3.13+ with glibc 2.34+: posix_spawn closes the descriptors itself
            subprocess.run(["/usr/bin/rsync", "-a", SRC, DST])
            """,
            settings={"target-python": "3.13", "options": {"libc": GLIBC}},
        ),
        """
        def run(command, preexec_fn=None):
            print("would run", command)

        run(["s5cmd", "ls"], preexec_fn=print)
        """,
        """
        import os
        import subprocess

        print("subprocess would fork here without posix_spawn")
        os.system("s5cmd ls s3://bucket")
        """,
        Example(
            """
            import subprocess
            import sys

            IS_WINDOWS = sys.platform == "win32"

            if IS_WINDOWS:
                # Linux never runs this branch
                subprocess.run(["notepad.exe", "train.log"])
            """,
            settings={"target-python": "3.8"},
        ),
        Example(
            """
            import subprocess

            def launch(command, **options):
                return subprocess.Popen(command, **options)
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
    )
    invalid = (
        Example(
            """
            import subprocess

            subprocess.run(["s5cmd", "cp", SRC, DST])  # warning: CUR101
            """,
            settings={"target-python": "3.12", "options": {"libc": MACOS}},
        ),
        """
        import os
        from subprocess import Popen as P

        P(["/usr/bin/nvidia-smi", "-L"], preexec_fn=os.setsid)  # warning: CUR101
        """,
        """
        import os
        import subprocess

        # preexec_fn is Popen's 7th positional parameter
        subprocess.Popen(["/usr/bin/nvidia-smi"], -1, None, None, None, None, os.setsid)  # warning: CUR101
        """,
        """
        import asyncio.subprocess as aio

        async def archive(path):
            tar = aio.create_subprocess_exec("/bin/tar", "cf", path, user="bk")  # warning: CUR101
            return await tar
        """,
        Example(
            """
            import subprocess

            subprocess.check_call("make -j8", shell=True)  # warning: CUR101
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
        Example(
            """
            import os

            listing = os.popen("ls /scratch").read()  # warning: CUR101
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
    )


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
    initialized before it, or a dataset that uses it, or calls into them by name)."""
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
    `ctx.Process()`, `ProcessPoolExecutor(mp_context=ctx)`, `self.ctx.Process()`;
    `torch.multiprocessing.start_processes(..., start_method="fork")`), and
    `multiprocessing.Process`/`Pool`/`Manager`, `multiprocessing.pool.Pool` and
    `concurrent.futures.ProcessPoolExecutor` without a context, which fork on Linux before
    Python 3.14 (3.14 made `forkserver` the default) or after `set_start_method("fork")`. The
    start method is followed through the code: a local, a `self` attribute, a parameter (its
    default, or what each call in the project passes), a constant of another module, a config
    class's default; where it is unknown, nothing is reported. The module must import a CUDA
    or RDMA library (option `modules`).

    **CUDA initialized** is shown by what runs before the start: in its function (earlier
    statements of each enclosing block, an earlier loop iteration), at import time, in the
    `__main__` block, and before each call of the function, in the module and in the project's
    other modules (the callers' callers too). CUDA work initializes it (`.cuda()`,
    `.to("cuda")`, a tensor made on a CUDA device, `torch.cuda.*`, `cupy`, `numba.cuda`), and
    so do the queries that ask the runtime: `torch.cuda.is_available()`, `device_count()`,
    `current_device()`, `set_device()`, `get_device_*()`, `mem_get_info()` (unless
    `PYTORCH_NVML_BASED_CUDA_CHECK=1` makes the first two ask NVML), and an NCCL process
    group. Importing torch, CPU tensors and `torch.cuda.is_initialized()` initialize nothing.
    **The child uses CUDA** where the code it runs is shown and surely does CUDA work or
    allocates pinned memory: `Process(target=f)`, `pool.map(f, ...)`/`apply`/`submit` on the
    pool or executor the start makes (also through `self.pool` in the class), its
    `initializer`, a DataLoader's dataset `__getitem__`, `collate_fn` and `worker_init_fn`
    (its workers fork where it is iterated, when `num_workers` is given and no
    `multiprocessing_context`), the branch after `os.fork()` that tests the result against 0
    (`if pid == 0:`), into the module's and the project's functions. A `Manager()`'s server
    runs multiprocessing's own code.

    Not reported: a start on a branch the module's constants rule out (`workers = None` then
    `if workers is not None and workers > 1:`) or that only Windows takes; a start behind a
    check that refuses it when CUDA is initialized (`if torch.cuda.is_initialized(): raise`);
    a default-context start in a function every call of which runs after the entry point set
    `spawn` or `forkserver` (also a method called on an object made before the setting); a
    test of fork behaviour (a test module, class or function whose name says fork).

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
        Example(
            """
            import multiprocessing
            import torch

            def embed(shard):
                return torch.load(shard).cuda()

            def embed_all(shards):
                if torch.cuda.device_count() > 1:
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


def setting_message(variable: str) -> tuple[str, str]:
    """CUR103's message and help for setting `variable` (names joined by "or" included)."""
    if variable == "CXI_FORK_SAFE":
        return (
            f"setting {variable} turns on libcxi's fork support (MADV_DONTFORK on registered "
            "pages)",
            f"{PROVIDER_FORK_SAFE_VARIABLES[variable]} (fi_cxi(7), 'Fork Support'), so one "
            "registration smaller than a page takes the unrelated data sharing its page away "
            "from every forked child, which then crashes. Remove the setting where no fork "
            "needs it, or give every registration its own page-aligned allocation of whole "
            f"pages. {_DOCTOR}",
        )
    if variable == "FI_EFA_FORK_SAFE":
        return (f"setting {variable} turns on fork protection: "
                f"{PROVIDER_FORK_SAFE_VARIABLES[variable]}", _FORK_PROTECTION_HELP)
    return fork_safe_message(f"setting {variable}")


def fork_safe_message(subject: str) -> tuple[str, str]:
    """CUR103's message and help for `subject` ("setting X", "ibv_fork_init()")."""
    return (f"{subject} turns on libibverbs' fork protection (MADV_DONTFORK on registered pages)",
            _FORK_PROTECTION_HELP)


_DOCTOR = "`cursedlint doctor` shows this machine's kernel and fork settings."
_FORK_PROTECTION_HELP = (
    "With it, every RDMA registration is rounded out to whole pages marked MADV_DONTFORK, so a "
    "registration smaller than a page takes the unrelated heap data sharing its page away from "
    "every forked child, which then crashes between fork and exec. Linux 5.12+ copies pinned "
    "pages on fork, so the protection is unneeded there (rdma-core 35+: "
    "ibv_is_fork_initialized() returns IBV_FORK_UNNEEDED), yet rdma-core releases before 2024 "
    "still turn it on when asked. Remove the setting, or where a kernel before 5.12 needs it, "
    f"give every registration its own page-aligned allocation of whole pages. {_DOCTOR}"
)


class ForkSafeModeEnabled(Rule):
    """## What it does
    Finds code and configuration that turn on libibverbs' legacy fork protection: setting
    `RDMAV_FORK_SAFE` or `IBV_FORK_SAFE` (to any value), and calling `ibv_fork_init()`; and
    the libfabric provider variables that turn on the same MADV_DONTFORK-based fork support:
    `FI_EFA_FORK_SAFE` (the EFA provider then calls `ibv_fork_init()`, fi_efa(7)) and
    `CXI_FORK_SAFE` (libcxi then marks every registered range, rounded out to pages,
    `MADV_DONTFORK`, fi_cxi(7)). `CXI_FORK_SAFE_HP` alone turns nothing on (it only makes
    libcxi find the right page size when `CXI_FORK_SAFE` is set) and is not reported.
    - Python: `os.environ[NAME] = ...` and `|=`, `os.environ.setdefault/update`, `os.putenv`, and
      the entries of the `env` mapping of `subprocess`/`asyncio` process functions, `os.exec*e`,
      `os.spawn*e` and `os.posix_spawn[p]`: a dict display, `dict(...)`, `a | b`, or a local
      name those fill (`env["RDMAV_FORK_SAFE"] = "1"` before `Popen(..., env=env)`). The name
      may be a constant (`FORK_SAFE = "RDMAV_FORK_SAFE"`).
    - C/C++: `setenv(NAME, ...)` and `putenv("NAME=...")`, with the name written out, in a
      `#define`d string, or in a local initialised with one (or with `c ? "A" : "B"`) and
      never assigned; and `ibv_fork_init()`, except where it honours or probes the setting:
      under an `if` (or after an earlier `if` that returns) that reads a fork variable by name
      (`getenv("RDMAV_FORK_SAFE")`), asks `ibv_is_fork_initialized()`, calls a function of
      the file whose body does either (`if (!fork_init_needed()) return;`), or compares a
      status variable with a value the file gives it only under such an `if`; or after the same
      function registered memory with `ibv_reg_mr` (the call then fails with EINVAL and only
      probes whether protection is on).
    - Shell: `NAME=value` where a command starts (`NAME=1 cmd`), after `export`, `declare`,
      `typeset`, `readonly`, `local` and `env`, and after the options that pass it to a
      child's environment: `mpirun -x`, `docker run --env`, `apptainer exec --env`.
    - Dockerfile: `ENV NAME=value` (among other pairs, on continuation lines) and `ENV NAME value`.
    - YAML: Kubernetes `env` entries (`- name: NAME`), `NAME: value` in `env:`/`environment:`/
      `variables:` maps (GitHub Actions, Docker Compose, GitLab CI) and Compose's `- NAME=value`.

    Reading the variable (`os.environ.get`, `getenv`, `$NAME`), unsetting it (`unset`, `del`,
    `pop`, `unsetenv`, glibc's `putenv("NAME")`), comments and strings are not reported.

    ## Why it is cursed
    With fork protection on, libibverbs calls `madvise(MADV_DONTFORK)` on every registered
    memory range after rounding its start down and its end up to page boundaries. One
    registration smaller than a page (incident 000: a 4-byte buffer in the middle of a malloc'ed
    allocation, in aws-ofi-nccl) makes that whole page, with whatever malloc put next to the
    buffer, vanish from every forked child: children crash in `__malloc_fork_unlock_child` or
    fail with `EFAULT` between fork and exec, on a fraction of a percent of the nodes.

    The protection was for kernels whose fork left pinned pages shared copy-on-write with the
    child. Linux copies pinned pages at fork since 5.9 (5.12 for hugetlb pages), so on 5.12+ it
    is unneeded; from 5.13 the kernel says so and `ibv_is_fork_initialized()` (rdma-core 35+)
    returns `IBV_FORK_UNNEEDED`. An explicit request still turns it on there, except with
    rdma-core releases since early 2024 (PR 1431), which ignore it on such kernels unless
    `RDMAV_USE_MADVISE` is set. Any value counts: rdma-core before 2022 (PR 1132) enables it
    even for `0`, so only unsetting the variable is off everywhere. The finding is a warning
    because the harm also needs a sub-page registration somewhere in the process (often in a
    library), a fork, and a kernel or rdma-core old enough, which the code does not show.

    ## Example
    ```sh
    export RDMAV_FORK_SAFE=1   # copied from an old HPC guide
    torchrun --nproc-per-node 8 train.py
    ```

    ## Fix
    Remove the setting and the `ibv_fork_init()` call: on Linux 5.12+ a fork does not disturb
    registered memory without them. Where a kernel before 5.12 really needs the protection, make
    every registration its own page-aligned allocation of whole pages (`posix_memalign` with the
    page size and a length rounded up to it, or `mmap`), so that no other object shares a
    registered page, and ask `ibv_is_fork_initialized()` before turning it on.

    ## References
    - ibv_fork_init(3), the environment variables:
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/man/ibv_fork_init.3.md
    - fi_efa(7) (`FI_EFA_FORK_SAFE`), fi_cxi(7) ("Fork Support", `CXI_FORK_SAFE`,
      `CXI_FORK_SAFE_HP`): https://ofiwg.github.io/libfabric/main/man/fi_cxi.7.html
    - ibv_is_fork_initialized(3):
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/man/ibv_is_fork_initialized.3.md
    - The page rounding (`ibv_madvise_range`) and the 2024 check in `ibv_fork_init`:
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/memory.c
    - rdma-core PRs: 975 (`IBV_FORK_UNNEEDED`), 1132 (`0` means off), 1431 (ignored when unneeded):
      https://github.com/linux-rdma/rdma-core/pull/1431
    - Linux 70e806e4e645 "mm: Do early cow for pinned pages during fork() for ptes" (5.9),
      4eae4efa2c29 "hugetlb: do early cow when page pinned on src mm" (5.12), 6cc9e215eb27
      "RDMA/nldev: Add copy-on-fork attribute to get sys command" (5.13):
      https://github.com/torvalds/linux/commit/4eae4efa2c299f85b7ebfbeeda56c19c5eba2768
    - Incident 000, "A Cursed Bug": https://blog.nelhage.com/post/a-cursed-bug/
    """

    code = "CUR103"
    name = "fork-safe-mode-enabled"
    languages = (PYTHON, C, CPP, SHELL, DOCKERFILE, YAML)
    checkers = {PYTHON: "python:ForkSafeModeEnabledPython", C: "native:ForkSafeModeEnabledC",
                CPP: "native:ForkSafeModeEnabledC", SHELL: "text:ForkSafeModeEnabledText",
                DOCKERFILE: "text:ForkSafeModeEnabledText", YAML: "text:ForkSafeModeEnabledText"}
    triggers = (*FORK_SETTINGS, "ibv_fork_init")
    summary = "a setting or call that turns on libibverbs' legacy fork protection (MADV_DONTFORK)"
    severity = Severity.WARNING
    valid = (
        """
        import logging
        import os

        # RDMAV_FORK_SAFE is unneeded on Linux 5.12+: the kernel copies pinned pages on fork
        if os.environ.get("RDMAV_FORK_SAFE"):
            logging.warning("dropping RDMAV_FORK_SAFE=%s", os.environ["RDMAV_FORK_SAFE"])
            del os.environ["RDMAV_FORK_SAFE"]
        os.environ.pop("IBV_FORK_SAFE", None)
        """,
        """
        import os
        import subprocess

        def rdma_report():
            report = {}
            report["RDMAV_FORK_SAFE"] = os.environ.get("RDMAV_FORK_SAFE", "<unset>")
            env = {k: v for k, v in os.environ.items() if k != "IBV_FORK_SAFE"}
            subprocess.run(["/usr/bin/ibv_devinfo"], env=env, check=True)
            return report
        """,
        Example(
            """
            #include <stdio.h>
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            void check_fork_mode(void)
            {
                const char *requested = getenv("RDMAV_FORK_SAFE");

                if (requested && ibv_is_fork_initialized() == IBV_FORK_UNNEEDED)
                    fprintf(stderr, "RDMAV_FORK_SAFE=%s is unneeded here\\n", requested);
                unsetenv("RDMAV_FORK_SAFE");
                putenv("IBV_FORK_SAFE"); /* glibc: no '=' removes the variable */
            }
            """,
            language=C,
        ),
        Example(
            """
            #!/bin/bash
            # export RDMAV_FORK_SAFE=1 was only needed before Linux 5.12
            unset RDMAV_FORK_SAFE IBV_FORK_SAFE
            echo "RDMAV_FORK_SAFE=${RDMAV_FORK_SAFE:-unset}"
            if [ -n "$IBV_FORK_SAFE" ]; then echo "IBV_FORK_SAFE is set" >&2; fi
            """,
            language=SHELL,
        ),
        Example(
            """
            FROM nvcr.io/nvidia/pytorch:24.05-py3
            # ENV RDMAV_FORK_SAFE=1 is unneeded on Linux 5.12+
            ENV NCCL_DEBUG=INFO
            RUN echo "RDMAV_FORK_SAFE=${RDMAV_FORK_SAFE:-unset}"
            """,
            language=DOCKERFILE,
        ),
        Example(
            """
            env:
              NCCL_DEBUG: INFO
            jobs:
              check:
                runs-on: [self-hosted, rdma]
                steps:
                  # RDMAV_FORK_SAFE: "1" is unneeded on Linux 5.12+
                  - name: RDMAV_FORK_SAFE must be unset
                    run: test -z "${RDMAV_FORK_SAFE:-}"
            """,
            language=YAML,
        ),
    )
    invalid = (
        """
        import os

        os.environ["RDMAV_FORK_SAFE"] = "1"  # warning: CUR103
        os.environ.setdefault("IBV_FORK_SAFE", "1")  # warning: CUR103
        """,
        """
        import os
        import subprocess

        FORK_SAFE = "RDMAV_FORK_SAFE"

        def launch(command):
            env = {**os.environ, "NCCL_DEBUG": "INFO", FORK_SAFE: "1"}  # warning: CUR103
            return subprocess.Popen(command, env=env)

        def benchmark(binary):
            env = os.environ.copy()
            env["IBV_FORK_SAFE"] = "1"  # warning: CUR103
            subprocess.run([binary, "--iters", "100"], env=env, check=True)

        def exec_trainer(argv):
            os.execve(argv[0], argv, dict(os.environ, RDMAV_FORK_SAFE="1"))  # warning: CUR103
        """,
        Example(
            """
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            #define FORK_SAFE_VARIABLE "RDMAV_FORK_SAFE"

            int rdma_init(void)
            {
                setenv(FORK_SAFE_VARIABLE, "1", 1); // warning: CUR103
                putenv("IBV_FORK_SAFE=1"); // warning: CUR103
                return ibv_fork_init(); // warning: CUR103
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <cstdlib>

            void enable_fork_support()
            {
                ::setenv("IBV_FORK_SAFE", "1", 0); // warning: CUR103
            }
            """,
            language=CPP,
        ),
        Example(
            """
            #!/bin/bash
            export RDMAV_FORK_SAFE=1  # warning: CUR103
            IBV_FORK_SAFE=1 torchrun --nproc-per-node 8 train.py  # warning: CUR103
            env -u NCCL_DEBUG RDMAV_FORK_SAFE=1 python eval.py  # warning: CUR103
            mpirun -np 16 -x RDMAV_FORK_SAFE=1 ./all_reduce_perf  # warning: CUR103
            """,
            language=SHELL,
        ),
        Example(
            """
            FROM nvcr.io/nvidia/pytorch:24.05-py3
            ENV NCCL_DEBUG=INFO \\
                RDMAV_FORK_SAFE=1  # warning: CUR103
            ENV IBV_FORK_SAFE 1  # warning: CUR103
            """,
            language=DOCKERFILE,
        ),
        Example(
            """
            spec:
              containers:
                - name: trainer
                  image: registry.example.com/trainer:1.4
                  env:
                    - name: NCCL_DEBUG
                      value: INFO
                    - name: RDMAV_FORK_SAFE  # warning: CUR103
                      value: "1"
            """,
            language=YAML,
        ),
        Example(
            """
            services:
              trainer:
                image: registry.example.com/trainer:1.4
                environment:
                  RDMAV_FORK_SAFE: "1"  # warning: CUR103
              evaluator:
                environment:
                  - IBV_FORK_SAFE=1  # warning: CUR103
            """,
            language=YAML,
        ),
    )
