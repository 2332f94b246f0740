"""CUR301/CUR302: the page-size setting and the CUR301-over-CUR302 rule (the header
lookup: test_includes.py; the annotated cases, each API, length form and address form, a
project header, files with parse errors: tests/rules/CUR301, CUR302)."""

from __future__ import annotations

import random
import re
import time
from functools import partial

import pytest

from cursedlint.analysis.rdma_registrations import APIS, _named_like_api

from cursedlint.rules.rdma_registration import (
    SharedPageRdmaRegistration,
    SubPageRdmaRegistration,
)

import harness

RULES = {rule.code: rule for rule in (SubPageRdmaRegistration, SharedPageRdmaRegistration)}


lint = partial(harness.lint, rules=RULES, path="rdma.c")


def found(code: str, **kwargs) -> list[tuple[int, str]]:
    return sorted((finding.line, finding.code) for finding in lint(code, **kwargs))


REGISTER_FLAG = """
    #include <infiniband/verbs.h>
    void f(struct ibv_pd *pd, void *buf) {
        ibv_reg_mr(pd, buf, 16 * 1024, IBV_ACCESS_LOCAL_WRITE);
    }
"""


@pytest.mark.parametrize("page_size, reported", [(4096, False), (16384, False), (65536, True)])
def test_page_size_setting(page_size, reported):
    assert bool(found(REGISTER_FLAG, page_size=page_size)) == reported


def test_message_gives_length_page_size_and_fix():
    (finding,) = lint(REGISTER_FLAG, page_size=65536)
    assert "16384 bytes" in finding.explained and "65536-byte pages" in finding.explained
    assert "posix_memalign" in finding.explained and "register 65536 bytes" in finding.explained
    assert finding.column == 25  # the length argument


SMALL_STACK_FLAG = """
    #include <infiniband/verbs.h>
    void f(struct ibv_pd *pd) {
        uint32_t flag;
        ibv_reg_mr(pd, &flag, sizeof(flag), IBV_ACCESS_LOCAL_WRITE);
    }
"""


def test_both_apply_reports_cur301_only():
    assert found(SMALL_STACK_FLAG) == [(5, "CUR301")]


def test_cur302_reports_when_cur301_is_off():
    assert found(SMALL_STACK_FLAG, rules=("CUR302",)) == [(5, "CUR302")]


@pytest.mark.parametrize("source", [
    "p = malloc(64);",                       # assigned again: two sources
    "free(p); p = NULL;",
    "p++;",
])
def test_pointer_with_several_values_is_silent(source):
    code = f"""
        void f(struct ibv_pd *pd, size_t n) {{
            char *p = malloc(64);
            {source}
            ibv_reg_mr(pd, p, n, 0);
        }}
    """
    assert found(code) == []


def test_malloc_at_the_mmap_threshold_is_silent():
    code = """
        void f(struct ibv_pd *pd, size_t n) {
            char *below = malloc(128 * 1024 - 16), *at = malloc(128 * 1024);
            ibv_reg_mr(pd, below, n, 0);
            ibv_reg_mr(pd, at, n, 0);
        }
    """
    assert found(code) == [(4, "CUR302")]


def test_wrappers_of_wrappers_compose_to_a_bounded_depth():
    code = """
        static struct ibv_mr *reg1(struct ibv_pd *pd, void *p, size_t n) {
            return ibv_reg_mr(pd, p, n, 0);
        }
        static struct ibv_mr *reg2(struct ibv_pd *pd, size_t n, void *p) { return reg1(pd, p, n); }
        static struct ibv_mr *reg3(void *p, struct ibv_pd *pd, size_t n) { return reg2(pd, n, p); }
        static struct ibv_mr *reg4(struct ibv_pd *pd, void *p, size_t n) { return reg3(p, pd, n); }
        static struct ibv_mr *reg5(struct ibv_pd *pd, void *p, size_t n) { return reg4(pd, p, n); }
        static struct ibv_mr *both(struct ibv_pd *pd, void *p, size_t n) {
            reg1(pd, p, n);
            return reg2(pd, n, p);
        }
        void f(struct ibv_pd *pd, void *p) {
            reg3(pd, 10, p);
            reg3(p, pd, 10);
            reg4(pd, p, 10);
            reg5(pd, p, 10);
            both(pd, p, 10);
        }
    """
    # reg3's length is its third parameter; reg5 is a fifth level; `both` registers the same
    # range twice, through two wrappers of one API: a wrapper of it
    assert found(code) == [(15, "CUR301"), (16, "CUR301"), (18, "CUR301")]


def test_method_call_of_the_same_name_is_not_a_registration():
    code = """
        struct Pool { ibv_mr *ibv_reg_mr(void *p, size_t n); };
        void f(Pool &pool, void *p) { pool.ibv_reg_mr(p, 4); }
    """
    assert found(code, path="pool.cpp") == []


def test_short_argument_list_is_ignored():
    assert found("void f(void *p) { ibv_reg_mr(p, 4); }") == []


def test_reference_parameter_is_unknown_provenance():
    code = """
        void by_reference(ibv_pd *pd, std::uint64_t &word, std::size_t n) {
            ibv_reg_mr(pd, &word, n, 0);
        }
        void by_value(ibv_pd *pd, std::uint64_t word, std::size_t n) {
            ibv_reg_mr(pd, &word, n, 0);
        }
    """
    assert found(code, path="refs.cpp") == [(6, "CUR302")]


def test_rereg_flags_decide_whether_the_range_changes():
    code = """
        void f(struct ibv_mr *mr, struct ibv_pd *pd, void *p, int flags) {
            ibv_rereg_mr(mr, 1, pd, p, 8, 0);
            ibv_rereg_mr(mr, 4, pd, p, 8, 0);
            ibv_rereg_mr(mr, flags, pd, p, 8, 0);
            ibv_rereg_mr(mr, flags & ~IBV_REREG_MR_CHANGE_TRANSLATION, pd, p, 8, 0);
        }
    """
    assert found(code) == [(3, "CUR301")]


def test_undeclared_name_in_a_method_is_a_member_only_when_it_looks_like_one():
    code = """
        void Queue::Arm(ibv_pd *pd, std::size_t n) {
            ibv_reg_mr(pd, &tail_, n, 0);
            ibv_reg_mr(pd, &m_head, n, 0);
            ibv_reg_mr(pd, &g_shared_doorbell, n, 0);
        }
    """
    assert found(code, path="queue.cpp") == [(3, "CUR302"), (4, "CUR302")]


@pytest.mark.parametrize("allocation, reported", [
    ("posix_memalign(&p, 64, 2048);", True),     # cache-line aligned: shares pages
    ("posix_memalign(&p, 4096, 2048);", False),  # page-aligned start
    ("p = memalign(256, 1000);", True),
    ("p = valloc(100);", False),
    ("cudaMallocHost(&p, 512);", False),
])
def test_aligned_allocators(allocation, reported):
    code = f"""
        void f(struct ibv_pd *pd, size_t n) {{
            void *p;
            {allocation}
            ibv_reg_mr(pd, p, n, 0);
        }}
    """
    assert bool(found(code)) == reported


def test_a_field_holding_the_api_itself_and_a_wrapper_of_it_registers():
    """A symbol table's field given the loaded `ibv_reg_mr` in one place and a wrapper that
    passes its parameters straight to it in another: both register the same way."""
    code = """
        #include <dlfcn.h>
        #include <stdlib.h>
        #include <infiniband/verbs.h>
        struct verbs { struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int); };
        static struct ibv_mr *linked_reg_mr(struct ibv_pd *pd, void *a, size_t n, int access) {
            return ibv_reg_mr(pd, a, n, access);
        }
        void bind_linked(struct verbs *v) { v->reg_mr = linked_reg_mr; }
        void bind_loaded(struct verbs *v, void *lib) { v->reg_mr = dlsym(lib, "ibv_reg_mr"); }
        struct ibv_mr *pin_word(struct verbs *v, struct ibv_pd *pd, unsigned long *word) {
            return v->reg_mr(pd, word, sizeof(*word), IBV_ACCESS_LOCAL_WRITE);
        }
    """
    assert found(code) == [(12, "CUR301")]


def test_member_function_wrappers_across_files(tmp_path):
    """A class's method passing its parameters to `ibv_reg_mr` (out of line, in its own file)
    and another class's method passing them on to it through a member: their calls register,
    on receivers of those classes only."""
    findings = harness.lint_project(tmp_path, {
        "pd.h": """
            #include <infiniband/verbs.h>
            class Pd {
             public:
              ibv_mr* reg(void* addr, size_t len, int access);
             private:
              ibv_pd* pd_;
            };
            class Cache {
             public:
              int reg(void* addr, size_t len, int access) { return addr && len && access; }
            };
            class Channel {
             public:
              ibv_mr* pin(char* bytes, size_t count) { return pd_->reg(bytes, count, 0); }
             private:
              Pd* pd_;
            };
            """,
        "pd.cc": """
            #include "pd.h"
            ibv_mr* Pd::reg(void* addr, size_t len, int access) {
              return ibv_reg_mr(pd_, addr, len, access);
            }
            """,
        "use.cc": """
            #include <cstdlib>
            #include "pd.h"
            void use(Pd& pd, Cache& cache, Channel* channel) {
              char* small = static_cast<char*>(malloc(100));
              pd.reg(small, 100, 0);
              cache.reg(small, 100, 0);
              channel->pin(small, 100);
            }
            """}, RULES)
    assert [(finding.path, finding.line, finding.message.split(" registers")[0])
            for finding in findings] == [
        ("use.cc", 6, "Pd::reg() (wraps ibv_reg_mr())"),
        ("use.cc", 8, "Channel::pin() (wraps ibv_reg_mr())")]
    assert [step.note for step in findings[1].related] == [
        "`Channel::pin()` passes its address and length to `Pd::reg()`",
        "`Pd::reg()` passes its address and length to `ibv_reg_mr()`"]


def _named_like_api_read_at_each(data: bytes) -> frozenset[str]:
    """What `_named_like_api` answers, with the rest of the name read for each occurrence."""
    found = set()
    for name in APIS:
        word = name.encode()
        at = data.find(word)
        while at >= 0:
            end = re.compile(rb"\w*(?=\s*\()").match(data, at + len(word))
            if end:
                start = re.compile(rb"[A-Za-z_]\w*$").search(data, max(0, at - 64), at)
                found.add(data[start.start() if start else at:end.end()].decode("latin-1"))
            at = data.find(word, at + len(word))
    return frozenset(found)


def test_names_like_an_api_are_found_in_time_linear_in_a_name_s_length():
    """The names holding a registration API's are those read for each occurrence where no
    name holds it twice; a name that does is read once, whole; and a name made of an API's
    name repeated costs its length (read for each occurrence: 4.6 s for 72 KB, and a name kept
    for each)."""
    api = sorted(APIS)[0].encode()
    pieces = [api, api[:4], b"wrap_", b"x", b"_", b"1", b" ", b"(", b"\t", b"\n", b";"]
    chosen = random.Random(3)
    for _ in range(5_000):
        data = b"".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 10)))
        if not any(name.count(api) > 1 for name in re.findall(rb"\w+", data)):
            assert _named_like_api(data) == _named_like_api_read_at_each(data), data
    twice = api + b"_" + api
    assert _named_like_api(b"x = " + twice + b"(p);") == {twice.decode()}
    started = time.process_time()
    assert _named_like_api(api * 100_000 + b" = 0;") == frozenset()
    assert len(_named_like_api(api * 100_000 + b" (p);")) == 1
    assert time.process_time() - started < 1.0
