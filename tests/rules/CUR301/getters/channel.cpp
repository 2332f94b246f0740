#include <infiniband/verbs.h>
#include "flush_policy.hpp"

namespace xfer {

struct Channel {
    ibv_pd *pd = nullptr;
    ibv_mr *flush_mr = nullptr, *count_mr = nullptr;

    int register_device_flush(DeviceFlush *policy) {
        flush_mr = ibv_reg_mr(pd, policy->flush_word(), 32, IBV_ACCESS_REMOTE_WRITE); // ok: CUR301
        return flush_mr ? 0 : -1;
    }

    int register_host_flag(const HostFlag &policy) {
        flush_mr = ibv_reg_mr(pd, policy.flush_word(), sizeof(unsigned int), IBV_ACCESS_REMOTE_WRITE); // warning: CUR301
        return flush_mr ? 0 : -1;
    }

    int register_counters(Counters *counters) {
        count_mr = ibv_reg_mr(pd, counters->counters(), 64, IBV_ACCESS_REMOTE_WRITE); // warning: CUR301
        return count_mr ? 0 : -1;
    }
};

} // namespace xfer
