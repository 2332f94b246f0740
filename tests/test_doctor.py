"""`cursedlint doctor`: each probe on a fake system tree (the root-directory parameter) and
given API answers, the "unknown" answers where files are missing, output and exit codes."""

from __future__ import annotations

import json
import os

import pytest

from cursedlint.cli import main
from cursedlint.doctor import (ARMED, CLEAR, UNKNOWN, Host, diagnose, fork_safe_variables,
                               infiniband, kernel_version, overcommit, ptrace_scope,
                               render_table, spawn_close_fds, start_method)

FILES = {
    "ptrace_scope": "proc/sys/kernel/yama/ptrace_scope",
    "osrelease": "proc/sys/kernel/osrelease",
    "overcommit": "proc/sys/vm/overcommit_memory",
}


def fake_root(tmp_path, **contents) -> str:
    """A system tree with the named files (keys of FILES) holding `contents`, and /dev."""
    for key, text in contents.items():
        path = tmp_path / FILES[key]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{text}\n")
    (tmp_path / "dev").mkdir(exist_ok=True)
    return str(tmp_path)


def host(tmp_path, environ=None, python=(3, 12), libc="glibc 2.39", methods=("forkserver",),
         **contents) -> Host:
    return Host(fake_root(tmp_path, **contents), environ or {}, python, libc, methods)


@pytest.mark.parametrize("value, status", [
    ("0", CLEAR), ("1", ARMED), ("2", ARMED), ("3", ARMED), ("7", UNKNOWN),
])
def test_ptrace_scope(tmp_path, value, status):
    condition = ptrace_scope(host(tmp_path, ptrace_scope=value))
    assert (condition.status, condition.rules) == (status, ("CUR601",))
    assert condition.value == (value if status != UNKNOWN else "unknown")


def test_ptrace_scope_one_explains_eperm_and_pr_set_ptracer(tmp_path):
    why = ptrace_scope(host(tmp_path, ptrace_scope="1")).why
    assert "EPERM" in why and "PR_SET_PTRACER" in why


@pytest.mark.parametrize("release, status", [
    ("5.4.0-1103-aws", ARMED), ("5.11.22", ARMED), ("5.12.0", CLEAR), ("6.8.0-45-generic", CLEAR),
    ("weird", UNKNOWN),
])
def test_kernel_version(tmp_path, release, status):
    assert kernel_version(host(tmp_path, osrelease=release)).status == status


@pytest.mark.parametrize("value, status", [("0", CLEAR), ("1", CLEAR), ("2", ARMED)])
def test_overcommit(tmp_path, value, status):
    assert overcommit(host(tmp_path, overcommit=value)).status == status


def test_infiniband_device_directory(tmp_path):
    assert infiniband(host(tmp_path)).status == CLEAR
    (tmp_path / "dev" / "infiniband").mkdir()
    assert infiniband(host(tmp_path)).status == ARMED


def test_missing_files_are_unknown_with_the_reason(tmp_path):
    """macOS or a container: no /proc or /dev under the root at all."""
    empty = tmp_path / "empty"
    empty.mkdir()
    found = {c.name: c for c in diagnose(Host(str(empty), {}, (3, 12), "macos", ("spawn",)))}
    for name in ("yama ptrace_scope", "kernel version", "vm.overcommit_memory", "/dev/infiniband"):
        assert found[name].status == UNKNOWN
        assert found[name].value == "unknown"
    assert "cannot read /proc/sys/kernel/yama/ptrace_scope" in found["yama ptrace_scope"].why
    assert "No such file or directory" in found["vm.overcommit_memory"].why


@pytest.mark.parametrize("environ, status", [
    ({}, CLEAR), ({"RDMAV_FORK_SAFE": "1"}, ARMED), ({"IBV_FORK_SAFE": "0"}, ARMED),
    ({"RDMAV_FORK_SAFE_X": "1"}, CLEAR),
])
def test_fork_safe_variables(tmp_path, environ, status):
    assert fork_safe_variables(host(tmp_path, environ=environ)).status == status


@pytest.mark.parametrize("python, libc, status", [
    ((3, 13), "glibc 2.39", CLEAR),    # posix_spawn with close_fds=True
    ((3, 11), "glibc 2.36", CLEAR),    # close_fds blocks posix_spawn, but vfork
    ((3, 9), "glibc 2.31", ARMED),     # no vfork before 3.10
    ((3, 13), "macos", ARMED),
    ((3, 12), None, UNKNOWN),
])
def test_spawn_close_fds(tmp_path, python, libc, status):
    condition = spawn_close_fds(host(tmp_path, python=python, libc=libc))
    assert condition.status == status


@pytest.mark.parametrize("methods, status", [
    (("fork", "spawn", "forkserver"), ARMED), (("forkserver", "spawn", "fork"), CLEAR),
    ((), UNKNOWN),
])
def test_start_method(tmp_path, methods, status):
    assert start_method(host(tmp_path, methods=methods)).status == status


def test_table_has_a_row_and_an_explanation_per_condition(tmp_path):
    text = render_table(diagnose(host(tmp_path, ptrace_scope="1", osrelease="6.1.0",
                                      overcommit="0")))
    lines = text.splitlines()
    assert lines[0].split() == ["CONDITION", "VALUE", "STATUS", "RULES"]
    assert lines[1].split()[:4] == ["yama", "ptrace_scope", "1", "armed"]
    assert lines[2].startswith("    restricted ptrace")
    assert lines[-1] == "1 of 7 conditions arm a hazard."


def test_cli_json_and_exit_codes(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RDMAV_FORK_SAFE", raising=False)
    root = fake_root(tmp_path, ptrace_scope="1", osrelease="6.1.0", overcommit="2")
    assert main(["doctor", "--root", root, "--output-format", "json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["yama ptrace_scope"] == {
        "name": "yama ptrace_scope", "value": "1", "status": "armed",
        "why": rows["yama ptrace_scope"]["why"], "rules": ["CUR601"],
    }
    assert rows["vm.overcommit_memory"]["status"] == "armed"
    assert main(["doctor", "--root", root, "--strict"]) == 1
    assert "CONDITION" in capsys.readouterr().out


def test_default_host_reads_this_machine():
    conditions = diagnose(Host())
    assert len(conditions) == 7
    assert all(c.status in (ARMED, CLEAR, UNKNOWN) and c.why for c in conditions)
    assert Host().root == os.sep


@pytest.mark.skipif(not os.path.isfile("/proc/sys/kernel/osrelease"), reason="no /proc")
def test_this_machines_proc_files_are_read_though_they_report_no_size():
    """The files under /proc are regular files of size 0: read whole, as `--root` images' are
    (those that are anything else are refused: tests/test_hostile_reads.py)."""
    assert os.stat("/proc/sys/kernel/osrelease").st_size == 0
    assert kernel_version(Host()).value == os.uname().release
