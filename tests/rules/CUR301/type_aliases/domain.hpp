// A protection domain and the names the code base knows it by.
#pragma once

#include <cstddef>
#include <memory>
#include <infiniband/verbs.h>

namespace rdx {

class ProtectionDomain {
 public:
  explicit ProtectionDomain(ibv_pd *pd) : pd_(pd) {}
  ibv_mr *regMr(void *addr, size_t length, int access) const {
    return ibv_reg_mr(pd_, addr, length, access);
  }

 private:
  ibv_pd *pd_;
};

// Counts bytes for the dry-run mode; registers nothing.
struct DryRunDomain {
  size_t total = 0;
  ibv_mr *regMr(void *addr, size_t length, int access) {
    total += length;
    return addr != nullptr && access >= 0 ? nullptr : nullptr;
  }
};

using Domain = ProtectionDomain;
typedef ProtectionDomain *DomainRef;
using SharedDomain = std::shared_ptr<ProtectionDomain>;
typedef Domain DefaultDomain;  // an alias of an alias
using Rehearsal = DryRunDomain;

#ifdef RDX_DRY_RUN
using ActiveDomain = DryRunDomain;
#else
using ActiveDomain = ProtectionDomain;
#endif

}  // namespace rdx
