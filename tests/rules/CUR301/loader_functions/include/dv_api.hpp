// Direct-verbs entry points loaded at run time into a singleton; the loader is a function of
// the project (a wrapper of dlsym() that logs a miss).
#pragma once
#include <cstddef>
#include <cstdint>
#include <infiniband/mlx5dv.h>

void *dv_open(const char *library);
void *dv_symbol(void *library, const char *name);
void *dv_setting(void *library, const char *name);

struct DvApi {
  using umem_reg_t = struct mlx5dv_devx_umem *(*)(struct ibv_context *, void *, size_t, uint32_t);
  using umem_dereg_t = int (*)(struct mlx5dv_devx_umem *);
  using probe_t = struct mlx5dv_devx_umem *(*)(struct ibv_context *, void *, size_t, uint32_t);

  umem_reg_t umem_reg = nullptr;
  umem_dereg_t umem_dereg = nullptr;
  probe_t probe = nullptr;
  void *library = nullptr;

  bool load() {
    library = dv_open("libmlx5.so.1");
    if (!library) return false;
    umem_reg = (umem_reg_t)dv_symbol(library, "mlx5dv_devx_umem_reg");
    umem_dereg = (umem_dereg_t)dv_symbol(library, "mlx5dv_devx_umem_dereg");
    probe = (probe_t)dv_setting(library, "mlx5dv_devx_umem_reg");
    return umem_reg && umem_dereg;
  }

  static DvApi &get() {
    static DvApi api;
    return api;
  }
};

// A table whose load() keeps the symbol in a local of the member's name: the member stays
// unset.
struct ProbeApi {
  using umem_reg_t = struct mlx5dv_devx_umem *(*)(struct ibv_context *, void *, size_t, uint32_t);

  umem_reg_t trial_reg = nullptr;

  bool load(void *library) {
    umem_reg_t trial_reg = (umem_reg_t)dv_symbol(library, "mlx5dv_devx_umem_reg");
    trial_reg = (umem_reg_t)dv_symbol(library, "mlx5dv_devx_umem_reg");
    return trial_reg != nullptr;
  }
};
