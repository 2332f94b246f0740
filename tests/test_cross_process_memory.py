"""CUR601: the conditions that send a failed call (-1) into a branch, the
path after the failure branch, wrappers, options, and where the rule stays silent (the
annotated cases: tests/rules/CUR601)."""

from __future__ import annotations

import textwrap
from functools import partial

import pytest

from cursedlint.rules.cross_process_memory import CmaFailureAborts

import harness



lint = partial(harness.lint, rules=CmaFailureAborts, path="cma.c")


def lines(code: str, **kwargs) -> list[int]:
    return [finding.line for finding in lint(code, **kwargs)]


def in_function(body: str) -> str:
    """`body` inside a function that has a CMA result `n` of a `len`-byte read."""
    return (
        "void pull(pid_t pid, struct iovec *l, struct iovec *r, size_t len, int *mode)\n{\n"
        "    ssize_t n = process_vm_readv(pid, l, 1, r, 1, 0);\n"
        + textwrap.indent(textwrap.dedent(body), "    ")
        + "}\n"
    )


# -- which branch a failed call (-1) takes --------------------------------------------------------

@pytest.mark.parametrize("condition, reported", [
    ("n == -1", True),
    ("n < 0", True),
    ("n <= 0", True),
    ("-1 == n", True),
    ("0 > n", True),
    ("n != (ssize_t)len", True),
    ("n < (ssize_t)len", True),
    ("n", True),                      # -1 is true
    ("n == -1 || len == 0", True),    # || is true when one side is
    ("!(n >= 0)", True),
    ("n == 0", False),                # -1 goes to the else: nothing there falls into the assert
    ("n > 0", False),
    ("n != -1", False),
    ("n == (ssize_t)len", False),
    ("!n", False),
    ("n < 0 && errno == EPERM", None),  # other errors take the other branch: cannot be told
    ("n == n", None),
])
def test_failure_branch_of_condition(condition, reported):
    """The true branch logs and falls through; the false branch returns. The assert after the
    if is reached from the failure branch exactly when the failed call takes the true one."""
    code = in_function(f"""\
        if ({condition}) {{
            *mode = 0;
            fprintf(stderr, "CMA failed\\n");
        }} else {{
            return;
        }}
        assert(n == (ssize_t)len);
        """)
    assert lines(code) == ([10] if reported else [])


def test_else_branch_is_the_failure_branch_of_a_success_check():
    code = in_function("""\
        if (n == (ssize_t)len)
            return;
        else
            *mode = 0;
        assert(n == (ssize_t)len);
        """)
    assert lines(code) == [8]


def test_missing_else_is_the_failure_path_of_a_success_check():
    code = in_function("""\
        if (n > 0)
            *mode = 1;
        assert(n > 0);
        """)
    assert lines(code) == [6]


# -- the path after the failure branch -----------------------------------------------------------

@pytest.mark.parametrize("leave", [
    "return;", "goto fallback;", "exit(1);", "n = bounce_copy(len);", "_exit(2);",
])
def test_failure_branch_that_leaves_or_replaces_the_result_is_clean(leave):
    code = in_function(f"""\
        if (n < 0) {{
            *mode = 0;
            {leave}
        }}
        assert(n == (ssize_t)len);
        fallback:
        return;
        """)
    assert lines(code) == []


def test_nested_if_on_another_condition_is_followed_on_both_branches():
    code = in_function("""\
        if (n == -1) {
            if (errno == EPERM)
                fprintf(stderr, "ptrace_scope blocks CMA\\n");
            else
                return;
        }
        assert(n == (ssize_t)len);
        """)
    assert lines(code) == [10]


def test_path_climbs_out_of_enclosing_blocks():
    code = in_function("""\
        if (*mode) {
            if (n < 0)
                *mode = 0;
        }
        CHECK(n >= 0);
        """)
    assert lines(code) == [8]


def test_abort_counts_only_on_the_failure_path():
    code = in_function("""\
        if (n != (ssize_t)len)
            return;
        if (*mode == 2)
            abort();
        """)
    assert lines(code) == []


def test_assert_without_a_check_is_reported():
    assert lines(in_function("assert(n == (ssize_t)len);\n")) == [4]


@pytest.mark.parametrize("body", [
    "for (int i = 0; i < 3 && n < 0; i++) n = retry();\nassert(n >= 0);\n",
    "switch (n) { case -1: *mode = 0; }\nassert(n >= 0);\n",
    "while (n < 0) { if (errno != EINTR) break; }\nassert(n >= 0);\n",
])
def test_loops_and_switches_on_the_path_make_the_rule_silent(body):
    assert lines(in_function(body)) == []


def test_code_after_a_loop_body_is_not_followed_round_the_loop():
    code = """\
        void drain(pid_t pid, struct iovec *l, struct iovec *r, int rounds)
        {
            for (int i = 0; i < rounds; i++) {
                ssize_t n = process_vm_readv(pid, l, 1, r, 1, 0);
                if (n < 0)
                    fprintf(stderr, "CMA failed\\n");
            }
        }
        """
    assert lines(code) == []


def test_preprocessor_branches_are_alternatives():
    code = in_function("""\
        if (n == -1)
            *mode = 0;
        #ifdef STRICT_CMA
        assert(n != -1);
        #else
        return;
        #endif
        """)
    assert lines(code) == [7]


# -- what the result is used for -----------------------------------------------------------------

@pytest.mark.parametrize("code", [
    "void f(pid_t p, struct iovec *v) { (void)process_vm_readv(p, v, 1, v, 1, 0); }\n",
    "ssize_t f(pid_t p, struct iovec *v) { return process_vm_readv(p, v, 1, v, 1, 0); }\n",
    "void f(pid_t p, struct iovec *v) { record(process_vm_readv(p, v, 1, v, 1, 0)); }\n",
    "void f(pid_t p, struct iovec *v) { total += process_vm_readv(p, v, 1, v, 1, 0); }\n",
    "void f(struct stats *s) { process_vm_readv_stats(s); assert(s); }\n",
])
def test_results_handed_elsewhere_are_not_reported(code):
    assert lines(code) == []


def test_ignored_result_is_reported_at_the_call():
    code = "void f(pid_t p, struct iovec *v)\n{\n    process_vm_writev(p, v, 1, v, 1, 0);\n}\n"
    findings = lint(code)
    assert [(f.line, f.span.column, f.span.end_column) for f in findings] == [(3, 5, 40)]
    assert "is ignored" in findings[0].explained


def test_message_names_the_cause_and_the_fixes():
    message = lint(in_function("if (n < 0) *mode = 0;\nassert(n > 0);\n"))[0].explained
    assert "assert() is reached from the failure branch of process_vm_readv() on line 3" in message
    for part in ("EPERM", "ptrace_scope=1", "PR_SET_PTRACER", "kernel.yama.ptrace_scope=0",
                 "without asserting"):
        assert part in message


# -- wrappers and options ------------------------------------------------------------------------

WRAPPED = """\
    static ssize_t read_peer(pid_t pid, struct iovec *v)
    {
        ssize_t n = process_vm_readv(pid, v, 1, v, 1, 0);
        if (n < 0)
            log_errno("read_peer");
        return n;
    }
    static long peer_bytes(pid_t pid, struct iovec *v)
    {
        return read_peer(pid, v) * 8;
    }
    void use(pid_t pid, struct iovec *v)
    {
        ssize_t got = read_peer(pid, v);
        long bits = peer_bytes(pid, v);
        if (got < 0 || bits < 0)
            log_errno("use");
        assert(got > 0);
        assert(bits > 0);
    }
    """


def test_wrapper_returning_the_result_unchanged_is_followed():
    """read_peer returns the result; peer_bytes changes it, so its callers are not followed."""
    findings = lint(WRAPPED)
    assert [f.line for f in findings] == [18]
    assert "read_peer() (wraps process_vm_readv())" in findings[0].explained


def test_configured_wrappers_of_other_files_are_followed_and_trigger_the_rule():
    code = in_function("").replace("process_vm_readv", "psm3_cma_get") + textwrap.dedent("""\
        void recv(pid_t pid, void *src, void *dst, size_t len)
        {
            size_t nbytes = psm3_cma_get(pid, src, dst, len);
            if (nbytes == -1)
                fprintf(stderr, "Disabling CMA support\\n");
            psmi_assert_always(nbytes == len);
        }
        """)
    assert lines(code) == []
    assert lines(code, options={"wrappers": ["psm3_cma_get"]}) == [10]


def test_assert_names_are_configurable():
    code = in_function("if (n < 0) *mode = 0;\nverify_or_die(n > 0);\nassert(n > 0);\n")
    assert lines(code) == [6]
    assert lines(code, options={"assert-names": ["or_die"]}) == [5]


def test_cpp_qualified_calls_and_abort():
    code = """\
        #include <cstdlib>
        void Peer::Get(iovec *v)
        {
            if (::process_vm_readv(pid_, v, 1, v, 1, 0) < 0)
                std::abort();
        }
        """
    assert lines(code, path="peer.cpp") == [5]


def test_call_checked_directly_in_a_c_condition():
    code = """\
        void get(pid_t pid, struct iovec *v)
        {
            if (!process_vm_readv(pid, v, 1, v, 1, 0))
                return;
            if (process_vm_readv(pid, v, 1, v, 1, 0))
                abort();
            if (record(process_vm_readv(pid, v, 1, v, 1, 0)))
                abort();
        }
        """
    assert lines(code) == [6]


# -- C++ named casts: seen through as C casts are ------------------------------------------------

NAMED_CASTS = """\
    #include <cassert>
    #include <cstdlib>
    #include <sys/uio.h>

    static ssize_t read_peer(pid_t pid, iovec *v)
    {
        return static_cast<ssize_t>(process_vm_readv(pid, v, 1, v, 1, 0));
    }

    void Mirror::Pull(iovec *v, size_t len)
    {
        ssize_t n = static_cast<ssize_t>(process_vm_readv(pid_, v, 1, v, 1, 0));
        if (n < 0)
            use_cma_ = false;
        assert(n == static_cast<ssize_t>(len));
        if (static_cast<long>(read_peer(pid_, v)) < 0)
            std::abort();
        static_cast<void>(process_vm_writev(pid_, v, 1, v, 1, 0));
        process_vm_writev(pid_, v, 1, v, 1, 0);
    }
    """


def test_named_casts_are_seen_through():
    """The result stored through a cast and checked, a wrapper returning it through a cast and
    checked through another; a cast to void discards it on purpose."""
    findings = lint(NAMED_CASTS, path="mirror.cpp")
    assert [(f.line, f.message.removesuffix(": fails where ptrace is restricted"))
            for f in findings] == [
        (15, "assert() is reached from the failure branch of process_vm_readv() on line 12"),
        (17, "std::abort() is reached from the failure branch of read_peer() "
             "(wraps process_vm_readv()) on line 16"),
        (19, "the result of process_vm_writev() is ignored"),
    ]
