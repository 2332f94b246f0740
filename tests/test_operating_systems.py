"""A project's declared operating systems: CUR101 and CUR102 are silent in a project whose
packaging classifiers name Windows alone (where nothing forks), unless its configuration sets
`libc`; every other set of classifiers keeps them."""

from __future__ import annotations

import json
import textwrap

import pytest

from cursedlint.project.operating_systems import (
    may_say_windows_only, os_classifiers, setup_cfg_classifiers, setup_py_classifiers,
    windows_only,
)

# a build helper of a COM library: on Linux before 3.10 (or on macOS) `cwd=` and a program
# without a directory part make CPython fork
BUILD_SCRIPT = '''\
"""Build the test server DLL with MSBuild."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def build(configuration="Release"):
    subprocess.run(["msbuild.exe", "TestServer.sln", f"/p:Configuration={configuration}"],
                   cwd=HERE, check=True)
'''

# a fork after CUDA was initialized, whose child uses CUDA
GPU_WORKER = '''\
import os

import torch


def warm_up_and_fork():
    weights = torch.ones(1024, device="cuda")
    pid = os.fork()
    if pid == 0:
        torch.cuda.synchronize()
        os._exit(0)
    return weights, pid
'''

WINDOWS = ["Operating System :: Microsoft :: Windows"]


def _pyproject(classifiers, tool: str = "") -> str:
    listed = "".join(f'    "{item}",\n' for item in classifiers)
    return (f'[project]\nname = "comserver"\nversion = "1.0"\nclassifiers = [\n'
            f'    "Programming Language :: Python :: 3",\n{listed}]\n{tool}')


def _run(tmp_path, monkeypatch, capsys, files: dict[str, str], *options: str):
    """The codes of the findings of a run over the project, and what it wrote to stderr."""
    from cursedlint.cli import main

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "build_dll.py").write_text(BUILD_SCRIPT)
    (tmp_path / "gpu_worker.py").write_text(GPU_WORKER)
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "--exit-zero", "--output-format", "json",
          "--target-python", "3.9", *options, "."])
    out, err = capsys.readouterr()
    return sorted(finding["code"] for finding in json.loads(out)), err


def _codes(tmp_path, monkeypatch, capsys, files: dict[str, str]) -> list[str]:
    return _run(tmp_path, monkeypatch, capsys, files)[0]


@pytest.mark.parametrize("classifiers", [
    WINDOWS,
    ["Operating System :: Microsoft :: Windows :: Windows 10",
     "Operating System :: Microsoft :: Windows :: Windows 11"],
])
def test_a_project_that_runs_only_on_windows_forks_nothing(
        tmp_path, monkeypatch, capsys, classifiers):
    files = {"pyproject.toml": _pyproject(classifiers)}
    assert _codes(tmp_path, monkeypatch, capsys, files) == []


@pytest.mark.parametrize("classifiers", [
    WINDOWS + ["Operating System :: POSIX"],
    WINDOWS + ["Operating System :: POSIX :: Linux"],
    WINDOWS + ["Operating System :: MacOS"],
    WINDOWS + ["Operating System :: Unix"],
    ["Operating System :: OS Independent"],
    ["Operating System :: Microsoft :: MS-DOS"],
    [],  # no operating system said
])
def test_a_project_that_may_run_where_processes_fork_is_checked(
        tmp_path, monkeypatch, capsys, classifiers):
    files = {"pyproject.toml": _pyproject(classifiers)}
    assert _codes(tmp_path, monkeypatch, capsys, files) == ["CUR101", "CUR102"]


def test_setup_cfg_classifiers_are_read(tmp_path, monkeypatch, capsys):
    windows = textwrap.dedent("""\
        [metadata]
        name = comserver
        classifiers =
            Programming Language :: Python :: 3
            Operating System :: Microsoft :: Windows
        """)
    assert _codes(tmp_path, monkeypatch, capsys, {"setup.cfg": windows}) == []
    independent = windows.replace("Microsoft :: Windows", "OS Independent")
    assert _codes(tmp_path, monkeypatch, capsys, {"setup.cfg": independent}) == [
        "CUR101", "CUR102"]


def test_a_literal_list_of_setup_py_is_read_never_run(tmp_path, monkeypatch, capsys):
    windows = textwrap.dedent("""\
        from setuptools import setup

        raise SystemExit("a setup.py that ran would stop here")
        setup(
            name="comserver",
            classifiers=[
                "Programming Language :: Python :: 3",
                "Operating System :: Microsoft :: Windows",
            ],
        )
        """)
    assert _codes(tmp_path, monkeypatch, capsys, {"setup.py": windows}) == []
    both = windows.replace('"Operating System :: Microsoft :: Windows",',
                           '"Operating System :: Microsoft :: Windows",\n'
                           '        "Operating System :: POSIX",')
    assert _codes(tmp_path, monkeypatch, capsys, {"setup.py": both}) == ["CUR101", "CUR102"]


def test_every_file_of_the_metadata_counts(tmp_path, monkeypatch, capsys):
    setup_cfg = "[metadata]\nclassifiers =\n    Operating System :: POSIX :: Linux\n"
    files = {"pyproject.toml": _pyproject(WINDOWS), "setup.cfg": setup_cfg}
    assert _codes(tmp_path, monkeypatch, capsys, files) == ["CUR101", "CUR102"]


def test_a_configured_libc_wins_over_the_classifiers(tmp_path, monkeypatch, capsys):
    tool = '[tool.cursedlint.rules.CUR101]\nlibc = "macos"\n'
    files = {"pyproject.toml": _pyproject(WINDOWS, tool)}
    assert _codes(tmp_path, monkeypatch, capsys, files) == ["CUR101", "CUR102"]


def test_verbose_says_where_the_platform_comes_from(tmp_path, monkeypatch, capsys):
    _, err = _run(tmp_path, monkeypatch, capsys, {"pyproject.toml": _pyproject(WINDOWS)}, "-v")
    assert (f"target platform: Windows only: the Operating System classifiers of "
            f"{tmp_path / 'pyproject.toml'} (no fork: CUR101, CUR102 silent") in err


def test_a_silenced_rule_still_parses_its_files(tmp_path, monkeypatch, capsys):
    """A file only CUR101's words bring in is parsed as before: its syntax error is kept."""
    files = {"pyproject.toml": _pyproject(WINDOWS),
             "svnfilter.py": 'import os\nprint "filtering"\nos.popen("svnlook youngest")\n'}
    assert _codes(tmp_path, monkeypatch, capsys, files) == ["CUR001"]


def test_classifiers_read_from_each_form():
    assert os_classifiers(["Operating System :: Microsoft  ::Windows", "License :: OSI"]) \
        == ("Operating System :: Microsoft :: Windows",)
    assert os_classifiers("Operating System :: Microsoft :: Windows") == ()  # not a list
    assert setup_cfg_classifiers("[options]\npackages = find:\n") == ()
    assert setup_cfg_classifiers("[metadata]\nclassifiers = file: classifiers.txt\n") == ()
    assert setup_py_classifiers("setup(classifiers=BASE + ['Operating System :: POSIX'])") == ()
    assert setup_py_classifiers("setup_logging(classifiers=['Operating System :: POSIX'])") == ()
    assert setup_py_classifiers("def setup(:\n") == ()
    assert windows_only(["Operating System :: Microsoft :: Windows :: Windows 10"])
    assert not windows_only([])
    assert not windows_only(["Operating System :: Microsoft :: Windows CE"])


def test_only_text_that_may_declare_windows_alone_is_parsed():
    windows = b'classifiers = ["Operating System :: Microsoft :: Windows"]'
    assert may_say_windows_only([windows, b"[options]\npackages = find:\n"])
    assert may_say_windows_only([b"Operating System::Microsoft  ::  Windows :: Windows 10"])
    assert not may_say_windows_only([b"# for Windows\n", b"Operating System :: OS Independent"])
    assert not may_say_windows_only([windows, b"Operating System :: POSIX :: Linux"])
    assert not may_say_windows_only([b"if sys.platform == 'win32':  # Windows\n"])
