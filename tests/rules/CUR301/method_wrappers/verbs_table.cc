#include <dlfcn.h>

#include "verbs_table.h"

VerbsTable verbs;

bool loadVerbs(const char* path) {
  void* lib = dlopen(path, RTLD_NOW);
  if (lib == nullptr) {
    return false;
  }
  verbs.reg_mr = reinterpret_cast<ibv_mr* (*)(ibv_pd*, void*, size_t, int)>(dlsym(lib, "ibv_reg_mr"));
  verbs.dereg_mr = reinterpret_cast<int (*)(ibv_mr*)>(dlsym(lib, "ibv_dereg_mr"));
  return verbs.reg_mr != nullptr && verbs.dereg_mr != nullptr;
}
