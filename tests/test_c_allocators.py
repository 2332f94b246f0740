"""Allocators of whole pages across files (cursedlint/analysis/c_allocators.py) and the rounding
macros and page sizes they are read with (cursedlint/analysis/c_memory.py): alignment and size
are separate facts, so a page-aligned block whose size is not rounded up is no such allocator."""

from __future__ import annotations

import random
import re
import textwrap

from cursedlint.analysis.c_allocators import (
    PageAllocators, page_allocators, project_allocators,
)
from cursedlint.analysis.c_memory import _normal, rounding_macros
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def summary(code: str, language: str = "c") -> PageAllocators | None:
    data = textwrap.dedent(code).encode()
    context = CContext(Source.from_bytes(f"a.{language}", data, language),
                       Settings(enabled=frozenset()), parse(data, language))
    return page_allocators(context)


def test_rounding_macros_by_their_bodies():
    found = rounding_macros(textwrap.dedent("""\
        #define DIV_UP(n, d) (((n) + (d) - 1) / (d))
        #define ROUND(n, d) (DIV_UP((n), (d)) * (d))
        #define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((a) - 1))
        #define UP_TO(a, x) \\
            ((a) * (((x) + (a) - 1) / (a)))
        #define PAD(size, align) size = ((size + (align) - 1) / (align)) * (align)
        #define MAXIMUM(a, b) ((a) > (b) ? (a) : (b))
        #define DOWN(x, a) ((x) & ~((a) - 1))
        #define HALF_UP(n, d) (((n) + (d) - 1) / (d) * (n))
        """).encode())
    assert found == {"ROUND": (0, 1, False), "ALIGN_UP": (0, 1, False), "UP_TO": (1, 0, False),
                     "PAD": (0, 1, True)}


def test_an_allocator_rounding_with_a_macro_of_another_file():
    found = summary("""\
        #include <stdlib.h>
        #include <unistd.h>
        static inline int take_pages_impl(void **out, size_t bytes, int line)
        {
            void *block = NULL;
            size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
            size_t rounded = ROUND(bytes, page_size);
            if (posix_memalign(&block, page_size, rounded) != 0)
                return -1;
            *out = block;
            return 0;
        }
        #define take_pages(...) take_pages_impl(__VA_ARGS__, __LINE__)
        static inline void *map_pages(size_t bytes)
        {
            void *block = mmap(NULL, bytes, 3, 0x22, -1, 0);
            if (block == (void *)-1)
                return NULL;
            return block;
        }
        int take_aligned(void **out, size_t bytes)
        {
            void *block;
            if (posix_memalign(&block, getpagesize(), bytes) != 0)
                return -1;
            *out = block;
            return 0;
        }
        int take_small(void **out, size_t bytes)
        {
            void *block;
            if (posix_memalign(&block, 64, (bytes + 63) & ~63) != 0)
                return -1;
            *out = block;
            return 0;
        }
        """)
    assert found.allocators == {"take_pages_impl": (0, (("ROUND", 0, 1, False),)),
                                "map_pages": (-1, ())}
    assert found.aliases == {"take_pages": "take_pages_impl"}
    bits = PageAllocators(rounding={"ROUND": (0, 1, False)})
    assert project_allocators({"a.h": found, "bits.h": bits})[0] == {
        "take_pages_impl": 0, "map_pages": -1, "take_pages": 0}
    # without the macro's definition, or with one that does not round, only the map is kept
    assert project_allocators({"a.h": found})[0] == {"map_pages": -1}
    other = PageAllocators(rounding={"ROUND": (0, 1, True)})
    assert project_allocators({"a.h": found, "bits.h": other})[0] == {"map_pages": -1}


def test_arithmetic_rounding_and_a_size_padded_in_place():
    found = summary("""\
        #define PAD(size, align) size = ((size + (align) - 1) / (align)) * (align)
        void *ring_alloc(size_t bytes)
        {
            long pagesz = sysconf(_SC_PAGE_SIZE);
            void *ring;
            if (posix_memalign(&ring, pagesz, (bytes + pagesz - 1) & ~(pagesz - 1)))
                return NULL;
            return ring;
        }
        void *slab_alloc(size_t bytes)
        {
            void *slab = NULL;
            PAD(bytes, 4096);
            if (posix_memalign(&slab, 4096, bytes))
                return NULL;
            return slab;
        }
        void *slab_alloc_late(size_t bytes)
        {
            void *slab = NULL;
            if (posix_memalign(&slab, 4096, bytes))
                return NULL;
            PAD(bytes, 4096);
            return slab;
        }
        """)
    assert found.allocators == {"ring_alloc": (-1, ()), "slab_alloc": (-1, ())}


def test_a_block_from_malloc_on_one_path_is_no_allocator():
    assert summary("""\
        void *buffer_alloc(size_t bytes, int pinned)
        {
            void *p = NULL;
            if (pinned)
                p = mmap(NULL, bytes, 3, 0x22, -1, 0);
            else
                p = malloc(bytes);
            return p;
        }
        """) is None


def test_the_index_words_are_the_allocators_the_provenance_reads():
    from cursedlint.analysis import c_allocators, c_memory

    assert c_allocators.PAGE_ALLOCATOR_NAMES == c_memory.PAGE_ALLOCATOR_NAMES


def test_a_function_handing_its_parameter_to_an_allocator_as_void_pointer_pointer_is_one():
    """`chains`: `ctx_alloc` hands `out` as `(void **)out` to `page_zalloc` (whole pages, in
    another file, through a macro): an allocator storing through its parameter 1; one that also
    stores through it itself, or hands it to two calls, is no chain; `list_alloc` hands it to
    `malloc_into`, no allocator: no chain resolved."""
    pages = summary("""\
        #include <stdlib.h>
        #define page_zalloc(...) page_zalloc_at(__VA_ARGS__, __LINE__)
        int page_zalloc_at(void **ptr, size_t n, int line) {
            long pg = sysconf(_SC_PAGE_SIZE);
            void *p = NULL;
            if (posix_memalign(&p, pg, (n + pg - 1) & ~(pg - 1))) return -1;
            *ptr = p;
            return 0;
        }
        """)
    chained = summary("""\
        struct ctx;
        int ctx_alloc(int kind, struct ctx **out) {
            if (kind < 0) {
                *out = NULL;
                return 0;
            }
            return page_zalloc((void **)out, kind ? 64 : 128);
        }
        int ctx_twice(struct ctx **out) {
            page_zalloc((void **)out, 64);
            return page_zalloc((void **) out, 64);
        }
        int ctx_reset(struct ctx **out) {
            static struct ctx *spare;
            int rc = page_zalloc((void **)out, 64);
            if (rc) *out = spare;
            return rc;
        }
        int list_alloc(struct ctx **out) { return malloc_into((void **)out, 64); }
        """)
    assert chained.chains == {"ctx_alloc": (1, "page_zalloc", 0),
                              "list_alloc": (0, "malloc_into", 0)}
    allocators = project_allocators({"/p/pages.c": pages, "/p/ctx.c": chained})[0]
    assert allocators["ctx_alloc"] == 1 and "list_alloc" not in allocators
    assert "ctx_alloc" not in project_allocators({"/p/ctx.c": chained})[0]


def test_a_page_aligned_block_of_the_callers_size_through_a_named_wrapper():
    found = summary("""\
        static inline int dev_buf_alloc(struct dev *d, size_t size, void **buf_p)
        {
            void *buf;
            if (xt_posix_memalign(&buf, sysconf(_SC_PAGESIZE), size, "dev buf"))
                return -1;
            *buf_p = buf;
            return 0;
        }
        int small_alloc(size_t size, void **out)
        {
            void *p;
            if (xt_posix_memalign(&p, 64, size, "small"))
                return -1;
            *out = p;
            return 0;
        }
        int halved_alloc(size_t size, void **out)
        {
            void *p;
            size = size / 2;
            if (posix_memalign(&p, 4096, size))
                return -1;
            *out = p;
            return 0;
        }
        """)
    # alignment and size are separate facts: page-aligned, whole pages only where the caller's
    # size is; a 64-byte alignment or a size the function changes is no such allocator
    assert found.sized == {"dev_buf_alloc": (2, 1)}
    assert found.allocators == {}


def test_the_first_round_finds_what_one_pattern_of_both_searches_found():
    """The first round's search for a macro standing for a C library allocator or a call of a
    wrapper named after `posix_memalign` (two searches) finds what one pattern of both found."""
    import re

    from cursedlint.analysis import c_allocators

    both = re.compile(rb"#[ \t]*define[ \t]+\w+\([^()\n]*\)[ \t]*(?:" + b"|".join(
        name.encode() for name in c_allocators.LIBRARY_ALLOCATOR_NAMES) + rb")\(|"
        rb"\w_posix_memalign\s*\(")
    for data in (b"", b"#define xx_malloc(s) malloc(s)\n", b"# define A(s, t)\tcalloc(s, t)",
                 b"#define A(s) B(s)\nmalloc(s)", b"x = my_posix_memalign (&p, 64, n);",
                 b"_posix_memalign(&p, 64, n);", b"$_posix_memalign(", b"a_posix_memalign\n\t(",
                 b"a_posix_memalign x(", b"p = posix_memalign(&p, 64, n);"):
        found = c_allocators._LIBRARY_ALIAS.search(data)
        assert (found is not None) == (both.search(data) is not None), data


def test_parentheses_around_a_word_are_dropped_in_one_pass_as_rounds_of_a_regex_would():
    """`_normal` gives what repeated `\\((\\w+)\\)` -> `\\1` rounds gave (each round a pass over
    the text: deep nesting cost its square), on random text of the characters that matter."""
    def by_rounds(text: str) -> str:
        text = re.sub(r"\\\r?\n|\s+", "", text).rstrip(";")
        while (shorter := re.sub(r"\((\w+)\)", r"\1", text)) != text:
            text = shorter
        return text

    pieces = ["(", ")", "a", "b", "_", "1", "+", "-", "*", "/", "&", "~", ".", ">", "é", ",",
              " ", "\\\n", ";"]
    chosen = random.Random(29)
    for _ in range(20_000):
        text = "".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 16)))
        assert _normal(text) == by_rounds(text), text
    assert _normal("(" * 50_000 + "n" + ")" * 50_000 + " + a") == "n+a"
