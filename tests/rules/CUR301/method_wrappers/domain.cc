#include "domain.h"
#include "verbs_table.h"

namespace xport {

ibv_mr* ProtectionDomain::regMr(void* addr, size_t length, int access) const {
  return verbs.reg_mr(pd_, addr, length, access);
}

}  // namespace xport
