"""CUR601 through wrappers that transform the result: a helper that copies in a loop until all
bytes are copied, returning -1 when the copy fails and the byte total otherwise, in the same
file and in another file of the project (through the project index, end to end with the CLI)."""

from __future__ import annotations

import json
import textwrap
from functools import partial

import pytest

from cursedlint.cli import main
from cursedlint.rules.cross_process_memory import CmaFailureAborts

import harness

WRAPPER = """
#include <stdint.h>
#include <sys/uio.h>

int64_t peer_read(pid_t pid, const void *src, void *dst, int64_t n)
{{
    int64_t got, total;
    struct iovec local = {{ .iov_base = dst, .iov_len = n }};
    struct iovec remote = {{ .iov_base = (void *)src, .iov_len = n }};

    got = total = 0;
    while (total != n) {{
        got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (got == -1) {{
            return {failure};
        }}
        total += got;
        local.iov_base = (char *)local.iov_base + got;
        local.iov_len -= got;
        remote.iov_base = (char *)remote.iov_base + got;
        remote.iov_len -= got;
    }}
    return total;
}}
"""

CALLER = """
#include <stddef.h>
#include <sys/types.h>

struct request {{ const char *remote; char *buf; size_t len; }};
extern int kernel_assist;
int64_t peer_read(pid_t pid, const void *src, void *dst, int64_t n);
void log_error(const char *message);
void check_always(int condition);

void receive_large(pid_t pid, struct request *req)
{{
    size_t nbytes = peer_read(pid, req->remote, req->buf, req->len);
    if (nbytes == -1) {{
        kernel_assist = 0;
        log_error("reading the peer's memory failed; disabling kernel assist");{leave}
    }}
    check_always(nbytes == req->len);
}}
"""


lint_one = partial(harness.lint, rules=CmaFailureAborts, path="cma.c",
                   options={"assert-names": ["check_always"]})


def test_accumulating_wrapper_in_the_same_file_is_followed():
    code = WRAPPER.format(failure="-1") + CALLER.format(leave="").split("#include <sys/types.h>")[1]
    [finding] = lint_one(code)
    assert finding.message.startswith(
        "check_always() is reached from the failure branch of peer_read() (wraps "
        "process_vm_readv())")


@pytest.mark.parametrize("failure", [
    "-errno",  # another failure value: the caller's `== -1` would not be the failure
    "total",   # a short total on failure: no failure value at all
])
def test_wrapper_without_a_minus_one_failure_is_not_followed(failure):
    code = WRAPPER.format(failure=failure) + CALLER.format(leave="").split(
        "#include <sys/types.h>")[1]
    assert lint_one(code) == []


def test_total_changed_otherwise_is_no_accumulation_but_still_an_error_code():
    """A total changed otherwise is no count of bytes (`c_result_wrappers`), but the function
    still returns -1, and only -1, when the copy fails (`c_error_codes`): its caller's assert
    after the failure branch is reached."""
    code = WRAPPER.format(failure="-1").replace("    return total;\n}",
                                                "    total = total / 2;\n    return total;\n}")
    code += CALLER.format(leave="").split("#include <sys/types.h>")[1]
    [finding] = lint_one(code)
    assert "peer_read() (returns -1 if process_vm_readv() fails)" in finding.message
    assert [(step.line, step.note) for step in finding.related] == [
        (13, "peer_read() returns -1 when process_vm_readv() fails")]  # the copy


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cursedlint.rules.CUR601]\nassert-names = ["check_always"]\n')
    (tmp_path / "shm").mkdir()
    (tmp_path / "shm" / "peer_copy.c").write_text(textwrap.dedent(WRAPPER.format(failure="-1")))
    return tmp_path


def check(capsys, *paths: str) -> list[dict]:
    main(["check", "--no-cache", "--output-format", "json", "--select", "CUR601", *paths])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("leave, reported", [("", [18]), ("\n        return;", [])])
def test_wrapper_in_another_file_is_followed(project, capsys, leave, reported):
    (project / "shm" / "receive.c").write_text(textwrap.dedent(CALLER.format(leave=leave)))
    findings = check(capsys, "shm/receive.c")
    assert [(finding["path"], finding["line"]) for finding in findings] == [
        ("shm/receive.c", line) for line in reported]
