"""CUR102's start methods against what CPython does (the interpreter running the tests).

Each variant sets start methods as a program may (once, twice, with `force=True`, a second
setting caught as the RuntimeError CPython raises for it, a context) and then makes a
default-context pool. The same module is run with the pool replaced by a print of the start
method it would use, and linted (CUDA initialized before the pool, a child that uses CUDA,
target Python the running one): CUR102 reports only a pool that forks, and reports the plain
ones (no setting, 'fork' set once).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from cursedlint.rules.process_spawning import ForkInAcceleratedProcess

import harness

LINTED = """\
import multiprocessing as mp
import torch


def embed(path):
    return torch.load(path).cuda()


torch.cuda.init()
{settings}
with {maker}(2) as pool:
    pool.map(embed, ["a.pt"])
"""
RUN = """\
import multiprocessing as mp
{settings}
print({asked})
"""
_TRY = "try:\n    mp.set_start_method({!r})\nexcept RuntimeError:\n    pass"

VARIANTS = {
    # name: (settings, "" for the default context or the context's method, reported)
    "no setting": ("", "", sys.platform == "linux" and sys.version_info < (3, 14)),
    "fork": ("mp.set_start_method('fork')", "", sys.platform != "win32"),
    "spawn": ("mp.set_start_method('spawn')", "", False),
    "forkserver": ("mp.set_start_method('forkserver')", "", False),
    "spawn, then fork refused": ("mp.set_start_method('spawn')\n" + _TRY.format("fork"), "",
                                 False),
    "fork, then spawn refused": ("mp.set_start_method('fork')\n" + _TRY.format("spawn"), "",
                                 None),  # forks; CUR102 stays silent (two settings)
    "spawn, then fork forced": ("mp.set_start_method('spawn')\n"
                                "mp.set_start_method('fork', force=True)", "", None),
    "a spawn context": ("", "spawn", False),
}


def _observed(settings: str, context: str) -> str:
    asked = f"mp.get_context({context!r}).get_start_method()" if context \
        else "mp.get_start_method()"
    program = RUN.format(settings=settings, asked=asked)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_reported_only_where_cpython_forks(name):
    settings, context, reported = VARIANTS[name]
    maker = f"mp.get_context({context!r}).Pool" if context else "mp.Pool"
    code = LINTED.format(settings=settings, maker=maker)
    findings = harness.lint(textwrap.dedent(code), ForkInAcceleratedProcess,
                            target_python="%d.%d" % sys.version_info[:2])
    method = _observed(settings, context)
    if findings:
        assert method == "fork", (name, method)
    if reported is not None:
        assert bool(findings) is reported, (name, method, findings)


def test_a_second_setting_is_refused_without_force():
    """What the variants stand on: CPython refuses a second `set_start_method` unless
    `force=True`, and keeps the first."""
    assert _observed("mp.set_start_method('spawn')\n" + _TRY.format("fork"), "") == "spawn"
    assert _observed("mp.set_start_method('spawn')\nmp.set_start_method('fork', force=True)",
                     "") == "fork"
