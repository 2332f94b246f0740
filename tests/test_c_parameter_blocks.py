"""What callers pass a function's pointer parameter (`analysis.c_parameter_blocks`): the
summaries of caller files, and how they combine."""

from __future__ import annotations

import re
import textwrap
import time

import pytest

from cursedlint.analysis.c_parameter_blocks import (
    _MAY_BE_PAGES, ASKED, MAX_DEPTH, CallerBlocks, Given, caller_base, caller_blocks,
    member_given, passed_in, passed_on, word_blocks,
)
from cursedlint.analysis.c_parameter_index import ParameterBlockIndex
from cursedlint.c.context import CContext, parse
from cursedlint.engine.linter import Linter
from cursedlint.project.index import ProjectIndex
from cursedlint.settings import Settings
from cursedlint.source import Source


def facts(**files: str) -> dict:
    found = {}
    for name, code in files.items():
        data = textwrap.dedent(code).encode()
        context = CContext(Source.from_bytes(f"{name}.c", data, "c"),
                           Settings(enabled=frozenset()), parse(data, "c"))
        summary = caller_blocks(context)
        if summary is not None:
            found[f"{name}.c"] = summary
    return found


PAGES = "mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)"


def test_every_caller_passing_whole_pages_and_one_passing_a_small_heap_block():
    found = facts(a=f"""
        int a(void) {{ char *p = {PAGES}; return pin(p, 1); }}
        int b(void) {{ char *q = {PAGES}; return pin(q, 2); }}
        """)
    given, path, called = passed_in(found, "pin", 0)
    assert (given.kind, path, called) == ("whole", "a.c", "pin")
    found.update(facts(c="int c(void) { char *r = malloc(64); return pin(r, 3); }"))
    given, path, _ = passed_in(found, "pin", 0)
    assert (given.kind, path, given.line) == ("heap", "c.c", 1)


def test_memory_not_known_no_caller_or_a_function_used_as_a_value_is_not_known():
    whole = f"int a(void) {{ char *p = {PAGES}; return pin(p); }}"
    assert passed_in(facts(a=whole), "other", 0) is None
    assert passed_in(facts(a=whole, b="int b(char *(*get)(void)) { return pin(get()); }"),
                     "pin", 0) is None
    assert passed_in(facts(a=whole, b="struct ops o = { .pin = pin };"), "pin", 0) is None


def test_a_parameter_passed_on_is_followed_a_bounded_number_of_calls_and_not_around_a_cycle():
    chain = [f"int f0(void) {{ char *p = {PAGES}; return f1(p); }}"]
    chain += [f"int f{i}(char *p) {{ return f{i + 1}(p); }}" for i in range(1, MAX_DEPTH + 2)]
    found = facts(a="\n".join(chain))
    assert passed_in(found, f"f{MAX_DEPTH + 1}", 0)[0].kind == "whole"
    assert passed_in(found, f"f{MAX_DEPTH + 2}", 0) is None
    cycle = facts(a="int g(char *p) { return g(p); }")
    assert passed_in(cycle, "g", 0) is None


def test_a_static_functions_calls_are_its_own_files():
    found = facts(a=f"""
        static int pin(char *p);
        int a(void) {{ char *q = {PAGES}; return pin(q); }}
        """, b="static int pin(char *p); int b(void) { char *r = malloc(64); return pin(r); }")
    assert passed_in(found, "pin", 0, only="a.c")[0].kind == "whole"
    assert passed_in(found, "pin", 0, only="b.c")[0].kind == "heap"
    assert passed_in(found, "pin", 0)[0].kind == "heap"


def test_only_the_argument_asked_about_leads_to_more_files():
    """`passed_on`: of `dev_init(dom, ctx)` asked about its argument 1 (`dev_init#1`), the
    member `conn->probe` and the caller's own parameter `c` there lead further (the member's
    stores, `open_conn`'s callers); the domain, argument 0, does not, nor do the members and
    parameters given to a function not asked about. Stores into `probe`, asked, lead to
    the function given `&x->probe`."""
    found = facts(up="""\
        struct conn { void *dom; void *probe; void *other; };
        int dev_init(void *dom, void *ctx);
        int log_conn(void *c);
        int probe_alloc(void **out);
        int open_conn(struct conn *conn, void *c)
        {
            probe_alloc(&conn->probe);
            dev_init(conn->dom, conn->probe);
            log_conn(conn->other);
            return dev_init(conn->dom, c);
        }
        """)
    assert passed_on(found, {"dev_init#1"}) == {"probe", "open_conn#1"}
    assert passed_on(found, {"dev_init#1", "probe"}) == {"probe", "open_conn#1", "probe_alloc"}
    assert passed_on(found, {"log_conn"}) == set()


def test_a_member_read_directly_is_what_every_store_into_members_of_that_name_puts_there():
    from cursedlint.analysis.c_parameter_blocks import member_provenance

    found = facts(
        a="""
        int open_dev(struct dev *d, size_t n) {
            if (buf_alloc(d, sysconf(_SC_PAGESIZE), &d->zero) != 0) return -1;
            if (buf_alloc(d, 4160, &d->tail) != 0) return -1;
            if (posix_memalign(&d->ring, 4096, 2 * 4096) != 0) return -1;
            hipDeviceGetAttribute((int *)&d->hdp, hipDeviceAttributeHdpMemFlushCntl, 0);
            return cudaMalloc(&d->dev_words, n);
        }
        """,
        b="void reset(struct dev *d) { d->ring = malloc(64); }")
    sized = {"buf_alloc": (2, 1)}
    assert member_provenance(found, {}, sized, "zero").whole
    assert member_provenance(found, {}, sized, "tail") is None  # its last page is shared
    assert member_provenance(found, {}, sized, "ring") is None  # a 64-byte block in b.c
    assert member_provenance(found, {}, {}, "zero") is None  # the allocator not known
    assert member_provenance(found, {}, sized, "hdp").kind == "device"
    assert member_provenance(found, {}, sized, "dev_words").kind == "device"
    del found["b.c"]
    assert member_provenance(found, {}, sized, "ring").whole  # posix_memalign: whole pages
    assert member_provenance(found, {}, sized, "absent") is None  # no store seen


def test_a_files_getters_of_one_return_give_the_members_to_search_next():
    from cursedlint.analysis.c_parameter_blocks import getter_returns

    data = b"""
        unsigned int *flush_word() const { return flush_reg_; }
        unsigned int *flag() const noexcept { return this->flag_; }
        static void *doorbell_page(void) { return db_state.page; }
        unsigned int *none() const { return nullptr; }
        unsigned int *slot(int i) const { return slots_[i]; }
        unsigned long *counters() const { if (dev_) return d_; return h_; }
    """
    assert getter_returns(data) == {"flush_word": ["flush_reg_"], "flag": ["flag_"],
                                    "doorbell_page": ["page"]}


def test_getters_are_read_from_their_parenthesis_as_a_pattern_led_by_the_name_reads_them():
    import re

    from cursedlint.analysis.c_parameter_blocks import getter_returns

    led_by_name = re.compile(  # (the pattern before it: tried at every byte of every name)
        rb"([A-Za-z_]\w*)\s*\(\s*(?:void\s*)?\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?"
        rb"(?:final\s*)?\{\s*return\s+(?:this\s*->\s*|[A-Za-z_]\w*\s*(?:->|\.)\s*)?"
        rb"([A-Za-z_]\w*)\s*;\s*\}")
    cases = [b"9lives() { return x; }", b"a$b () {return c;}", b"}() { return d; }",
             b"12() { return e; }", b"get\n\t( void ) const final { return p -> q ; }",
             b"f() { return NULL; } g() { return h; }", b"(() { return i; }",
             b"x1_2() noexcept override { return this->m_; } y()"]
    for data in cases:
        expected: dict[str, list[str]] = {}
        for match in led_by_name.finditer(data):
            if match[2] not in (b"nullptr", b"NULL", b"0"):
                expected.setdefault(match[1].decode(), []).append(match[2].decode())
        assert getter_returns(data) == expected, data


def test_a_cast_named_in_cpp_hands_a_members_address_to_the_call():
    data = b"""
        struct Reg { void map(); unsigned int *reg_; };
        void Reg::map() {
            hipDeviceGetAttribute(reinterpret_cast<int *>(&reg_), hipDeviceAttributeHdpMemFlushCntl, 0);
        }
    """
    from cursedlint.analysis.c_parameter_blocks import member_stores

    context = CContext(Source.from_bytes("reg.cpp", data, "cpp"), Settings(enabled=frozenset()),
                       parse(data, "cpp"))
    assert [store.kind for store in member_stores(context).stores["reg_"]] == ["device"]


def test_arguments_that_may_be_pages_are_read_in_time_linear_in_their_length():
    """`_MAY_BE_PAGES` tells the same arguments as the pattern tried at every letter, and a
    long name without `(` after it costs its length (tried from each letter: its square,
    0.7 s for 8,000 letters)."""
    tried_at_every_letter = re.compile(r"\d|page|pgsz|sysconf|[A-Z_]{3,}\s*\(", re.I)
    for text in ("PAGE_ALIGN(n)", "roundup (len, 8)", "ab(x)", "abc(x)", "x->abc(y)", "n * 4096",
                 "len", "a1b(x)", "_x_(y)", "ALIGN\t(n)", "sz + hdr", "x.ab (y)", "1"):
        assert bool(_MAY_BE_PAGES.search(text)) == bool(tried_at_every_letter.search(text)), text
    started = time.process_time()
    assert _MAY_BE_PAGES.search("a" * 200_000 + " + b") is None
    assert time.process_time() - started < 0.5


# A transport whose registration wrapper takes its buffer through a parameter, and callers in
# other files: one passing whole pages, one a member's pointer, one through a static helper
# passing its own parameter on, one storing the wrapper in an ops table (a value).
TRANSPORT = {
    "wrap.c": """\
        #include <infiniband/verbs.h>
        #include <stdlib.h>
        struct region { char *buf; struct ibv_mr *mr; };
        struct ibv_mr *reg_buffer(struct ibv_pd *pd, char *buf, size_t len)
        {
            return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
        }
        void drop_buffer(char **slot) { free(*slot); *slot = NULL; }
        """,
    "ring.c": """\
        #include "pages.h"
        struct ring { char *slots; struct ibv_mr *mr; };
        static int post_slots(struct ibv_pd *pd, char *slots, size_t len)
        {
            return reg_buffer(pd, slots, len) != NULL;
        }
        int ring_init(struct ibv_pd *pd, struct ring *ring)
        {
            ring->slots = alloc_pages(2);
            if (post_slots(pd, ring->slots, 8192))
                return 0;
            return reg_buffer /* retried */ (pd, ring->slots, 8192) != NULL;
        }
        """,
    "pool.c": """\
        #include <stdlib.h>
        struct pool { char *buf; char *spare; };
        int pool_grow(struct ibv_pd *pd, struct pool *pool, size_t len)
        {
            pool->buf = malloc(len);
            pool->spare = malloc(len);
            drop_buffer(&pool->spare);
            return reg_buffer(pd, pool->buf, len) != NULL;
        }
        """,
    "table.c": """\
        struct reg_ops { struct ibv_mr *(*reg)(struct ibv_pd *, char *, size_t); };
        static const struct reg_ops verbs_ops = { .reg = reg_buffer };
        int have_ops(void) { return verbs_ops.reg != 0; }
        """,
}


def _project(tmp_path) -> list[tuple[str, str]]:
    for name, code in TRANSPORT.items():
        (tmp_path / name).write_text(textwrap.dedent(code))
    return [(str(tmp_path / name), "c") for name in sorted(TRANSPORT)]


def test_a_files_pieces_are_what_its_whole_summary_gives_the_names_asked():
    """`word_blocks` of a name (with `caller_base`) holds what `caller_blocks` holds for it:
    its calls found as a search of the file finds them (not the one with a comment before its
    `(`), the calls of the static helper its caller passes on, its uses as a value, the
    stores into a member of that name and a function's clears."""
    for name, code in TRANSPORT.items():
        data = textwrap.dedent(code).encode()
        context = CContext(Source.from_bytes(name, data, "c"), Settings(enabled=frozenset()),
                           parse(data, "c"))
        whole = caller_blocks(context)
        assert caller_base(context) is not None and whole is not None
        for asked in ("reg_buffer", "post_slots", "slots", "buf", "spare", "drop_buffer",
                      "ring_init", "free", "absent"):
            piece = word_blocks(context, frozenset((asked,)))
            piece = piece or CallerBlocks()
            assert piece.calls.get(asked) == whole.calls.get(asked), (name, asked)
            assert (asked in piece.values) == (asked in whole.values), (name, asked)
            assert piece.stores.get(asked) == whole.stores.get(asked), (name, asked)
            assert piece.clears.get(asked) == whole.clears.get(asked), (name, asked)
            for function in piece.calls:  # (the static helpers its calls pass on)
                assert piece.calls[function] == whole.calls[function]
    ring = TRANSPORT["ring.c"]
    data = textwrap.dedent(ring).encode()
    context = CContext(Source.from_bytes("ring.c", data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    assert len(word_blocks(context, frozenset(("reg_buffer",))).calls["reg_buffer"]) == 1
    assert "post_slots" in word_blocks(context, frozenset(("post_slots",))).calls


class _WholeSummaries(ParameterBlockIndex):
    """The index as it was: each file's whole `caller_blocks`, gathered by `facts`' rounds."""

    per_word = False

    def summarize(self, context):
        return caller_blocks(context)


@pytest.mark.parametrize("max_files", [None, 1, 2, 3], ids=["unbounded", "1", "2", "3"])
def test_the_facts_gathered_word_by_word_answer_every_question_as_whole_summaries_do(
        tmp_path, max_files):
    """Gathered per word, within the bounds or stopped by them, the facts give every question
    the lint asks of them (`passed_in`, its members through `member_given`, `affects`) the
    answer the files' whole summaries give, while reading the same files."""
    files = _project(tmp_path)
    settings = Settings(enabled=frozenset())
    gathered, passes = [], []
    for indexer in (ParameterBlockIndex(), _WholeSummaries()):
        indexer.max_files = max_files
        index = ProjectIndex(files, settings, Linter(settings, {}).parse_for_index)
        gathered.append(index.facts(indexer, {f"reg_buffer{ASKED}1"}))
        passes.append(index.passes)
    by_word, whole = gathered
    assert list(by_word) == list(whole) and passes[0] == passes[1]  # (-v tells the same)
    if max_files is not None:
        assert len(by_word) == max_files
    pages = {"alloc_pages": -1}  # (the project's allocator of whole pages: its result)
    for function in ("reg_buffer", "post_slots", "ring_init", "pool_grow", "drop_buffer"):
        for position in range(3):
            for only in (None, *by_word):
                assert passed_in(by_word, function, position, only, allocators=pages) == \
                    passed_in(whole, function, position, only, allocators=pages)
    for field in ("slots", "buf", "spare"):
        assert member_given(by_word, Given("field", field=field), pages) == \
            member_given(whole, Given("field", field=field), pages)
    ring = str(tmp_path / "ring.c")
    if ring in by_word:  # (the static helper's caller hands it a member of whole pages)
        assert passed_in(by_word, "post_slots", 1, ring, allocators=pages)[0].kind == "whole"
    assert ParameterBlockIndex().affects(by_word, "", ["reg_buffer"]) == \
        ParameterBlockIndex().affects(whole, "", ["reg_buffer"])


def test_the_pieces_kept_in_the_store_give_a_later_run_the_same_facts_unparsed(tmp_path):
    """Each piece is kept by content and word: a later run's index reads them all from the
    store (no file parsed again) and merges the same facts."""
    from cursedlint.project.index import IndexStore

    files = _project(tmp_path)
    settings = Settings(enabled=frozenset())
    directory = str(tmp_path / ".cursedlint_cache")
    gathered = []
    for _ in range(2):
        store = IndexStore(directory, "p" * 64)
        index = ProjectIndex(files, settings, Linter(settings, {}).parse_for_index, store)
        gathered.append((index.facts(ParameterBlockIndex(), {f"reg_buffer{ASKED}1"}),
                         index.summarized))
        store.save()
    (cold, parsed), (warm, again) = gathered
    assert warm == cold and parsed > 0 and again == 0
