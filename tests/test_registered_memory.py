"""CUR301/CUR302 over the shared memory-provenance analysis: device memory, page-aligned
allocations, registrations a test asserts to fail, and iovecs shared by two registrations;
each shape with a host look-alike that stays reported."""

from __future__ import annotations

import textwrap
from functools import partial

import pytest

from cursedlint.engine import Linter
from cursedlint.rules.rdma_registration import (
    SharedPageRdmaRegistration,
    SubPageRdmaRegistration,
)
from cursedlint.settings import Settings

import harness
from harness import lint_project

RULES = {rule.code: rule for rule in (SubPageRdmaRegistration, SharedPageRdmaRegistration)}


findings = partial(harness.lint, rules=RULES, path="mr_test.c")


def found(code: str, **kwargs) -> list[tuple[int, str]]:
    return sorted((finding.line, finding.code) for finding in findings(code, **kwargs))


# -- device memory -------------------------------------------------------------------------------

DEVICE_BUFFER = """
#include <rdma/fi_domain.h>

int register_staging(struct fid_domain *domain, struct fid_mr **mr)
{{
    void *buf;
    size_t len = 1024;
    {allocation};
    return fi_mr_reg(domain, buf, len, FI_READ | FI_WRITE, 0, 0, 0, mr, NULL);
}}
"""


@pytest.mark.parametrize("allocation", [
    "cudaMalloc(&buf, len)",
    "cuMemAlloc((CUdeviceptr *)&buf, len)",
    "hipMalloc(&buf, len)",
    "hsa_memory_allocate(gpu_region, len, &buf)",
    "ofi_cudaMalloc(&buf, len)",
])
def test_device_memory_is_silent(allocation):
    assert found(DEVICE_BUFFER.format(allocation=allocation)) == []


@pytest.mark.parametrize("allocation", ["buf = malloc(len)", "cudaMallocManaged(&buf, len, 1)"])
def test_host_or_unknown_allocation_with_a_sub_page_length_is_reported(allocation):
    assert found(DEVICE_BUFFER.format(allocation=allocation)) == [(9, "CUR301")]


ATTR_REGISTRATION = """
#include <sys/uio.h>
#include <rdma/fi_domain.h>

int register_region(struct fid_domain *domain, void *buf, enum fi_hmem_iface iface,
                    struct fid_mr **mr)
{{
    struct iovec iov = {{ .iov_base = buf, .iov_len = 64 }};
    struct fi_mr_attr attr = {{ .mr_iov = &iov, .iov_count = 1, .access = FI_SEND }};

    attr.iface = {iface};
    return fi_mr_regattr(domain, &attr, 0, mr);
}}
"""


@pytest.mark.parametrize("iface, reported", [
    ("FI_HMEM_CUDA", []),
    ("FI_HMEM_ROCR", []),
    ("FI_HMEM_ZE", []),
    ("FI_HMEM_NEURON", []),
    ("FI_HMEM_SYNAPSEAI", []),
    ("iface", []),  # the caller decides: may be device memory
    ("FI_HMEM_SYSTEM", [(12, "CUR301")]),
])
def test_attr_iface_decides_whether_a_length_is_host_pages(iface, reported):
    assert found(ATTR_REGISTRATION.format(iface=iface)) == reported


def test_attr_without_iface_is_system_memory():
    code = ATTR_REGISTRATION.format(iface="FI_HMEM_SYSTEM").replace(
        "    attr.iface = FI_HMEM_SYSTEM;\n", "")
    assert found(code) == [(11, "CUR301")]


# -- page-aligned allocations -----------------------------------------------------------------------

PAGE_BUFFER = """
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/fi_domain.h>

int register_doorbell(struct fid_domain *domain, struct fid_mr **mr)
{{
    long page_size = sysconf(_SC_PAGESIZE);
    char *buf;
    {allocation};
    return fi_mr_reg(domain, {address}, 257, FI_REMOTE_WRITE, 0, 0, 0, mr, NULL);
}}
"""


@pytest.mark.parametrize("allocation, address, reported", [
    ("buf = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)",
     "buf", []),
    ("posix_memalign((void **)&buf, 4096, 4096)", "buf", []),
    ("buf = aligned_alloc(4096, 8192)", "&buf[0]", []),
    # past the start: the page rounded out also holds the allocation's other bytes
    ("buf = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)",
     "buf + 64", [(12, "CUR301")]),
    ("buf = malloc(4096)", "buf", [(12, "CUR301")]),
])
def test_a_range_starting_a_page_aligned_allocation_is_silent(allocation, address, reported):
    assert found(PAGE_BUFFER.format(allocation=allocation, address=address)) == reported


# -- registrations a test asserts to fail -------------------------------------------------------------

FAILING = """
#include <rdma/fi_domain.h>
#include <infiniband/verbs.h>

void test_registration(struct fid_domain *domain, struct ibv_pd *pd)
{{
    char buf[256];
    struct fid_mr *mr;
    struct ibv_mr *vmr;
    int ret;

    {statements}
}}
"""


@pytest.mark.parametrize("statements", [
    # cmocka
    "ret = fi_mr_reg(domain, buf, sizeof(buf), 0xdead, 0, 0, 0, &mr, NULL);\n"
    "    assert_int_equal(ret, -FI_EINVAL);",
    # Criterion
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 7, 0, &mr, NULL);\n"
    "    cr_assert(ret == -FI_ENOKEY, \"duplicate key accepted\");",
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 7, 0, &mr, NULL);\n"
    "    cr_assert_eq(-FI_ENOKEY, ret);",
    # the call inside the assertion
    "assert_int_equal(fi_mr_reg(domain, buf, sizeof(buf), 0, 0, 0, 0, &mr, NULL), -FI_EINVAL);",
    # a pointer result asserted NULL
    "vmr = ibv_reg_mr(pd, buf, sizeof(buf), -1);\n    assert(!vmr);",
    "vmr = ibv_reg_mr(pd, buf, sizeof(buf), -1);\n    assert_null(vmr);",
    "vmr = ibv_reg_mr(pd, buf, sizeof(buf), -1);\n    CU_ASSERT_PTR_NULL(vmr);",
    # a statement that does not use the result may come between
    "ret = fi_mr_reg(domain, buf, sizeof(buf), 0xdead, 0, 0, 0, &mr, NULL);\n"
    "    mr = NULL;\n    assert_int_equal(ret, -FI_EINVAL);",
])
def test_registration_asserted_to_fail_is_not_a_registration(statements):
    assert found(FAILING.format(statements=statements)) == []


@pytest.mark.parametrize("statements", [
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 0, 0, &mr, NULL);\n"
    "    cr_assert(ret == FI_SUCCESS);",
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 0, 0, &mr, NULL);\n"
    "    assert_int_not_equal(ret, -FI_EINVAL);",
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 0, 0, &mr, NULL);\n"
    "    assert(!ret);",  # an int result: asserted to succeed
    "vmr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);\n"
    "    assert_non_null(vmr);",
    "ret = fi_mr_reg(domain, buf, sizeof(buf), FI_READ, 0, 0, 0, &mr, NULL);\n"
    "    if (ret)\n        return;\n    assert_int_equal(ret, -FI_EINVAL);",
])
def test_registration_asserted_to_succeed_stays_reported(statements):
    assert [code for _, code in found(FAILING.format(statements=statements))] == ["CUR301"]


def test_gtest_expectation_in_cpp():
    code = """
    #include <gtest/gtest.h>
    #include <rdma/fi_domain.h>

    TEST_F(MrTest, RegistrationFailsWhenTheMapIsFull) {
      static char buf[64];
      struct iovec iov = {buf, sizeof(buf)};
      struct fi_mr_attr attr = {};
      attr.mr_iov = &iov;
      attr.iov_count = 1;
      int ret = fi_mr_regattr(domain_, &attr, 0, &mr_);
      EXPECT_EQ(ret, -FI_ENOMEM);
    }
    """
    assert found(code, path="mr_test.cc") == []
    assert found(code.replace("-FI_ENOMEM", "0"), path="mr_test.cc") == [(11, "CUR301")]


# -- one iovec, two registrations ---------------------------------------------------------------------

SHARED_IOVEC = """
#include <stdlib.h>
#include <sys/uio.h>
#include <rdma/fi_domain.h>

void register_twice(struct fid_domain *domain, struct fid_mr **mr)
{
    void *buf = malloc(64);
    struct iovec iov = { .iov_base = buf, .iov_len = 64 };
    struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1 };
    int ret;

    ret = fi_mr_regattr(domain, &attr, 0, &mr[0]);
    assert_int_equal(ret, 0);
    ret = fi_mr_regattr(domain, &attr, 0, &mr[1]);
    assert_int_equal(ret, {second});
}
"""


def test_one_iovec_two_registrations_gives_one_finding_per_registration():
    reported = findings(SHARED_IOVEC.replace("{second}", "0"))
    assert [(f.line, f.code) for f in reported] == [(13, "CUR301"), (15, "CUR301")]
    assert all("given to the iovec on line 9" in f.message for f in reported)
    assert len({(f.line, f.column, f.message) for f in reported}) == 2


def test_one_iovec_with_one_registration_asserted_to_fail():
    assert found(SHARED_IOVEC.replace("{second}", "-FI_EINVAL")) == [(13, "CUR301")]


def test_shared_iovec_base_is_reported_by_cur302_at_each_call():
    code = SHARED_IOVEC.replace("{second}", "0").replace(".iov_len = 64", ".iov_len = len") \
        .replace("(struct fid_domain *domain,", "(struct fid_domain *domain, size_t len,")
    reported = findings(code, rules=("CUR302",))
    assert [(f.line, f.code) for f in reported] == [(13, "CUR302"), (15, "CUR302")]
    assert all("a 64-byte block from malloc() on line 8" in f.message for f in reported)


# -- wrappers in other files of the project -----------------------------------------------------------

WRAPPER = """\
#include <infiniband/verbs.h>

struct ibv_mr *reg_buffer(struct ibv_pd *pd, void *buf, size_t len)
{
    return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}
"""

CALLER = """\
#include <stdint.h>
#include <stdlib.h>
#include "verbs_util.h"
{own}
struct ibv_mr *arm_flush(struct ibv_pd *pd, uint32_t **flag)
{{
    *flag = malloc(sizeof(uint32_t));
    return reg_buffer(pd, *flag, sizeof(uint32_t));
}}
"""

OWN_REG_BUFFER = """
static struct ibv_mr *reg_buffer(struct ibv_pd *pd, void *slot, size_t words)
{
    return (struct ibv_mr *)lookup_cached(pd, slot, words);
}
"""


@pytest.mark.parametrize("own, reported", [("", [(8, "CUR301")]), (OWN_REG_BUFFER, [])])
def test_wrapper_in_another_file_is_followed(tmp_path, own, reported):
    files = {"verbs_util.c": WRAPPER, "flush.c": CALLER.format(own=own)}
    found = lint_project(tmp_path, files, RULES, paths=["flush.c"])
    line_of = 8 + own.count("\n")
    assert [(f.line, f.code) for f in found] == [(line_of, code) for _, code in reported]
    assert all("reg_buffer() (wraps ibv_reg_mr())" in f.message for f in found)


def test_static_functions_are_not_wrappers_for_other_files(tmp_path):
    files = {"verbs_util.c": WRAPPER.replace("struct ibv_mr *reg_buffer",
                                             "static struct ibv_mr *reg_buffer"),
             "flush.c": CALLER.format(own="")}
    assert lint_project(tmp_path, files, RULES, paths=["flush.c"]) == []


def test_an_unnamed_void_parameter_is_not_a_length_passed_through(tmp_path):
    (tmp_path / "client.c").write_text(textwrap.dedent("""\
        #include <rdma/rdma_verbs.h>

        static char greeting[16];

        int run_client(void)
        {
            return rdma_reg_msgs(id, greeting, sizeof greeting) != NULL;
        }
        """))
    (tmp_path / "util.c").write_text(textwrap.dedent("""\
        #include <infiniband/verbs.h>

        struct ibv_mr *register_all(struct ibv_pd *pd, void *buf, size_t len)
        {
            return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
        }
        """))
    linter = Linter(Settings(enabled=frozenset(RULES)), RULES)
    linter.index_project([(str(tmp_path / name), "c") for name in ("client.c", "util.c")])
    assert {path: facts.wrappers for path, facts
            in linter.project["registration-wrappers"].items() if facts.wrappers} == {
        str(tmp_path / "util.c"): {"register_all": ("ibv_reg_mr", 1, 2)}}


# -- what a wrapper's definition is: one answer for the file's own and for other files' -------------

SLOTS_HEADER = """\
#include <infiniband/verbs.h>

ibv_mr *&register_slot(ibv_pd *pd, void *buf, size_t len);
"""

SLOTS = """\
#include "slots.h"

static ibv_mr *slots[64];
static int used;

ibv_mr *&register_slot(ibv_pd *pd, void *buf, size_t len)
{
    slots[used] = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
    return slots[used++];
}
"""

DOORBELL = """\
#include <cstdint>
#include <cstdlib>
#include "slots.h"
{own}
void arm_doorbell(ibv_pd *pd)
{{
    auto *bell = static_cast<uint64_t *>(malloc(sizeof(uint64_t)));
    register_slot(pd, bell, sizeof(uint64_t));
}}
"""

OWN_SLOT = """
static ibv_mr *&register_slot(ibv_pd *pd, void *buf, size_t len)
{
    return cached_slot(pd, buf, len);
}
"""


@pytest.mark.parametrize("own", ["", OWN_SLOT])
def test_a_wrapper_returning_a_reference_is_a_wrapper_in_its_file_and_in_others(tmp_path, own):
    """A function returning `ibv_mr *&` is a function (c_syntax.function_declarator): a
    wrapper where it registers its parameters, another function where a file defines its own
    of that name."""
    files = {"slots.h": SLOTS_HEADER, "slots.cc": SLOTS + DOORBELL.format(own=""),
             "doorbell.cc": DOORBELL.format(own=own)}
    found = lint_project(tmp_path, files, RULES, paths=["slots.cc", "doorbell.cc"])
    expected = ([("doorbell.cc", 8, "CUR301")] if not own else []) + [("slots.cc", 18, "CUR301")]
    assert sorted((f.path, f.line, f.code) for f in found) == expected
    assert all("register_slot() (wraps ibv_reg_mr())" in f.message for f in found)


def test_the_index_reads_files_that_call_only_an_api_whose_name_extends_another(tmp_path):
    # `fi_mr_reg` is a whole name: the index must search `fi_mr_regattr` itself
    (tmp_path / "attr.c").write_text(textwrap.dedent("""\
        #include <sys/uio.h>
        #include <rdma/fi_domain.h>

        int register_host(struct fid_domain *domain, void *buf, size_t len, struct fid_mr **mr)
        {
            struct iovec iov = { .iov_base = buf, .iov_len = len };
            struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1 };
            return fi_mr_regattr(domain, &attr, 0, mr);
        }
        """))
    linter = Linter(Settings(enabled=frozenset(RULES)), RULES)
    linter.index_project([(str(tmp_path / "attr.c"), "c")])
    assert {path: facts.wrappers for path, facts
            in linter.project["registration-wrappers"].items()} == {
        str(tmp_path / "attr.c"): {"register_host": ("fi_mr_regattr", 1, 2)}}


# -- a member given whole pages, then handed to a macro --------------------------------------------

MEMBER_THEN_MACRO = """
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define EXPECT_SET(var, label) do {{ if ((var) == NULL) goto label; }} while (0)
#define RESET_IF_NULL(var, label) do {{ if (!(var)) {{ (var) = malloc(8); goto label; }} }} while (0)
#define LOG_PTR(p) log_pointer(p)

struct slot {{ void *word; struct ibv_mr *mr; }};

int pin_word(struct ibv_pd *pd, struct slot *s)
{{
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign(&s->word, page, page))
        return -1;
    {between};
    s->mr = ibv_reg_mr(pd, s->word, 8, IBV_ACCESS_LOCAL_WRITE);
    return 0;
fail:
    return -1;
}}
"""


@pytest.mark.parametrize("between, reported", [
    ("EXPECT_SET(s->word, fail)", []),  # a macro that only reads it
    ("if (s->word == NULL) goto fail", []),  # compared
    ("((char *)s->word)[0] = 1", []),  # written into, not replaced
    ("RESET_IF_NULL(s->word, fail)", [(18, "CUR301")]),  # a macro that may replace it
    ("LOG_PTR(s->word)", [(18, "CUR301")]),  # handed on to a call: may be written
    ("undefined_macro(s->word)", [(18, "CUR301")]),  # no definition in view
])
def test_a_whole_page_member_stays_known_past_what_cannot_replace_it(between, reported):
    assert found(MEMBER_THEN_MACRO.format(between=between)) == reported


PINNED_HELPER = """
#include <cuda_runtime.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#define BYTES 5000

int alloc_pinned(void **buf, size_t size)
{{
    return cudaHostAlloc((void **)buf, size, cudaHostAllocMapped);
}}

int alloc_heap(void **buf, size_t size)
{{
    *buf = malloc(size);
    return *buf ? 0 : -1;
}}

void fill(void *buf, size_t size);

int pin_all(struct ibv_pd *pd, char **bufs, struct ibv_mr **mrs, int n)
{{
    for (int i = 0; i < n; ++i) {{
        {allocate}((void **)&bufs[i], BYTES);
        fill((void *)bufs[i], BYTES);
        mrs[i] = ibv_reg_mr(pd, bufs[i], BYTES, IBV_ACCESS_LOCAL_WRITE);
    }}
    return 0;
}}
"""


@pytest.mark.parametrize("allocate, reported", [
    ("alloc_pinned", []),  # pinned memory: pages of its own, through the project's helper
    ("alloc_heap", [(26, "CUR301")]),  # a heap block's last page is shared
])
def test_a_helper_handing_its_parameter_to_a_pinned_allocator_gives_its_pages(allocate, reported):
    assert found(PINNED_HELPER.format(allocate=allocate)) == reported


MACROS = """\
#define NULL_JMP(var, status, label, ...) do { if ((var) == NULL) { fprintf(stderr, __VA_ARGS__); status = -1; goto label; } } while (0)
#define SET_NULL(p) do { (p) = NULL; } while (0)
#define FREE(p) free(p)
#define TAKE(p) take(&(p), 1)
#define CHECK(p, n) if (!(p)) abort(); else log("%d", (n) + 1)
#define NAME(p) #p
#define PASTE(p) p##_slot
#define FORWARD(...) forward(__VA_ARGS__)
#define ONE 1
"""


@pytest.mark.parametrize("name, position, writes", [
    ("NULL_JMP", 0, False), ("NULL_JMP", 1, True), ("NULL_JMP", 3, True), ("NULL_JMP", 9, True),
    ("SET_NULL", 0, True), ("FREE", 0, True), ("TAKE", 0, True), ("CHECK", 0, False),
    ("CHECK", 1, False), ("NAME", 0, True), ("PASTE", 0, True), ("FORWARD", 2, True),
    ("CHECK", 2, True), ("ONE", 0, None),
])
def test_which_arguments_a_macro_may_write(name, position, writes):
    from cursedlint.analysis.c_constants.symbols import macro_writes_parameter
    from cursedlint.c.context import CContext, parse
    from cursedlint.source import Source

    data = MACROS.encode()
    context = CContext(Source.from_bytes("macros.h", data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    definition = next(node for node in context.root.named_children
                      if context.text(node.child_by_field_name("name")) == name)
    assert macro_writes_parameter(context, definition, position) is writes


WRAPPED_ATTR = """
#include <sys/uio.h>
#include <stdlib.h>
#include <rdma/fi_domain.h>

struct fid_mr *pin(struct fid_domain *domain, void *buf, size_t len)
{{
    struct fid_mr *mr = NULL;
    struct iovec iov = {{ .iov_base = buf, .iov_len = len }};
    struct fi_mr_attr attr = {{ .mr_iov = &iov, .iov_count = 1, .access = FI_SEND }};

    attr.iface = {iface};
    return fi_mr_regattr(domain, &attr, 0, &mr) == 0 ? mr : NULL;
}}

struct fid_mr *pin_small(struct fid_domain *domain)
{{
    return pin(domain, malloc(64), 64);
}}
"""


@pytest.mark.parametrize("iface, reported", [
    ("FI_HMEM_CUDA", []),
    ("FI_HMEM_SYSTEM", [(18, "CUR301")]),
    ("host ? FI_HMEM_SYSTEM : FI_HMEM_CUDA", [(18, "CUR301")]),  # (the caller's to pick)
])
def test_a_function_registering_device_memory_is_no_wrapper(iface, reported):
    """A function handing its parameters to `fi_mr_regattr` with a device's `iface` registers
    no host pages: its calls are not registrations of them."""
    assert found(WRAPPED_ATTR.format(iface=iface)) == reported
