#include <stddef.h>
#include <unistd.h>
#include <infiniband/verbs.h>

int xt_posix_memalign(void **ptr, size_t boundary, size_t size, const char *name);

struct xt_dev {
    struct ibv_pd *pd;
    struct ibv_mr *zero_mr, *scratch_mr, *status_mr, *tail_mr, *flag_mr, *doorbell_mr;
    void *zero_page;     /* one page of its own, from xt_dev_buf_alloc */
    void *scratch;       /* a 64-byte heap block in one store */
    void *status_words;  /* two pages in one store, 64 bytes in another */
    void *tail_buf;      /* page-aligned, 4160 bytes: its last page is shared */
    unsigned int *hdp_flag; /* the GPU's flush register */
    void *doorbell;      /* page-aligned, of a size the caller gives */
};

/* Page-aligned, of the size the caller asks for. */
static inline int xt_dev_buf_alloc(struct xt_dev *dev, size_t size, void **buf_p)
{
    void *buf;

    (void)dev;
    if (xt_posix_memalign(&buf, sysconf(_SC_PAGESIZE), size, "dev buf") != 0) {
        return -1;
    }
    *buf_p = buf;
    return 0;
}
