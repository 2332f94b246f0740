"""Hierarchical configuration through the command line: each file gets its nearest
configuration (ruff's model), `extend`, what `-v`, `--show-settings` and `--show-files` say,
and `clean` finding each project's cache.

The monorepo is the adoption audit's (ux-2026-11-27, friction item 3): the same run.py in two
packages; pkg_a (requires-python >=3.9, `[tool.cursedlint] ignore = ["CUR103"]`) finds
CUR101 and CUR102 in it, pkg_b (>=3.12, cursedlint.toml `select = ["CUR1"]`, `ignore =
["CUR102"]`) finds CUR103 only. Whatever is named and from where, each file must get the
answer of `cd pkg_x && cursedlint check .`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cursedlint.project.cache import CACHE_DIR
from cursedlint.cli import main

RUN_PY = """\
\"\"\"Syncs checkpoints and preprocesses shards on a training node.\"\"\"
import multiprocessing
import os
import subprocess

import torch


def sync(src, dst):
    os.environ["RDMAV_FORK_SAFE"] = "1"
    subprocess.run(["s5cmd", "cp", src, dst], check=True)


def embed(shard):
    return torch.load(shard).cuda()


def embed_all(shards):
    model = torch.nn.Linear(8, 8).cuda()
    with multiprocessing.Pool(4) as pool:
        return model, pool.map(embed, shards)
"""
PKG_A = {"CUR101", "CUR102"}  # target 3.9: the bare "s5cmd" forks; CUR103 ignored
PKG_B = {"CUR103"}  # target 3.12: no fork for "s5cmd"; CUR102 ignored, only CUR1 selected


@pytest.fixture
def mono(tmp_path, monkeypatch):
    """The audit's monorepo, as the working directory; no configuration at its root."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    write(tmp_path / "pkg_a" / "pyproject.toml",
          '[project]\nname = "pkg-a"\nrequires-python = ">=3.9"\n\n'
          '[tool.cursedlint]\nignore = ["CUR103"]\n')
    write(tmp_path / "pkg_b" / "pyproject.toml", '[project]\nname = "pkg-b"\nrequires-python = ">=3.12"\n')
    write(tmp_path / "pkg_b" / "cursedlint.toml", 'select = ["CUR1"]\nignore = ["CUR102"]\n')
    for package in ("pkg_a", "pkg_b"):
        write(tmp_path / package / "run.py", RUN_PY)
    return tmp_path


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def codes_by_file(capsys, *args: str, relative_to: Path | None = None) -> dict[str, set[str]]:
    """`check --no-cache --output-format json ARGS`: each file's codes, its path relative to
    `relative_to` (default: as reported)."""
    code, out, err = cli(capsys, "check", "--no-cache", "--output-format", "json", *args)
    assert code in (0, 1), err
    found: dict[str, set[str]] = {}
    for finding in json.loads(out):
        path = finding["path"]
        if relative_to is not None:
            path = os.path.relpath(os.path.abspath(path), relative_to).replace(os.sep, "/")
        found.setdefault(path, set()).add(finding["code"])
    return found


def truth(capsys, mono: Path, *packages: str) -> dict[str, set[str]]:
    """What `cd PACKAGE && cursedlint check .` reports, for each package."""
    found = {}
    for package in packages:
        os.chdir(mono / package)
        found.update(codes_by_file(capsys, ".", relative_to=mono))
    os.chdir(mono)
    return found


# -- 1. the nearest configuration applies to each file -------------------------------------------


@pytest.mark.parametrize("paths", [
    ["pkg_a", "pkg_b"],
    ["pkg_b", "pkg_a"],
    ["."],
    ["--force-exclude", "pkg_a/run.py", "pkg_b/run.py"],  # as the pre-commit hook names files
    ["--force-exclude", "pkg_b/run.py", "pkg_a/run.py"],
])
def test_every_file_gets_the_answer_of_its_own_package(mono, capsys, paths):
    assert truth(capsys, mono, "pkg_a", "pkg_b") == {"pkg_a/run.py": PKG_A, "pkg_b/run.py": PKG_B}
    assert codes_by_file(capsys, *paths, relative_to=mono) == {"pkg_a/run.py": PKG_A, "pkg_b/run.py": PKG_B}


def test_a_package_inside_a_package_gets_its_own_configuration(mono, capsys):
    write(mono / "pkg_b" / "plugins" / "cursedlint.toml", 'select = ["CUR102"]\ntarget-python = "3.9"\n')
    write(mono / "pkg_b" / "plugins" / "run.py", RUN_PY)
    expected = {"pkg_a/run.py": PKG_A, "pkg_b/run.py": PKG_B, "pkg_b/plugins/run.py": {"CUR102"}}
    assert codes_by_file(capsys, ".", relative_to=mono) == expected
    assert codes_by_file(capsys, "pkg_b/plugins/run.py", "pkg_b/run.py", relative_to=mono) == {
        "pkg_b/run.py": PKG_B, "pkg_b/plugins/run.py": {"CUR102"}}


def test_a_file_whose_configuration_is_above_the_working_directory(mono, capsys):
    write(mono / "pkg_b" / "tools" / "run.py", RUN_PY)
    os.chdir(mono / "pkg_b" / "tools")
    assert codes_by_file(capsys, "run.py") == {"run.py": PKG_B}
    assert codes_by_file(capsys, "../../pkg_a/run.py", "run.py", relative_to=mono) == {
        "pkg_a/run.py": PKG_A, "pkg_b/tools/run.py": PKG_B}


def test_config_flag_applies_one_configuration_to_every_file(mono, capsys):
    # pkg_b's selection and its root's requires-python (3.12) for pkg_a's file too, as ruff's --config
    assert codes_by_file(capsys, "--config", "pkg_b/cursedlint.toml", ".", relative_to=mono) == {
        "pkg_a/run.py": PKG_B, "pkg_b/run.py": PKG_B}


def test_command_line_options_apply_on_top_of_every_configuration(mono, capsys):
    found = codes_by_file(capsys, "--target-python", "3.9", "--ignore", "CUR103", ".", relative_to=mono)
    assert found == {"pkg_a/run.py": {"CUR101", "CUR102"}, "pkg_b/run.py": {"CUR101"}}


def test_files_no_configuration_covers_read_their_own_projects_requires_python(mono, capsys):
    write(mono / "pyproject.toml", '[project]\nname = "mono"\nrequires-python = ">=3.12"\n')
    write(mono / "tool.py", RUN_PY)
    write(mono / "pkg_c" / "pyproject.toml", '[project]\nname = "pkg-c"\nrequires-python = ">=3.9"\n')
    write(mono / "pkg_c" / "run.py", RUN_PY)
    found = codes_by_file(capsys, ".", relative_to=mono)
    assert found["pkg_c/run.py"] == {"CUR101", "CUR102", "CUR103"}  # 3.9: the bare name forks
    assert found["tool.py"] == {"CUR102", "CUR103"}  # 3.12
    assert codes_by_file(capsys, "tool.py", "pkg_c/run.py", relative_to=mono) == {
        "pkg_c/run.py": found["pkg_c/run.py"], "tool.py": found["tool.py"]}


def test_a_broken_key_in_one_package_fails_the_whole_run(mono, capsys):
    write(mono / "pkg_b" / "cursedlint.toml", 'selct = ["CUR1"]\n')
    for paths in (["."], ["pkg_a/run.py", "pkg_b/run.py"]):
        code, out, err = cli(capsys, "check", "--no-cache", *paths)
        assert code == 2 and out == ""
        assert err.count("\n") == 1
        assert err.startswith(f"cursedlint: error: {mono / 'pkg_b' / 'cursedlint.toml'}: selct: unknown key")
    assert codes_by_file(capsys, "pkg_a", relative_to=mono) == {"pkg_a/run.py": PKG_A}  # not pkg_b's


def test_a_configurations_excludes_apply_below_its_directory(mono, capsys):
    write(mono / "pkg_b" / "cursedlint.toml", 'select = ["CUR1"]\nextend-exclude = ["gen/", "/old.py"]\n')
    write(mono / "pkg_a" / "cursedlint.toml", 'exclude = []\nignore = ["CUR103"]\n')  # build/ is linted
    for path in ("pkg_b/gen/x.py", "pkg_b/old.py", "pkg_a/gen/x.py", "pkg_a/old.py", "pkg_a/build/x.py",
                 "gen/x.py", "old.py", "build/x.py"):
        write(mono / path, RUN_PY)
    code, out, _ = cli(capsys, "check", "--show-files", ".")
    assert code == 0
    listed = {line.split("  (")[0] for line in out.splitlines()}
    assert listed == {"gen/x.py", "old.py", "pkg_a/gen/x.py", "pkg_a/old.py", "pkg_a/build/x.py",
                      "pkg_a/run.py", "pkg_b/run.py"}
    os.chdir(mono / "pkg_b")
    assert cli(capsys, "check", "--show-files", ".")[1] == "run.py\n"
    # --force-exclude (the pre-commit hook) applies the named file's own configuration's excludes
    os.chdir(mono)
    code, out, _ = cli(capsys, "check", "--show-files", "--force-exclude",
                       "pkg_b/gen/x.py", "pkg_a/gen/x.py", "gen/x.py")
    assert code == 0 and {line.split("  (")[0] for line in out.splitlines()} == {"pkg_a/gen/x.py", "gen/x.py"}


def test_each_package_keeps_its_results_under_its_own_root(mono, capsys):
    first = cli(capsys, "check", ".")
    assert (mono / "pkg_a" / CACHE_DIR).is_dir() and (mono / "pkg_b" / CACHE_DIR).is_dir()
    assert not (mono / CACHE_DIR).exists()  # no file outside the packages
    assert cli(capsys, "check", ".") == first  # warm
    os.chdir(mono / "pkg_b")
    assert codes_by_file(capsys, ".") == {"run.py": PKG_B}


def test_a_configurations_baseline_applies_to_its_own_files(mono, capsys):
    os.chdir(mono / "pkg_a")
    assert cli(capsys, "check", "--no-cache", "--write-baseline", "baseline.json", ".")[0] == 0
    write(mono / "pkg_a" / "pyproject.toml",
          '[project]\nname = "pkg-a"\nrequires-python = ">=3.9"\n\n'
          '[tool.cursedlint]\nignore = ["CUR103"]\nbaseline = "baseline.json"\n')
    os.chdir(mono)
    code, out, err = cli(capsys, "check", "--no-cache", "--concise", ".")
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines() if "CUR" in line] == ["pkg_b/run.py"]
    assert f"2 finding(s) in the baseline {mono / 'pkg_a' / 'baseline.json'} not reported" in err


# -- 2. extend ------------------------------------------------------------------------------------


def settings_lines(capsys, path: str, *args: str) -> dict[str, str]:
    code, out, err = cli(capsys, "check", "--show-settings", *args, path)
    assert code == 0, err
    lines: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition(": ")
        lines[key] = f"{lines[key]}\n{value}" if key in lines else value
    return lines


def test_extend_inherits_what_the_file_does_not_set(mono, capsys):
    write(mono / "cursedlint.toml",
          'select = ["CUR1", "CUR6"]\npage-size = 65536\ntarget-python = "3.10"\n'
          'include-dirs = ["third_party/include"]\n'
          '[rules.CUR601]\nwrappers = ["psm3_cma_get"]\nassert-names = ["ASSERT"]\n')
    write(mono / "pkg_b" / "cursedlint.toml",
          'extend = "../cursedlint.toml"\nignore = ["CUR102"]\ntarget-python = "3.9"\n'
          '[rules.CUR601]\nwrappers = ["my_readv"]\n')
    lines = settings_lines(capsys, "pkg_b/run.py")
    assert lines["configuration"] == os.path.join("pkg_b", "cursedlint.toml")
    assert lines["extends"] == "cursedlint.toml"
    assert lines["root"] == "pkg_b"
    assert lines["target-python"].startswith(f"3.9 (target-python in {mono / 'pkg_b' / 'cursedlint.toml'})")
    assert lines["enabled"] == "CUR101, CUR103, CUR601"  # the layers: CUR1 + CUR6, less CUR102
    assert lines["page-size"] == "65536 (from cursedlint.toml)"
    assert lines["include-dirs"].startswith(os.path.join("third_party", "include"))  # the root's
    assert lines["rules.CUR601.wrappers"] == "['my_readv']"  # merged option by option
    assert lines["rules.CUR601.assert-names"] == "['ASSERT']"
    assert codes_by_file(capsys, "pkg_b", relative_to=mono) == {"pkg_b/run.py": {"CUR101", "CUR103"}}


def test_extend_select_and_extend_exclude_accumulate(mono, capsys):
    write(mono / "base.toml", 'select = ["CUR101"]\nextend-exclude = ["pkg_b/vendor/"]\n')
    write(mono / "pkg_b" / "cursedlint.toml",
          'extend = "../base.toml"\nextend-select = ["CUR103"]\nextend-exclude = ["old/"]\n'
          'target-python = "3.9"\n')
    for path in ("pkg_b/vendor/x.py", "pkg_b/old/x.py", "pkg_b/new/x.py"):
        write(mono / path, RUN_PY)
    assert codes_by_file(capsys, "pkg_b", relative_to=mono) == {
        "pkg_b/run.py": {"CUR101", "CUR103"}, "pkg_b/new/x.py": {"CUR101", "CUR103"}}
    # a pattern of the extended file stays relative to its own directory
    os.chdir(mono / "pkg_b")
    assert cli(capsys, "check", "--show-files", ".")[1] == "new/x.py\nrun.py\n"


def test_extended_per_file_ignores_are_relative_to_the_file_that_wrote_them(mono, capsys):
    write(mono / "pyproject.toml",
          '[tool.cursedlint]\ntarget-python = "3.9"\n[tool.cursedlint.per-file-ignores]\n'
          '"pkg_b/legacy/*.py" = ["CUR101"]\n')
    write(mono / "pkg_b" / "cursedlint.toml", 'extend = "../pyproject.toml"\nselect = ["CUR1"]\n')
    write(mono / "pkg_b" / "legacy" / "old.py", RUN_PY)
    assert codes_by_file(capsys, ".", relative_to=mono)["pkg_b/legacy/old.py"] == {"CUR102", "CUR103"}
    assert codes_by_file(capsys, "pkg_b/run.py", relative_to=mono) == {"pkg_b/run.py": {"CUR101", "CUR102", "CUR103"}}


def test_an_extend_cycle_is_a_one_line_error_naming_the_chain(mono, capsys):
    write(mono / "pkg_b" / "cursedlint.toml", 'extend = "../shared/a.toml"\n')
    write(mono / "shared" / "a.toml", 'extend = "b.toml"\n')
    write(mono / "shared" / "b.toml", 'extend = "a.toml"\n')
    code, out, err = cli(capsys, "check", "pkg_b")
    assert code == 2 and out == "" and err.count("\n") == 1
    a, b = mono / "shared" / "a.toml", mono / "shared" / "b.toml"
    assert err.startswith(f"cursedlint: error: {b}: extend: extends {str(a)!r}, which the chain already holds: a cycle (")
    assert err.rstrip().endswith(f"cursedlint.toml -> {a} -> {b} -> {a})")


@pytest.mark.parametrize("value, problem", [
    ("3", "extend: expected a path to a cursedlint.toml, a pyproject.toml or another TOML "
          "configuration file, got an integer 3"),
    ('"../missing.toml"', "extend: no file at '../missing.toml'"),
    ('"../pkg_a"', "extend: no file at '../pkg_a'"),
])
def test_extend_is_validated_like_every_key(mono, capsys, value, problem):
    write(mono / "pkg_b" / "cursedlint.toml", f"extend = {value}\n")
    code, out, err = cli(capsys, "check", ".")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"cursedlint: error: {mono / 'pkg_b' / 'cursedlint.toml'}: {problem}")


def test_an_extended_file_with_an_invalid_key_is_named(mono, capsys):
    write(mono / "base.toml", 'page-size = 4095\n')
    write(mono / "pkg_a" / "pyproject.toml", '[tool.cursedlint]\nextend = "../base.toml"\n')
    code, _, err = cli(capsys, "check", "pkg_a")
    assert code == 2
    assert err == f"cursedlint: error: {mono / 'base.toml'}: page-size: expected a power of two from 1024 to 1073741824 (bytes), got 4095\n"


# -- 3. saying which configuration applied --------------------------------------------------------


def test_verbose_names_each_configuration_and_its_files(mono, capsys):
    write(mono / "tool.py", RUN_PY)
    code, _, err = cli(capsys, "check", "--no-cache", "-v", ".")
    assert code == 1
    assert f"config: {os.path.join('pkg_a', 'pyproject.toml')} (1 file)\n" in err
    assert f"config: {os.path.join('pkg_b', 'cursedlint.toml')} (1 file)\n" in err
    assert "no configuration: defaults (1 file)\n" in err
    assert f"target Python 3.12: the lowest version requires-python '>=3.12' allows ({mono / 'pkg_b' / 'pyproject.toml'})" in err


def test_show_settings_prints_a_files_resolved_settings_and_lints_nothing(mono, capsys):
    lines = settings_lines(capsys, "pkg_b/run.py")
    assert lines["settings for"] == os.path.join("pkg_b", "run.py")
    assert lines["configuration"] == os.path.join("pkg_b", "cursedlint.toml")
    assert lines["extends"] == "(nothing)"
    assert lines["root"] == "pkg_b"
    assert lines["target-python"] == (f"3.12 (the lowest version requires-python '>=3.12' allows "
                                      f"({mono / 'pkg_b' / 'pyproject.toml'}))")
    assert lines["enabled"] == "CUR101, CUR103"
    assert lines["exclude (in pkg_b)"] == "(the defaults)"
    assert not (mono / "pkg_b" / CACHE_DIR).exists()
    assert settings_lines(capsys, "pkg_b/run.py", "--select", "CUR102")["enabled"] == "CUR102"
    assert settings_lines(capsys, "pkg_a/run.py")["configuration"] == os.path.join("pkg_a", "pyproject.toml")
    assert settings_lines(capsys, "elsewhere.py")["configuration"] == "(none: the defaults)"


def test_show_files_lists_the_files_with_their_configuration(mono, capsys):
    write(mono / "tool.py", RUN_PY)
    code, out, _ = cli(capsys, "check", "--show-files", ".")
    assert code == 0
    assert out.splitlines() == [
        f"pkg_a/run.py  (config: {os.path.join('pkg_a', 'pyproject.toml')})",
        f"pkg_b/run.py  (config: {os.path.join('pkg_b', 'cursedlint.toml')})",
        "tool.py  (no configuration: defaults)",
    ]
    assert cli(capsys, "check", "--show-files", "pkg_a")[1] == "pkg_a/run.py\n"  # one configuration
    assert not (mono / "pkg_a" / CACHE_DIR).exists()


# -- 4. clean ------------------------------------------------------------------------------------


def test_clean_path_removes_the_cache_of_a_project_without_configuration(tmp_path, monkeypatch, capsys):
    project = tmp_path / "real" / "rdma"
    write(project / "setup.sh", "#!/bin/sh\nexport RDMAV_FORK_SAFE=1\n")
    monkeypatch.chdir(project)
    cli(capsys, "check", ".")
    assert (project / CACHE_DIR).is_dir()
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, "clean", "real/rdma")
    assert code == 0 and err == f"cursedlint: removed cache in {project}\n"
    assert not (project / CACHE_DIR).exists() and (project / "setup.sh").exists()
    assert cli(capsys, "clean", "real/rdma")[2] == f"cursedlint: no cache in {project}\n"


def test_clean_removes_and_names_every_projects_cache(mono, capsys):
    cli(capsys, "check", ".")
    write(mono / "tool.py", RUN_PY)
    cli(capsys, "check", "tool.py")  # the defaults keep theirs in the working directory
    code, _, err = cli(capsys, "clean")
    assert code == 0
    assert err.splitlines() == [f"cursedlint: removed cache in {mono}",
                                f"cursedlint: removed cache in {mono / 'pkg_a'}",
                                f"cursedlint: removed cache in {mono / 'pkg_b'}"]
    assert not list(mono.rglob(CACHE_DIR))


def test_clean_path_finds_the_cache_at_its_configurations_root(mono, capsys):
    cli(capsys, "check", "pkg_b")
    (mono / "pkg_b" / "tools").mkdir()
    code, _, err = cli(capsys, "clean", "pkg_b/tools")
    assert code == 0 and err == f"cursedlint: removed cache in {mono / 'pkg_b'}\n"
    assert cli(capsys, "clean", "pkg_b/tools")[2] == \
        f"cursedlint: no cache in {mono / 'pkg_b'} or below {mono / 'pkg_b' / 'tools'}\n"
