// The transport's buffers: rings of whole pages, and a few small blocks registered through
// the protection domain.
#include <cstdlib>
#include <memory>
#include <vector>

#include "domain.h"
#include "net_plugin.h"

namespace xport {

constexpr size_t kPage = 4096;
constexpr size_t kRingBytes = 16 * kPage;

struct Rail {
  ProtectionDomain* pd;
  int port;
};

class Transport {
 public:
  int open(ProtectionDomain& pd, const NetPlugin* net, void* comm);
  int openRails(char* scratch);

 private:
  const ProtectionDomain& domain() const { return *owned_; }

  std::unique_ptr<ProtectionDomain> owned_;
  std::vector<Rail> rails_;
  RegistrationBudget budget_;
  void* ring_ = nullptr;
  char* doorbell_ = nullptr;
  char header_[64];
};

int Transport::open(ProtectionDomain& pd, const NetPlugin* net, void* comm) {
  if (posix_memalign(&ring_, kPage, kRingBytes) != 0) {
    return -1;
  }
  ibv_mr* ring = pd.regMr(ring_, kRingBytes, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
  doorbell_ = static_cast<char*>(malloc(64));
  ibv_mr* bell = pd.regMr(doorbell_, 64, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "ProtectionDomain::regMr() (wraps ibv_reg_mr()) registers 64 bytes"
  budget_.regMr(doorbell_, 64, 0); // ok: CUR301
  void* handle = nullptr;
  net->regMr(comm, doorbell_, 64, 0, &handle); // ok: CUR301
  ibv_mr* header = domain().pinHeader(header_, sizeof(header_)); // warning: CUR301 "ProtectionDomain::pinHeader() (wraps ibv_reg_mr()) registers 64 bytes"
  return ring && bell && header ? 0 : -1;
}

int Transport::openRails(char* scratch) {
  for (Rail& rail : rails_) {
    if (rail.pd->regMr(scratch, 100, IBV_ACCESS_LOCAL_WRITE) == nullptr) { // warning: CUR301 "100 bytes"
      return -1;
    }
  }
  auto pd = std::make_unique<ProtectionDomain>(nullptr);
  char* counters = static_cast<char*>(calloc(1, 24));
  ibv_mr* mr = pd->regMr(counters, 24, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301 "24 bytes"
  auto* other = lookupDomain(scratch);
  other->regMr(counters, 24, IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
  return owned_->regMr(scratch, 100, 0) != nullptr && mr != nullptr ? 0 : -1; // warning: CUR301 "100 bytes"
}

// A domain whose registrations the audit log lists; it registers through its base's regMr().
class AuditedDomain : public ProtectionDomain {
 public:
  using ProtectionDomain::ProtectionDomain;
};

int pinCounters(AuditedDomain& domain) {
  static char counters[48];
  return domain.regMr(counters, sizeof(counters), 0) != nullptr ? 0 : -1; // warning: CUR301 "ProtectionDomain::regMr() (wraps ibv_reg_mr()) registers 48 bytes"
}

}  // namespace xport
