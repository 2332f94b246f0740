#include <cstdio>
#include <dlfcn.h>

#include "dv_api.hpp"

void *dv_open(const char *library) { return dlopen(library, RTLD_NOW | RTLD_LOCAL); }

void *dv_symbol(void *library, const char *name) {
  void *found = dlsym(library, name);
  if (!found) std::fprintf(stderr, "missing %s: %s\n", name, dlerror());
  return found;
}

// not a loader: a setting read by name, whatever the name is
void *dv_setting(void *library, const char *name) {
  (void)library;
  std::fprintf(stderr, "setting %s\n", name);
  return nullptr;
}
