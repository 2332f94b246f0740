"""The one getter of a C/C++ call's name (cursedlint/analysis/c_syntax.py `callee`): which forms
of a call each of its switches names, and what it never names (calls through a function
pointer, an index, another call's result)."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_syntax import callee, callee_text
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

PLAIN = {"scoped": False, "system_calls": False}
DEFAULT: dict = {}
MEMBERS = {"members": True}
EVERY = {"templates": True, "members": True}


def context_of(code: str, language: str) -> CContext:
    data = textwrap.dedent(code).encode()
    path = "a.cpp" if language == "cpp" else "a.c"
    return CContext(Source.from_bytes(path, data, language), Settings(enabled=frozenset()),
                    parse(data, language))


def names(code: str, language: str = "cpp", **forms) -> dict[str, str]:
    """Each call of the statements `code` (in a function body) -> its `callee`."""
    context = context_of(f"void run(void) {{\n{code}\n}}\n", language)
    calls = sorted(context.captures("(call_expression) @c", context.root)["c"],
                   key=lambda call: call.start_byte)
    return {context.text(call): callee(context, call, **forms) for call in calls}


@pytest.mark.parametrize("call, plain, default, members, every", [
    ("submit(q, n)", "submit", "submit", "submit", "submit"),
    ("::submit(q, n)", "", "submit", "submit", "submit"),
    ("rdma::submit(q, n)", "", "submit", "submit", "submit"),
    ("net::rdma::submit(q, n)", "", "submit", "submit", "submit"),  # nested scopes
    ("Queue<int>::submit(q, n)", "", "submit", "submit", "submit"),
    ("submit<Work>(q, n)", "", "", "", "submit"),
    ("rdma::submit<Work>(q, n)", "", "", "", "submit"),
    ("queue.submit(n)", "", "", "submit", "submit"),
    ("queue->submit(n)", "", "", "submit", "submit"),
    ("this->queue_->submit(n)", "", "", "submit", "submit"),
    ("queue.template submit<Work>(n)", "", "", "", ""),
    ("(*on_done)(q)", "", "", "", ""),                 # through a function pointer
    ("handlers[kind](q)", "", "", "", ""),
    ("make_handler(kind)(q)", "", "", "", ""),           # another call's result
])
def test_each_switch_names_its_own_forms_of_a_cpp_call(call, plain, default, members, every):
    found = [names(f"rc = {call};", **forms)[call] for forms in (PLAIN, DEFAULT, MEMBERS, EVERY)]
    assert found == [plain, default, members, every]


def test_the_qualified_name_as_written_is_callee_text():
    context = context_of("void run() { net::rdma::submit<Work, Queue<int>>(q); }", "cpp")
    call = context.captures("(call_expression) @c", context.root)["c"][0]
    assert callee_text(call) == "net::rdma::submit"
    assert callee(context, call) == "" and callee(context, call, templates=True) == "submit"


def test_a_function_like_macro_and_the_call_it_wraps_are_both_calls():
    found = names("CHECK_CUDA(cudaStreamSynchronize(stream));\n"
                  "rc = RETRY_ON_EINTR(read(fd, buf, len));", "c")
    assert found == {"CHECK_CUDA(cudaStreamSynchronize(stream))": "CHECK_CUDA",
                     "cudaStreamSynchronize(stream)": "cudaStreamSynchronize",
                     "RETRY_ON_EINTR(read(fd, buf, len))": "RETRY_ON_EINTR",
                     "read(fd, buf, len)": "read"}


def test_a_macro_that_makes_the_function_names_no_callee():
    """`IBV_FN(reg_mr)(pd, buf, len)`: the function is itself a call, whose name is the
    macro's."""
    found = names("mr = IBV_FN(reg_mr)(pd, buf, len);", "c", members=True)
    assert found == {"IBV_FN(reg_mr)(pd, buf, len)": "", "IBV_FN(reg_mr)": "IBV_FN"}


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_raw_system_call_is_named_by_its_number_where_asked(language):
    code = ("n = syscall(SYS_process_vm_readv, pid, local, 1, remote, 1, 0);\n"
            "m = syscall(__NR_process_vm_writev, pid, local, 1, remote, 1, 0);\n"
            "k = syscall(310, pid, local, 1, remote, 1, 0);")
    assert list(names(code, language).values()) == [
        "process_vm_readv", "process_vm_writev", "syscall"]  # (a bare number is not told)
    assert set(names(code, language, system_calls=False).values()) == {"syscall"}


def test_c_member_calls_through_an_ops_table():
    found = names("rc = dom->ops->reg_mr(dom, buf, len);\nrc = ops.reg_mr(dom, buf, len);\n"
                  "rc = (*dom->reg_fn)(buf);", "c", members=True)
    assert list(found.values()) == ["reg_mr", "reg_mr", ""]
    assert set(names("rc = dom->ops->reg_mr(dom, buf, len);", "c").values()) == {""}


def test_the_calls_found_by_name_are_those_whose_callee_is_the_name():
    """`CContext.calls` goes from the name to the call: the same calls as `callee`'s default
    form (plain and qualified at any depth, not members nor template arguments)."""
    context = context_of("""\
        void run() {
            submit(q); ::submit(q); rdma::submit(q); net::rdma::submit(q);
            submit<Work>(q); queue.submit(q); submit::later(q); (*submit_fn)(q);
        }
        """, "cpp")
    by_callee = [context.text(call) for call in context.captures(
        "(call_expression) @c", context.root)["c"] if callee(context, call) == "submit"]
    found = [context.text(call) for _, call in context.calls(("submit",))]
    assert sorted(found) == sorted(by_callee) == sorted(
        ["submit(q)", "::submit(q)", "rdma::submit(q)", "net::rdma::submit(q)"])
