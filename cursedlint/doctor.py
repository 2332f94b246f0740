"""`cursedlint doctor`: the conditions of the machine that arm the hazards cursedlint's rules
describe, each with its value, why it matters, and the rules whose findings it makes bite.

Every probe reads a file under `Host.root` (so tests, and `--root`, can point it at a fake or
mounted system tree) or uses what `Host` learnt from Python's own APIs (the environment, the
Python and C library versions, the multiprocessing start methods). None needs privileges; a
probe that cannot tell answers "unknown" with the reason (no /proc on macOS, a container that
hides a file).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping

from cursedlint.project.safe_files import SMALL_FILE_BYTES, read_regular

ARMED, CLEAR, UNKNOWN = "armed", "clear", "unknown"


def _libc() -> str | None:
    """"glibc 2.36", "macos", or None for any other C library (musl) or none known."""
    if sys.platform == "darwin":
        return "macos"
    try:
        return os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        return None


@dataclass(frozen=True)
class Host:
    """What the probes look at: files under `root`, and answers of this Python's APIs."""

    root: str = "/"
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    python: tuple[int, int] = tuple(sys.version_info[:2])
    libc: str | None = field(default_factory=_libc)
    start_methods: tuple[str, ...] = field(
        default_factory=lambda: tuple(multiprocessing.get_all_start_methods())
    )

    def read(self, path: str) -> tuple[str | None, str]:
        """(the stripped text of /`path` under root, "") or (None, why it cannot be read).
        The probes read one-value `/proc` files, regular files that are never symbolic links:
        anything else under a `--root` image (a FIFO, a link to a device) is not read."""
        try:
            data = read_regular(os.path.join(self.root, path), SMALL_FILE_BYTES)
            return data.decode("utf-8").strip(), ""
        except (OSError, UnicodeDecodeError) as error:  # a RefusedFile's strerror is its reason
            return None, f"cannot read /{path}: {getattr(error, 'strerror', None) or error}"

    def exists(self, path: str) -> bool:
        return os.path.exists(os.path.join(self.root, path))


@dataclass(frozen=True)
class Condition:
    """One probed condition: `status` is ARMED (the hazard can happen here), CLEAR or
    UNKNOWN; `why` explains the value, or why it is unknown."""

    name: str
    value: str
    status: str
    why: str
    rules: tuple[str, ...]


# -- probes ------------------------------------------------------------------------------------

_PTRACE_SCOPES = {
    "0": (CLEAR, "classic ptrace permissions: a process may read the memory of any same-uid "
                 "process, so CMA (process_vm_readv) between sibling ranks works"),
    "1": (ARMED, "restricted ptrace: only ancestors (or a peer the target names with "
                 "prctl(PR_SET_PTRACER)) may attach, so CMA between sibling ranks fails with "
                 "EPERM unless the process has CAP_SYS_PTRACE"),
    "2": (ARMED, "admin-only attach: only processes with CAP_SYS_PTRACE may use CMA"),
    "3": (ARMED, "no attach: CMA fails for every process until reboot"),
}


def ptrace_scope(host: Host) -> Condition:
    name, rules = "yama ptrace_scope", ("CUR601",)
    value, reason = host.read("proc/sys/kernel/yama/ptrace_scope")
    if value not in _PTRACE_SCOPES:
        why = reason or f"unexpected value {value!r}"
        return Condition(name, "unknown", UNKNOWN, f"{why} (no Yama LSM, or not Linux)", rules)
    status, why = _PTRACE_SCOPES[value]
    return Condition(name, value, status, why, rules)


def kernel_version(host: Host) -> Condition:
    name, rules = "kernel version", ("CUR102", "CUR103", "CUR301", "CUR302")
    release, reason = host.read("proc/sys/kernel/osrelease")
    match = re.match(r"(\d+)\.(\d+)", release or "")
    if match is None:
        return Condition(name, "unknown", UNKNOWN, reason or f"unreadable release {release!r}",
                         rules)
    if (int(match[1]), int(match[2])) < (5, 12):
        return Condition(name, release, ARMED, "before 5.12 fork() shares pinned (RDMA) pages "
                         "copy-on-write with the child, so libibverbs' MADV_DONTFORK protection "
                         "and the sub-page holes it makes are live", rules)
    return Condition(name, release, CLEAR, "5.12+ copies pinned pages at fork(): the legacy "
                     "MADV_DONTFORK protection is unneeded (unless a setting asks for it)", rules)


def fork_safe_variables(host: Host) -> Condition:
    from cursedlint.analysis.fork_protection import FORK_SETTINGS

    name, rules = "RDMAV_FORK_SAFE / IBV_FORK_SAFE", ("CUR103", "CUR301", "CUR302")
    found = [f"{variable}={host.environ[variable]}" for variable in FORK_SETTINGS
             if variable in host.environ]
    if found:
        return Condition(name, " ".join(found), ARMED, "set (any value): libibverbs rounds "
                         "every registration out to whole pages marked MADV_DONTFORK, which "
                         "vanish from forked children", rules)
    return Condition(name, "unset", CLEAR, "libibverbs' legacy fork protection is not requested "
                     "from this environment", rules)


def spawn_close_fds(host: Host) -> Condition:
    from cursedlint.analysis.subprocess_spawn import GLIBC, MACOS, OLD_GLIBC, Platform

    name, rules = "subprocess close_fds=True", ("CUR101",)
    python = ".".join(map(str, host.python))
    match = re.fullmatch(r"glibc (\d+)\.(\d+).*", host.libc or "")
    if host.libc != MACOS and match is None:
        return Condition(name, f"Python {python}, {host.libc or 'libc unknown'}", UNKNOWN,
                         "not glibc or macOS (musl?): which C library decides", rules)
    glibc = (int(match[1]), int(match[2])) if match else None
    libc = MACOS if glibc is None else GLIBC if glibc >= (2, 34) else OLD_GLIBC
    value = f"Python {python}, {host.libc}"
    platform = Platform(host.python, libc)
    if platform.spawn_closes_fds:
        return Condition(name, value, CLEAR, "close_fds=True no longer keeps subprocess off "
                         "posix_spawn (Python 3.13+, glibc 2.34+)", rules)
    if platform.has_vfork:
        return Condition(name, value, CLEAR, "close_fds=True (the default) keeps subprocess off "
                         "posix_spawn, but CPython then uses vfork (Linux, 3.10+): only "
                         "preexec_fn, user, group or extra_groups force a full fork", rules)
    return Condition(name, value, ARMED, "close_fds=True (the default) keeps subprocess off "
                     "posix_spawn and this Python cannot vfork: such calls fork() the whole "
                     "process (this is the Python running cursedlint; a job's may differ)", rules)


def start_method(host: Host) -> Condition:
    name, rules = "multiprocessing start method", ("CUR102",)
    if not host.start_methods:
        return Condition(name, "unknown", UNKNOWN, "multiprocessing lists no start method", rules)
    method = host.start_methods[0]
    if method == "fork":
        return Condition(name, method, ARMED, "the default context fork()s the parent, with its "
                         "CUDA and RDMA state, for Pool, Process and ProcessPoolExecutor", rules)
    return Condition(name, method, CLEAR, f"the default context uses {method}: children do not "
                     "inherit a copy of the parent's memory", rules)


_OVERCOMMIT = {
    "0": (CLEAR, "heuristic overcommit: fork() of a large process is normally allowed"),
    "1": (CLEAR, "always overcommit: fork() never fails for lack of commit charge"),
    "2": (ARMED, "strict overcommit: fork() of a process with tens of GB committed fails with "
                 "ENOMEM unless the commit limit covers a second copy"),
}


def overcommit(host: Host) -> Condition:
    name, rules = "vm.overcommit_memory", ("CUR101", "CUR102")
    value, reason = host.read("proc/sys/vm/overcommit_memory")
    if value not in _OVERCOMMIT:
        return Condition(name, "unknown", UNKNOWN, reason or f"unexpected value {value!r}", rules)
    status, why = _OVERCOMMIT[value]
    return Condition(name, value, status, why, rules)


def infiniband(host: Host) -> Condition:
    name, rules = "/dev/infiniband", ("CUR102", "CUR103")
    if not host.exists("dev"):
        return Condition(name, "unknown", UNKNOWN, "no /dev (not a Linux system tree)", rules)
    if host.exists("dev/infiniband"):
        return Condition(name, "present", ARMED, "RDMA devices are present: registered memory "
                         "and fork() meet here", rules)
    return Condition(name, "absent", CLEAR, "no RDMA devices visible (a container may hide "
                     "them)", rules)


PROBES: tuple[Callable[[Host], Condition], ...] = (
    ptrace_scope, kernel_version, fork_safe_variables, spawn_close_fds, start_method,
    overcommit, infiniband,
)


def diagnose(host: Host) -> list[Condition]:
    return [probe(host) for probe in PROBES]


# -- output ------------------------------------------------------------------------------------

_COLUMNS = ("CONDITION", "VALUE", "STATUS", "RULES")


def render(conditions: list[Condition], output_format: str) -> str:
    if output_format == "json":
        return json.dumps([asdict(condition) for condition in conditions], indent=2) + "\n"
    return render_table(conditions)


def render_table(conditions: list[Condition]) -> str:
    """One row per condition, its explanation indented below it."""
    rows = [_COLUMNS] + [(c.name, c.value, c.status, ", ".join(c.rules)) for c in conditions]
    widths = [max(len(row[index]) for row in rows) for index in range(len(_COLUMNS) - 1)]
    lines = []
    for index, row in enumerate(rows):
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
        if index:
            lines.append(f"    {conditions[index - 1].why}")
    armed = sum(condition.status == ARMED for condition in conditions)
    lines.append(f"\n{armed} of {len(conditions)} conditions arm a hazard.")
    return "\n".join(lines) + "\n"
