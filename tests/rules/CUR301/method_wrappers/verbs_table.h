// The verbs this transport calls, loaded from libibverbs at start-up.
#pragma once

#include <cstddef>
#include <infiniband/verbs.h>

struct VerbsTable {
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int);
  int (*dereg_mr)(ibv_mr*);
};

extern VerbsTable verbs;

bool loadVerbs(const char* path);
