"""A structural fix (libcst: CUR101's preexec_fn rewrite, CUR401/CUR403's capture_error_mode)
is written in JSON, SARIF and rdjson as the text edit it makes: applying a format's edits to
the file gives what `--fix` writes. A fix that cannot be written as edits is left out, never
written with none."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import jsonschema
import pytest

from cursedlint.cli import main
from cursedlint.findings import Finding, Fix, Rewrite, Severity, Span
from cursedlint.formats import render
from cursedlint.engine.structural_fixes import NotACall, as_edit
from report_schemas import RDJSON, SARIF

SPAN = Span(3, 5, 3, 5)


@pytest.mark.parametrize("text, rewrite, edit", [
    ("subprocess.Popen(cmd, preexec_fn=os.setsid)",
     Rewrite(SPAN, "start_new_session", "True", replaces="preexec_fn"),
     ((3, 27, 3, 47), "start_new_session=True")),
    ("subprocess.Popen(cmd, preexec_fn=os.setpgrp)",  # `p` of both is not cut off
     Rewrite(SPAN, "process_group", "0", replaces="preexec_fn"),
     ((3, 27, 3, 48), "process_group=0")),
    ("subprocess.Popen(\n        cmd,\n        preexec_fn=os.setsid,\n    )",
     Rewrite(SPAN, "start_new_session", "True", replaces="preexec_fn"),
     ((5, 9, 5, 29), "start_new_session=True")),
    ("torch.cuda.graph(g)", Rewrite(SPAN, "capture_error_mode", '"thread_local"'),
     ((3, 23, 3, 23), ', capture_error_mode="thread_local"')),
    ("torch.cuda.graph(\n        g,\n    )",  # a line of its own, inserted at its start
     Rewrite(SPAN, "capture_error_mode", '"thread_local"'),
     ((5, 1, 5, 1), '        capture_error_mode="thread_local",\n')),
    ('torch.cuda.graph(g, capture_error_mode="global")',
     Rewrite(SPAN, "capture_error_mode", '"thread_local"'),
     ((3, 45, 3, 51), "thread_local")),
])
def test_a_rewrite_is_the_smallest_edit_of_whole_words(text, rewrite, edit):
    made = as_edit(text, rewrite)
    assert ((made.span.line, made.span.column, made.span.end_line, made.span.end_column),
            made.content) == edit


def test_text_that_is_not_the_call_is_refused():
    with pytest.raises(NotACall):
        as_edit("x = 1", Rewrite(SPAN, "start_new_session", "True"))


LAUNCH = """\
import os
import subprocess


def launch(cmd):
    return subprocess.Popen(cmd, preexec_fn=os.setsid)


def launch_many(cmd):
    return subprocess.Popen(
        cmd,
        preexec_fn=os.setsid,  # a new session
    )
"""

RECORD = """\
import threading

import torch


def poll(event):
    event.query()


def record(model, x, event):
    threading.Thread(target=poll, args=(event,), daemon=True).start()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(
        graph,
    ):
        y = model(x)
    return graph, y
"""


def run(tmp_path, monkeypatch, capsys, *flags: str) -> str:
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.12", *flags])
    return capsys.readouterr().out


def applied(text: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """`text` with the edits (1-based line and character column ranges) made, last first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for line, column, end_line, end_column, content in sorted(edits, reverse=True):
        start = starts[line - 1] + column - 1
        text = text[:start] + content + text[starts[end_line - 1] + end_column - 1:]
    return text


@pytest.mark.parametrize("name, code", [("launch.py", LAUNCH), ("record.py", RECORD)])
def test_each_format_carries_the_edits_that_fix_writes(tmp_path, monkeypatch, capsys, name,
                                                       code):
    (tmp_path / name).write_text(code)
    log = json.loads(run(tmp_path, monkeypatch, capsys, "--output-format", "sarif", name))
    jsonschema.validate(log, SARIF)
    sarif_edits = [(r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"],
                    r["deletedRegion"]["endLine"], r["deletedRegion"]["endColumn"],
                    r["insertedContent"]["text"])
                   for result in log["runs"][0]["results"] for fix in result["fixes"]
                   for change in fix["artifactChanges"] for r in change["replacements"]]
    findings = json.loads(run(tmp_path, monkeypatch, capsys, "--output-format", "json", name))
    json_edits = [(e["line"], e["column"], e["end_line"], e["end_column"], e["content"])
                  for finding in findings for e in finding["fix"]["edits"]]
    diagnostics = json.loads(run(tmp_path, monkeypatch, capsys, "--output-format", "rdjson",
                                 name))
    jsonschema.validate(diagnostics, RDJSON)
    suggestions = [s for d in diagnostics["diagnostics"] for s in d["suggestions"]]

    run(tmp_path, monkeypatch, capsys, "--fix", "--unsafe-fixes", name)
    fixed = (tmp_path / name).read_text()
    assert fixed != code
    assert applied(code, sarif_edits) == fixed
    assert json_edits == sarif_edits  # the same edits, in characters (ASCII: bytes too)
    assert len(suggestions) == len(sarif_edits) == len(findings)


def test_a_rewrite_that_cannot_be_made_is_left_out_of_every_format():
    """The call's lines are not a call (a cached result of older code, say): no empty fix."""
    finding = Finding("a.py", Span(1, 1, 1, 10), "CUR101", "subprocess-fork-path", "forks",
                      Severity.WARNING, Fix("replace preexec_fn", (), rewrites=(
                          Rewrite(Span(1, 1, 1, 10), "start_new_session", "True"),)))

    def output(format: str) -> dict:
        return json.loads(render(format, [finding], {}, source_line=lambda path, line: "x = (1, 2"))

    assert "fixes" not in output("sarif")["runs"][0]["results"][0]
    assert output("json")[0]["fix"] is None
    assert "suggestions" not in output("rdjson")["diagnostics"][0]


def test_a_report_without_structural_fixes_does_not_import_libcst(tmp_path):
    """Making a rewrite's edit needs libcst (0.3 s to import): only reports that hold one
    pay for it."""
    (tmp_path / "sync.py").write_text(textwrap.dedent("""\
        import subprocess


        def sync():
            subprocess.run(["rsync", "-a", "x", "y"], close_fds=False)
        """))
    script = ("import sys; from cursedlint.cli import main; "
              "main(['check', '--no-cache', '--target-python', '3.9', '--output-format', "
              "'sarif', '--output-file', 'out.sarif', 'sync.py']); "
              "print('libcst' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
    assert json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"][0]["fixes"]
