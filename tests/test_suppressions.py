"""Suppression comments as flake8 (noqa) and clang-tidy (NOLINT...) read them."""

from __future__ import annotations

import json

import pytest

from cursedlint.findings import Finding, Span

import harness
from engine_rules import notices_and_test_rules

RULES = notices_and_test_rules()


def lint(text: str, path: str = "workers.py", warn_unused: bool = False):
    found = harness.lint(text, RULES, path=path, warn_unused_suppressions=warn_unused)
    return [(f.line, f.code) for f in found]


@pytest.mark.parametrize(
    "comment, suppressed",
    [
        ("# noqa", True),
        ("# NOQA", True),
        ("#noqa:CUR901", True),
        ("# noqa: CUR901", True),
        ("# noqa: E501,CUR901", True),
        ("# noqa: E501 CUR901", True),
        ("# noqa: CUR902", False),
        ("# noqa: E501", False),
        ("# fork workers here", False),
    ],
)
def test_noqa_on_the_findings_line(comment, suppressed):
    text = f"import os\npid = os.fork()  {comment}\n"
    assert lint(text) == ([] if suppressed else [(2, "CUR901")])


def test_noqa_on_another_line_does_not_suppress():
    assert lint("import os  # noqa: CUR901\npid = os.fork()\n") == [(2, "CUR901")]


CPP = """\
int setup_rdma(void) {{
  {before}
  int rc = ibv_fork_init();{same}
  return rc;
}}
"""


@pytest.mark.parametrize(
    "before, same, suppressed",
    [
        ("", "  // NOLINT", True),
        ("", "  // NOLINT(CUR905)", True),
        ("", "  /* NOLINT(CUR905) */", True),
        ("", "  // NOLINT(cppcoreguidelines-*, CUR905)", True),
        ("", "  // NOLINT(CUR9*)", True),
        ("", "  // NOLINT(test-ibv-fork-init)", True),
        ("", "  // NOLINT(CUR301)", False),
        ("", "  // NOLINT(bugprone-*)", False),
        ("// NOLINTNEXTLINE(CUR905)", "", True),
        ("// NOLINTNEXTLINE", "", True),
        ("// NOLINTNEXTLINE(CUR301)", "", False),
        ("// NOLINT(CUR905)", "", False),
    ],
)
def test_nolint_forms(before, same, suppressed):
    text = CPP.format(before=before, same=same)
    assert lint(text, "rdma.cpp") == ([] if suppressed else [(3, "CUR905")])


def test_nolint_begin_end_covers_a_region():
    text = """\
// NOLINTBEGIN(CUR905)
void a(void) { ibv_fork_init(); }
void b(void) { ibv_fork_init(); }
// NOLINTEND(CUR905)
void c(void) { ibv_fork_init(); }
"""
    assert lint(text, "rdma.cpp") == [(5, "CUR905")]


def test_internal_errors_cannot_be_suppressed():
    assert lint("explode()  # noqa\n") == [(1, "CUR000")]


def test_unused_suppressions_are_reported_only_on_request():
    text = "import os\nos.getpid()  # noqa: CUR901\nos.fork()  # noqa: CUR901\n"
    assert lint(text) == []
    assert lint(text, warn_unused=True) == [(2, "CUR003")]


def test_unused_suppression_in_a_file_no_rule_could_fire_on():
    assert lint("import json  # noqa: CUR901\n", warn_unused=True) == [(1, "CUR003")]


def test_bare_and_foreign_suppressions_are_never_called_unused():
    text = "import json  # noqa\nimport sys  # noqa: E401\n"
    assert lint(text, warn_unused=True) == []
    assert lint("int x;  // NOLINT\nint y;  // NOLINT(bugprone-*)\n", "a.cpp", True) == []


def test_unused_nolint_is_reported_at_the_comment():
    (finding,) = harness.lint("int x = 1;  // NOLINT(CUR905)\n", RULES, path="a.cpp",
                              warn_unused_suppressions=True)
    assert (finding.code, finding.span.column) == ("CUR003", 16)
    assert "`NOLINT(CUR905)` suppresses nothing" in finding.message


@pytest.mark.parametrize("comment, suppressed", [
    ("# noqa: CUR1", True), ("# noqa: CUR10", True), ("# noqa: CUR101", True),
    ("# noqa: CUR2", False), ("# noqa: CUR1011", False),
])
def test_a_noqa_code_is_a_prefix_as_flake8_reads_it(comment, suppressed):
    from cursedlint.engine.suppressions import find_suppressions

    [suppression] = find_suppressions([f"subprocess.Popen(cmd, preexec_fn=f)  {comment}"],
                                      "python")
    finding = Finding("a.py", Span(1, 1, 1, 5), "CUR101", "subprocess-fork-path", "m")
    assert suppression.covers(finding) is suppressed


# -- the line above, for Dockerfiles and YAML --------------------------------------------------

@pytest.mark.parametrize("path, text, kept", [
    ("Dockerfile", "FROM base\n# noqa-next-line: CUR103\nENV RDMAV_FORK_SAFE=1\n", []),
    ("Dockerfile", "FROM base\n  # noqa-next-line\nENV RDMAV_FORK_SAFE=1\n", []),
    ("Dockerfile", "FROM base\n# noqa-next-line: CUR101\nENV RDMAV_FORK_SAFE=1\n", [3]),
    ("Dockerfile", "# noqa-next-line: CUR103\nFROM base\nENV RDMAV_FORK_SAFE=1\n", [3]),
    ("job.yaml", "env:\n  # noqa-next-line: CUR1\n  RDMAV_FORK_SAFE: '1'\n", []),
    ("job.yaml", "env:\n  RDMAV_FORK_SAFE: '1'  # noqa-next-line: CUR103\n", [2]),
])
def test_a_comment_line_above_suppresses_the_next_line(tmp_path, capsys, monkeypatch, path,
                                                       text, kept):
    """In a Dockerfile `ENV A=1 # noqa` makes `#` part of the value: the comment goes above
    (a trailing `noqa-next-line` is not a comment line, and covers nothing)."""
    from cursedlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / path).write_text(text)
    main(["check", "--no-cache", "--output-format", "json", "--select", "CUR103", path])
    assert [f["line"] for f in json.loads(capsys.readouterr().out)] == kept


# -- suppressions that cannot work ----------------------------------------------------------------

@pytest.mark.parametrize("comment, unknown", [
    ("# noqa: CUR913", "CUR913"), ("# noqa: CUR9", None), ("# noqa: CUR8", "CUR8"),
    ("# noqa: E501, CUR9011", "CUR9011"),
])
def test_a_noqa_naming_a_code_no_rule_has_is_reported_on_request(comment, unknown):
    found = harness.lint(f"import os\npid = os.fork()  {comment}\n", RULES,
                         warn_unused_suppressions=True)
    notices = [f.message for f in found if f.code == "CUR003"]
    assert notices == ([f"`{comment}` names {unknown}, which no cursedlint code is"]
                       if unknown else [])
    assert lint(f"import os\npid = os.fork()  {comment}\n") == ([(2, "CUR901")] if unknown
                                                                else [])


@pytest.mark.parametrize("comment", [
    "# noqa: fork-in-worker", "# noqa:fork-in-worker",
    "# noqa: see the issue",
])
def test_a_noqa_colon_without_codes_suppresses_nothing_as_in_ruff(comment):
    """flake8 would read these as a blanket `# noqa`; ruff calls them invalid and suppresses
    nothing. A rule name is the common case: it must not hide every finding on the line."""
    text = f"import os\npid = os.fork()  {comment}\n"
    assert lint(text) == [(2, "CUR901")]
    found = harness.lint(text, RULES, warn_unused_suppressions=True)
    assert [(f.code, f.message) for f in found if f.code == "CUR003"] == [
        ("CUR003", f"`{comment}` is not `# noqa: CODE[,CODE]`: it suppresses nothing")]


def test_a_nolint_naming_a_code_no_rule_has_is_reported_on_request():
    text = "int f(void) { return ibv_fork_init(); }  // NOLINT(CUR950)\n"
    assert lint(text, "rdma.cpp") == [(1, "CUR905")]
    assert sorted(lint(text, "rdma.cpp", True)) == [(1, "CUR003"), (1, "CUR905")]


@pytest.mark.parametrize("text, found", [
    ("// NOLINTBEGIN(CUR905)\nvoid a(void) { ibv_fork_init(); }\n",
     [(1, "CUR005"), (2, "CUR905")]),
    ("// NOLINTBEGIN\nvoid a(void) { ibv_fork_init(); }\n", [(1, "CUR005"), (2, "CUR905")]),
    ("void a(void) { ibv_fork_init(); }\n// NOLINTEND(CUR9*)\n", [(1, "CUR905"), (2, "CUR005")]),
    ("// NOLINTBEGIN(CUR905)\nvoid a(void) { ibv_fork_init(); }\n// NOLINTEND(bugprone-*)\n",
     [(1, "CUR005"), (2, "CUR905")]),
    ("// NOLINTBEGIN(bugprone-*)\nvoid a(void) { ibv_fork_init(); }\n", [(2, "CUR905")]),
    ("// NOLINTBEGIN(CUR905)\n// NOLINTBEGIN(bugprone-*)\nvoid a(void) { ibv_fork_init(); }\n"
     "// NOLINTEND(CUR905)\n// NOLINTEND(bugprone-*)\n", []),
])
def test_an_unmatched_nolint_block_is_reported_as_clang_tidy_does(text, found):
    """NOLINTEND closes only the NOLINTBEGIN with the same check list; a block that concerns
    cursedlint and has no other half suppresses nothing, and says so."""
    assert lint(text, "rdma.cpp") == found
