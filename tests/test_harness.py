"""The test harness itself: the marker grammar (column, message fragment, `ok:`), the failures
it reports, and a project linted with facts from its other files."""

from __future__ import annotations

import pytest

from cursedlint.config import ConfigError
from cursedlint.findings import Severity
from cursedlint.rule import Marker, markers

from engine_rules import notices_and_test_rules
from harness import check_project, check_snippet, lint, lint_project

RULES = notices_and_test_rules()
FORK = {"CUR901": RULES["CUR901"]}

WORKER = """\
import os


def start(count):
    for _ in range(count):
        os.fork()  # error: {marker}
    spawn_fork = 1  # ok: CUR901
"""


def test_grammar_reads_columns_fragments_clauses_and_both_comment_kinds():
    text = (
        "x()  # error: CUR401@10 \"global mode\", CUR402\n"
        "y();  // warning: CUR301@21 'a, b; c'; ok: CUR302\n"
        "z()  # ok: CUR101, CUR102@3\n"
        "w = '# error: CUR101 is text'\n"
    )
    assert markers(text) == [
        Marker(1, "CUR401", Severity.ERROR, 10, "global mode"),
        Marker(1, "CUR402", Severity.ERROR),
        Marker(2, "CUR301", Severity.WARNING, 21, "a, b; c"),
        Marker(2, "CUR302", None),
        Marker(3, "CUR101", None),
        Marker(3, "CUR102", None, 3),
    ]


@pytest.mark.parametrize("marker", ["CUR901", "CUR901@9", 'CUR901@9 "os.fork() called"',
                                    "CUR901 'fork() call'"])
def test_matching_marker_passes(marker):
    [finding] = check_snippet(WORKER.format(marker=marker), FORK)
    assert (finding.line, finding.column) == (6, 9)


@pytest.mark.parametrize("marker, complaint", [
    ("CUR901@8", "expected, not found: line 6: error: CUR901@8"),
    ('CUR901 "os.spawn"', "expected, not found: line 6: error: CUR901 'os.spawn'"),
    ("CUR902", "found, not expected: example.py:6:9: error: CUR901 os.fork() called"),
])
def test_a_mismatch_lists_what_was_expected_and_what_was_found(marker, complaint):
    with pytest.raises(AssertionError) as failure:
        check_snippet(WORKER.format(marker=marker), RULES)
    assert complaint in str(failure.value)
    assert "all findings:\nexample.py:6:9: error: CUR901 os.fork() called" in str(failure.value)


def test_a_severity_other_than_the_findings_fails():
    with pytest.raises(AssertionError, match="expected, not found: line 6: warning: CUR901"):
        check_snippet(WORKER.format(marker="CUR901").replace("error:", "warning:"), FORK)


def test_ok_marker_on_a_line_with_that_finding_fails():
    text = WORKER.format(marker="CUR901").replace("# error: CUR901", "# ok: CUR901")
    with pytest.raises(AssertionError, match="found on an ok line: example.py:6:9"):
        check_snippet(text, FORK)


def test_ok_marker_for_a_rule_that_did_not_run_fails():
    with pytest.raises(AssertionError, match="ok marker for a rule that did not run: line 1"):
        check_snippet("import json  # ok: CUR901\n", FORK)  # no trigger word: never runs
    with pytest.raises(AssertionError, match="did not run: line 7: ok: CUR902"):
        check_snippet(WORKER.format(marker="CUR901").replace("ok: CUR901", "ok: CUR902"), FORK)


def test_options_and_settings_are_validated_as_a_configuration_files_are():
    code = "import subprocess\nsubprocess.run(['true'])\n"
    with pytest.raises(ValueError, match="no rule of \\['CUR101'\\] has the options"):
        lint(code, "CUR101", options={"libcc": "musl"})
    with pytest.raises(ConfigError, match="libc"):
        lint(code, "CUR101", options={"libc": "newlib"})
    with pytest.raises(ConfigError, match="unsupported Python version '3.7'"):
        lint(code, "CUR101", settings={"target-python": "3.7"})


MONITOR = """\
import threading

import torch


def watch(event):
    while not event.query():
        pass


def start_monitor(event):
    threading.Thread(target=watch, args=(event,), daemon=True).start()
"""

CAPTURE = """\
import torch

from monitor import start_monitor


def record(model, x, event):
    start_monitor(event)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):  # error: CUR401@10 "start_monitor() starts"; ok: CUR403
        y = model(x)
    with torch.cuda.graph(g, capture_error_mode="thread_local"):  # ok: CUR401
        y = model(x)
    return y
"""


def test_project_findings_come_from_facts_of_other_files(tmp_path):
    files = {"pkg/monitor.py": MONITOR, "pkg/capture.py": CAPTURE}
    [finding] = check_project(tmp_path, files, ["CUR401", "CUR403"], paths=["pkg/capture.py"])
    assert finding.path == "pkg/capture.py" and "monitor.py" in finding.message
    assert lint_project(tmp_path, None, ["CUR401"], paths=["pkg/monitor.py"]) == []
