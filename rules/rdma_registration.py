"""CUR3xx: RDMA memory registrations that take heap or stack pages away from forked children
(C/C++).

Both rules read the same facts of a file, computed once (`registrations_of`): each call of a
registration API, or of a function of the same file that passes its parameters straight
through to one (one level), with the address and length expressions of the ranges it
registers (for iovec-based APIs, what the calling function puts in the iovecs). CUR301 evaluates the
length with `c_consteval`; CUR302 follows the address to the object or allocation it points
into, within the calling function. What the file does not show is never guessed: silent.

Project headers: struct layouts, `#define`s and enums from a header included with
`#include "name.h"` are read when they sit beside the including file: each header is parsed once
per process and content, and `CConstants` consults its definitions after the file's own
(`header_constants`). This is the first piece of the project index that `docs/architecture.md`
plans; it lives here until the engine has one.
"""

from __future__ import annotations

import os
import re
from functools import cache, cached_property
from typing import Iterator

from msgspec import Struct

from cursedlint.languages import C, CPP
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rule import Example, LazyPattern, Rule

MMAP_THRESHOLD = 128 * 1024  # glibc's default M_MMAP_THRESHOLD: smaller blocks share pages
CHANGE_TRANSLATION = "IBV_REREG_MR_CHANGE_TRANSLATION"  # (1 << 0) in <infiniband/verbs.h>


class Api(Struct, frozen=True):
    """Argument positions of a registration: the address and the length; `flags`: the range
    changes only when this argument holds IBV_REREG_MR_CHANGE_TRANSLATION. `shape` "iovec":
    `address` is an iovec (array) holding the ranges (`fi_mr_regv`); "attr": a `fi_mr_attr`
    whose `mr_iov` does (`fi_mr_regattr`). A wrapper may pass only one of them through."""

    address: int | None
    length: int | None
    flags: int | None = None
    shape: str = "plain"


# ibv_reg_mr(3), ibv_rereg_mr(3) (rdma-core), rdma_reg_msgs(3) (librdmacm), fi_mr(3) (libfabric)
APIS = {
    "ibv_reg_mr": Api(1, 2),
    "ibv_reg_mr_iova": Api(1, 2),
    "ibv_reg_mr_iova2": Api(1, 2),
    "ibv_rereg_mr": Api(3, 4, flags=1),
    "rdma_reg_msgs": Api(1, 2),
    "rdma_reg_read": Api(1, 2),
    "rdma_reg_write": Api(1, 2),
    "fi_mr_reg": Api(1, 2),
    "fi_mr_regv": Api(1, 2, shape="iovec"),
    "fi_mr_regattr": Api(1, None, shape="attr"),
}
TRIGGERS = ("ibv_reg_mr", "ibv_rereg_mr", "rdma_reg_msgs", "rdma_reg_read", "rdma_reg_write",
            "fi_mr_reg")

_OUT_ALLOCATORS = ("posix_memalign", "cudaHostAlloc", "cudaMallocHost")  # block via argument 0
_ALIGNED_ALLOCATORS = {"posix_memalign": (1, 2), "aligned_alloc": (0, 1), "memalign": (0, 1)}
_NAMES = frozenset({"identifier", "field_identifier"})
_DECLARATOR_KINDS = {"array_declarator": "array", "pointer_declarator": "pointer",
                     "reference_declarator": "reference"}
_NOT_ON_STACK = ("static", "extern", "thread_local", "__thread")
_WRAPPING = frozenset({"parenthesized_expression", "cast_expression"})
_SCOPES = frozenset({"function_definition", "lambda_expression"})
_ALIGNAS = ("alignas", "_Alignas")
_ALIGNED = re.compile(rb"(?<![\w$])_*aligned_*(?![\w$])")  # __attribute__((__aligned__(n)))
# element sizes of `new T[n]` (LP64); other types leave the size unknown
_NEW_SIZES = {"char": 1, "unsigned char": 1, "signed char": 1, "int8_t": 1, "uint8_t": 1, "byte": 1, "int16_t": 2, "uint16_t": 2,
              "short": 2, "int": 4, "int32_t": 4, "uint32_t": 4, "float": 4, "long": 8,
              "int64_t": 8, "uint64_t": 8, "double": 8, "size_t": 8}

_FORK_HAZARD = (
    "with fork protection on (ibv_fork_init(), RDMAV_FORK_SAFE or IBV_FORK_SAFE) libibverbs "
    "rounds every registered range out to whole pages and marks them MADV_DONTFORK, so each "
    "forked child silently lacks those pages"
)
_FIX = (
    "give each registered buffer a dedicated page-aligned allocation of whole pages "
    "(posix_memalign/aligned_alloc with the page size, or mmap)"
)


class Registration(Struct, frozen=True):
    """One registration call: `function` is the called name, `api` the registration API it
    reaches; `addresses` and `lengths` the expressions of the registered ranges (several, or
    none, for iovecs; a wrapper's caller may pass only one of the two)."""

    function: str
    api: str
    call: object
    addresses: tuple
    lengths: tuple

    @property
    def described(self) -> str:
        if self.function == self.api:
            return f"{self.api}()"
        return f"{self.function}() (a wrapper of {self.api}())"


class Origin(Struct, frozen=True):
    """What a registered address points into, and who else uses its pages."""

    what: str
    neighbours: str


class SubPageRdmaRegistration(Rule):
    """## What it does
    Finds RDMA memory registrations whose length is a known constant that is smaller than the
    page size or not a multiple of it: `ibv_reg_mr`, `ibv_reg_mr_iova`, `ibv_reg_mr_iova2`,
    `ibv_rereg_mr` with `IBV_REREG_MR_CHANGE_TRANSLATION`, `rdma_reg_msgs`, `rdma_reg_read`,
    `rdma_reg_write`, `fi_mr_reg`, the `iov_len` values the calling function gives the iovecs
    of `fi_mr_regv` and `fi_mr_regattr` (through `mr_iov`), and functions of the same file that
    pass their parameters straight through to one of these (one level). Lengths are
    evaluated exactly (literals, `sizeof` of types, variables, members and `*ptr`, `#define`s,
    enums, arithmetic, also from a project header included with `#include "..."` beside the
    file), and a local or member (`s->flush.size`) that a statement `x = value;` earlier in
    the function sets, when nothing in between may change it (no other write to it or to its
    struct, no address taken, no call given the struct, no label, no loop back); an unknown
    length is not reported. The page size is the `page-size` setting
    (default 4096; 65536 on many aarch64 kernels).

    ## Why it is cursed
    With fork protection on (`ibv_fork_init()`, `RDMAV_FORK_SAFE`, `IBV_FORK_SAFE`),
    libibverbs rounds each registered range out to whole pages and marks them
    `MADV_DONTFORK`. A 4-byte registration inside a malloc'ed block removes a whole page of
    unrelated heap (malloc's arena headers, Python's strings) from every forked child. The
    child crashes between fork and exec, in `__malloc_fork_unlock_child` or with `EFAULT`, in
    about 0.1% of processes and only on the largest jobs. Incident 000: aws-ofi-nccl
    registered a 4-byte flush buffer this way.

    ## Example
    ```c
    uint32_t *flush = malloc(sizeof(uint32_t));
    mr = ibv_reg_mr(pd, flush, sizeof(uint32_t), IBV_ACCESS_LOCAL_WRITE); /* 4 bytes */
    ```

    ## Fix
    Give each registered buffer a dedicated page-aligned allocation of whole pages and register
    all of it: `posix_memalign(&buf, page, page)` or `mmap` of whole pages, with the length
    rounded up to the page size. Better still, do not enable fork protection: Linux 5.12+
    copies pinned pages on fork (`ibv_is_fork_initialized()` tells), see CUR103.

    ## References
    - ibv_reg_mr(3), ibv_rereg_mr(3) (rdma-core):
      https://man7.org/linux/man-pages/man3/ibv_reg_mr.3.html
    - rdma_reg_msgs(3), rdma_reg_read(3), rdma_reg_write(3) (librdmacm):
      https://man7.org/linux/man-pages/man3/rdma_reg_msgs.3.html
    - fi_mr(3) (libfabric, `fi_mr_reg`, `fi_mr_regv`, `fi_mr_regattr`):
      https://ofiwg.github.io/libfabric/main/man/fi_mr.3.html
    - The page rounding in rdma-core `libibverbs/memory.c` (`ibv_dontfork_range`)
    - "A cursed bug" (incident 000): https://blog.nelhage.com/post/a-cursed-bug/
    - aws-ofi-nccl PR #77, a dedicated page for the flush buffer:
      https://github.com/aws/aws-ofi-nccl/pull/77
    """

    code = "CUR301"
    name = "sub-page-rdma-registration"
    languages = (C, CPP)
    triggers = TRIGGERS
    summary = "an RDMA registration whose known length is not a whole number of pages"
    valid = (
        Example(
            """
            #include <stdlib.h>
            #include <unistd.h>
            #include <infiniband/verbs.h>

            #define RING_PAGES 4

            struct ring { uint64_t slots[512]; };   /* 4096 bytes */

            /* a length only the caller knows */
            struct ibv_mr *register_user_buffer(struct ibv_pd *pd, void *buf, size_t len)
            {
                return ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
            }

            /* whole pages from a page-aligned pool */
            struct ibv_mr *register_ring(struct ibv_pd *pd, struct ring **out)
            {
                struct ring *ring;
                if (posix_memalign((void **)&ring, 4096, RING_PAGES * sizeof(*ring)))
                    return NULL;
                *out = ring;
                return ibv_reg_mr(pd, ring, RING_PAGES * sizeof(*ring),
                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <cstddef>
            #include <string>

            // not RDMA: a metrics registry with a method that happens to be called reg_mr
            class MetricRegistry {
             public:
              void reg_mr(const std::string &name, int width);
            };

            void setup(MetricRegistry &metrics) {
              metrics.reg_mr("merge_rate", 4);
            }
            """,
            language=CPP,
        ),
        Example(
            """
            #include <cuda_runtime.h>
            #include <infiniband/verbs.h>

            constexpr size_t kStagingBytes = 2 << 20;  // whole pages

            __global__ void fill(float *out) { out[threadIdx.x] = 1.0f; }

            ibv_mr *stage(ibv_pd *pd, float **host) {
              cudaHostAlloc(reinterpret_cast<void **>(host), kStagingBytes, cudaHostAllocDefault);
              fill<<<1, 32>>>(*host);
              return ibv_reg_mr(pd, *host, kStagingBytes, IBV_ACCESS_LOCAL_WRITE);
            }
            """,
            language=CPP,
        ),
    )
    invalid = (
        Example(
            """
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            struct comm { uint32_t *flush_buf; struct ibv_mr *flush_mr; };

            int setup_flush(struct comm *comm, struct ibv_pd *pd)
            {
                comm->flush_buf = malloc(sizeof(uint32_t));
                comm->flush_mr = ibv_reg_mr(pd, comm->flush_buf,
                                            sizeof(uint32_t), // error: CUR301
                                            IBV_ACCESS_LOCAL_WRITE);
                return comm->flush_mr ? 0 : -1;
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <sys/uio.h>
            #include <rdma/fi_domain.h>

            struct flush_slot { uint32_t word; size_t size; struct fid_mr *mr; };
            struct endpoint { struct fid_domain *domain; struct flush_slot flush; };

            static int register_host(struct fid_domain *domain, void *buf, size_t len,
                                     struct fid_mr **mr)
            {
                struct iovec iov = { .iov_base = buf, .iov_len = len };
                struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1,
                                           .access = FI_READ | FI_WRITE };
                return fi_mr_regattr(domain, &attr, 0, mr);
            }

            int arm_flush(struct endpoint *ep)
            {
                /* the size is stored first, then passed on: 4 bytes of a heap object */
                ep->flush.size = sizeof(ep->flush.word);
                return register_host(ep->domain, &ep->flush.word, ep->flush.size, // error: CUR301
                                     &ep->flush.mr);
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <rdma/fabric.h>
            #include <rdma/fi_domain.h>

            #define CTRL_MSG_BYTES 6000

            int reg_ctrl(struct fid_domain *domain, char *ctrl, struct fid_mr **mr)
            {
                return fi_mr_reg(domain, ctrl, CTRL_MSG_BYTES, FI_SEND | FI_RECV, 0, 0, 0, // error: CUR301
                                 mr, NULL);
            }
            """,
            language=C,
            settings={"page-size": 4096},
        ),
        Example(
            """
            #include <infiniband/verbs.h>

            struct Header { uint64_t seq; uint32_t len; };

            // passes its parameters straight through: callers' lengths are checked
            static ibv_mr *register_region(ibv_pd *pd, void *addr, size_t bytes) {
              return ibv_reg_mr(pd, addr, bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
            }

            ibv_mr *register_header(ibv_pd *pd, Header *header) {
              return register_region(pd, header, sizeof(*header)); // error: CUR301
            }
            """,
            language=CPP,
        ),
        Example(
            """
            #include <cuda_runtime.h>
            #include <infiniband/verbs.h>

            __global__ void signal(int *flag) { *flag = 1; }

            ibv_mr *expose_flag(ibv_pd *pd, int **flag) {
              // whole pages on x86-64, a quarter page on a 64 KiB aarch64 kernel
              cudaMallocHost(reinterpret_cast<void **>(flag), 16 * 1024);
              signal<<<1, 1>>>(*flag);
              return ibv_reg_mr(pd, *flag, 16 * 1024, IBV_ACCESS_REMOTE_WRITE); // error: CUR301
            }
            """,
            language=CPP,
            settings={"page-size": 65536},
        ),
    )

    def check(self) -> None:
        facts = registrations_of(self.context)
        page = self.context.settings.page_size
        for registration in facts.registrations:
            for node, length in facts.partial_pages(registration):
                self.report(node, (
                    f"{registration.described} registers {length} bytes, not a whole number of "
                    f"{page}-byte pages: {_FORK_HAZARD}, including the data that shares them. "
                    f"Instead, {_FIX}, and register {_round_up(length, page)} bytes"
                ))


class SharedPageRdmaRegistration(Rule):
    """## What it does
    Finds RDMA registrations (the APIs and wrappers of CUR301) whose address cannot own its
    pages, whatever the length (also the `iov_base` of the iovecs it registers): the address of
    a stack variable or array, of a struct or class member (`&s->field`, `&member_`), of a
    global or static object, or a pointer that the same
    function got from `malloc`/`calloc`/`new` (or an aligned allocator with less than page
    alignment) of a known size below glibc's mmap threshold (128 KiB), or an address inside
    one of these. Not reported: `posix_memalign`/`aligned_alloc`/`memalign` with page
    alignment, `valloc`, `mmap`, `cudaHostAlloc`/`cudaMallocHost`, objects declared with an
    alignment of whole pages, and addresses of unknown provenance (a parameter, a field holding
    a pointer). A call CUR301 reports is not reported again.

    ## Why it is cursed
    With fork protection on, libibverbs marks every page the registration touches
    `MADV_DONTFORK`. A stack variable shares its page with the thread's stack frames, a member
    with the rest of its object, a small heap block with its neighbours and malloc's chunk
    headers, a global with other globals: each forked child lacks them and crashes, rarely,
    between fork and exec (incident 000, aws-ofi-nccl).

    ## Example
    ```c
    uint64_t flag;                                      /* on the stack */
    mr = ibv_reg_mr(pd, &flag, len, IBV_ACCESS_REMOTE_WRITE);
    ```

    ## Fix
    Register only buffers that own whole pages: allocate each with
    `posix_memalign(&buf, page, bytes)` (or `aligned_alloc`, `mmap`) with the length rounded
    up to whole pages, and keep other data out of it. Or leave fork protection off (CUR103).

    ## References
    - ibv_reg_mr(3), ibv_fork_init(3) (rdma-core):
      https://man7.org/linux/man-pages/man3/ibv_reg_mr.3.html
    - mallopt(3), M_MMAP_THRESHOLD (128 KiB by default):
      https://man7.org/linux/man-pages/man3/mallopt.3.html
    - "A cursed bug" (incident 000): https://blog.nelhage.com/post/a-cursed-bug/
    """

    code = "CUR302"
    name = "shared-page-rdma-registration"
    languages = (C, CPP)
    triggers = TRIGGERS
    summary = "an RDMA registration of memory that shares its pages with other data"
    valid = (
        Example(
            """
            #include <stdlib.h>
            #include <sys/mman.h>
            #include <rdma/rdma_verbs.h>

            #define POOL_BYTES (64 * 4096)

            struct ibv_mr *register_pool(struct rdma_cm_id *id, size_t bytes)
            {
                void *pool = mmap(NULL, POOL_BYTES, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                void *slab = aligned_alloc(4096, bytes);
                rdma_reg_write(id, slab, bytes);
                return rdma_reg_msgs(id, pool, POOL_BYTES);
            }

            /* the caller owns the buffer: unknown provenance */
            struct ibv_mr *register_callers(struct rdma_cm_id *id, void *buf, size_t bytes)
            {
                return rdma_reg_read(id, buf, bytes);
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <infiniband/verbs.h>

            // page-aligned, whole-page staging area
            alignas(4096) static char staging[16 * 4096];

            ibv_mr *register_staging(ibv_pd *pd) {
              return ibv_reg_mr(pd, staging, sizeof(staging), IBV_ACCESS_LOCAL_WRITE);
            }
            """,
            language=CPP,
        ),
    )
    invalid = (
        Example(
            """
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            struct peer { struct ibv_mr *mr; uint64_t credits; };

            void register_credits(struct peer *peer, struct ibv_pd *pd, size_t len)
            {
                uint64_t scratch[8];
                char *inbox = malloc(2048 + len % 8);
                char *ring = calloc(16, 1024);
                peer->mr = ibv_reg_mr(pd, &peer->credits, len, IBV_ACCESS_REMOTE_WRITE); // error: CUR302
                ibv_reg_mr(pd, scratch, len, IBV_ACCESS_LOCAL_WRITE); // error: CUR302
                ibv_reg_mr(pd, ring + 512, len, IBV_ACCESS_LOCAL_WRITE); // error: CUR302
                ibv_reg_mr(pd, inbox, len, IBV_ACCESS_LOCAL_WRITE);  /* size unknown */
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <infiniband/verbs.h>

            class Channel {
             public:
              void Open(ibv_pd *pd, size_t len);
             private:
              uint64_t doorbell_ = 0;
              ibv_mr *mr_ = nullptr;
            };

            void Channel::Open(ibv_pd *pd, size_t len) {
              mr_ = ibv_reg_mr(pd, &doorbell_, len, IBV_ACCESS_REMOTE_WRITE); // error: CUR302
              char *bounce = new char[256];
              ibv_reg_mr(pd, bounce, len, IBV_ACCESS_LOCAL_WRITE); // error: CUR302
            }
            """,
            language=CPP,
        ),
        Example(
            """
            #include <cuda_runtime.h>
            #include <rdma/rdma_verbs.h>

            static int completion_flags[32];

            __global__ void reset(int *flags) { flags[threadIdx.x] = 0; }

            ibv_mr *expose_flags(rdma_cm_id *id, size_t bytes) {
              return rdma_reg_write(id, &completion_flags[0], bytes); // error: CUR302
            }
            """,
            language=CPP,
        ),
    )

    def check(self) -> None:
        facts = registrations_of(self.context)
        defer = SubPageRdmaRegistration.code in self.context.settings.enabled_for(
            self.context.source.path)
        for registration in facts.registrations:
            if defer and facts.partial_pages(registration):
                continue
            for address in registration.addresses:
                origin = facts.origin(address)
                if origin is not None:
                    self.report(address, (
                        f"{registration.described} registers {origin.what}, which shares its "
                        f"pages with {origin.neighbours}: {_FORK_HAZARD}. Instead, {_FIX}"
                    ))


# -- the facts of one file, shared by both rules --------------------------------------------------


def registrations_of(context) -> "Registrations":
    """The file's registration facts, computed once for all CUR3xx rules."""
    return context.shared(Registrations, lambda: Registrations(context))


class Registrations:
    """The registration calls of one C/C++ file and what their arguments are."""

    def __init__(self, context):
        self.context = context
        self.page = context.settings.page_size

    @cached_property
    def _constants(self):
        from cursedlint.c_consteval import CConstants  # only files that need it pay the import

        source = self.context.source
        headers = header_constants(source.path, source.data, self.context.language)
        return CConstants(self.context, extra=headers)

    def value(self, node):
        """The integer value of an expression of the file where it is used (locals and fields
        set by an earlier assignment count), with the project headers' macros, enums and types
        in view; UNKNOWN when unknown."""
        return self._constants.evaluate(node, assignments=True)

    @cached_property
    def registrations(self) -> list[Registration]:
        found = []
        apis = {**APIS, **self._wrappers}
        for name, call in self.context.calls(apis):
            registration = self._registration(name, apis[name], call)
            if registration is not None:
                found.append(registration)
        return found

    def partial_pages(self, registration: Registration) -> list[tuple[object, int]]:
        """(length node, value) of the lengths known to be positive and not whole pages."""
        found = []
        for node in registration.lengths:
            length = self.value(node)
            if length is not UNKNOWN and length > 0 and length % self.page:
                found.append((node, length))
        return found

    # -- calls and wrappers ----------------------------------------------------------------

    def _registration(self, name: str, api: Api, call) -> Registration | None:
        arguments = _arguments(call)
        if not _fits(api, arguments):
            return None  # a macro or another function of the same name
        if api.flags is not None and not self._changes_range(arguments[api.flags]):
            return None
        addresses, lengths = self._ranges(api, arguments, call)
        return Registration(name, self._wrapped.get(name, name), call, addresses, lengths)

    def _ranges(self, api: Api, arguments: list, call) -> tuple[tuple, tuple]:
        """(address expressions, length expressions) of the ranges a call registers."""
        if api.shape == "iovec":
            return self._iovecs(arguments[api.address], call)
        if api.shape == "attr":
            return self._attr_iovecs(arguments[api.address], call)
        return _picked(arguments, api.address), _picked(arguments, api.length)

    def _changes_range(self, flags) -> bool:
        """Whether ibv_rereg_mr's flags contain IBV_REREG_MR_CHANGE_TRANSLATION (bit 0)."""
        value = self.value(flags)
        if value is not UNKNOWN:
            return bool(value & 1)
        names, only_ors = set(), True
        for node in (flags, *self.context.descendants(flags)):
            if node.type == "identifier":
                names.add(self.context.text(node))
            elif node.type == "binary_expression":
                only_ors &= self.context.text(node.child_by_field_name("operator")) == "|"
        return CHANGE_TRANSLATION in names and only_ors

    @cached_property
    def _wrapper_facts(self) -> dict[str, tuple[str, Api]]:
        """Function name -> (API, the API's positions in its own parameters) for the file's
        functions that call one registration API with their own parameters unchanged."""
        found = {}
        calls = (call for _, call in self.context.calls(APIS))
        for function in self.context.enclosing(calls, ("function_definition",)):
            declarator = _function_declarator(function.child_by_field_name("declarator"))
            body = function.child_by_field_name("body")
            name = declarator.child_by_field_name("declarator") if declarator else None
            if (name is None or name.type != "identifier" or self.context.text(name) in APIS
                    or body is None or body.type != "compound_statement"):
                continue  # methods are called through objects; API stubs are the API
            wrapper = self._wrapper(declarator, body)
            if wrapper is not None:
                found[self.context.text(name)] = wrapper
        return found

    @cached_property
    def _wrappers(self) -> dict[str, Api]:
        return {name: api for name, (_, api) in self._wrapper_facts.items()}

    @cached_property
    def _wrapped(self) -> dict[str, str]:
        return {name: underlying for name, (underlying, _) in self._wrapper_facts.items()}

    def _wrapper(self, declarator, body) -> tuple[str, Api] | None:
        parameters = _parameter_names(self.context, declarator)
        calls = self.context.calls(APIS, body)
        if len(calls) != 1 or not parameters:
            return None
        name, call = calls[0]
        api = APIS[name]
        arguments = _arguments(call)
        if api.flags is not None or not _fits(api, arguments):
            return None
        positions = [self._passed(nodes, parameters, body)
                     for nodes in self._ranges(api, arguments, call)]
        if positions == [None, None]:
            return None
        return name, Api(*positions)

    def _passed(self, nodes, parameters: list[str], body) -> int | None:
        """The position of the first parameter among `nodes` left unchanged in `body`."""
        for node in map(_unwrapped, nodes):
            name = self.context.text(node) if node.type == "identifier" else ""
            if name in parameters and not _assigned(self.context, body, name):
                return parameters.index(name)
        return None

    # -- fi_mr_regv, fi_mr_regattr: ranges in iovecs -------------------------------------------

    def _iovecs(self, iov, call) -> tuple[tuple, tuple]:
        """The (iov_base, iov_len) expressions the calling function gives the iovec (array)
        `iov` names, through its initializer and member assignments."""
        name, scope = self._local(iov, call)
        if name is None:
            return (), ()
        return (tuple(self._member_values(scope, name, "iov_base", 0)),
                tuple(self._member_values(scope, name, "iov_len", 1)))

    def _attr_iovecs(self, attr, call) -> tuple[tuple, tuple]:
        """The ranges of the iovecs a `struct fi_mr_attr` points to with `mr_iov`."""
        name, scope = self._local(attr, call)
        addresses, lengths = [], []
        for iov in self._member_values(scope, name, "mr_iov", None) if name else ():
            found = self._iovecs(iov, call)
            addresses.extend(found[0])
            lengths.extend(found[1])
        return tuple(addresses), tuple(lengths)

    def _local(self, node, call) -> tuple:
        """(name, function) for `name` or `&name` used in a function, else (None, None)."""
        node = _unwrapped(node)
        if node.type == "pointer_expression" and node.child(0).type == "&":
            node = node.child_by_field_name("argument")
        scope = _scope_of(self.context, call)
        if node.type != "identifier" or scope is None:
            return None, None
        return self.context.text(node), scope

    def _member_values(self, scope, name: str, field: str, position: int | None) -> list:
        """The values `scope` gives member `field` of the struct (array) `name`: designated or
        positional (`position` in a two-member struct) initializers, and `name.field = v`,
        `name[i].field = v`."""
        values = []
        for _, declarator in self._declarations_in(scope, name):
            if declarator.type == "init_declarator":
                values.extend(_initialized_member(declarator.child_by_field_name("value"),
                                                  field, position))
        for _, leaf in self.context.tokens((field,), scope):
            target = self.context.parent(leaf)
            assignment = self.context.parent(target) if target is not None else None
            if (leaf.type != "field_identifier" or target.type != "field_expression"
                    or target.child_by_field_name("field") != leaf or assignment is None
                    or assignment.type != "assignment_expression"
                    or assignment.child_by_field_name("left") != target
                    or assignment.child_by_field_name("operator").type != "="):
                continue
            base = _unwrapped(target.child_by_field_name("argument"))
            if base.type == "subscript_expression":
                base = base.child_by_field_name("argument")
            value = assignment.child_by_field_name("right")
            if self.context.text(base) == name and value is not None and value.is_named:
                values.append(value)
        return values

    # -- where an address points -----------------------------------------------------------

    def origin(self, address) -> Origin | None:
        """The object or allocation `address` points into, when it cannot own its pages:
        `p + n` and `p - n` point where `p` does, `&a[i]` and `&*p` are `a + i` and `p`."""
        node = _unwrapped(address)
        while True:
            if node.type == "pointer_expression" and node.child(0).type == "&":
                target = _unwrapped(node.child_by_field_name("argument"))
                if target.type != "subscript_expression" and not (
                        target.type == "pointer_expression" and target.child(0).type == "*"):
                    return self._object(target)
                node = target.child_by_field_name("argument")
            elif node.type == "binary_expression" and self.context.text(
                    node.child_by_field_name("operator")) in ("+", "-"):
                node = node.child_by_field_name("left")
            elif node.type == "identifier":
                return self._named(node, decayed=True)
            elif node.type == "field_expression" and self._array_member(node):
                return Origin(f"the member array `{self.context.text(node)}`",
                              "the rest of its object")
            else:
                return None
            node = _unwrapped(node)

    def _object(self, node) -> Origin | None:
        """`&node`: the object itself (a variable, a member)."""
        if node.type == "field_expression":
            return Origin(f"the member `{self.context.text(node)}`",
                          "the rest of its object and whatever is allocated beside it")
        if node.type == "identifier":
            return self._named(node, decayed=False)
        return None

    def _named(self, node, decayed: bool) -> Origin | None:
        """A variable: the object named (`&x`, or an array `x`), or where a pointer `x` was
        allocated. `decayed`: the name is used as a value, so only arrays are objects."""
        name = self.context.text(node)
        scope = _scope_of(self.context, node)
        declaration = self._declaration(name, node, scope)
        if declaration is None:
            if not decayed and self._member_of_method(name, scope):
                return Origin(f"the member `{name}`", "the rest of its object")
            return None
        declaration_node, declarator, local = declaration
        kind = _declarator_kind(declarator)
        if kind == "reference":
            return None  # the object referred to is somewhere else
        if decayed and kind == "pointer":
            return self._allocation(name, scope) if local else None
        if decayed and kind != "array":
            return None
        if declaration_node.type == "parameter_declaration":
            return Origin(f"the parameter `{name}` on the stack", "the thread's stack frames") \
                if not decayed else None
        if self._page_aligned(declaration_node):
            return None
        noun = "array" if kind == "array" else "variable"
        if local and not _has_storage(self.context, declaration_node, _NOT_ON_STACK):
            return Origin(f"the stack {noun} `{name}`", "the thread's stack frames")
        storage = "static" if local or _has_storage(
            self.context, declaration_node, ("static",)) else "global"
        return Origin(f"the {storage} {noun} `{name}`", "the objects linked beside it")

    def _declaration(self, name: str, use, scope):
        """(declaration, declarator, is local) of `name` visible at `use`: the function's
        parameters and earlier local declarations, else the file's top-level declarations."""
        if scope is not None:
            local = [d for d in self._declarations_in(scope, name)
                     if d[0].start_byte < use.start_byte]
            if local:
                return (*local[-1], True)
        return next(((declaration, declarator, False) for declaration, declarator
                     in _declarations(self.context, name, None, ("declaration",))
                     if _scope_of(self.context, declaration) is None), None)

    def _declarations_in(self, scope, name: str) -> list[tuple]:
        """(declaration, declarator) pairs declaring `name` inside `scope`, in order."""
        return list(_declarations(self.context, name, scope,
                                  ("declaration", "parameter_declaration")))

    def _page_aligned(self, declaration) -> bool:
        """Whether the declaration asks for an alignment of whole pages (`alignas(4096)`,
        `__attribute__((aligned(4096)))`). tree-sitter-c reads an attribute after the
        declarator as the start of the next declaration, leaving this one's `;` missing."""
        holders = [declaration]
        following = declaration.next_named_sibling
        if declaration.children[-1].is_missing and following is not None:
            holders.append(following.children[0])
        alignments = []
        for holder in holders:
            for _, keyword in self.context.tokens(_ALIGNAS, holder):
                qualifier = self.context.parent(keyword)
                if qualifier.type == "alignas_qualifier":
                    alignments.extend(qualifier.named_children)
            for _, call in self.context.calls(_ALIGNED, holder):
                alignments.extend(_arguments(call))
        return any(self._whole_pages(node) for node in alignments)

    def _whole_pages(self, node) -> bool:
        value = self.value(node)
        return value is not UNKNOWN and value > 0 and value % self.page == 0

    def _member_of_method(self, name: str, scope) -> bool:
        """Whether an undeclared name in a C++ method is a data member: a field of that name
        is declared in the file, or the name follows a member convention (`x_`, `m_x`)."""
        if self.context.language != CPP or not _in_method(self.context, scope):
            return False
        return name.endswith("_") or name.startswith("m_") or bool(self._fields(name))

    def _array_member(self, field) -> bool:
        """Whether every field of this name declared in the file is an array."""
        name = self.context.text(field.child_by_field_name("field"))
        kinds = {_declarator_kind(node) for node in self._fields(name)}
        return kinds == {"array"}

    def _fields(self, name: str) -> list:
        """The declarators of the fields named `name` declared in the file."""
        return [declarator for _, declarator
                in _declarations(self.context, name, None, ("field_declaration",))]

    # -- allocations -----------------------------------------------------------------------

    def _allocation(self, name: str, scope) -> Origin | None:
        """A small heap block that the pointer `name` got in `scope`, its only source."""
        sources = self._sources(name, scope)
        if len(sources) != 1:
            return None
        function, call = sources[0]
        size = self._heap_size(function, call)
        if size is UNKNOWN or size <= 0 or size >= MMAP_THRESHOLD:
            return None
        line = call.start_point[0] + 1
        return Origin(
            f"`{name}`, a {size}-byte block from {function}"
            f"{'' if function == 'new' else '()'} on line {line}",
            "neighbouring heap blocks and malloc's chunk headers (blocks below the 128 KiB "
            "mmap threshold share pages)",
        )

    def _sources(self, name: str, scope) -> list[tuple[str, object]]:
        """(allocator, call or new-expression) of every value `name` is given in `scope`;
        ("", node) for a value that is not an allocation."""
        found = []
        for _, leaf in self.context.tokens((name,), scope):
            if leaf.type not in _NAMES:
                continue
            for target in self.context.wrapped_by(leaf, _leads_to):
                value = _value_given(self.context, target)
                if value is not None and _within(value, scope):
                    found.append(self._allocator(value))
        for allocator, call in self.context.calls(_OUT_ALLOCATORS, scope):
            arguments = _arguments(call)
            target = _unwrapped(arguments[0]) if arguments else None
            if (target is not None and target.type == "pointer_expression"
                    and self.context.text(target.child_by_field_name("argument")) == name):
                found.append((allocator, call))
        return found

    def _allocator(self, value) -> tuple[str, object]:
        node = _unwrapped(value)
        if node.type == "new_expression":
            return "new", node
        if node.type == "call_expression":
            return _callee(self.context, node), node
        return "", node

    def _heap_size(self, function: str, node):
        """The bytes a malloc-heap allocation asks for; UNKNOWN when unknown, for page-aligned
        blocks, and for allocators that map their own pages (mmap, valloc, cudaHostAlloc)."""
        arguments = _arguments(node) if node.type == "call_expression" else []
        if function == "malloc" and len(arguments) == 1:
            return self.value(arguments[0])
        if function == "calloc" and len(arguments) == 2:
            count, size = (self.value(argument) for argument in arguments)
            return UNKNOWN if UNKNOWN in (count, size) else count * size
        if function in _ALIGNED_ALLOCATORS:
            return self._aligned_size(_ALIGNED_ALLOCATORS[function], arguments)
        if function == "new":
            return self._new_size(node)
        return UNKNOWN

    def _aligned_size(self, positions: tuple[int, int], arguments: list):
        """The size of an aligned allocation whose known alignment is less than a page."""
        if max(positions) >= len(arguments):
            return UNKNOWN
        alignment, size = (self.value(arguments[index]) for index in positions)
        return UNKNOWN if alignment is UNKNOWN or alignment % self.page == 0 else size

    def _new_size(self, node):
        """`new T[n]` or `new T` of a builtin type T."""
        element = _NEW_SIZES.get(self.context.text(node.child_by_field_name("type")).split(
            "::")[-1])
        declarator = node.child_by_field_name("declarator")
        if element is None:
            return UNKNOWN
        if declarator is None:
            return element
        count = self.value(declarator.named_children[0]) \
            if declarator.named_children else UNKNOWN
        return UNKNOWN if count is UNKNOWN else element * count


# -- project headers: the first piece of the project index ----------------------------------------

_QUOTED_INCLUDE = LazyPattern(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_MAX_HEADERS = 32


def project_headers(path: str, data: bytes) -> list[tuple[str, bytes]]:
    """(path, text) of the project headers a file includes with `#include "name"`, resolved
    as the preprocessor first does (relative to the including file's directory), followed
    through their own quoted includes, each once, each after the headers it includes. Headers
    that are not there (found through `-I` paths) and the file itself (through a cycle, which
    include guards make empty) are left out."""
    ordered: list[tuple[str, bytes]] = []
    path = os.path.abspath(path)
    _collect_headers(os.path.dirname(path), data, {path}, ordered)
    return ordered


def _collect_headers(directory: str, data: bytes, visited: set, ordered: list) -> None:
    """Append the headers `data` includes to `ordered`, each after the headers it includes."""
    for name in _QUOTED_INCLUDE.findall(data):
        header = os.path.normpath(os.path.join(directory, os.fsdecode(name)))
        if header in visited or len(visited) > _MAX_HEADERS or not os.path.isfile(header):
            continue
        visited.add(header)
        text = _header_text(header)
        _collect_headers(os.path.dirname(header), text, visited, ordered)
        ordered.append((header, text))


def header_constants(path: str, data: bytes, language: str) -> tuple:
    """The evaluators of the project headers a file includes, in include order, each seeing
    the headers before it as the preprocessor shows them. Each header is parsed once per
    process, language and content; files including the same headers in the same order share
    the evaluators (and what they have worked out)."""
    found: tuple = ()
    for header, text in project_headers(path, data):
        found += (_header_evaluator(_header_context(header, text, language), found),)
    return found


_HEADER_CONTEXTS: dict[tuple, object] = {}


def _header_context(path: str, text: bytes, language: str):
    """The header's CContext, cached by path, content hash and language."""
    import hashlib  # only C/C++ files with project headers need it

    key = (path, hashlib.sha256(text).digest(), language)
    if key not in _HEADER_CONTEXTS:
        from cursedlint.c_context import CContext, parse
        from cursedlint.settings import Settings
        from cursedlint.source import Source

        source = Source.from_bytes(path, text, language)
        _HEADER_CONTEXTS[key] = CContext(source, Settings(enabled=frozenset()),
                                         parse(text, language))
    return _HEADER_CONTEXTS[key]


@cache
def _header_evaluator(context, before: tuple):
    from cursedlint.c_consteval import CConstants

    return CConstants(context, extra=before)


def _header_text(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20)
    except OSError:
        return b""


# -- tree helpers ----------------------------------------------------------------------------------


def _round_up(value: int, page: int) -> int:
    return -(-value // page) * page


def _arguments(call) -> list:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [child for child in arguments.named_children if child.type != "comment"]


def _unwrapped(node):
    """The expression inside parentheses, C casts and C++ named casts."""
    while True:
        if node.type in _WRAPPING:
            node = node.child_by_field_name("value") or node.named_children[-1]
        elif node.type == "call_expression" and _is_named_cast(node):
            node = _arguments(node)[0]
        else:
            return node


def _is_named_cast(call) -> bool:
    function = call.child_by_field_name("function")
    if function is None or function.type != "template_function":
        return False
    name = function.child_by_field_name("name")
    return name is not None and name.text.decode().endswith("_cast") and len(_arguments(call)) == 1


def _callee(context, call) -> str:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "qualified_identifier":
        function = function.child_by_field_name("name")
    return context.text(function) if function is not None and function.type == "identifier" else ""


def _within(node, region) -> bool:
    return region.start_byte <= node.start_byte and node.end_byte <= region.end_byte


def _scope_of(context, node):
    """The innermost function (or lambda) containing `node`, or None at file scope."""
    return next((found for found in context.ancestors(node) if found.type in _SCOPES), None)


def _in_method(context, scope) -> bool:
    """Whether the function is a C++ method: defined in a class body or as `Class::name`."""
    if scope is None or scope.type != "function_definition":
        return False
    declarator = _function_declarator(scope.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    return (name is not None and name.type == "qualified_identifier") or any(
        found.type == "field_declaration_list" for found in context.ancestors(scope))


def _declarations(context, name: str, region, owners) -> Iterator[tuple]:
    """(owner, declarator) for each declarator of a node of the kinds `owners` declaring
    `name` within `region` (None: the file), in order: found from the tokens spelling it."""
    for _, leaf in context.tokens((name,), region):
        if leaf.type not in _NAMES:
            continue
        for declarator in context.wrapped_by(leaf, _leads_to):
            owner = context.parent(declarator)
            if (owner is not None and owner.type in owners
                    and (region is None or _within(owner, region))
                    and context.field_of(declarator) == "declarator"):
                yield owner, declarator


def _value_given(context, target):
    """The value an initializer, assignment or increment gives `target` (the increment itself),
    or None when `target` is not given one."""
    parent = context.parent(target)
    if parent is None:
        return None
    if parent.type == "init_declarator" and parent.child_by_field_name("declarator") == target:
        value = parent.child_by_field_name("value")
    elif parent.type == "assignment_expression" and parent.child_by_field_name("left") == target:
        value = parent.child_by_field_name("right")
    elif parent.type == "update_expression" and parent.child_by_field_name("argument") == target:
        value = parent
    else:
        return None
    return value if value is not None and value.is_named else None


def _function_declarator(node):
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


def _parameter_names(context, declarator) -> list[str]:
    parameters = declarator.child_by_field_name("parameters")
    names = []
    for parameter in parameters.named_children if parameters is not None else ():
        inner = parameter.child_by_field_name("declarator")
        names.append(_declared_name(context, inner) if inner is not None else "")
    return names


def _declared_name(context, declarator) -> str:
    node = declarator
    while node is not None and node.type not in _NAMES:
        node = _inner_declarator(node)
    return context.text(node) if node is not None else ""


def _declarator_kind(declarator) -> str:
    """"array", "pointer", "reference" or "object": what the declarator makes of its name
    (the wrapper nearest the name decides: `*a[4]` is an array, `(*p)[4]` a pointer)."""
    kind, node = "object", declarator
    while node is not None and node.type not in _NAMES:
        kind = _DECLARATOR_KINDS.get(node.type, kind)
        node = _inner_declarator(node)
    return kind


def _leads_to(parent, child) -> bool:
    """Whether `_declared_name(parent)` goes down through `child`."""
    return _inner_declarator(parent) == child


def _inner_declarator(node):
    """The declarator inside a pointer, array, reference, parenthesized or init declarator."""
    inner = node.child_by_field_name("declarator")
    if inner is not None:
        return inner
    return next((child for child in node.named_children
                 if child.type in _NAMES or child.type.endswith("declarator")), None)


def _has_storage(context, declaration, words) -> bool:
    return any(context.text(child) in words for child in declaration.children
               if child.type == "storage_class_specifier")


def _assigned(context, body, name: str) -> bool:
    """Whether `body` assigns or increments the variable `name`."""
    for _, leaf in context.tokens((name,), body):
        parent = context.parent(leaf)
        if leaf.type == "identifier" and _within(parent, body) and (
                parent.type == "assignment_expression"
                and parent.child_by_field_name("left") == leaf
                or parent.type == "update_expression"
                and parent.child_by_field_name("argument") == leaf):
            return True
    return False


def _picked(arguments: list, index: int | None) -> tuple:
    return () if index is None else (arguments[index],)


def _fits(api: Api, arguments: list) -> bool:
    """Whether a call has the arguments the API reads."""
    return max(i for i in (api.address, api.length, api.flags) if i is not None) < len(arguments)


def _initialized_member(value, field: str, position: int | None) -> list:
    """The expressions an initializer gives member `field`: `{.field = v}`, `{a, b}` (the
    member at `position` of a two-member struct such as iovec), or an array of these."""
    found, pending = [], [value]
    while pending:
        value = pending.pop()
        if value is None or value.type != "initializer_list":
            continue
        items = [item for item in value.named_children if item.type != "comment"]
        if items and all(item.type == "initializer_list" for item in items):
            pending.extend(reversed(items))
            continue
        pairs = [item for item in items if item.type == "initializer_pair"]
        given = next((item.child_by_field_name("value") for item in pairs
                      if _designates(item, field)), None)
        if given is not None:
            found.append(given)
        elif position is not None and not pairs and len(items) == 2:
            found.append(items[position])
    return found


def _designates(pair, field: str) -> bool:
    designator = pair.child_by_field_name("designator")
    return designator is not None and designator.text.lstrip(b".") == field.encode()
