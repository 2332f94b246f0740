"""Structural fixes (libcst): the rewritten call keeps its layout and comments, and the fixes of
CUR101 (preexec_fn -> start_new_session / process_group), CUR102 (a 'spawn' context) and
CUR401/CUR403 (capture_error_mode="thread_local") apply through the CLI, re-parsed and re-linted."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.cli import main
from cursedlint.findings import Rewrite, Span
from cursedlint.engine.structural_fixes import NotACall, rewritten

SPAN = Span(1, 1, 1, 1)  # not read by `rewritten`
THREAD_LOCAL = Rewrite(SPAN, "capture_error_mode", '"thread_local"')


@pytest.mark.parametrize("before, after", [
    ("torch.cuda.graph(g)", 'torch.cuda.graph(g, capture_error_mode="thread_local")'),
    ("torch.cuda.graph(g, pool=p)",
     'torch.cuda.graph(g, pool=p, capture_error_mode="thread_local")'),
    ("g.capture_begin()", 'g.capture_begin(capture_error_mode="thread_local")'),
    ('torch.cuda.graph(g, capture_error_mode="global")',
     'torch.cuda.graph(g, capture_error_mode="thread_local")'),
    ("torch.cuda.graph(\n    g,\n    pool=p,  # shared pool\n)",
     'torch.cuda.graph(\n    g,\n    pool=p,  # shared pool\n    capture_error_mode="thread_local",\n)'),
    ("torch.cuda.graph(\n    g,\n    pool=p\n)",
     'torch.cuda.graph(\n    g,\n    pool=p,\n    capture_error_mode="thread_local"\n)'),
    ("torch.cuda.graph(g,\n                 pool=p)",
     'torch.cuda.graph(g,\n                 pool=p, capture_error_mode="thread_local")'),
])
def test_a_keyword_is_added_or_set_in_the_calls_own_layout(before, after):
    assert rewritten(before, THREAD_LOCAL) == after


def test_a_replaced_keyword_keeps_its_place_and_its_comment():
    rewrite = Rewrite(SPAN, "start_new_session", "True", replaces="preexec_fn")
    before = "subprocess.Popen(\n    cmd,\n    preexec_fn=os.setsid,  # own group\n    stdout=PIPE,\n)"
    assert rewritten(before, rewrite) == (
        "subprocess.Popen(\n    cmd,\n    start_new_session=True,  # own group\n"
        "    stdout=PIPE,\n)")


@pytest.mark.parametrize("text", ["x = 1", "torch.cuda.graph(g", "model"])
def test_text_that_is_no_longer_one_call_is_refused(text):
    with pytest.raises(NotACall):
        rewritten(text, THREAD_LOCAL)


def run(tmp_path, monkeypatch, capsys, name: str, code: str, *flags: str) -> tuple[int, str]:
    path = tmp_path / name
    path.write_bytes(textwrap.dedent(code).encode())
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    status = main(["check", "--no-cache", *flags, name])
    capsys.readouterr()
    return status, path.read_text()


POPEN = """\
import os
import subprocess


def launch(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.{function})
"""


def test_preexec_setsid_becomes_start_new_session_and_the_fork_is_gone(
        tmp_path, monkeypatch, capsys):
    status, text = run(tmp_path, monkeypatch, capsys, "launch.py",
                       POPEN.format(function="setsid"), "--fix", "--target-python", "3.12")
    assert "subprocess.Popen(cmd, start_new_session=True)" in text
    assert status == 0  # re-linted: posix_spawn or vfork now, no finding left


@pytest.mark.parametrize("target, fixed", [("3.11", True), ("3.10", False)])
def test_preexec_setpgrp_becomes_process_group_only_where_python_has_it(
        tmp_path, monkeypatch, capsys, target, fixed):
    _, text = run(tmp_path, monkeypatch, capsys, "launch.py", POPEN.format(function="setpgrp"),
                  "--fix", "--target-python", target)
    assert ("subprocess.Popen(cmd, process_group=0)" in text) is fixed
    assert ("preexec_fn=os.setpgrp" in text) is not fixed


def test_another_preexec_function_is_not_rewritten(tmp_path, monkeypatch, capsys):
    code = POPEN.format(function="setsid").replace("os.setsid", "drop_privileges")
    _, text = run(tmp_path, monkeypatch, capsys, "launch.py", code, "--fix")
    assert "preexec_fn=drop_privileges" in text


CAPTURE = """\
import threading

import torch


def poll(event):
    event.query()


def record(model, x, event):
    threading.Thread(target=poll, args=(event,), daemon=True).start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # the step
        y = model(x)
    return graph, y
"""


def test_thread_local_is_an_unsafe_fix_of_a_live_thread(tmp_path, monkeypatch, capsys):
    status, text = run(tmp_path, monkeypatch, capsys, "record.py", CAPTURE, "--fix")
    assert text == CAPTURE and status == 1  # only with --unsafe-fixes
    status, text = run(tmp_path, monkeypatch, capsys, "record.py", CAPTURE,
                       "--fix", "--unsafe-fixes")
    assert 'with torch.cuda.graph(graph, capture_error_mode="thread_local"):  # the step' in text
    assert status == 0


def test_no_thread_local_fix_for_a_device_wide_sync(tmp_path, monkeypatch, capsys):
    code = CAPTURE.replace("event.query()", "torch.cuda.synchronize()")
    status, text = run(tmp_path, monkeypatch, capsys, "record.py", code,
                       "--fix", "--unsafe-fixes")
    assert text == textwrap.dedent(code) and status == 1  # thread_local would not help


WORKERS = """\
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor

import torch


def embed(batch):
    return torch.tensor(batch, device="cuda").sum().item()


def score(batches, weights):
    weights = weights.cuda()
    with mp.Pool(4) as pool:
        sizes = pool.map(embed, batches)
    with ProcessPoolExecutor(
        max_workers=2,  # two readers
    ) as executor:
        totals = list(executor.map(embed, batches))
    return sizes, totals, weights
"""


def test_a_default_context_start_in_a_cuda_module_gets_a_spawn_context(
        tmp_path, monkeypatch, capsys):
    """Unsafe (children import the module afresh; arguments must pickle): only with
    --unsafe-fixes; the rewritten starts are re-linted and no longer fork."""
    status, text = run(tmp_path, monkeypatch, capsys, "score.py", WORKERS, "--fix",
                       "--target-python", "3.12")
    assert text == WORKERS and status == 1
    status, text = run(tmp_path, monkeypatch, capsys, "score.py", WORKERS, "--fix",
                       "--unsafe-fixes", "--target-python", "3.12")
    assert 'with mp.get_context("spawn").Pool(4) as pool:' in text
    assert ('        max_workers=2,  # two readers\n        mp_context=mp.get_context("spawn"),\n'
            "    ) as executor:") in text
    assert status == 0


def test_no_spawn_fix_without_a_multiprocessing_module_to_name(tmp_path, monkeypatch, capsys):
    code = WORKERS.replace("import multiprocessing as mp\n", "from multiprocessing import Pool\n"
                           ).replace("mp.Pool(4)", "Pool(4)")
    status, text = run(tmp_path, monkeypatch, capsys, "score.py", code, "--fix",
                       "--unsafe-fixes", "--target-python", "3.12")
    assert text == code and status == 1


def run_cli(tmp_path, monkeypatch, capsys, name: str, code: str, *flags: str):
    (tmp_path / name).write_text(textwrap.dedent(code))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    status = main(["check", "--no-cache", *flags, name])
    out, err = capsys.readouterr()
    return status, out, err, (tmp_path / name).read_text()


def test_diff_prints_the_fixes_and_writes_nothing(tmp_path, monkeypatch, capsys):
    code = POPEN.format(function="setsid")
    status, out, err, text = run_cli(tmp_path, monkeypatch, capsys, "launch.py", code,
                                     "--diff", "--target-python", "3.12")
    assert text == code and status == 1
    assert out.splitlines()[:2] == ["--- a/launch.py", "+++ b/launch.py"]
    assert "-    return subprocess.Popen(cmd, preexec_fn=os.setsid)" in out
    assert "+    return subprocess.Popen(cmd, start_new_session=True)" in out
    assert "1 fix(es) would be applied to 1 file(s)" in err


def test_the_unsafe_fixes_left_and_the_fixable_findings_are_counted(
        tmp_path, monkeypatch, capsys):
    status, _, err, text = run_cli(tmp_path, monkeypatch, capsys, "record.py", CAPTURE, "--fix")
    assert text == CAPTURE and status == 1
    assert "1 unsafe fix(es) not applied: --unsafe-fixes applies them" in err
    _, out, _, _ = run_cli(tmp_path, monkeypatch, capsys, "record.py", CAPTURE)
    assert out.rstrip().endswith("0 fixable with --fix (1 more with --unsafe-fixes).")
    _, out, _, _ = run_cli(tmp_path, monkeypatch, capsys, "record.py", CAPTURE,
                           "--diff", "--unsafe-fixes")
    assert '+    with torch.cuda.graph(graph, capture_error_mode="thread_local"):  # the step' in out
