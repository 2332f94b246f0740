// Policies a transport asks for the word it registers to flush the GPU's write path.
#pragma once
#include <cstdlib>
#include <hip/hip_runtime.h>

namespace xfer {

class DeviceFlush {
  public:
    DeviceFlush() { map_register(); }
    // the HDP flush register: device MMIO, no host page
    unsigned int *flush_word() const { return flush_reg_; }

  private:
    void map_register() {
        int dev = 0;
        hipGetDevice(&dev);
        hipDeviceGetAttribute(reinterpret_cast<int *>(&flush_reg_),
                              hipDeviceAttributeHdpMemFlushCntl, dev);
    }
    unsigned int *flush_reg_{nullptr};
};

class HostFlag {
  public:
    HostFlag() : flag_(static_cast<unsigned int *>(calloc(1, sizeof(unsigned int)))) {}
    // a 4-byte heap block: its page is shared with the rest of the heap
    unsigned int *flush_word() const { return this->flag_; }

  private:
    unsigned int *flag_;
};

class Counters {
  public:
    explicit Counters(bool on_device);
    // device memory or a heap block, as the constructor chose: not known (and a header's body
    // of more than one `return` is not followed)
    unsigned long *counters() const {
        if (on_device_)
            return dev_counters_;
        return host_counters_;
    }

  private:
    bool on_device_;
    unsigned long *dev_counters_ = nullptr;
    unsigned long *host_counters_ = nullptr;
};

} // namespace xfer
