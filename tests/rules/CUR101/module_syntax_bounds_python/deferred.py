"""The same annotations, deferred by the __future__ import: this module runs on 3.8."""

from __future__ import annotations

import subprocess
from pathlib import Path


def configure(source: Path, build: Path) -> int | None:
    return subprocess.run(["cmake", "-S", str(source)], cwd=build).returncode  # warning: CUR101
