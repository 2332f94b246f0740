// A virtual getter: what a call runs depends on the object's class; every override in view counts.
#include <cstdlib>
#include <hip/hip_runtime.h>
#include <infiniband/verbs.h>

class Signal {
  public:
    virtual ~Signal() = default;
    virtual unsigned int *word() const { return reg_; }

  protected:
    void map() {
        int dev = 0;
        hipGetDevice(&dev);
        hipDeviceGetAttribute(reinterpret_cast<int *>(&reg_), hipDeviceAttributeHdpRegFlushCntl,
                              dev);
    }
    unsigned int *reg_ = nullptr;
};

class PolledSignal : public Signal {
  public:
    PolledSignal() : polled_(static_cast<unsigned int *>(malloc(sizeof(unsigned int)))) {}
    unsigned int *word() const override { return polled_; }

  private:
    unsigned int *polled_;
};

class MappedSignal {
  public:
    MappedSignal() {
        int dev = 0;
        hipGetDevice(&dev);
        hipDeviceGetAttribute(reinterpret_cast<int *>(&reg_), hipDeviceAttributeHdpMemFlushCntl,
                              dev);
    }
    unsigned int *word() const { return reg_; }
    unsigned int *same_word() const { return word(); }

  private:
    unsigned int *reg_ = nullptr;
};

class SplitSignal {
  public:
    explicit SplitSignal(bool on_device) : on_device_(on_device) {
        int dev = 0;
        hipGetDevice(&dev);
        hipDeviceGetAttribute(reinterpret_cast<int *>(&mem_reg_), hipDeviceAttributeHdpMemFlushCntl,
                              dev);
        hipDeviceGetAttribute(reinterpret_cast<int *>(&reg_reg_), hipDeviceAttributeHdpRegFlushCntl,
                              dev);
        host_word_ = static_cast<unsigned int *>(malloc(sizeof(unsigned int)));
    }
    // two returns that agree: both registers of the device
    unsigned int *device_word() const {
        if (on_device_)
            return mem_reg_;
        return reg_reg_;
    }
    // two returns that disagree: a register or a 4-byte heap block
    unsigned int *any_word() const {
        if (on_device_)
            return mem_reg_;
        return host_word_;
    }

  private:
    bool on_device_;
    unsigned int *mem_reg_ = nullptr, *reg_reg_ = nullptr, *host_word_ = nullptr;
};

ibv_mr *register_split(ibv_pd *pd, const SplitSignal &signal, ibv_mr **other) {
    *other = ibv_reg_mr(pd, signal.any_word(), 4, IBV_ACCESS_REMOTE_WRITE); // warning: CUR301
    return ibv_reg_mr(pd, signal.device_word(), 4, IBV_ACCESS_REMOTE_WRITE); // ok: CUR301
}

ibv_mr *register_signal(ibv_pd *pd, const Signal *signal) {
    // the base's register, or an override's 4-byte heap block
    return ibv_reg_mr(pd, signal->word(), 4, IBV_ACCESS_REMOTE_WRITE); // warning: CUR301
}

ibv_mr *register_mapped(ibv_pd *pd, const MappedSignal &signal) {
    // through a getter that returns another getter's value
    return ibv_reg_mr(pd, signal.same_word(), 4, IBV_ACCESS_REMOTE_WRITE); // ok: CUR301
}
