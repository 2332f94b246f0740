"""CUR101 against what CPython really does.

Generates a few hundred subprocess calls over the conditions CPython checks (program absolute,
bare, relative, from `executable=`, `shell=True`, a local constant; close_fds; cwd; the std
streams as PIPE/DEVNULL/STDOUT/fds/sys streams/files; preexec_fn; pass_fds; start_new_session;
process_group; user/group/extra_groups; umask; restore_signals; env; through Popen, run, call,
check_call, check_output, aliases, os.popen and asyncio), runs them all in one child
interpreter per CPython found on this machine (`cpython_probe.py` records posix_spawn, vfork
or fork), and checks, for that interpreter's version and libc:

- CUR101 reports exactly the calls that forked, except that it may stay silent on a call whose
  arguments it cannot evaluate (those are counted, and only variants built with such
  arguments may be undecided);
- the path it predicts (posix_spawn / vfork / fork) is the one taken, for every decided call.
"""

from __future__ import annotations

import ast
import collections
import glob
import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache

import pytest

from cursedlint.analysis.subprocess_spawn import (
    GLIBC, MACOS, MUSL, OLD_GLIBC, Platform, spawn_call,
)
from cursedlint.python.consteval import UNKNOWN
from cursedlint.python.context import PythonContext
from cursedlint.rules.process_spawning import SubprocessForkPath
from cursedlint.settings import Settings
from cursedlint.source import Source

from harness import lint

PROBE = os.path.join(os.path.dirname(__file__), "cpython_probe.py")
RANDOM_VARIANTS = 220

HEADER = """\
import asyncio
import os
import subprocess
import subprocess as sp
import sys
from subprocess import Popen as P

PROG = "/bin/true"
BARE = "true"
UNSET = os.environ.get("CUR101_PROBE_UNSET")


def child_setup():
    pass


"""
ASYNC_TEMPLATE = """\
async def main():
    process = await {call}
    await process.wait()


asyncio.run(main())
"""

# program forms: (call arguments, whether the linter can know the program)
COMMANDS = (
    ('["/bin/true"]', True), ('["true"]', True), ('("/bin/true", "-v")', True),
    ('"/bin/true"', True), ('"true"', True), ("[PROG]", True), ("[BARE]", True),
    ('["bin/true"]', True), ('[b"/bin/true"]', True),
    ('["name"], executable="/bin/true"', True), ('["/bin/true"], executable="true"', True),
    ('"true", shell=True', True), ('"true", shell=True, executable="/bin/sh"', True),
    ('"true", shell=True, executable="sh"', True), ("[UNSET or PROG]", False),
)
EXEC_PROGRAMS = (('"/bin/true"', True), ('"true"', True), ("PROG", True),
                 ('"/bin/true", "-v"', True), ('"x", executable="/bin/true"', True))
SHELL_COMMANDS = (('"true"', True), ('"true", executable="sh"', True))

# keyword -> (first Python version that has it, values: (source, whether the linter knows it))
KEYWORDS = {
    "close_fds": ((3, 8), (("True", True), ("False", True))),
    "cwd": ((3, 8), (("None", True), ('"/"', True), ("os.getcwd()", True), ("UNSET", False))),
    "stdin": ((3, 8), (("None", True), ("subprocess.PIPE", True), ("subprocess.DEVNULL", True),
                       ("0", True), ("sys.stdin", True))),
    "stdout": ((3, 8), (("None", True), ("subprocess.PIPE", True), ("sp.DEVNULL", True),
                        ("1", True), ("2", True), ("sys.stdout", True), ("sys.stderr", True),
                        ('open(os.devnull, "w")', False))),
    "stderr": ((3, 8), (("None", True), ("subprocess.PIPE", True), ("subprocess.DEVNULL", True),
                        ("subprocess.STDOUT", True), ("2", True), ("1", True),
                        ("sys.stderr", True), ('open(os.devnull, "w")', False))),
    "preexec_fn": ((3, 8), (("None", True), ("lambda: None", True), ("os.setpgrp", True),
                            ("child_setup", False))),
    "pass_fds": ((3, 8), (("()", True), ("(0,)", True))),
    "start_new_session": ((3, 8), (("False", True), ("True", True))),
    "restore_signals": ((3, 8), (("False", True),)),
    "env": ((3, 8), (('{"PATH": "/usr/bin:/bin"}', True), ("dict(os.environ)", False))),
    "user": ((3, 9), (("None", True), ("os.getuid()", True))),
    "group": ((3, 9), (("None", True), ("os.getgid()", True))),
    "extra_groups": ((3, 9), (("None", True), ("[]", True))),
    "umask": ((3, 9), (("-1", True), ("0o022", True))),
    "process_group": ((3, 11), (("None", True), ("0", True))),
}
# ids Popen rejects before starting anything (tried alone only, since they end the call)
REJECTED = {"user": ("-1", True), "group": ("2**32", True), "extra_groups": ("[0, -5]", True)}
POPEN_FUNCTIONS = ("subprocess.run", "subprocess.call", "subprocess.check_call",
                   "subprocess.check_output", "subprocess.Popen", "sp.run", "P")


@dataclass(frozen=True)
class Variant:
    source: str
    decidable: bool  # built only from values the linter can evaluate


def _variant(function: str, command: tuple[str, bool], keywords: dict) -> Variant:
    """A module calling `function` (asyncio's by bare name) with the command and keywords."""
    arguments = ", ".join([command[0]] + [f"{name}={value}" for name, (value, _) in keywords.items()])
    if function.startswith("create_subprocess"):
        body = ASYNC_TEMPLATE.format(call=f"asyncio.{function}({arguments})")
    else:
        wait = ".wait()" if function in ("subprocess.Popen", "P") else ""
        body = f"{function}({arguments}){wait}\n"
    return Variant(HEADER + body, command[1] and all(known for _, known in keywords.values()))


def _keywords_for(version: tuple[int, int], function: str) -> dict:
    return {
        name: values
        for name, (since, values) in KEYWORDS.items()
        if version >= since and not (name == "stdout" and function == "subprocess.check_output")
    }


def variants(version: tuple[int, int]) -> list[Variant]:
    """Every keyword value alone on a posix_spawn-friendly call, every program form, then
    random combinations (seeded per version, so a failure reproduces)."""
    found = [Variant(HEADER + 'os.popen("true").close()\n', True),
             Variant(HEADER + 'os.popen("cat", "w").close()\n', True)]
    friendly = {"close_fds": ("False", True)}
    for command in COMMANDS:
        found.append(_variant("subprocess.run", command, {}))
        found.append(_variant("subprocess.run", command, friendly))
    for name, values in _keywords_for(version, "subprocess.run").items():
        for value in values + ((REJECTED[name],) if name in REJECTED else ()):
            found.append(_variant("subprocess.run", COMMANDS[0], {**friendly, name: value}))
    rng = random.Random(f"CUR101 {version}")
    for _ in range(RANDOM_VARIANTS):
        found.append(_random_variant(rng, version))
    return found


def _random_variant(rng: random.Random, version: tuple[int, int]) -> Variant:
    kind = rng.choice(POPEN_FUNCTIONS + ("create_subprocess_exec", "create_subprocess_shell"))
    options = _keywords_for(version, kind)
    keywords = {}
    for name, values in options.items():
        if rng.random() < (0.7 if name == "close_fds" else 0.25):
            keywords[name] = rng.choice(values)
    if kind == "create_subprocess_exec":
        return _variant(kind, rng.choice(EXEC_PROGRAMS), keywords)
    if kind == "create_subprocess_shell":
        return _variant(kind, rng.choice(SHELL_COMMANDS), keywords)
    return _variant(kind, rng.choice(COMMANDS), keywords)


# -- interpreters ------------------------------------------------------------------------------

DESCRIBE = (
    "import json, os, sys\n"
    "try:\n    libc = os.confstr('CS_GNU_LIBC_VERSION')\nexcept (AttributeError, ValueError, OSError):\n"
    "    libc = None\n"
    "print(json.dumps([sys.version_info[:2], sys.platform, libc, hasattr(os, 'POSIX_SPAWN_CLOSEFROM'),\n"
    "                  os.path.realpath(sys.executable)]))"
)


@cache
def _describe(python: str) -> tuple[tuple[int, int], str | None, str] | None:
    """The interpreter's version, the `libc` option value that describes it, and the real
    path of its executable (pyenv shims and venvs point at another interpreter's)."""
    try:
        output = subprocess.run([python, "-c", DESCRIBE], capture_output=True, text=True,
                                timeout=30, check=True, close_fds=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    version, platform, libc, closefrom, executable = json.loads(output)
    return tuple(version), _libc_option(tuple(version), platform, libc, closefrom), executable


def _libc_option(version, platform: str, libc: str | None, closefrom: bool) -> str | None:
    if platform == "darwin":
        return MACOS
    if platform != "linux":
        return None
    if not libc:
        return MUSL
    glibc = tuple(int(part) for part in libc.split()[1].split(".")[:2])
    if glibc >= (2, 34) and (version < (3, 13) or closefrom):
        return GLIBC
    return OLD_GLIBC if glibc >= (2, 24) else None


def _interpreters() -> list[str]:
    """This interpreter, and every other CPython 3.8+ on PATH or under pyenv, once each."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = [sys.executable]
    candidates += [path for minor in range(8, 16) if (path := shutil.which(f"python3.{minor}"))]
    candidates += sorted(glob.glob(os.path.join(pyenv, "versions", "3.*", "bin", "python3")))
    unique = {}
    for path in candidates:
        facts = _describe(path)
        if facts and facts[0] >= (3, 8) and facts[1]:
            unique.setdefault(facts[2], path)
    return list(unique.values())


# -- the comparison ----------------------------------------------------------------------------


def _predicted(source: str, platform: Platform) -> object:
    settings = Settings(enabled=frozenset({"CUR101"}), target_python=platform.python)
    context = PythonContext(Source.from_text("variant.py", source, "python"), settings,
                            ast.parse(source))
    calls = [call for node in ast.walk(context.tree)
             if isinstance(node, ast.Call) and (call := spawn_call(node, context))]
    assert len(calls) == 1, source
    return calls[0].path(platform)[0]


def _flagged(source: str, platform: Platform) -> bool:
    settings = Settings(enabled=frozenset({"CUR101"}), target_python=platform.python,
                        rule_options={"CUR101": {"libc": platform.libc}})
    findings = lint(source, SubprocessForkPath, path="variant.py", settings=settings, dedent=False)
    assert all(finding.code == "CUR101" for finding in findings), findings
    return bool(findings)


def _observe(python: str, sources: list[str], folder) -> list[str]:
    variants_file, results_file = folder / "variants.json", folder / "results.json"
    variants_file.write_text(json.dumps(sources))
    subprocess.run([python, PROBE, str(variants_file), str(results_file)], check=True,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=240, close_fds=False)
    return json.loads(results_file.read_text())


@pytest.mark.parametrize("python", _interpreters())
def test_cur101_agrees_with_cpython(python, tmp_path):
    version, libc, _ = _describe(python)
    platform = Platform(version, libc)
    cases = variants(version)
    observed = _observe(python, [case.source for case in cases], tmp_path)
    tally = {"agreed": 0, "undecided": 0, "undecided_forks": 0}
    for case, seen in zip(cases, observed):
        seen = seen.partition(":")[0]  # "none: <the error Popen raised>"
        flagged = _flagged(case.source, platform)
        predicted = _predicted(case.source, platform)
        assert not flagged or seen == "fork", f"false finding ({seen}):\n{case.source}"
        if predicted is UNKNOWN:
            assert not case.decidable and not flagged, f"undecided:\n{case.source}"
            tally["undecided"] += 1
            tally["undecided_forks"] += seen == "fork"
            continue
        assert (predicted, flagged) == (seen, seen == "fork"), (
            f"predicted {predicted}, flagged {flagged}, CPython took {seen}:\n{case.source}")
        tally["agreed"] += 1
    paths = collections.Counter(path.partition(":")[0] for path in observed)
    print(f"\nCUR101 vs {python} ({'.'.join(map(str, version))}, {libc}): {len(cases)} variants, "
          f"{tally['agreed']} agreed, {tally['undecided']} undecided (silent; "
          f"{tally['undecided_forks']} of them forked); CPython took {dict(paths)}")
