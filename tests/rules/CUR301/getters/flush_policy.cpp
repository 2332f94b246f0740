#include "flush_policy.hpp"

namespace xfer {

Counters::Counters(bool on_device) : on_device_(on_device) {
    if (on_device)
        hipMalloc(reinterpret_cast<void **>(&dev_counters_), 8 * sizeof(unsigned long));
    else
        host_counters_ = static_cast<unsigned long *>(malloc(8 * sizeof(unsigned long)));
}

} // namespace xfer
