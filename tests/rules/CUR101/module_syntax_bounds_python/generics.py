"""`list[str]` needs 3.9, which still forks: reported."""

import subprocess


def pack(paths: list[str], archive: str) -> None:
    subprocess.run(["tar", "-cf", archive, *paths])  # warning: CUR101
