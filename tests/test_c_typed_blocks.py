"""How a C/C++ project makes the objects of a type (`analysis.c_typed_blocks`): each file's
summary, and the types joined to one (aliases, casts, holders) whose objects all count."""

from __future__ import annotations

import random
import re
import textwrap
import time

from cursedlint.analysis.c_typed_blocks import (
    _ALLOCATING_BYTES, joined, type_creations, typed_provenance,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def facts(**files: str) -> dict:
    found = {}
    for name, code in files.items():
        data = textwrap.dedent(code).encode()
        language = "cpp" if name.endswith("_cc") else "c"
        context = CContext(Source.from_bytes(f"{name}.{language}", data, language),
                           Settings(enabled=frozenset()), parse(data, language))
        summary = type_creations(context)
        if summary is not None:
            found[name] = summary
    return found


HEADER = """\
    struct base { int kind; };
    struct conn { struct base b; int flag; };
    struct other { void *owner; struct base *up; };
    typedef struct conn conn_t;
    """


def test_allocations_objects_and_views_of_a_type():
    found = facts(h=HEADER, a="""\
        int open_conn(void **out) {
            struct conn *c = NULL;
            if (page_alloc((void **)&c, sizeof(*c)))
                return -1;
            *out = c;
            return 0;
        }
        struct conn *dup_conn(void) { return calloc(1, sizeof(struct conn)); }
        void view(void *h, struct base *b, struct other *o) {
            struct conn *c = (struct conn *)h;          /* a view of what it is handed */
            struct conn *d = (struct conn *)b;          /* the base's objects may be one */
            struct conn *e = (struct conn *)o->owner;   /* a void * member: a view */
            struct conn *f = (struct conn *)o->up;      /* a pointer member's type */
            conn_t spare;                               /* an object of its own */
            memset(&spare, 0, sizeof(struct conn));     /* no allocation */
        }
        """)
    assert found["a"].made == {"conn": ["page_alloc", "calloc"], "conn_t": [""]}
    assert found["a"].joins == {"conn": ["base"]}
    assert found["a"].fields == {"conn": ["owner", "up"]}
    assert found["h"].within == {"base": ["conn"]}
    assert found["h"].members == {"owner": ["void"], "up": ["base"]}
    assert found["h"].aliases == {"conn_t": "conn"}
    assert joined(found, "conn") == {"conn", "conn_t", "base"}


def test_whole_pages_only_where_every_object_of_the_joined_types_is():
    pages = {"page_alloc": 0}
    whole = facts(h=HEADER, a="""\
        int open_conn(void **out) {
            struct conn *c = NULL;
            if (page_alloc((void **)&c, sizeof(struct conn)))
                return -1;
            *out = c;
            return 0;
        }
        """)
    found = typed_provenance(whole, "conn", pages)
    assert found is not None and found.whole and found.kind == "page-aligned"
    assert typed_provenance(whole, "conn", {}) is None  # an allocator not known to give pages
    assert typed_provenance(whole, "other", pages) is None  # made nowhere in view
    stack = facts(h=HEADER, a="""\
        int open_conn(void **out) {
            struct conn *c = NULL;
            return page_alloc((void **)&c, sizeof(struct conn));
        }
        void probe(void) { struct base b = {0}; use((struct conn *)&b); }
        """)
    assert typed_provenance(stack, "conn", pages) is None  # `&b` is carved from a stack object
    cast = facts(h=HEADER, a="""\
        struct conn *c1(void **out) { return page_alloc(out, sizeof(struct conn)) ? 0 : *out; }
        void from(struct mystery *m) { use((struct conn *)m->slot); }
        """)
    assert typed_provenance(cast, "conn", pages) is None  # a member declared nowhere in view


def test_cpp_objects_new_containers_and_bases():
    found = facts(x_cc="""\
        struct Window { long doorbell; };
        struct Framed : public Window { int extra; };
        std::vector<Window> windows;
        Window *make() { return new Window; }
        std::unique_ptr<Window> keep;
        """)
    assert found["x_cc"].made == {"Window": [""]}
    assert found["x_cc"].within == {"Window": ["Framed"]}


def test_byte_buffers_are_carved_and_void_handles_viewed():
    found = facts(h=HEADER, a="""\
        void carve(char *pool, void *handle, unsigned char *raw) {
            struct conn *a = (struct conn *)(pool + 64);   /* arithmetic: no known origin */
            struct conn *b = (struct conn *)raw;           /* bytes: no known origin */
            struct conn *c = (struct conn *)handle;        /* a view of what it is handed */
            void *v = (void *)a;                            /* no object of a struct */
            char *p = (char *)b;
        }
        """)
    assert found["a"].made == {"conn": [""]}
    assert "void" not in found["a"].joins and "char" not in found["a"].joins


def test_allocating_calls_are_found_in_time_linear_in_a_name_s_length():
    """`_ALLOCATING_BYTES` finds the calls the pattern reading the rest of a name from every
    occurrence of its words finds, in a name made of those words in time linear in its
    length (read from each occurrence: 1.9 s for 40,000 bytes)."""
    from_every_word = re.compile(rb"(?:[Aa]lloc|ALLOC|memalign|mmap)\w*\s*\(")
    pieces = [b"alloc", b"Alloc", b"ALLOC", b"memalign", b"mmap", b"mma", b"allo", b"x", b"_",
              b"1", b" ", b"(", b"\n", b".", b"k"]
    chosen = random.Random(7)
    for _ in range(20_000):
        text = b"".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 8)))
        start = chosen.randint(0, len(text))
        end = chosen.randint(start, len(text))
        assert bool(_ALLOCATING_BYTES.search(text, start, end)) == \
            bool(from_every_word.search(text, start, end)), (text, start, end)
    started = time.process_time()
    assert _ALLOCATING_BYTES.search(b"alloc" * 200_000 + b" + n") is None
    assert time.process_time() - started < 0.5
