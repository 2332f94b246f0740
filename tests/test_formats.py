"""Output formats, checked on findings built here and, for SARIF, by a real consumer
(sarif-tools' `sarif` command)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from msgspec.structs import replace

import cursedlint
from cursedlint.findings import Edit, Finding, Fix, Severity, Span, Step
from cursedlint.formats import FORMATS, render
from cursedlint.formats.shared import escape_undecodable, printable
from cursedlint.rule import Rule

SARIF_TOOL = Path(sys.executable).with_name("sarif")


class ForkInThread(Rule):
    """## What it does
    Finds `os.fork()` in a process that runs threads.

    ## Why it is cursed
    The child inherits locks held by threads that do not exist in it.

    ## Example
    ```python
    threading.Thread(target=work).start()
    os.fork()
    ```

    ## Fix
    Start processes with the `spawn` method.

    ## References
    - https://docs.python.org/3/library/os.html#os.fork
    """

    code = "CUR101"
    name = "fork-in-thread"
    languages = ("python",)
    summary = "os.fork() in a threaded process"


class SubPageRegistration(Rule):
    """## What it does
    Finds RDMA memory registrations shorter than a page.

    ## Why it is cursed
    The NIC pins whole pages: a neighbour's buffer on the same page is exposed to it.

    ## Example
    ```cpp
    ibv_reg_mr(pd, buf, 512, 0);
    ```

    ## Fix
    Register page-aligned buffers of whole pages.

    ## References
    - https://www.rdmamojo.com/2012/09/07/ibv_reg_mr/
    """

    code = "CUR301"
    name = "sub-page-rdma-registration"
    languages = ("c", "cpp")
    summary = "RDMA registration smaller than a page"
    severity = Severity.WARNING


class SharedClone(Rule):
    """## What it does
    Finds `clone()` implementations that share owned pointers.

    ## Why it is cursed
    Both copies free the same object.

    ## Example
    ```cpp
    Node* clone() const { return new Node(*this); }
    ```

    ## Fix
    Deep-copy owned members.

    ## References
    - https://isocpp.org/wiki/faq/virtual-functions#virtual-ctors
    """

    code = "CUR501"
    name = "shallow-clone"
    languages = ("cpp",)
    summary = "clone() shares owned pointers"


RULES = {rule.code: rule for rule in (ForkInThread, SubPageRegistration, SharedClone)}

SOURCES = {
    "src/träger.py": "import os\n\n\t\tpid = os.fork()  # «fork»\n",
    "native/reg.cpp": "void setup(ibv_pd *pd, char *buf) {\n    ibv_reg_mr(pd, buf, 512, 0);\n}\n",
    "src/dup.py": "import os\nos.fork()\nprint()\n\n    os.fork()\n",
}

FORK_MESSAGE = "os.fork() here deadlocks the child on «locks» held by other threads"
FORK = Finding("src/träger.py", Span(3, 9, 3, 18), "CUR101", "fork-in-thread", FORK_MESSAGE)
REGISTRATION = Finding(
    "native/reg.cpp",
    Span(2, 5, 2, 32),
    "CUR301",
    "sub-page-rdma-registration",
    "512 bytes registered: the NIC pins the whole 4096-byte page",
    Severity.WARNING,
    Fix("Register a whole page", (Edit(Span(2, 25, 2, 28), "4096"),), safe=False),
)
DUPLICATES = [
    replace(FORK, path="src/dup.py", span=Span(line, column, line, column + 9))
    for line, column in ((2, 1), (5, 5))
]
FINDINGS = sorted([FORK, REGISTRATION, *DUPLICATES], key=lambda finding: finding.sort_key)


def output(format: str, findings=FINDINGS, sources=SOURCES, **options) -> str:
    """Render `findings` with the source lines of `sources` (path -> file text)."""
    return render(
        format,
        findings,
        RULES,
        source_line=lambda path, line: sources[path].splitlines()[line - 1],
        **options,
    )


def test_every_format_renders_and_ends_with_a_newline():
    for format in FORMATS:
        assert output(format).endswith("\n"), format


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        output("xml")


# text


def test_text_shows_the_line_with_the_span_underlined():
    assert output("text", [FORK]) == (
        f"src/träger.py:3:9: CUR101 {FORK_MESSAGE}\n"
        "  |\n"
        "3 |         pid = os.fork()  # «fork»\n"
        "  |               ^^^^^^^^^\n"
        "  |\n"
        "\n"
        "Found 1 problem (1 error).\n"
    )


@pytest.mark.parametrize(
    ("line", "span", "carets"),
    [
        pytest.param("\t\tpid = os.fork()", Span(1, 9, 1, 18), " " * 14 + "^" * 9, id="tabs"),
        pytest.param("名前 = os.fork()", Span(1, 6, 1, 15), " " * 7 + "^" * 9, id="wide"),
        pytest.param("call(a,", Span(1, 1, 3, 2), "^" * 7, id="multi-line"),
        pytest.param("x = f()", Span(1, 8, 1, 8), " " * 7 + "^", id="empty-at-end"),
    ],
)
def test_text_carets_align_with_the_displayed_line(line, span, carets):
    finding = Finding("a.py", span, "CUR101", "fork-in-thread", "m")
    rows = output("text", [finding], {"a.py": line}).splitlines()
    assert rows[3] == f"  | {carets}"


def test_text_offers_the_fix_as_help():
    rows = output("text", [REGISTRATION]).splitlines()
    assert rows[2] == "2 |     ibv_reg_mr(pd, buf, 512, 0);"
    assert rows[3] == "  |     " + "^" * 27
    assert rows[5] == "  = help: Register a whole page"


def test_text_prints_a_help_once_and_names_it_after():
    """The help paragraph is said once per run; a later finding with the same help names
    where it was said; a different help (details of that spot) is printed."""
    why = "Forking here copies the locks other threads hold; start a spawn context instead."
    first, second = (replace(finding, help=why) for finding in DUPLICATES)
    other = replace(FORK, help=why + " Here the thread is the logger's.")
    helps = [row for row in output("text", [first, second, other]).splitlines()
             if "= help:" in row]
    assert helps == [
        f"  = help: {why} (cursedlint rule CUR101)",
        "  = help: as for src/dup.py:2 above (cursedlint rule CUR101)",
        f"  = help: {other.help} (cursedlint rule CUR101)",
    ]


def test_text_through_the_cli_prints_a_repeated_help_once(tmp_path, monkeypatch, capsys):
    from cursedlint.cli import main

    (tmp_path / "launch.py").write_text(
        "import os\nimport subprocess\n\n\ndef launch(cmd):\n"
        "    subprocess.Popen(cmd, preexec_fn=os.setsid)\n"
        "    subprocess.Popen(cmd, preexec_fn=os.setsid)\n")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", "--no-cache", "--target-python", "3.12", "launch.py"])
    helps = [row for row in capsys.readouterr().out.splitlines() if "= help:" in row]
    assert helps[0].startswith("  = help: CPython runs preexec_fn")
    assert helps[2] == "  = help: as for launch.py:6 above (cursedlint rule CUR101)"
    assert helps[1] == helps[3] == (
        "  = help: replace preexec_fn=os.setsid with start_new_session=True")  # each fix's


def test_text_concise_prints_one_line_per_finding():
    assert output("text", concise=True).splitlines() == [
        f"native/reg.cpp:2:5: CUR301 {REGISTRATION.message}",
        f"src/dup.py:2:1: CUR101 {FORK_MESSAGE}",
        f"src/dup.py:5:5: CUR101 {FORK_MESSAGE}",
        f"src/träger.py:3:9: CUR101 {FORK_MESSAGE}",
        "Found 4 problems (3 errors, 1 warning)."
        " 0 fixable with --fix (1 more with --unsafe-fixes).",
    ]


def test_text_statistics_counts_codes_most_frequent_first():
    assert output("text", statistics=True, files_checked=3).splitlines() == [
        "3  CUR101  fork-in-thread",
        "1  CUR301  sub-page-rdma-registration",
        "Found 4 problems (3 errors, 1 warning). Checked 3 files."
        " 0 fixable with --fix (1 more with --unsafe-fixes).",
    ]


@pytest.mark.parametrize(
    ("findings", "files_checked", "summary"),
    [
        ([], 0, "All checks passed!"),
        ([], 1, "All checks passed! Checked 1 file."),
        ([REGISTRATION], 0, "Found 1 problem (1 warning)."
                            " 0 fixable with --fix (1 more with --unsafe-fixes)."),
        (FINDINGS, 12, "Found 4 problems (3 errors, 1 warning). Checked 12 files."
                       " 0 fixable with --fix (1 more with --unsafe-fixes)."),
        ([FORK], 0, "Found 1 problem (1 error)."),
    ],
)
def test_text_summary(findings, files_checked, summary):
    assert output("text", findings, files_checked=files_checked).splitlines()[-1] == summary


def test_text_colours_only_when_asked():
    assert "\x1b" not in output("text")
    colored = output("text", color=True)
    assert "\x1b[1msrc/träger.py\x1b[0m:3:9: \x1b[1;31mCUR101\x1b[0m" in colored
    assert "\x1b[1;33mCUR301\x1b[0m" in colored


# json


def test_json_has_one_flat_object_per_finding_in_order():
    objects = json.loads(output("json"))
    assert [(item["path"], item["line"]) for item in objects] == [
        (finding.path, finding.line) for finding in FINDINGS
    ]
    assert objects[-1] == {
        "code": "CUR101",
        "name": "fork-in-thread",
        "message": FORK_MESSAGE,
        "severity": "error",
        "path": "src/träger.py",
        "line": 3,
        "column": 9,
        "end_line": 3,
        "end_column": 18,
        "fix": None,
        "related": [],
        "help": "",
    }
    assert objects[0]["severity"] == "warning"
    assert objects[0]["fix"] == {
        "message": "Register a whole page",
        "safe": False,
        "edits": [{"content": "4096", "line": 2, "column": 25, "end_line": 2, "end_column": 28}],
    }


CHAINED = replace(
    FORK,
    related=(
        Step("src/threads.py", 40, "`Heartbeat._loop` starts a thread"),
        Step("src/träger.py", 1, "imported here"),
    ),
)


def test_a_findings_chain_is_shown_in_every_format():
    text = output("text", [CHAINED], color=False, concise=False, statistics=False, files_checked=1)
    assert "= note: src/threads.py:40: `Heartbeat._loop` starts a thread" in text
    assert "= note: src/träger.py:1: imported here" in text
    objects = json.loads(output("json", [CHAINED]))
    assert objects[0]["related"] == [
        {"path": "src/threads.py", "line": 40, "note": "`Heartbeat._loop` starts a thread"},
        {"path": "src/träger.py", "line": 1, "note": "imported here"},
    ]
    related = sarif([CHAINED])["runs"][0]["results"][0]["relatedLocations"]
    assert [item["id"] for item in related] == [1, 2]
    assert related[0]["message"]["text"] == "`Heartbeat._loop` starts a thread"
    assert related[0]["physicalLocation"]["region"] == {"startLine": 40}
    assert related[0]["physicalLocation"]["artifactLocation"]["uri"] == "src/threads.py"


def test_json_is_indented_utf8_with_a_trailing_newline():
    text = output("json")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert "«locks»" in text
    assert output("json", []) == "[]\n"


# sarif


def sarif(findings=FINDINGS, sources=SOURCES) -> dict:
    """The SARIF log of `findings`, rendered in the current directory."""
    return json.loads(output("sarif", findings, sources))


def run_sarif_tool(*args: str) -> str:
    return subprocess.run(
        [str(SARIF_TOOL), *args], capture_output=True, text=True, encoding="utf-8", check=True
    ).stdout


def shifted(finding: Finding, lines: int) -> Finding:
    span = finding.span
    moved = Span(span.line + lines, span.column, span.end_line + lines, span.end_column)
    return replace(finding, span=moved)


def test_sarif_describes_every_given_rule(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    run = sarif()["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("cursedlint", cursedlint.__version__)
    assert [rule["id"] for rule in driver["rules"]] == ["CUR101", "CUR301", "CUR501"]
    registration = driver["rules"][1]
    assert registration["name"] == "sub-page-rdma-registration"
    assert registration["shortDescription"]["text"] == "RDMA registration smaller than a page"
    assert registration["fullDescription"]["text"] == (
        "Finds RDMA memory registrations shorter than a page."
    )
    assert registration["defaultConfiguration"]["level"] == "warning"
    assert registration["properties"]["tags"] == ["reliability", "c", "cpp"]
    for section in ("What it does", "Why it is cursed", "Example", "Fix", "References"):
        assert f"## {section}\n" in registration["help"]["markdown"]
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_locations_are_relative_uris_under_srcroot(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    run = sarif()["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    location = run["results"][-1]["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "src/tr%C3%A4ger.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 9, "endLine": 3, "endColumn": 18},
    }


def test_sarif_paths_outside_the_current_directory_are_file_uris(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)

    def artifact_location(path: str) -> dict:
        finding = replace(FORK, path=path)
        result = sarif([finding], {path: "x\ny\nz"})["runs"][0]["results"][0]
        return result["locations"][0]["physicalLocation"]["artifactLocation"]

    assert artifact_location(str(tmp_path / "src" / "a b.py")) == {
        "uri": "src/a%20b.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert artifact_location("/elsewhere/a.py") == {"uri": "file:///elsewhere/a.py"}
    assert artifact_location("../a.py") == {"uri": (tmp_path.parent / "a.py").as_uri()}


def test_sarif_carries_fixes(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    results = sarif()["runs"][0]["results"]
    assert [("fixes" in result) for result in results] == [True, False, False, False]
    assert results[0]["fixes"] == [
        {
            "description": {"text": "Register a whole page"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "native/reg.cpp", "uriBaseId": "%SRCROOT%"},
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": 2,
                                "startColumn": 25,
                                "endLine": 2,
                                "endColumn": 28,
                            },
                            "insertedContent": {"text": "4096"},
                        }
                    ],
                }
            ],
            "properties": {"safe": False},
        }
    ]


def test_sarif_fingerprints_survive_lines_inserted_above(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    inserted = {path: "# new\n# lines\n\n" + text for path, text in SOURCES.items()}
    moved = [shifted(finding, 3) for finding in FINDINGS]

    def fingerprints(log: dict) -> list[str]:
        results = log["runs"][0]["results"]
        return [result["partialFingerprints"]["cursedlint/v1"] for result in results]

    before = fingerprints(sarif())
    assert before == fingerprints(sarif(moved, inserted))
    assert len(set(before)) == len(FINDINGS), "identical findings differ by occurrence index"


def test_sarif_tools_counts_findings_per_rule_and_severity(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    Path("out.sarif").write_text(output("sarif"), encoding="utf-8")
    counts: Counter[tuple[str, str]] = Counter()
    severity = None
    for line in run_sarif_tool("summary", "out.sarif").splitlines():
        if match := re.fullmatch(r"(\w+): (\d+)", line):
            severity = match[1]
        elif match := re.fullmatch(r" - (CUR\d+) .*: (\d+)", line):
            counts[severity, match[1]] += int(match[2])
    assert counts == {("error", "CUR101"): 3, ("warning", "CUR301"): 1}


def test_sarif_tools_lists_locations(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    Path("out.sarif").write_text(output("sarif"), encoding="utf-8")
    run_sarif_tool("csv", "out.sarif", "--output", "out.csv")
    with open("out.csv", encoding="utf-8", newline="") as handle:
        rows = [
            (row["Severity"], row["Code"], row["Location"], row["Line"])
            for row in csv.DictReader(handle)
        ]
    assert sorted(rows) == [
        ("error", "CUR101", "src/dup.py", "2"),
        ("error", "CUR101", "src/dup.py", "5"),
        ("error", "CUR101", "src/tr%C3%A4ger.py", "3"),
        ("warning", "CUR301", "native/reg.cpp", "2"),
    ]


def test_sarif_without_findings_still_describes_rules(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    run = sarif([])["runs"][0]
    assert run["results"] == []
    assert len(run["tool"]["driver"]["rules"]) == len(RULES)
    Path("empty.sarif").write_text(output("sarif", []), encoding="utf-8")
    assert "error: 0" in run_sarif_tool("summary", "empty.sarif").splitlines()


# github


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command line as (command, properties, message), unescaped."""
    match = re.fullmatch(r"::(\w+) ([^:]*)::(.*)", line)
    assert match, line
    properties = dict(item.split("=", 1) for item in match[2].split(","))
    return match[1], {key: unescape(value) for key, value in properties.items()}, unescape(match[3])


def unescape(text: str) -> str:
    return re.sub("%(25|0D|0A|3A|2C)", lambda match: chr(int(match[1], 16)), text)


def test_github_annotates_each_finding():
    lines = output("github").splitlines()
    assert [parse_command(line)[0] for line in lines] == ["warning", "error", "error", "error"]
    assert lines[-1] == (
        "::error file=src/träger.py,line=3,col=9,endLine=3,endColumn=18,"
        f"title=CUR101 (fork-in-thread)::{FORK_MESSAGE}"
    )
    assert output("github", []) == ""


def test_github_escaping_round_trips():
    path, message = "src/50%,a:b.py", "100% broken:\r\nsee a, b"
    finding = replace(FORK, path=path, message=message)
    [line] = output("github", [finding]).splitlines()
    command, properties, parsed_message = parse_command(line)
    assert (command, properties["file"], parsed_message) == ("error", path, message)
    assert properties["title"] == "CUR101 (fork-in-thread)"


# -- bytes that are not UTF-8 -------------------------------------------------------------
# A file name, or a line of a C file, holding a byte that is not UTF-8: Python keeps the byte
# as a lone surrogate (surrogateescape), which no UTF-8 encoder accepts.

RAW_PATH = os.fsdecode(b"native/\xffreg.cpp")
RAW_LINE = b"    /*\xfe*/ ibv_reg_mr(pd, buf, 512, 0);".decode("utf-8", "surrogateescape")
RAW = replace(
    REGISTRATION,
    path=RAW_PATH,
    span=Span(2, 11, 2, 38),
    message=b"512 bytes registered at '\xfe'".decode("utf-8", "surrogateescape"),
    fix=Fix("Register a whole page", (Edit(Span(2, 31, 2, 34), "4096 /*\udcfe*/"),), safe=False),
)
RAW_SOURCES = {RAW_PATH: "void setup(ibv_pd *pd, char *buf) {\n" + RAW_LINE + "\n}\n"}


def test_escape_undecodable_writes_each_foreign_byte_as_x_escapes():
    assert escape_undecodable(os.fsdecode(b"a\xffb\x80.py")) == "a\\xffb\\x80.py"
    assert escape_undecodable("\ud800 lone") == "\\ud800 lone"
    assert escape_undecodable(os.fsdecode(b"\xff"), backslash="\\\\") == "\\\\xff"
    assert escape_undecodable("träger «fork» 段") == "träger «fork» 段"


def test_printable_also_escapes_control_characters_but_the_tab():
    assert printable("a\x1b[2J\nb\r\x7f\x9b\tc") == "a\\x1b[2J\\x0ab\\x0d\\x7f\\x9b\tc"
    assert printable(os.fsdecode(b"\xff\x00")) == "\\xff\\x00"
    assert printable("träger «fork» 段") == "träger «fork» 段"


@pytest.mark.parametrize("format", ["text", "github"])
def test_terminal_formats_escape_control_characters_of_names_and_lines(format):
    """A file name with a newline and a terminal escape sequence, and a source line holding
    one, print as one readable line each: nothing fakes a finding or commands the terminal."""
    path = "src/x\n::error file=a.py::fake\x1b[2J.py"
    finding = replace(FORK, path=path, span=Span(1, 12, 1, 21), message="m\x1b]0;t\x07")
    text = output(format, [finding], {path: "pid = \x1b[31mos.fork()"})
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", text)
    if format == "text":
        lines = text.splitlines()
        assert lines[0] == "src/x\\x0a::error file=a.py::fake\\x1b[2J.py:1:12: CUR101 m\\x1b]0;t\\x07"
        assert lines[2] == "1 | pid = \\x1b[31mos.fork()"
        assert lines[3] == "  |               " + "^" * 9
    else:
        [line] = text.splitlines()
        assert parse_command(line)[1]["file"] == "src/x\n::error file=a.py::fake\\x1b[2J.py"


@pytest.mark.parametrize("format", FORMATS)
def test_every_format_is_valid_utf8_with_bytes_that_are_not(format, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    text = output(format, [RAW], RAW_SOURCES)
    assert "\\xff" in text or "%FF" in text
    text.encode("utf-8")  # strict: raises on a lone surrogate


def test_text_shows_foreign_bytes_escaped_and_keeps_the_carets_under_the_span():
    lines = output("text", [RAW], RAW_SOURCES).splitlines()
    assert lines[0] == "native/\\xffreg.cpp:2:11: CUR301 512 bytes registered at '\\xfe'"
    assert lines[2] == "2 |     /*\\xfe*/ ibv_reg_mr(pd, buf, 512, 0);"
    assert lines[3] == "  |              " + "^" * 27
    assert output("text", [RAW], RAW_SOURCES, concise=True).startswith("native/\\xffreg.cpp:2:11: ")


def test_json_writes_foreign_bytes_as_backslash_x_in_its_strings():
    [finding] = json.loads(output("json", [RAW], RAW_SOURCES).encode("utf-8"))
    assert finding["path"] == "native/\\xffreg.cpp"
    assert finding["message"] == "512 bytes registered at '\\xfe'"
    assert finding["fix"]["edits"][0]["content"] == "4096 /*\\xfe*/"


def test_sarif_uris_percent_encode_the_bytes_of_the_name(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    log = json.loads(output("sarif", [RAW], RAW_SOURCES).encode("utf-8"))
    [result] = log["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "native/%FFreg.cpp", "uriBaseId": "%SRCROOT%"}
    assert result["message"]["text"] == "512 bytes registered at '\\xfe'"
    assert re.fullmatch("[0-9a-f]{64}", result["partialFingerprints"]["cursedlint/v1"])
    outside = replace(RAW, path=os.fsdecode(b"/elsewhere/\xffreg.cpp"))
    log = json.loads(output("sarif", [outside], {outside.path: RAW_SOURCES[RAW_PATH]}))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "file:///elsewhere/%FFreg.cpp"}


def test_github_names_the_file_with_foreign_bytes_escaped():
    [line] = output("github", [RAW], RAW_SOURCES).splitlines()
    _, properties, message = parse_command(line)
    assert properties["file"] == "native/\\xffreg.cpp"
    assert message == "512 bytes registered at '\\xfe'"


# rules --format markdown (the README's table)


def test_the_rules_table_gives_each_rule_the_severity_of_its_findings(capsys):
    """The linter's notices too: CUR001 (a syntax error) fails `--fail-on error`, so the table
    says error, as `rules --format json`, the rule's page and its findings do."""
    from cursedlint.cli import main

    main(["rules", "--format", "json"])
    severities = {row["code"]: row["severity"] for row in json.loads(capsys.readouterr().out)}
    main(["rules", "--format", "markdown"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert {row[0].split("]")[0].lstrip("| ["): row[3] for row in rows} == severities
    assert (severities["CUR001"], severities["CUR003"]) == ("error", "warning")
