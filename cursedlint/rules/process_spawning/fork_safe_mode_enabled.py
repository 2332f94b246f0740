"""CUR103: a setting or call that turns on libibverbs' legacy fork protection, and its
messages (every language's checker words them alike)."""

from __future__ import annotations

from cursedlint.analysis.c_fork_init import FORK_INIT_CALLERS
from cursedlint.analysis.fork_protection import FORK_SETTINGS, PROVIDER_FORK_SAFE_VARIABLES
from cursedlint.findings import Severity
from cursedlint.languages import C, CPP, DOCKERFILE, PYTHON, SHELL, YAML
from cursedlint.rule import Example, Rule


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
      never assigned; and `ibv_fork_init()`, also called through a function-pointer field
      every function of which the project stores there is `ibv_fork_init` (`&ibv_fork_init`,
      `dlsym(lib, "ibv_fork_init")`, or a loader macro of the project,
      `LOAD_SYM(lib, "ibv_fork_init", ftable->fork_init)`: `ftable.fork_init()`, in any file,
      or `CHECK(syms, fork_init())` where the file's macro `CHECK` calls `syms.fork_init()`;
      also a pointer to a function the file declares, `int (*fork_init_fn)(void);`, so loaded),
      except where it honours or probes the setting:
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
    indexer = FORK_INIT_CALLERS
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
