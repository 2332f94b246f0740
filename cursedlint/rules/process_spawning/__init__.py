"""CUR1xx: process creation that fork()s a large process, and switches that turn on fork
protection.

CUR101 (`subprocess_fork_path`) finds subprocess calls that make CPython fork the whole
process on the configured Python version and C library (`analysis.subprocess_spawn` decides
which way CPython starts the program). CUR102 (`fork_in_accelerated_process`) finds
fork-based process creation where the process may hold CUDA or RDMA state. CUR103
(`fork_safe_mode_enabled`) finds code and configuration that turn on libibverbs' legacy fork
protection. Each rule's module holds its class and docs; each language's checker is in its
own module (`python`, `native` for C/C++, `text` for shell, Dockerfile and YAML).
"""

from cursedlint.rules.process_spawning.fork_in_accelerated_process import (
    ForkInAcceleratedProcess,
)
from cursedlint.rules.process_spawning.fork_safe_mode_enabled import ForkSafeModeEnabled
from cursedlint.rules.process_spawning.subprocess_fork_path import SubprocessForkPath

__all__ = ["SubprocessForkPath", "ForkInAcceleratedProcess", "ForkSafeModeEnabled"]
