"""The command line as users call it: exit codes, formats, configuration errors, fixes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cursedlint
from cursedlint import registry
from cursedlint.cli import main

from engine_rules import TEST_RULES

FORKING = """\
import os
import subprocess


def sync_checkpoints(bucket):
    subprocess.run(["s5cmd", "sync", bucket, "/ckpt"], preexec_fn=os.setpgrp)
"""
CLEAN = """\
import subprocess


def sync_checkpoints(bucket):
    subprocess.run(["/usr/bin/s5cmd", "sync", bucket, "/ckpt"], close_fds=False)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "sync.py").write_text(FORKING)
    (tmp_path / "train" / "clean.py").write_text(CLEAN)
    return tmp_path


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"cursedlint {cursedlint.__version__}\n"


def test_no_command_is_a_usage_error(capsys):
    code, _, err = cli(capsys)
    assert code == 2 and "usage: cursedlint" in err


def test_findings_exit_1_clean_exit_0(project, capsys):
    code, out, _ = cli(capsys, "check")
    assert code == 1
    assert out.startswith("train/sync.py:6:5: CUR101 ")
    assert "Found 1 problem" in out
    code, out, _ = cli(capsys, "check", "train/clean.py")
    assert code == 0 and "All checks passed!" in out


def test_exit_zero_and_selection(project, capsys):
    assert cli(capsys, "check", "--exit-zero")[0] == 0
    assert cli(capsys, "check", "--select", "CUR102")[0] == 0
    assert cli(capsys, "check", "--ignore", "CUR1")[0] == 0
    assert cli(capsys, "check", "--select", "CUR1", "--ignore", "CUR102")[0] == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--select", "CUR999"], "--select"),
        (["check", "missing_dir"], "path 'missing_dir' does not exist"),
        (["check", "--config", "nowhere.toml"], "nowhere.toml"),
        (["check", "--target-python", "2.7"], "unsupported Python version"),
        (["rule", "CUR999"], "no rule 'CUR999'"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(project, capsys, args, message):
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith("cursedlint: error: ") and message in err
    assert err.count("\n") == 1


def test_broken_configuration_names_file_and_key(project, capsys):
    (project / "pyproject.toml").write_text('[tool.cursedlint]\nselct = ["CUR1"]\n')
    code, _, err = cli(capsys, "check")
    assert code == 2
    assert "pyproject.toml" in err and "tool.cursedlint.selct" in err and "select" in err
    (project / "pyproject.toml").write_text("[tool.cursedlint\n")
    code, _, err = cli(capsys, "check")
    assert code == 2 and "pyproject.toml" in err and "line 1" in err


def test_configuration_per_file_ignores_and_excludes(project, capsys):
    (project / "pyproject.toml").write_text(
        '[tool.cursedlint]\nper-file-ignores = { "train/sync.py" = ["CUR101"] }\n'
    )
    assert cli(capsys, "check")[0] == 0
    (project / "pyproject.toml").write_text('[tool.cursedlint]\nextend-exclude = ["train"]\n')
    code, _, err = cli(capsys, "check")
    assert code == 0 and "no files of a kind cursedlint lints" in err
    assert cli(capsys, "check", "train/sync.py")[0] == 1, "named files are linted"
    assert cli(capsys, "check", "--force-exclude", "train/sync.py")[0] == 0


def test_gitignored_files_are_not_linted(project, capsys):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".gitignore").write_text("sync.py\n")
    assert cli(capsys, "check")[0] == 0


def test_json_output(project, capsys):
    code, out, _ = cli(capsys, "check", "--output-format", "json")
    (finding,) = json.loads(out)
    assert code == 1
    assert set(finding) == {"code", "name", "message", "severity", "path", "line", "column",
                            "end_line", "end_column", "fix", "related", "help"}
    assert (finding["code"], finding["path"], finding["line"], finding["column"]) == (
        "CUR101", "train/sync.py", 6, 5)


def test_sarif_and_github_outputs(project, capsys):
    out = cli(capsys, "check", "--output-format", "sarif")[1]
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "CUR101"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    out = cli(capsys, "check", "--output-format", "github")[1]
    assert out.startswith("::warning file=train/sync.py,line=6,col=5,")


def test_output_file(project, capsys):
    code, out, _ = cli(capsys, "check", "--output-format", "json", "--output-file", "r.json")
    assert code == 1 and out == ""
    assert json.loads((project / "r.json").read_text())[0]["code"] == "CUR101"


def test_one_run_writes_several_formats(project, capsys):
    """pylint's FORMAT:PATH list: a CI job's SARIF file and its annotations from one run."""
    code, out, _ = cli(capsys, "check", "--output-format", "sarif:reports/c.sarif,github")
    assert code == 1
    assert out.startswith("::warning file=train/sync.py,line=6,col=5,")
    log = json.loads((project / "reports" / "c.sarif").read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["CUR101"]
    code, out, _ = cli(capsys, "check", "--output-format", "json:a.json,junit:b.xml",
                       "--output-file", "unused.txt")
    assert (code, out) == (1, "")
    assert json.loads((project / "a.json").read_text())[0]["code"] == "CUR101"
    assert "<testsuites" in (project / "b.xml").read_text()
    assert not (project / "unused.txt").exists()


@pytest.mark.parametrize("value, problem", [
    ("json,text", "at most one format without a path"),
    ("sarif:", "expected a path after ':'"),
    ("xml", "invalid choice: 'xml'"),
])
def test_a_bad_format_list_is_a_usage_error(project, capsys, value, problem):
    with pytest.raises(SystemExit) as exited:
        main(["check", "--output-format", value])
    assert exited.value.code == 2
    assert problem in capsys.readouterr().err


def test_repeated_selectors_add_up_as_in_ruff(project, capsys):
    (project / "train" / "env.sh").write_text("export RDMAV_FORK_SAFE=1\n")
    out = cli(capsys, "check", "--concise", "--select", "CUR101", "--select", "CUR103")[1]
    assert sorted(line.split()[1] for line in out.splitlines()[:-1]) == ["CUR101", "CUR103"]
    out = cli(capsys, "check", "--concise", "--ignore", "CUR101", "--ignore", "CUR103")[1]
    assert out.startswith("All checks passed!")


@pytest.mark.parametrize("argv, tip", [
    (["check", "--selct", "CUR1"], "did you mean '--select'?"),
    (["check", "--warn-unused-supressions"], "did you mean '--warn-unused-suppressions'?"),
    (["doctor", "--strikt"], "did you mean '--strict'?"),
    (["check", "--zzz"], None),
])
def test_an_unknown_option_is_named_by_its_command_with_the_nearest_one(project, capsys,
                                                                        argv, tip):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert f"usage: cursedlint {argv[0]}" in err
    assert f"unrecognized arguments: {argv[1]}" in err
    assert (tip in err) if tip else "did you mean" not in err


def test_quiet_prints_only_the_findings_and_silent_nothing(project, capsys):
    """ruff's -q and -s: the exit code still tells."""
    code, out, _ = cli(capsys, "check", "--concise", "-q")
    assert code == 1 and out.splitlines() == [out.splitlines()[0]]
    assert out.startswith("train/sync.py:6:5: CUR101 ")
    assert cli(capsys, "check", "-q", "train/clean.py") == (0, "", "")
    assert cli(capsys, "check", "-s") == (1, "", "")
    code, out, _ = cli(capsys, "check", "-s", "--output-format", "json:r.json")
    assert (code, out) == (1, "") and json.loads((project / "r.json").read_text())


def test_statistics_and_concise(project, capsys):
    out = cli(capsys, "check", "--statistics")[1]
    assert out.splitlines()[0].split() == ["1", "CUR101", "subprocess-fork-path"]
    out = cli(capsys, "check", "--concise")[1]
    assert out.splitlines()[0].startswith("train/sync.py:6:5: CUR101")
    assert len(out.splitlines()) == 2


def test_colour_only_when_asked(project, capsys, monkeypatch):
    assert "\x1b[" not in cli(capsys, "check")[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in cli(capsys, "check")[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli(capsys, "check")[1]


def test_same_output_for_every_job_count(project, capsys):
    for index in range(30):
        (project / "train" / f"worker_{index:02}.py").write_text(FORKING if index % 2 else CLEAN)
    outputs = {cli(capsys, "check", "--jobs", str(jobs))[1] for jobs in (1, 2, 3)}
    assert len(outputs) == 1
    assert "Found 16 problems" in outputs.pop()


def test_rules_and_rule(capsys):
    out = cli(capsys, "rules")[1]
    assert "CUR101  subprocess-fork-path" in out
    rows = json.loads(cli(capsys, "rules", "--format", "json")[1])
    assert {row["code"] for row in rows} >= {"CUR000", "CUR101"}
    for key in ("CUR101", "cur101", "subprocess-fork-path"):
        code, out, _ = cli(capsys, "rule", key)
        assert code == 0 and out.startswith("# CUR101 `subprocess-fork-path`")


@pytest.fixture
def test_rules(monkeypatch):
    shipped = registry.all_rules()
    monkeypatch.setattr(registry, "all_rules", lambda: {**shipped, **TEST_RULES})


def test_internal_error_exits_2_and_other_findings_still_show(project, capsys, test_rules):
    (project / "boom.py").write_text("import os\nexplode()\nos.fork()\n")
    code, out, err = cli(capsys, "check", "boom.py", "--show-traceback")
    assert code == 2
    assert "boom.py:1:1: CUR000 internal error in rule CUR906" in out
    assert "boom.py:3:1: CUR901" in out
    assert "RuntimeError: boom" in err


def test_fix_writes_only_with_fix(project, capsys, test_rules):
    path = project / "launch.py"
    path.write_text("import launcher\nlauncher.old_spawn(['ls'])\n")
    assert cli(capsys, "check", "launch.py")[0] == 1
    assert "old_spawn" in path.read_text()
    code, out, err = cli(capsys, "check", "launch.py", "--fix")
    assert code == 0 and "fixed 1 problem(s) in 1 file(s)" in err
    assert path.read_text() == "import launcher\nlauncher.spawn(['ls'])\n"


def test_console_script_runs_in_a_subprocess(project):
    script = Path(sys.executable).parent / "cursedlint"
    result = subprocess.run([str(script), "check", "train"], capture_output=True, text=True)
    assert result.returncode == 1 and "CUR101" in result.stdout
    result = subprocess.run([sys.executable, "-m", "cursedlint", "--version"],
                            capture_output=True, text=True)
    assert result.stdout.strip() == f"cursedlint {cursedlint.__version__}"


def test_the_command_ends_at_once_with_its_whole_output_and_exit_code(project):
    """`cli.run` ends the process without the interpreter's teardown: the report, larger
    than a pipe holds, still arrives whole, and the exit code is main's."""
    for n in range(400):
        (project / "train" / f"sync{n}.py").write_text(FORKING)
    result = subprocess.run([sys.executable, "-m", "cursedlint", "check", "train",
                             "--output-format", "json", "--no-cache"],
                            capture_output=True, text=True)
    assert len(result.stdout) > 1 << 16
    assert result.returncode == 1 and len(json.loads(result.stdout)) == 401


PEER_READ = """\
#include <sys/uio.h>

ssize_t read_peer(pid_t peer, struct iovec *local, struct iovec *remote) {
    return process_vm_readv(peer, local, 1, remote, 1, 0);
}
"""
TRANSPORT = """\
#include <assert.h>
#include <stdio.h>

ssize_t read_peer(pid_t peer, struct iovec *local, struct iovec *remote);

void pull_shard(pid_t peer, struct iovec *local, struct iovec *remote, size_t len) {
    ssize_t got = read_peer(peer, local, remote);
    if (got != (ssize_t)len) {
        fprintf(stderr, "cross-memory attach failed, disabling it\\n");
    }
    assert(got == (ssize_t)len);
}
"""


def test_a_wrapper_in_another_file_of_the_project_is_followed(project, capsys):
    """CUR601 learns from the project index that read_peer() returns process_vm_readv's result,
    also when only the calling file is linted (as pre-commit does)."""
    (project / "peer_read.c").write_text(PEER_READ)
    (project / "transport.c").write_text(TRANSPORT)
    for paths in (["."], ["transport.c"]):
        code, out, _ = cli(capsys, "check", "--select", "CUR601", *paths)
        assert code == 1, out
        assert out.startswith("transport.c:11:5: CUR601 ")
    (project / "peer_read.c").write_text(PEER_READ.replace("process_vm_readv", "preadv"))
    assert cli(capsys, "check", "--select", "CUR601", "transport.c")[0] == 0


def test_checking_a_file_without_trigger_words_imports_no_parser(tmp_path):
    """The pre-commit common case stays cheap: tree-sitter and the C evaluator load only for a
    file that needs them, and argparse is not left to import shutil (with bz2 and lzma)."""
    (tmp_path / "clean.py").write_text("import json\n")
    (tmp_path / "clean.cpp").write_text("int main() { return 0; }\n")
    probe = (
        "import sys; from cursedlint.cli import main; main(['check', '--no-cache', "
        "'clean.py', 'clean.cpp']); "
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('tree_sitter', 'cursedlint.c_', 'shutil'))))"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout + result.stderr


@pytest.mark.parametrize("fail_on, code", [("warning", 1), ("error", 0)])
def test_fail_on_decides_the_exit_code_by_severity(tmp_path, monkeypatch, capsys, fail_on, code):
    """CUR101 is a warning: it fails the run by default, not with --fail-on error."""
    (tmp_path / "launch.py").write_text(
        "import os\nimport subprocess\n\n\ndef launch(cmd):\n"
        "    return subprocess.Popen(cmd, preexec_fn=os.setsid)\n")
    monkeypatch.chdir(tmp_path)
    status = main(["check", "--no-cache", "--target-python", "3.12", "--fail-on", fail_on,
                   "launch.py"])
    assert "CUR101" in capsys.readouterr().out and status == code


@pytest.mark.parametrize("argv", [["clean", "no/such/dir"], ["doctor", "--root", "no/such/dir"]])
def test_clean_and_doctor_refuse_a_path_that_does_not_exist(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert "no/such/dir" in capsys.readouterr().err


def test_standard_input_is_linted_as_the_named_file(tmp_path, monkeypatch, capsys):
    """An editor hands the unsaved buffer on stdin: findings name the file, its
    configuration applies, and nothing is written."""
    import io

    (tmp_path / "cursedlint.toml").write_text('target-python = "3.12"\n')
    code = "import os\nimport subprocess\n\nsubprocess.Popen(['ls'], preexec_fn=os.setsid)\n"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(code.encode())))
    capsys.readouterr()
    status = main(["check", "--no-cache", "--concise", "--stdin-filename", "tools/launch.py"])
    out = capsys.readouterr().out
    assert status == 1 and out.startswith("tools/launch.py:4:1: CUR101 ")
    assert not (tmp_path / "tools").exists()
    # an extensionless script's buffer: its language from its #! line, as on disk
    script = "#!/usr/bin/env python3\n" + code
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(script.encode())))
    status = main(["check", "--no-cache", "--concise", "--stdin-filename", "bin/launch"])
    assert status == 1 and capsys.readouterr().out.startswith("bin/launch:5:1: CUR101 ")


def test_check_dash_reads_python_from_standard_input_as_ruff_and_flake8_do(tmp_path,
                                                                          monkeypatch, capsys):
    import io

    code = "import os\nimport subprocess\n\nsubprocess.Popen(['ls'], preexec_fn=os.setsid)\n"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(code.encode())))
    status = main(["check", "--no-cache", "--concise", "-"])
    assert status == 1 and capsys.readouterr().out.startswith("-:4:1: CUR101 ")


def test_fix_of_standard_input_writes_the_fixed_text_to_standard_output(tmp_path, monkeypatch,
                                                                        capfdbinary):
    """An editor's fix-on-save, as ruff does it: the fixed buffer on stdout, what is left to
    say on stderr, no file written."""
    import io

    code = ("import os\nimport subprocess\n\nsubprocess.Popen(['ls'], preexec_fn=os.setsid)\r\n"
            "subprocess.run(['s5cmd', 'cp', 'a', 'b'], user='nobody')\r\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(code.encode())))
    status = main(["check", "--no-cache", "--concise", "--fix", "--stdin-filename", "launch.py"])
    out, err = capfdbinary.readouterr()
    assert out == code.replace("preexec_fn=os.setsid", "start_new_session=True").encode()
    assert b"cursedlint: fixed 1 problem(s) in 1 file(s)" in err
    assert b"launch.py:5:1: CUR101 " in err and status == 1  # user= has no safe fix
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["--stdin-filename", "notes.txt"], "not a kind of file cursedlint lints"),
    (["--stdin-filename", "bin/tool"], "not a kind of file cursedlint lints"),  # no #! line
    (["--stdin-filename", "a.py", "--diff"], "takes no --diff"),
    (["--stdin-filename", "a.py", "--diff-base", "main"], "--write-baseline or --diff-base"),
])
def test_standard_input_refuses_what_it_cannot_do(tmp_path, monkeypatch, capsys, argv, message):
    import io

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"x = 1\n")))
    assert main(["check", "--no-cache", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("option", [
    "--stdin-filename", "--diff-base", "--config", "--output-file", "--baseline",
    "--write-baseline", "--compile-commands", "--target-python"])
def test_an_empty_value_is_a_usage_error(project, capsys, monkeypatch, option):
    """`--stdin-filename ""` linted the current directory, `--diff-base ""` reported every
    finding, `--output-file ""` wrote to standard output...: each was taken as not given."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(FORKING.encode())))
    for argv in ([option, ""], [f"{option}="]):
        with pytest.raises(SystemExit) as exited:
            main(["check", "--no-cache", *argv])
        out, err = capsys.readouterr()
        assert (exited.value.code, out) == (2, "")
        assert err.splitlines()[-1].startswith("cursedlint check: error: argument ")
        assert err.endswith(f"{option}: expected a non-empty value\n")
    assert sorted(path.name for path in project.iterdir()) == ["train"]


def test_standard_input_takes_no_paths(project, capsys, monkeypatch):
    """Paths beside --stdin-filename were silently ignored (a file named
    `--stdin-filename=a.py` that pre-commit handed over made the hook lint only stdin)."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"x = 1\n")))
    code, out, err = cli(capsys, "check", "--no-cache", "--stdin-filename=a.py", "train/sync.py")
    assert (code, out) == (2, "")
    assert err == ("cursedlint: error: --stdin-filename lints standard input: it takes no PATH "
                   "(got 'train/sync.py')\n")


def test_extensionless_scripts_given_by_pre_commit_are_linted(project, capsys):
    """pre-commit hands over `bin/launch` (types: python, by its shebang): linted as Python;
    a shell script likewise; a file with no shebang is skipped as before."""
    (project / "bin").mkdir()
    (project / "bin" / "launch").write_text(
        "#!/usr/bin/env python3\nimport os\nimport subprocess\n\n"
        "subprocess.run(['nvidia-smi'], preexec_fn=os.setsid)\n")
    (project / "bin" / "run").write_text("#!/bin/sh\nexport RDMAV_FORK_SAFE=1\n")
    (project / "bin" / "NOTES").write_text("RDMAV_FORK_SAFE=1\n")
    code, out, _ = cli(capsys, "check", "--no-cache", "--concise", "bin/launch", "bin/run",
                       "bin/NOTES")
    assert code == 1
    assert [line.split(" ")[:2] for line in out.splitlines()[:-1]] == [
        ["bin/launch:5:1:", "CUR101"], ["bin/run:2:8:", "CUR103"]]


def test_a_command_runs_with_fewer_collections_and_restores_the_thresholds(monkeypatch):
    import gc

    from cursedlint import cli as command_line

    seen = []
    monkeypatch.setattr(command_line, "_run",
                        lambda parser, args: seen.append(gc.get_threshold()) or 0)
    before = gc.get_threshold()
    assert main(["rules"]) == 0
    assert seen == [command_line.GC_THRESHOLDS]
    assert gc.get_threshold() == before


def test_fix_says_what_it_fixed_in_a_file_linted_again_with_facts(tmp_path, monkeypatch, capsys):
    """The file's fixes are written on its first lint; the lint with facts from monitor.py
    (CUR401) replaced that result, and "fixed N" was never printed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "monitor.py").write_text(
        "import threading\n\nimport torch\n\n\ndef watch():\n    while True:\n"
        "        torch.cuda.synchronize()\n\n\ndef start_monitor():\n"
        "    threading.Thread(target=watch, daemon=True).start()\n")
    (tmp_path / "train.py").write_text(
        "import os\nimport subprocess\n\nimport torch\n\nfrom monitor import start_monitor\n\n\n"
        "def record(model, x):\n"
        "    subprocess.Popen(['/usr/bin/nvidia-smi'], preexec_fn=os.setsid)\n"
        "    start_monitor()\n    graph = torch.cuda.CUDAGraph()\n"
        "    with torch.cuda.graph(graph):\n        y = model(x)\n    return graph, y\n")
    code, out, err = cli(capsys, "check", "--fix", "--concise", "--no-cache")
    assert code == 1 and " CUR401 " in out and " CUR101 " not in out
    assert "start_new_session=True" in (tmp_path / "train.py").read_text()
    assert "cursedlint: fixed 1 problem(s) in 1 file(s)" in err


def test_a_file_too_large_says_what_to_do_and_shows_no_empty_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cursedlint.toml").write_text("max-file-size = 1000\n")
    text = ("import torch\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    pass\n"
            + "# padding\n" * 200)
    (tmp_path / "capture.py").write_text(text)
    code, out, _ = cli(capsys, "check", "--no-cache")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("capture.py:1:1: CUR004 not checked: ")
    assert lines[1] == "  |" and lines[2].startswith("  = help: ")
    assert f"raise max-file-size above {len(text)} to check it, or exclude it" in lines[2]


REGISTERING_WITH_MACRO = """\
#include <infiniband/verbs.h>

struct ring_slot { void *owner; } __packed __aligned(64) slots;

struct ibv_mr *register_ring(struct ibv_pd *pd, void *ring, size_t bytes)
{
    return ibv_reg_mr(pd, ring, bytes, IBV_ACCESS_LOCAL_WRITE);
}
"""


def test_verbose_counts_error_nodes_cold_and_from_the_cache(tmp_path, monkeypatch, capsys):
    """`-v` names a C file whose macros tree-sitter could not read, in a run without a cache
    and in a warm run whose result a run without `-v` stored (the count is kept with the
    result); a file it reads whole is not named."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ring.c").write_text(REGISTERING_WITH_MACRO)
    (tmp_path / "plain.c").write_text(REGISTERING_WITH_MACRO.replace(
        " __packed __aligned(64)", ""))
    main(["check", "--no-cache", "--exit-zero", "-v", "."])
    cold = [line for line in capsys.readouterr().err.splitlines() if "error node" in line]
    assert [line.split(":")[0] for line in cold] == ["ring.c"]
    main(["check", "--exit-zero", "."])  # stores the results
    capsys.readouterr()
    main(["check", "--exit-zero", "-v", "."])
    warm = [line for line in capsys.readouterr().err.splitlines() if "error node" in line]
    assert warm == cold


@pytest.mark.skipif(os.name != "posix", reason="signal wakeup descriptors")
def test_standard_input_is_read_to_its_end_across_writes(monkeypatch):
    """Standard input from a pipe written in pieces larger than one read, then closed."""
    import threading

    from cursedlint.cli import _read_stdin_bytes

    reader, writer = os.pipe()
    text = b"x = 1\n" * 40_000  # 240,000 bytes: several reads

    def write():
        for start in range(0, len(text), 50_000):
            os.write(writer, text[start:start + 50_000])
        os.close(writer)

    monkeypatch.setattr("sys.stdin", os.fdopen(reader, "r"))
    feeder = threading.Thread(target=write)
    feeder.start()
    assert _read_stdin_bytes() == text
    feeder.join()


@pytest.mark.skipif(os.name != "posix", reason="signal wakeup descriptors")
def test_a_signal_while_standard_input_waits_stops_the_read(monkeypatch):
    """A signal whose handler raises (Ctrl-C's KeyboardInterrupt) ends a read that waits for
    more input from a writer that sends no more."""
    import signal

    from cursedlint.cli import _read_stdin_bytes

    reader, writer = os.pipe()
    os.write(writer, b"import os\n")
    monkeypatch.setattr("sys.stdin", os.fdopen(reader, "r"))

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            _read_stdin_bytes()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        os.close(writer)
