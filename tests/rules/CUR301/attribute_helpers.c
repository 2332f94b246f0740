/* Registrations whose attributes a helper of the file fills through pointers: the range is
   what the caller hands the helper (a helper filling in a buffer of its own is not followed). */
#include <stdlib.h>
#include <sys/uio.h>
#include <rdma/fi_domain.h>

static char scratch[4096] __attribute__((aligned(4096)));

static void fill_attr(void *buf, size_t len, struct fi_mr_attr *attr, struct iovec *iov)
{
    iov->iov_base = buf;
    iov->iov_len = len;
    attr->mr_iov = iov;
    attr->iov_count = 1;
    attr->access = FI_SEND | FI_RECV;
}

static void fill_scratch(size_t len, struct fi_mr_attr *attr, struct iovec *iov)
{
    iov->iov_base = scratch;
    iov->iov_len = len;
    attr->mr_iov = iov;
    attr->iov_count = 1;
}

int register_header(struct fid_domain *domain, struct fid_mr **mr)
{
    struct fi_mr_attr attr = {0};
    struct iovec iov;
    void *header = malloc(96);

    if (header == NULL)
        return -1;
    fill_attr(header, 96, &attr, &iov);
    return fi_mr_regattr(domain, &attr, 0, mr); // warning: CUR301@12 "fi_mr_regattr() registers 96 bytes"
}

int register_pages(struct fid_domain *domain, struct fid_mr **mr)
{
    struct fi_mr_attr attr = {0};
    struct iovec iov;
    void *pages = NULL;

    if (posix_memalign(&pages, 4096, 2 * 4096) != 0)
        return -1;
    fill_attr(pages, 2 * 4096, &attr, &iov);
    return fi_mr_regattr(domain, &attr, 0, mr); // ok: CUR301
}

int register_scratch(struct fid_domain *domain, struct fid_mr **mr)
{
    struct fi_mr_attr attr = {0};
    struct iovec iov;

    fill_scratch(4096, &attr, &iov);
    return fi_mr_regattr(domain, &attr, 0, mr); // ok: CUR301
}
