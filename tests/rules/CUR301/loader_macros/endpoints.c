/* Scratch words the transport registers once: one in a heap block of its own size, one in
 * whole pages from the transport's page allocator (checked by a macro that only reads it). */
#include "transport_common.h"

struct scratch {
    void *word;
    struct ibv_mr *mr;
};

static struct scratch *atomic_scratch;
static struct scratch *flush_scratch;

static int page_alloc_debug(void **out, size_t size, const char *file, int line)
{
    size_t page = sysconf(_SC_PAGESIZE);
    void *block;
    if (posix_memalign(&block, page, ROUNDUP(size, page)))
        return -1;
    *out = block;
    (void)file;
    (void)line;
    return 0;
}
#define page_alloc(...) page_alloc_debug(__VA_ARGS__, __FILE__, __LINE__)

int scratch_register(struct ibv_pd *pd)
{
    int status = 0;
    uint64_t *word = malloc(sizeof(*word));
    NULL_ERROR_JMP(word, status, -1, out, "no memory for the atomic word\n");
    atomic_scratch = malloc(sizeof(*atomic_scratch));
    NULL_ERROR_JMP(atomic_scratch, status, -1, out, "no memory\n");
    atomic_scratch->mr = ftable.reg_mr(pd, word, sizeof(*word), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "8 bytes"

    flush_scratch = malloc(sizeof(*flush_scratch));
    NULL_ERROR_JMP(flush_scratch, status, -1, out, "no memory\n");
    page_alloc(&flush_scratch->word, sizeof(uint64_t));
    NULL_ERROR_JMP(flush_scratch->word, status, -1, out, "no page for the flush word\n");
    flush_scratch->mr = ftable.reg_mr(pd, flush_scratch->word, sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301, CUR302 (a page of its own)
out:
    return status;
}

int scratch_release(void)
{
    return ftable.dereg_mr(atomic_scratch->mr); // ok: CUR301
}
