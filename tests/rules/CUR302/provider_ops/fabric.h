/* A fabric domain and the memory operations each provider gives it (verbs_provider.c,
   shm_provider.c); the caller (ctrl.c) does not know which provider it runs on. */
#ifndef FABRIC_H
#define FABRIC_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct fab_domain;

struct fab_mr_ops {
    int (*reg)(struct fab_domain *dom, void *buf, size_t len, void **desc);
    int (*close)(struct fab_domain *dom, void *desc);
};

struct fab_domain {
    struct fab_mr_ops *mr;
    struct ibv_pd *pd;
};

int verbs_domain_open(struct fab_domain *dom, struct ibv_pd *pd);
int shm_domain_open(struct fab_domain *dom);

#endif
