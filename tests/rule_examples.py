"""Transitional: `check_fixture(path, lint)` for the test files not yet on `harness` (their
own `lint` callable; `ok:` markers fail here, as no rule is known to have run)."""

from __future__ import annotations

from typing import Callable

from cursedlint.findings import Finding

from harness import check_markers


def check_fixture(path: str, lint: Callable[[str], list[Finding]]) -> None:
    """An annotated fixture file produces exactly the findings its markers announce."""
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    check_markers(code, lint(code), ran=(), where=path)
