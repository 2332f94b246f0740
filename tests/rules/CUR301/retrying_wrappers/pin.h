/* The pinning layer of a small key-value transport. */
#ifndef KV_PIN_H
#define KV_PIN_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct kv_dev {
    struct ibv_pd *pd;
    int odp_capable;
};

int kv_access(const struct kv_dev *dev, int remote);
struct ibv_mr *kv_pin(struct kv_dev *dev, void *addr, size_t len, int remote);
struct ibv_mr *kv_pin_lazy(struct kv_dev *dev, void *addr, size_t len);
struct ibv_mr *kv_pin_pair(struct kv_dev *dev, void *head, size_t head_len, void *body,
                           size_t body_len);

#endif
