"""CUR101: a subprocess call that makes CPython fork() the whole calling process."""

from __future__ import annotations

from cursedlint.analysis.subprocess_spawn import GLIBC, MACOS, MUSL, OLD_GLIBC
from cursedlint.findings import Severity
from cursedlint.languages import PYTHON
from cursedlint.rule import Example, Option, Rule


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
    unless a condition it can see already forces the fork. A module that older Pythons cannot
    run (a `match` statement, `except*`, a `type` alias, or `X | Y` in the annotations of a
    function its import defines, without `from __future__ import annotations`) runs only on
    newer ones: a call that forks only before 3.10 is not reported in a module that needs 3.10.

    Calls in code the target platform never runs are not reported: a branch whose condition is
    false there (`if sys.platform == "win32":`, `os.name == "nt"`, `platform.system() ==
    "Windows"`, `not hasattr(os, "fork")` of a function every POSIX `os` has, a module constant
    defined once from them such as `IS_WINDOWS`, the `else` of
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

    The target platform comes from the configuration's `libc` where it sets one; else a
    project whose packaging metadata lists `Operating System ::` classifiers, all of them
    `Microsoft :: Windows` ones (`[project] classifiers` of `pyproject.toml`, `[metadata]
    classifiers` of `setup.cfg`, a literal `classifiers=[...]` in `setup.py`'s `setup()`,
    read in the nearest directory at or above the project's root that holds any), runs only
    on Windows, where every call is a `CreateProcess` and nothing forks: CUR101 and CUR102 are
    silent there. `OS Independent`, `POSIX`, Linux, macOS or no such classifier: `libc`'s
    default, Linux. `--verbose` and `--show-settings` say which.

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
    posix_only = True
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
