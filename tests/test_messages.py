"""Messages as a terminal shows them: the cause at the spot in about one line, the why and
the fix as help; checked over every finding the rules' cases produce."""

import json
import re
import os
import statistics

from cursedlint.cli import main
from cursedlint.registry import all_rules
from cursedlint.findings import MESSAGE_WIDTH

CASES = os.path.join(os.path.dirname(__file__), "rules")  # the rules' cases


def fixture_findings(capsys) -> list[dict]:
    assert main(["check", "--no-cache", "--output-format", "json", "--exit-zero", CASES]) == 0
    return json.loads(capsys.readouterr().out)


def test_messages_are_short_single_lines_with_the_explanation_in_help(capsys):
    findings = [f for f in fixture_findings(capsys) if not f["code"].startswith("CUR0")]
    assert {f["code"][:4] for f in findings} == {  # every family's cases report something
        code[:4] for code in all_rules() if not code.startswith("CUR0")}
    lengths = [len(f["message"]) for f in findings]
    assert statistics.median(lengths) <= MESSAGE_WIDTH
    assert max(lengths) <= MESSAGE_WIDTH * 5 // 4  # long names only (a wrapper, a member path)
    assert not [f for f in findings if "\n" in f["message"] or not f["help"]]


def test_no_message_or_help_cites_an_incident_nobody_can_look_up(capsys):
    assert not [f for f in fixture_findings(capsys)
                if "incident" in (f["message"] + f["help"]).lower()]


def test_text_output_puts_help_and_the_rule_command_under_the_finding(tmp_path, capsys,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.py").write_text(
        "import os\nimport subprocess\n"
        "subprocess.run(['nvidia-smi'], preexec_fn=os.setsid)\n")
    assert main(["check", "--no-cache", "--target-python", "3.12", "launch.py"]) == 1
    out = capsys.readouterr().out
    header, *rest = out.splitlines()
    assert header == ("launch.py:3:1: CUR101 subprocess.run() fork()s this whole process: "
                      "preexec_fn= is set")
    [help_line] = [line for line in rest if "(cursedlint rule CUR101)" in line]
    assert help_line.lstrip().startswith("= help: CPython runs preexec_fn")
    assert "= help: replace preexec_fn=os.setsid with start_new_session=True" in out


def test_a_fork_for_want_of_vfork_names_the_target_python(tmp_path, capsys, monkeypatch):
    """A call CPython starts with vfork from Python 3.10 on forks on an older target: the
    message names the target, or a reader on a newer Python takes it for a false finding; a
    fork that preexec_fn forces on every Python says nothing of the version."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.py").write_text(
        "import os\nimport subprocess\n"
        "subprocess.run(['/usr/bin/nvidia-smi'])\n"
        "subprocess.run(['/usr/bin/nvidia-smi'], close_fds=False, preexec_fn=os.setsid)\n")
    headers = {}
    for target in ("3.8", "3.12"):
        main(["check", "--no-cache", "--concise", "--target-python", target, "launch.py"])
        out = capsys.readouterr().out
        headers[target] = [line for line in out.splitlines() if "CUR101" in line]
    assert headers["3.8"] == [
        "launch.py:3:1: CUR101 subprocess.run() fork()s this whole process on Python 3.8 "
        "(no vfork): close_fds=True (the default) blocks posix_spawn before Python 3.13",
        "launch.py:4:1: CUR101 subprocess.run() fork()s this whole process: preexec_fn= is set"]
    assert headers["3.12"] == headers["3.8"][1:]


def test_help_keeps_names_as_the_code_spells_them(capsys):
    """Help text is prose around code names: `IterDomain` stays `IterDomain`."""
    helps = [f["help"] for f in fixture_findings(capsys) if f["code"] == "CUR501"]
    assert any("pointers to `IterDomain`s owned by the source container" in text
               for text in helps)
    assert not any("`iterdomain`" in text for text in helps)


CITED_LINE = re.compile(r"([\w.-]+\.(?:py|pyx|pxd|c|cc|cpp|cxx|cu|cuh|h|hh|hpp)):\d+")


def test_a_line_of_another_file_in_a_finding_is_a_step_of_its_chain(capsys):
    """Another file's line reaches a finding only with a step of its chain in that file: the
    files it cites (`Finding.cites`), which decide when a cached result linted with facts is
    stale. Checked over every `file.py:12` in the messages, help and chain notes."""
    findings = fixture_findings(capsys)
    checked = 0
    for finding in findings:
        steps = finding["related"]
        text = " ".join([finding["message"], finding["help"], *(s["note"] for s in steps)])
        files = {os.path.basename(finding["path"])} | {
            os.path.basename(step["path"]) for step in steps}
        for name in CITED_LINE.findall(text):
            checked += 1
            assert name in files, (finding["path"], finding["line"], name)
    assert checked >= 5
