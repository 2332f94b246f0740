"""Annotations evaluated only when other code runs bound nothing on import."""

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    def revision(path: str) -> str | None: ...


def clone(repo: str, dest: str):
    def checkout(branch: str) -> int | None:
        return subprocess.run(["git", "checkout", branch], cwd=dest).returncode  # warning: CUR101

    subprocess.run(["git", "clone", repo, dest])  # warning: CUR101
    return checkout
