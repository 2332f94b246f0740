// Doorbell records and queue buffers registered as DEVX umems through the loaded table.
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "dv_api.hpp"

struct Queue {
  void *doorbell = nullptr;
  void *ring = nullptr;
  struct mlx5dv_devx_umem *doorbell_umem = nullptr;
  struct mlx5dv_devx_umem *ring_umem = nullptr;
};

int queue_create(struct ibv_context *context, Queue *queue, size_t ring_pages) {
  long page = sysconf(_SC_PAGESIZE);
  if (posix_memalign(&queue->doorbell, 8, 8)) return -1;
  std::memset(queue->doorbell, 0, 8);
  queue->doorbell_umem = DvApi::get().umem_reg(context, queue->doorbell, 8, IBV_ACCESS_LOCAL_WRITE);  // warning: CUR301 "8 bytes"
  if (posix_memalign(&queue->ring, page, ring_pages * page)) return -1;
  queue->ring_umem = DvApi::get().umem_reg(context, queue->ring, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR301, CUR302 (whole pages)
  return 0;
}

struct mlx5dv_devx_umem *queue_probe(struct ibv_context *context, Queue *queue) {
  return DvApi::get().probe(context, queue->doorbell, 8, 0);  // ok: CUR301 (no loader fills it)
}

int queue_destroy(Queue *queue) {
  return DvApi::get().umem_dereg(queue->doorbell_umem);  // ok: CUR301
}

struct mlx5dv_devx_umem *queue_trial(struct ibv_context *context, ProbeApi *api, Queue *queue) {
  return api->trial_reg(context, queue->doorbell, 8, 0);  // ok: CUR301 (a local was loaded)
}
