"""CUR301/CUR302 for a pointer declared at file scope (`static`, extern, thread-local) that a
function stores an allocation into and then registers: the stored block is its value where
nothing in between may change it (`c_constants.file_scope`); a store in a function called in
between, its address taken, another function's store or whole pages leave it silent."""

from __future__ import annotations
import pytest

from cursedlint.rules.rdma_registration import (
    SharedPageRdmaRegistration,
    SubPageRdmaRegistration,
)

import harness

RULES = {rule.code: rule for rule in (SubPageRdmaRegistration, SharedPageRdmaRegistration)}


def found(code: str, path: str = "ring.c") -> list[tuple[int, str]]:
    return sorted((finding.line, finding.code)
                  for finding in harness.lint(code, rules=RULES, path=path))


RING = """
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

{declaration}
static struct ibv_mr *ring_mr;

{helpers}

int setup_ring(struct ibv_pd *pd)
{{
    ring = {allocation};
    if (!ring) {{
        fprintf(stderr, "no ring\\n");
        return -1;
    }}
    memset(ring, 0, {size});
    {between}
    ring_mr = ibv_reg_mr(pd, ring, {size}, IBV_ACCESS_LOCAL_WRITE);
    return ring_mr ? 0 : -1;
}}
"""
REGISTRATION = 20


def ring(declaration: str = "static char *ring;", helpers: str = "", between: str = "",
         allocation: str = "malloc(4096)", size: int = 4096) -> str:
    return RING.format(declaration=declaration, helpers=helpers, between=between,
                       allocation=allocation, size=size)


@pytest.mark.parametrize("declaration", [
    "static char *ring;",
    "static char *ring = NULL;",
    "static __thread char *ring;",
    "char *ring;",  # (extern: only C library calls in between)
])
def test_a_heap_block_stored_into_a_file_scope_pointer_then_registered_is_reported(declaration):
    assert found(ring(declaration)) == [(REGISTRATION, "CUR302")]


def test_a_sub_page_block_is_reported_by_cur301():
    assert found(ring(allocation="malloc(64)", size=64)) == [(REGISTRATION, "CUR301")]


def test_a_cpp_thread_local_pointer_is_reported():
    code = """
        #include <cstdlib>
        #include <infiniband/verbs.h>

        static thread_local uint8_t *scratch;

        ibv_mr *register_scratch(ibv_pd *pd)
        {
            scratch = static_cast<uint8_t *>(malloc(8192));
            return ibv_reg_mr(pd, scratch, 8192, IBV_ACCESS_LOCAL_WRITE);
        }
    """
    assert found(code, path="scratch.cpp") == [(10, "CUR302")]


def test_a_static_pointer_outlives_calls_of_other_files_functions():
    code = ring(between="log_event(\"ring ready\");")
    assert found(code) == [(REGISTRATION, "CUR302")]


def test_a_function_that_only_reads_it_does_not_change_it():
    helpers = "static void show_ring(void) { printf(\"%p\\n\", (void *)ring); }"
    assert found(ring(helpers=helpers, between="show_ring();")) == [(REGISTRATION, "CUR302")]


# -- clean look-alikes -----------------------------------------------------------------------------

SWAP = """
static char spare[4096] __attribute__((aligned(4096)));
static void swap_ring(void) { ring = spare; }
static void reset_rings(void) { swap_ring(); }
"""


@pytest.mark.parametrize("between", ["swap_ring();", "reset_rings();"])
def test_a_store_in_a_function_called_in_between_is_silent(between):
    assert found(ring(helpers=SWAP, between=between)) == []


def test_an_extern_pointer_past_another_files_function_is_silent():
    assert found(ring("char *ring;", between="log_event(\"ring ready\");")) == []


def test_an_extern_pointer_past_an_assertion_on_it_is_reported():
    assert found(ring("char *ring;", between="assert(ring != NULL);")) == [
        (REGISTRATION, "CUR302")]


def test_an_extern_pointer_past_an_assertion_calling_another_files_function_is_silent():
    assert found(ring("char *ring;", between="assert(check_ring(ring));")) == []


def test_a_static_pointer_whose_writer_is_a_callback_is_silent_past_unknown_calls():
    helpers = """
        static void on_close(void *arg) { ring = NULL; }
        void install(struct loop *loop) { loop_on_close(loop, on_close); }
    """
    assert found(ring(helpers=helpers, between="loop_poll(NULL);")) == []


def test_its_address_taken_anywhere_is_silent():
    helpers = "void grow_ring(size_t n) { realloc_into((void **)&ring, n); }"
    assert found(ring(helpers=helpers)) == []


@pytest.mark.parametrize("allocation", ["aligned_alloc(4096, 8192)", "valloc(8192)"])
def test_whole_pages_stored_into_it_are_silent(allocation):
    assert found(ring(allocation=allocation, size=8192)) == []


def test_posix_memalign_into_it_is_silent():
    code = """
        #include <stdlib.h>
        #include <infiniband/verbs.h>

        static void *ring;

        struct ibv_mr *setup_ring(struct ibv_pd *pd)
        {
            if (posix_memalign(&ring, 4096, 8192))
                return NULL;
            return ibv_reg_mr(pd, ring, 8192, IBV_ACCESS_LOCAL_WRITE);
        }
    """
    assert found(code) == []


def test_a_registration_in_another_function_than_the_store_is_silent():
    code = """
        #include <stdlib.h>
        #include <infiniband/verbs.h>

        static char *ring;

        int alloc_ring(void)
        {
            ring = malloc(4096);
            return ring ? 0 : -1;
        }

        struct ibv_mr *register_ring(struct ibv_pd *pd)
        {
            return ibv_reg_mr(pd, ring, 4096, IBV_ACCESS_LOCAL_WRITE);
        }
    """
    assert found(code) == []


def test_a_local_of_the_same_name_is_its_own_variable():
    code = """
        #include <stdlib.h>
        #include <infiniband/verbs.h>

        static char *ring;

        struct ibv_mr *register_ring(struct ibv_pd *pd, char *given)
        {
            ring = malloc(4096);
            {
                char *ring = given;
                return ibv_reg_mr(pd, ring, 4096, IBV_ACCESS_LOCAL_WRITE);
            }
        }
    """
    assert found(code) == []


LOOP = """
    #include <cstdlib>
    #include <infiniband/verbs.h>

    static char *ring;
    {helpers}
    ibv_mr *setup_ring(ibv_pd *pd)
    {{
        ring = static_cast<char *>(malloc(4096));
        loop_poll();
        return ibv_reg_mr(pd, ring, 4096, IBV_ACCESS_LOCAL_WRITE);
    }}
"""


def test_a_cpp_static_pointer_outlives_calls_of_other_files_functions():
    assert found(LOOP.format(helpers=""), path="ring.cpp") == [(11, "CUR302")]


def test_a_lambda_writing_it_may_run_in_any_call():
    helpers = "void install(Loop &loop) { loop.on_close([] { ring = nullptr; }); }"
    assert found(LOOP.format(helpers=helpers), path="ring.cpp") == []
