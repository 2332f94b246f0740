"""Starts the simulator; the annotations below are evaluated on import, and `int | None`
raises TypeError before Python 3.10: this module runs only where subprocess uses vfork."""

import os
import subprocess
from pathlib import Path


def run_simulator(cmd: list[str], workdir: Path) -> int | None:
    proc = subprocess.Popen(cmd, cwd=workdir, preexec_fn=os.setsid)  # warning: CUR101
    return proc.wait()


def configure(source: Path, build: Path) -> int:
    return subprocess.run(["cmake", "-S", str(source), "-B", str(build)], cwd=build).returncode  # ok: CUR101


class Toolchain:
    def compiler(self) -> str | None:
        return subprocess.check_output(["which", "cc"], text=True) or None  # ok: CUR101
