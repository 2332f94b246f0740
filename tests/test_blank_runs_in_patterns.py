"""Patterns over file text with blanks on both sides of an optional token (`\\s*\\(?\\s*`) tried
every way of splitting a run of blanks between them: a run of n blanks cost n² (three such
runs, n³: 4,000 blanks after a `(` took 95 s). Each is written now with the token taking the
blanks after it (`\\s*(?:\\(\\s*)?`), the same language; each is timed here on the runs that cost
most, as the rules use it. So are patterns that began with a run of word characters, tried
from each letter of a long word (now from a word's start only)."""

from __future__ import annotations

import time

import pytest

from cursedlint.analysis.c_allocators import _STORE_THROUGH
from cursedlint.analysis.c_calling_macros import _CALLED
from cursedlint.analysis.c_capture_guards import _QUERY
from cursedlint.analysis.c_error_codes import _RETURNS_NAME
from cursedlint.analysis.c_fatal import _NESTED_CALL
from cursedlint.analysis.c_memory import _MAKE_UNIQUE, _STD_TEMPLATE
from cursedlint.analysis.c_system_calls import _ALIAS
from cursedlint.analysis.c_thread_reach import _VECTOR

BLANKS = {
    "a return of a name": (_RETURNS_NAME.finditer, lambda n: b"return" + b" " * n + b"}"),
    "a store through a pointer": (_STORE_THROUGH.finditer, lambda n: b"*" + b" " * n + b"}"),
    "a nested call's head": (_NESTED_CALL.finditer, lambda n: b"(" + b" \t" * (n // 2) + b"}"),
    "a system call's alias": (_ALIAS.finditer, lambda n: b"#define X SYS_r" + b" " * n + b"y\n"),
    "an alias's head": (_ALIAS.finditer, lambda n: b"#define X " + b" " * n + b"y\n"),
    "a vector of threads": (_VECTOR.finditer, lambda n: "vector<std::thread>" + " " * n + "}"),
    "vectors never closed": (_VECTOR.finditer, lambda n: "vector<" * (n // 7)),
    "an element type": (_STD_TEMPLATE.fullmatch, lambda n: "vector<a" + " " * n + "b"),
    "a made unique element": (_MAKE_UNIQUE.fullmatch,
                              lambda n: "std::make_unique<char" + " " * n + "x>"),
    "a long word in a macro's body": (_CALLED.finditer, lambda n: b"a" * n),
    "a long word beside a capture query": (_QUERY.finditer, lambda n: b"1a" * (n // 2)),
}


def cost(use, text) -> float:
    started = time.process_time()
    found = use(text)  # a match (fullmatch), or an iterator of them (finditer): read out
    if found is not None and not hasattr(found, "group"):
        list(found)
    return time.process_time() - started


@pytest.mark.parametrize("shape", BLANKS)
def test_blank_runs_cost_their_length(shape):
    use, make = BLANKS[shape]
    small = min(cost(use, make(10_000)) for _ in range(3))
    large = min(cost(use, make(80_000)) for _ in range(3))
    assert large < 8 * small * 2.5 + 0.02, (small, large)


@pytest.mark.parametrize("pattern, text, groups", [
    (_RETURNS_NAME, b"return ( rc ) ;", ()),
    (_STORE_THROUGH, b"*(void **) out = p;", (b"out",)),
    (_STORE_THROUGH, b"* ( out ) = p;", (b"out",)),
    (_NESTED_CALL, b"( ! ( check(x", (b"check",)),
    (_ALIAS, b"#define NR_READ ( __NR_process_vm_readv )", (b"NR_READ", b"process_vm_readv")),
    (_VECTOR, "std::vector<std::thread> & workers;", ("std::thread", "workers")),
])
def test_the_patterns_still_read_their_shapes(pattern, text, groups):
    match = pattern.search(text)
    assert match is not None and match.groups() == groups
    assert _MAKE_UNIQUE.fullmatch("std::make_unique<unsigned  char[] >")["element"] == \
        "unsigned  char"
    assert _STD_TEMPLATE.fullmatch("std::vector< long long >")["element"] == "long long"
