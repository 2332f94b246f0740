"""CUR3xx: RDMA memory registrations that take heap or stack pages away from forked children
(C/C++).

Both rules read the same facts of a file, computed once (`analysis.rdma_registrations`): each
call of a registration API, or of a function of the project that passes its parameters
straight through to one or to a wrapper of its own file (up to 4 levels within a file; other
files' through the project index,
`RegistrationWrapperIndex`), with the address and length expressions of the ranges it
registers (for iovec-based APIs, what the calling function puts in the iovecs). CUR301 evaluates the
length with `analysis.c_constants`; both ask the shared provenance analysis (`analysis.c_memory`) what
the address points into, within the calling function: CUR302 reports memory that shares its
pages, CUR301 is silent on device memory and on ranges within a page-aligned allocation's
whole pages.
Registrations a test asserts to fail (`analysis.c_expectations`) are not registrations. What
the file does not show is never guessed: silent. A registering function's pointer parameter
(no wrapper's: its calls are registrations) is what every call of it passes, where the project
shows it (`analysis.c_parameter_index`).

Project headers: struct layouts, `#define`s and enums of the project headers a file includes
(found as the compiler finds them: `cursedlint/analysis/includes.py`) and the `-D` macros of its compile
command; `CConstants` consults their definitions after the file's own.
"""

from __future__ import annotations

from cursedlint.analysis.c_allocators import PAGE_ALLOCATORS
from cursedlint.analysis.called_pieces import Pieces, Summaries
from cursedlint.analysis.c_function_pointers import project_graph
from cursedlint.analysis.c_parameter_index import (
    CALL_VALUES, MEMBER_STORES, PARAMETER_BLOCKS, TYPED_BLOCKS,
)
from cursedlint.analysis.c_syntax import within
from cursedlint.analysis.rdma_registrations import (
    APIS, HEADERS, WRAPPERS_INDEX, Registration, RegistrationFacts, Registrations,
    composed_wrappers, macro_words, method_names, piece_names, registering_fields, registrations_of,
)
from cursedlint.findings import Severity
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer
from cursedlint.rule import Example, Rule

TRIGGERS = ("ibv_reg_mr", "ibv_rereg_mr", "rdma_reg_msgs", "rdma_reg_read", "rdma_reg_write",
            "fi_mr_reg", "ibv_dontfork_range", "mlx5dv_devx_umem_reg")
_CONDITION = ": unsafe with fork protection on"
_DOCTOR = "`cursedlint doctor` shows whether this machine's settings turn fork protection on."
_FORK_HAZARD = (
    "With fork protection on (ibv_fork_init(), RDMAV_FORK_SAFE or IBV_FORK_SAFE) libibverbs "
    "rounds every registered range out to whole pages and marks them MADV_DONTFORK, so each "
    "forked child silently lacks those pages")
_FIX = ("give each registered buffer a dedicated page-aligned allocation of whole pages "
        "(posix_memalign/aligned_alloc with the page size, or mmap)")


class RegistrationWrapperIndex(Indexer):
    """Per C/C++ file of the project (`RegistrationFacts`): the functions that pass their
    parameters straight through to a registration API (name -> (API, position of the
    address, position of the length)), exported and `static`, and the functions it stores
    in struct fields or passes to other functions (`analysis.c_function_pointers`), and the
    calls its functions pass their parameters to (`analysis.c_forwarding`): a function
    handing them to another file's wrapper is a wrapper, composed across files (made only
    for the files that may call a wrapper: `analysis.called_pieces`).

    Rounds: the files calling a registration API; then those naming a wrapper (composed
    across the files read so far), a macro given an API's name or one such a macro hands its
    arguments to (`analysis.c_calling_macros`: the files defining them), a function
    given a registering function, a field holding one (there the other values of the
    field are stored, and the calls through it are made), or a macro a registering function
    is loaded with (`LOAD_SYM(lib, "ibv_reg_mr", t->reg_mr)`: its definition says whether it
    is a loader)."""

    name = WRAPPERS_INDEX
    languages = (C, CPP)
    summary_type = RegistrationFacts

    def words(self, settings):
        """Every registration API's name: the index searches whole names, so `fi_mr_reg`
        alone would miss the files calling only `fi_mr_regattr` or `ibv_reg_mr_iova`."""
        return tuple(APIS)

    @property
    def summarizers(self):
        return (_SUMMARIES, _FORWARDERS)

    def summarize(self, context):
        raise NotImplementedError("gathered by facts_from, not per file")

    def facts_from(self, index) -> dict[str, RegistrationFacts]:
        return _SUMMARIES.gathered(index)

    def more_words(self, facts, settings):
        registering = {*APIS, *(name for found in facts.values()
                                for name in (*found.wrappers, *found.local))}
        graph = project_graph(facts)
        return {*composed_wrappers(facts).exported, *graph.passed_to(registering),
                *graph.holding(registering), *graph.loader_macros(registering),
                *macro_words(facts), *method_names(facts)}

    adds_triggers = True

    def trigger_words(self, facts):
        """The wrappers' names (a call of one is a registration) and the fields some
        function stored in which registers (`registering_fields`: a call through one may
        be), as the project's graph resolves them, whatever the fields are named."""
        return {*composed_wrappers(facts).exported, *registering_fields(facts),
                *method_names(facts)}


_FORWARDERS = Pieces("registration-forwarders", RegistrationWrapperIndex(),
                     ("forwarders", "macros"),
                     lambda context: Registrations(context, {}).forwarders())
_SUMMARIES = Summaries(RegistrationWrapperIndex(),
                       lambda context: Registrations(context, {}).summary(), _FORWARDERS,
                       piece_names)


class RegistrationRule(Rule):
    """What CUR301 and CUR302 share: C/C++, the registration APIs' names as triggers, and the
    wrappers other files of the project define (their names widen the triggers)."""

    languages = (C, CPP)
    severity = Severity.WARNING  # a hazard only where fork protection is on (`cursedlint doctor`)
    triggers = TRIGGERS
    indexer = RegistrationWrapperIndex()
    reads_facts_of = (HEADERS, PAGE_ALLOCATORS, PARAMETER_BLOCKS, MEMBER_STORES, TYPED_BLOCKS,
                      CALL_VALUES)

    @property
    def facts(self) -> Registrations:
        return registrations_of(self.context, self.context.project.get(self.indexer.name))


class SubPageRdmaRegistration(RegistrationRule):
    """## What it does
    Finds RDMA memory registrations whose length is a known constant that is smaller than the page
    size or not a multiple of it: `ibv_reg_mr`, `ibv_reg_mr_iova`, `ibv_reg_mr_iova2`,
    `ibv_rereg_mr` with `IBV_REREG_MR_CHANGE_TRANSLATION`, `rdma_reg_msgs`, `rdma_reg_read`,
    `rdma_reg_write`, `fi_mr_reg`, the `iov_len` values the calling function gives the iovecs of
    `fi_mr_regv` and `fi_mr_regattr` (through `mr_iov`), `mlx5dv_devx_umem_reg` (a DEVX umem: the
    mlx5 provider calls `ibv_dontfork_range` on its range), `ibv_dontfork_range` (what a
    registration does to its range under fork protection, called directly: the message says it
    "covers" the range), and functions of the project (this file or another, through the project
    index) that pass their parameters straight through to one of these (every registration in the
    function the same parameters to the same API: a retry with other access flags is the same
    range), or to such a function of their own file or of another file (up to 4 levels within a
    file and 4 more across files, each step named in the finding's chain; a call made by a
    function-like macro of the project, in any file, that calls the function an argument names,
    `UCS_PROFILE_CALL(ibv_reg_mr, pd, buf, len, access)` where the macro's body, perhaps through
    other such macros, does `_func(__VA_ARGS__)`, is a call of that function with the arguments the
    macro gives it, where every definition of the macro calls it so with only its own arguments; a
    function of the same name the file defines itself is not another file's wrapper, and of several
    files defining one name, those with the most directories in common with the caller's decide,
    where they agree: a vendored copy of a library calls its own copy), and calls through a
    function-pointer field (`ops->reg_mem(...)`, `tbl[i].reg(...)`) where some function the project
    stores in a field of that name (by designated initializer, assignment, or passed to a function
    that stores its parameter there; a symbol loaded by name, `(T)dlsym(lib, "ibv_reg_mr")`, is
    that function) is such an API or wrapper, every other one being one with the same argument
    positions or a function the project defines that does not register (a provider without
    registration: the message says the call "may register", and the chain names each function and
    whether it registers), and calls of C++ member functions that pass their parameters on to one
    of these or to another such member function (`pd.regMr(buf, len, access)`, `p->m(...)`,
    `getPd().m(...)`, `m(...)` in a member of the class), resolved only through the receiver's
    declared class (a parameter, local, member, getter's return type, the element of a
    `unique_ptr`, `optional` or `Expected`, `auto` of `new` or `make_unique`: a field or another
    class's method of that name is not it; an unknown receiver is silent). Not followed: a field
    that also holds a function the project does not define (a library's, the application's: it may
    do anything), any value that is not a function, a name a C++ class declares as a method, or
    more than 8 functions. Lengths are evaluated exactly (literals, `sizeof` of types, variables,
    members and `*ptr`, `#define`s and function-like macros, `ALIGN_UP(sizeof(T), 64)`, enums,
    arithmetic, also from the project headers the file includes, found through
    `compile_commands.json`, `include-dirs` or the include's path, and the `-D` macros of its
    compile command), and a local or member (`s->flush.size`) that a statement `x = value;`
    earlier in the function sets, when nothing in between may change it (no other write to it or
    to its struct, no address taken, no call given the struct, no label, no loop back); a count
    only lowered (`n = want; if (left < n) n = left;`) has bounds ("up to 640 bytes", all part of
    a page); a length of a function's parameters (or their members) is known for a call giving
    them constants, of its file or another (up to 3 calls up, the calls in the chain; through a
    field, where that call stores a registering function in it; not in a wrapper, nor a parameter
    as it is); an unknown length is not reported. The page size is `page-size` (default 4096).

    Not reported: device memory (a pointer or `CUdeviceptr` got from `cudaMalloc`, `cuMemAlloc`,
    `hipMalloc`, `hsa_memory_allocate` or a wrapper named after one, such as `ofi_cudaMalloc`; a
    device's address: a peer's memory from `cudaIpcOpenMemHandle` or its kin, the HDP flush
    register's from `hipDeviceGetAttribute`; a `fi_mr_attr` whose `iface` is `FI_HMEM_CUDA`,
    `FI_HMEM_ROCR`, `FI_HMEM_ZE`, `FI_HMEM_NEURON`, `FI_HMEM_SYNAPSEAI`, or an expression the file
    does not settle), a range that starts a page-aligned allocation (`mmap`, `valloc`, page-aligned
    `posix_memalign`/`aligned_alloc`/`memalign`, `cudaHostAlloc`: the pages rounded out are the
    allocation's own) and ends within its whole pages (a block of a known size that is not whole
    pages, `posix_memalign(&p, 4096, 65664)`, shares its last page), a member of a block of whole
    pages of its own (`&p->flush`, where `p` comes from `mmap`, an aligned allocation of a size
    rounded up to the page size, or an allocator of the project, in any file, that hands out only
    such blocks: `analysis.c_allocators`; or `p` a `T *` nothing else settles, every `T` the
    project makes being one, `c_typed_blocks`), a pointer member read there that the file stores
    into (`md->zero_buf`) or that a getter's every return gives (`policy->flush_word()`), every
    store into members of its name putting whole pages of its own or device memory there, memory
    that may be such a block (one path gives it, another reads it from elsewhere), and a
    registration the code asserts to fail (the result, right away, asserted equal to a negative
    error code such as `-FI_EINVAL`, or to NULL: `assert_int_equal(ret, -FI_EINVAL)`,
    `cr_assert(ret == -FI_ENOKEY)`, `EXPECT_EQ(ret, -FI_ENOMEM)`, `assert_null(mr)`): nothing is
    registered; nor an on-demand-paging registration (`IBV_ACCESS_ON_DEMAND` in the access flags of
    `ibv_reg_mr*`: libibverbs marks no page for it). A length given to an iovec is reported at the
    registration call, once for each call that registers it.

    ## Why it is cursed
    With fork protection on (`ibv_fork_init()`, `RDMAV_FORK_SAFE`, `IBV_FORK_SAFE`), libibverbs
    rounds each registered range out to whole pages and marks them `MADV_DONTFORK`. A 4-byte
    registration inside a malloc'ed block removes a whole page of unrelated heap (malloc's arena
    headers, Python's strings) from every forked child. The child crashes between fork and exec, in
    `__malloc_fork_unlock_child` or with `EFAULT`, in about 0.1% of processes and only on the
    largest jobs. Incident 000: aws-ofi-nccl registered a 4-byte flush buffer this way.

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
    - The page rounding in rdma-core `libibverbs/memory.c` (`ibv_dontfork_range`, which
      does nothing unless fork protection is on); `mlx5dv_devx_umem_reg` calls it on the
      umem's range (rdma-core `providers/mlx5/verbs.c`, since v32)
    - "A cursed bug" (incident 000): https://blog.nelhage.com/post/a-cursed-bug/
    - aws-ofi-nccl PR #77, a dedicated page for the flush buffer:
      https://github.com/aws/aws-ofi-nccl/pull/77
    """

    code = "CUR301"
    name = "sub-page-rdma-registration"
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
                                            sizeof(uint32_t), // warning: CUR301
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
                return register_host(ep->domain, &ep->flush.word, ep->flush.size, // warning: CUR301
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
                return fi_mr_reg(domain, ctrl, CTRL_MSG_BYTES, FI_SEND | FI_RECV, 0, 0, 0, // warning: CUR301
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
              return register_region(pd, header, sizeof(*header)); // warning: CUR301
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
              return ibv_reg_mr(pd, *flag, 16 * 1024, IBV_ACCESS_REMOTE_WRITE); // warning: CUR301
            }
            """,
            language=CPP,
            settings={"page-size": 65536},
        ),
    )

    def check(self) -> None:
        facts = self.facts
        page = facts.page
        for registration in facts.registrations:
            if not facts.partial_pages(registration) or facts.silent_for_length(registration):
                continue  # (whole pages need no look at the memory)
            for node, length, bound, steps in facts.partial_pages(registration):
                self.report(
                    _anchor(registration, node),
                    f"{registration.described} {registration.verb} {bound}{length} "
                    f"byte{'s' * (length != 1)}"
                    f"{_where(registration, node)}, not whole {page}-byte pages"
                    f"{_CONDITION}",
                    help=f"{_FORK_HAZARD}, including the data that shares them. Instead, "
                    f"{_FIX}, and register {-(-length // page) * page} bytes. {_DOCTOR}",
                    related=registration.chain + steps,
                )


class SharedPageRdmaRegistration(RegistrationRule):
    """## What it does
    Finds RDMA registrations (the APIs and wrappers of CUR301) whose address cannot own its pages,
    whatever the length (also the `iov_base` of the iovecs it registers): the address of a stack
    variable or array, of a struct or class member (`&s->field`, `&member_`), of a global or static
    object, or a pointer that the same function got from `malloc`/`calloc`/`new` (or an aligned
    allocator with less than page alignment) of a known size below glibc's mmap threshold (128
    KiB) (one declared at file scope too, `static char *buf;`, where nothing between the store and
    the registration may change it), or an address inside one of these. Not reported:
    `posix_memalign`/`aligned_alloc`/`memalign` with page alignment, `valloc`, `mmap`,
    `cudaHostAlloc`/`cudaMallocHost`, objects declared with an alignment of whole pages, members of
    a block of whole pages of its own (see CUR301: they share pages only with the rest of that
    block), memory that may be such a block (see CUR301), device memory (`cudaMalloc`,
    `cuMemAlloc`, `hipMalloc`, `hsa_memory_allocate` and wrappers named after them), addresses of
    unknown provenance (a parameter, a field holding a pointer), registrations the code asserts to
    fail and on-demand-paging registrations (see CUR301). The provenance is the shared analysis
    `cursedlint.analysis.c_memory`. A call CUR301 reports is not reported again; an `iov_base` is
    reported at the registration call, once for each call.

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
                peer->mr = ibv_reg_mr(pd, &peer->credits, len, IBV_ACCESS_REMOTE_WRITE); // warning: CUR302
                ibv_reg_mr(pd, scratch, len, IBV_ACCESS_LOCAL_WRITE); // warning: CUR302
                ibv_reg_mr(pd, ring + 512, len, IBV_ACCESS_LOCAL_WRITE); // warning: CUR302
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
              mr_ = ibv_reg_mr(pd, &doorbell_, len, IBV_ACCESS_REMOTE_WRITE); // warning: CUR302
              char *bounce = new char[256];
              ibv_reg_mr(pd, bounce, len, IBV_ACCESS_LOCAL_WRITE); // warning: CUR302
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
              return rdma_reg_write(id, &completion_flags[0], bytes); // warning: CUR302
            }
            """,
            language=CPP,
        ),
    )

    def check(self) -> None:
        facts = self.facts
        defer = SubPageRdmaRegistration.code in self.context.settings.enabled_for(
            self.context.source.path)
        for registration in facts.registrations:
            if defer and facts.partial_pages(registration) and not facts.silent_for_length(
                    registration):
                continue
            for address in registration.addresses:
                found = facts.sharing(address)
                if found is not None:
                    self.report(
                        _anchor(registration, address),
                        f"{registration.described} {registration.verb} {found.what}"
                        f"{_where(registration, address)}, which shares its pages"
                        f"{_CONDITION}",
                        help=f"It shares them with {found.neighbours}. {_FORK_HAZARD}. "
                        f"Instead, {_FIX}. {_DOCTOR}",
                        related=registration.chain,
                    )


def _anchor(registration: Registration, node):
    """Where a finding about `node` is reported: the node if an argument, else the call."""
    return node if within(node, registration.call) else registration.call


def _where(registration: Registration, node) -> str:
    """" (given to the iovec on line N)" for an iovec member reported at the call, else ""."""
    return "" if within(node, registration.call) else \
        f" (given to the iovec on line {node.start_point[0] + 1})"
