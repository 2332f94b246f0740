/* Another file registers through mr_cache.c's wrapper, which calls ibv_reg_mr by a macro. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

struct mr_cache;
struct ibv_mr *mr_cache_register(struct mr_cache *cache, void *addr, size_t length);

#define FLUSH_PAGE 4096

struct flusher {
    struct mr_cache *cache;
    uint64_t *word;
    void *page;
};

int flusher_open(struct flusher *flusher)
{
    flusher->word = malloc(sizeof(uint64_t));
    flusher->page = mmap(NULL, FLUSH_PAGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mr_cache_register(flusher->cache, flusher->page, FLUSH_PAGE) == NULL) // ok: CUR301
        return -1;
    return mr_cache_register(flusher->cache, flusher->word, sizeof(uint64_t)) ? 0 : -1; // warning: CUR301@61 "mr_cache_register() (wraps ibv_reg_mr()) registers 8 bytes, not whole 4096-byte pages"
}
