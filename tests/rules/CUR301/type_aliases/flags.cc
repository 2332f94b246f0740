// Small flags registered through the domain, reached by its aliases.
#include "domain.hpp"

namespace rdx {

struct Flags {
  unsigned long ready = 0;
  unsigned long done = 0;
};

int pin_flags(Domain &pd, DomainRef ref, SharedDomain shared, DefaultDomain &fallback,
              Flags *flags) {
  ibv_mr *a = pd.regMr(&flags->ready, sizeof(flags->ready), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
  ibv_mr *b = ref->regMr(&flags->done, sizeof(flags->done), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
  ibv_mr *c = shared->regMr(&flags->ready, 8, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
  ibv_mr *d = fallback.regMr(&flags->done, 8, IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
  return a && b && c && d ? 0 : -1;
}

int rehearse(Rehearsal &dry, ActiveDomain &active, Flags *flags) {
  // a class that registers nothing
  dry.regMr(&flags->ready, sizeof(flags->ready), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
  // one of two classes, chosen at build time: not known
  active.regMr(&flags->done, sizeof(flags->done), IBV_ACCESS_LOCAL_WRITE); // ok: CUR301
  return 0;
}

}  // namespace rdx
