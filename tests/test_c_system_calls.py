"""`syscall(SYS_name, ...)` read as the system call it makes (`analysis.c_system_calls`)."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_syntax import callee
from cursedlint.analysis.c_system_calls import (
    add_project_aliases, aliases_of, calls_made, spellings, system_calls,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str) -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes("a.c", data, "c"), Settings(enabled=frozenset()),
                    parse(data, "c"))


CODE = """\
    #define NR_PEEK __NR_process_vm_readv
    #define NR_OTHER 310
    long copy(int pid, struct iovec *l, struct iovec *r) {
        long a = syscall(SYS_process_vm_readv, pid, l, 1, r, 1, 0);
        long b = syscall((long)__NR_process_vm_writev, pid, l, 1, r, 1, 0);
        long c = syscall(NR_PEEK, pid, l, 1, r, 1, 0);
        long d = syscall(NR_OTHER, pid, l, 1, r, 1, 0);
        long e = syscall(310, pid, l, 1, r, 1, 0);
        long f = syscall(SYS_gettid);
        return process_vm_readv(pid, l, 1, r, 1, 0) + a + b + c + d + e + f;
    }
    """


def test_the_numbers_spelled_as_the_headers_do_and_the_files_macros_for_them():
    context = context_of(CODE)
    made = [(name, context.text(call)[:20]) for name, call in system_calls(
        context, ("process_vm_readv", "process_vm_writev"))]
    assert made == [("process_vm_readv", "syscall(SYS_process_"),
                    ("process_vm_writev", "syscall((long)__NR_p"),
                    ("process_vm_readv", "syscall(NR_PEEK, pid")]
    assert [callee(context, call) for _, call in context.calls(("syscall",))] == [
        "process_vm_readv", "process_vm_writev", "process_vm_readv", "syscall", "syscall",
        "gettid"]
    assert [name for name, _ in calls_made(context, ("process_vm_readv",))] == [
        "process_vm_readv"] * 3
    assert spellings(("process_vm_readv",)) == ("SYS_process_vm_readv",
                                                "__NR_process_vm_readv")


def test_a_file_without_the_spellings_is_not_searched():
    context = context_of("long f(void) { return syscall(SYS_gettid); }\n")
    assert system_calls(context, ("process_vm_readv",)) == []


def test_a_macro_of_another_file_standing_for_the_number_is_read_once_handed_over():
    context = context_of("""\
        long peek(int pid, struct iovec *l, struct iovec *r) {
            long a = syscall(NR_PEEK, pid, l, 1, r, 1, 0);
            long b = syscall(NR_OWN, pid, l, 1, r, 1, 0);
            return a + b;
        }
        #define NR_OWN __NR_process_vm_writev
        """)
    names = ("process_vm_readv", "process_vm_writev")
    assert [made for made, _ in system_calls(context, names)] == ["process_vm_writev"]
    add_project_aliases(context, {"NR_PEEK": "process_vm_readv", "NR_OWN": "process_vm_readv"})
    assert [made for made, _ in system_calls(context, names)] == [
        "process_vm_readv", "process_vm_writev"]  # (the file's own macro wins)


def test_the_macros_standing_for_given_calls_are_found_from_the_spellings():
    data = b"#define NR_PEEK SYS_process_vm_readv\n#define NR_TID SYS_gettid\n" \
           b"long n = SYS_process_vm_readv;\n#  define NR_POKE (__NR_process_vm_writev)"
    assert aliases_of(data, ("process_vm_readv", "process_vm_writev")) == {
        "NR_PEEK": "process_vm_readv", "NR_POKE": "process_vm_writev"}


def test_a_copy_of_the_calling_process_is_left_out_unless_asked_for():
    context = context_of("""\
        void f(pid_t peer, struct iovec *l, struct iovec *r) {
            process_vm_readv(getpid(), l, 1, r, 1, 0);
            syscall(SYS_process_vm_readv, getpid(), l, 1, r, 1, 0);
            process_vm_readv(peer, l, 1, r, 1, 0);
        }
        """)
    names = ("process_vm_readv",)
    assert [context.text(call)[:24] for _, call in calls_made(context, names)] == [
        "process_vm_readv(peer, l"]
    assert len(calls_made(context, names, own=True)) == 3


def test_the_calls_found_for_names_follow_the_macros_handed_over_after_a_first_ask():
    context = context_of("""\
        ssize_t pull(pid_t peer, struct iovec *l, struct iovec *r) {
            ssize_t n = process_vm_readv(peer, l, 1, r, 1, 0);
            if (n < 0)
                n = syscall(NR_PULL, peer, l, 1, r, 1, 0);
            return n;
        }
        """)
    names = ("process_vm_readv",)
    first = calls_made(context, names, own=True)
    first.clear()  # (a caller's list: the next ask is not changed by it)
    assert [context.text(call)[:16] for _, call in calls_made(context, names)] == [
        "process_vm_readv"]
    add_project_aliases(context, {"NR_PULL": "process_vm_readv"})
    assert [context.text(call)[:16] for _, call in calls_made(context, names)] == [
        "process_vm_readv", "syscall(NR_PULL,"]


def test_the_calls_made_are_kept_with_the_tree_only_while_no_other_files_macro_is_known(
        monkeypatch):
    """The file's first lint and its lint with facts (two contexts of one tree) find the
    calls once; a context handed another file's macro finds the calls it makes."""
    from cursedlint.analysis import c_system_calls

    data = textwrap.dedent("""\
        ssize_t pull(pid_t peer, struct iovec *l, struct iovec *r) {
            ssize_t n = process_vm_readv(peer, l, 1, r, 1, 0);
            return n < 0 ? syscall(NR_PULL, peer, l, 1, r, 1, 0) : n;
        }
        """).encode()
    source, settings = Source.from_bytes("a.c", data, "c"), Settings(enabled=frozenset())
    first = CContext(source, settings, parse(data, "c"))
    made, searches = c_system_calls._calls_made, []
    monkeypatch.setattr(c_system_calls, "_calls_made",
                        lambda *given: searches.append(given[1]) or made(*given))
    names = ("process_vm_readv",)

    def texts(context):
        return [context.text(call)[:16] for _, call in calls_made(context, names)]

    assert texts(first) == ["process_vm_readv"]
    again = CContext(source, settings, first.tree, first.tree_index)
    assert texts(again) == ["process_vm_readv"] and len(searches) == 1
    given = CContext(source, settings, first.tree, first.tree_index)
    add_project_aliases(given, {"NR_PULL": "process_vm_readv"})
    assert texts(given) == ["process_vm_readv", "syscall(NR_PULL,"] and len(searches) == 2
    assert texts(CContext(source, settings, first.tree, first.tree_index)) == [
        "process_vm_readv"] and len(searches) == 2
