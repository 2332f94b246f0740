"""The byte searches the prefilter and the project index share (`triggers.byte_search`)."""

from __future__ import annotations

import re

import pytest

from cursedlint.analysis.c_allocators import PAGE_ALLOCATOR_NAMES, PAGE_ALLOCATORS
from cursedlint.project.index import Indexer
from cursedlint.settings import Settings
from cursedlint.triggers.byte_search import WholeWords

NAMES = [b"mmap", b"mmap64", b"valloc", b"pvalloc", b"aligned_alloc"]


@pytest.mark.parametrize("data, found", [
    (b"p = mmap(0, n, prot, flags, -1, 0);", True),
    (b"p = mmap64(0, n);", True),
    (b"p = my_mmap(0, n);", False),  # inside a longer name
    (b"p = mmap64x(0, n);", False),
    (b"q = pvalloc(n);", True),
    (b"q = xvalloc(n); r = valloc(n);", True),  # a whole one after one that is not
    (b"q = xvalloc(n);", False),
    (b"mmap", True),
    (b"_mmap", False),
    (b"", False),
])
def test_whole_words_as_an_identifier_pattern_finds_them(data, found):
    pattern = re.compile(b"|".join(rb"(?<![A-Za-z0-9_])" + re.escape(name) + rb"(?![A-Za-z0-9_])"
                                   for name in NAMES))
    assert (WholeWords(NAMES).search(data) is not None) is found
    assert (pattern.search(data) is not None) is found


def test_whole_words_or_another_pattern():
    search = WholeWords([b"valloc"], re.compile(rb"#define \w+\(n\) malloc\("))
    assert search.search(b"#define ALLOC(n) malloc(n)\n") is not None
    assert search.search(b"#define ALLOC(n) calloc(n, 1)\n") is None
    assert search.search(b"p = valloc(n);") == (4, 10)


def test_page_allocators_first_round_as_the_default_pattern_and_alias_macros():
    """The first round's search finds what the whole-word pattern of the names, or a macro
    standing for a C allocator, finds."""
    pattern = PAGE_ALLOCATORS.pattern(PAGE_ALLOCATORS.words(Settings(enabled=frozenset())), True)
    default = Indexer.pattern(PAGE_ALLOCATORS, PAGE_ALLOCATOR_NAMES, True)
    for data, found in [
        (b"void *p; posix_memalign(&p, 4096, n);", True),
        (b"buf = cudaHostAlloc(&p, n, 0);", True),
        (b"void *p = malloc(n);", False),
        (b"#define XALLOC(n) malloc(n)\n", True),
        (b"#define XALLOC(n) my_malloc(n)\n", False),
        (b"int memalign_count;", False),
    ]:
        assert (pattern.search(data) is not None) is found, data
        assert PAGE_ALLOCATORS.holds_words(data, Settings(enabled=frozenset())) is found, data
        assert (default.search(data) is not None) is (found and b"define" not in data), data



def test_files_named_by_the_facts_hold_a_name_whole(tmp_path):
    from cursedlint.engine.facts_run import names_any

    path = tmp_path / "use.c"
    path.write_text("int rc = my_reg_buf(pd, p, n); /* reg_buf_all */\n")
    assert not names_any(str(path), ["reg_buf"])
    assert names_any(str(path), ["reg_buf", "my_reg_buf"])
    assert names_any(str(path), ["rc"])
    assert not names_any(str(path), [])
    assert not names_any(str(tmp_path / "missing.c"), ["rc"])
