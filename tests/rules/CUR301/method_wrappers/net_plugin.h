// The network plugin's entry points: its regMr() registers with the plugin's own transport
// (here a socket one, which registers nothing).
#pragma once

#include <cstddef>

struct NetPlugin {
  const char* name;
  int (*regMr)(void* comm, void* data, size_t size, int type, void** handle);
  int (*deregMr)(void* comm, void* handle);
};

extern const NetPlugin socketPlugin;
