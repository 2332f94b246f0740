#include "net_plugin.h"

static int socketRegMr(void* comm, void* data, size_t size, int type, void** handle) {
  (void)comm;
  (void)type;
  *handle = size > 0 ? data : nullptr;
  return 0;
}

static int socketDeregMr(void* comm, void* handle) {
  (void)comm;
  (void)handle;
  return 0;
}

const NetPlugin socketPlugin = {
    .name = "socket",
    .regMr = socketRegMr,
    .deregMr = socketDeregMr,
};
