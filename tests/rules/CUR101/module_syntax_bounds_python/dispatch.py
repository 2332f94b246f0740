"""A `match` statement: older Pythons do not compile this module."""

import subprocess


def build(target):
    match target:
        case "docs":
            subprocess.check_call(["make", "html"], cwd="docs")  # ok: CUR101
        case _:
            subprocess.check_call(["make", target])  # ok: CUR101
