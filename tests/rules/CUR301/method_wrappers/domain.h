// A protection domain: every registration of the transport goes through regMr().
#pragma once

#include <cstddef>
#include <infiniband/verbs.h>

namespace xport {

class ProtectionDomain {
 public:
  explicit ProtectionDomain(ibv_pd* pd) : pd_(pd) {}

  ibv_mr* regMr(void* addr, size_t length, int access) const;

  // Headers are only ever written locally.
  ibv_mr* pinHeader(void* header, size_t bytes) const {
    return regMr(header, bytes, IBV_ACCESS_LOCAL_WRITE);
  }

 private:
  ibv_pd* pd_;
};

// Counts what would be registered, for the dry-run mode; registers nothing.
class RegistrationBudget {
 public:
  int regMr(void* addr, size_t length, int access) {
    total_ += length;
    return addr != nullptr && access >= 0 ? 0 : -1;
  }

 private:
  size_t total_ = 0;
};

}  // namespace xport
