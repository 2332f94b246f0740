// CUR302: the block a std::vector or a std::unique_ptr local owns is an ordinary heap block
// (operator new, then malloc): below the mmap threshold it shares its pages. Look-alikes: a
// container that may get another block before the registration, one too large to share pages,
// one whose size is not known, and a std::array (its storage is not a heap block).
#include <array>
#include <cstdint>
#include <memory>
#include <vector>
#include <infiniband/verbs.h>

constexpr size_t kSlot = 4096;

class Staging {
  public:
    explicit Staging(ibv_pd *pd) : pd_(pd) {}

    void register_scratch()
    {
        std::vector<uint8_t> scratch(kSlot);
        mrs_.push_back(ibv_reg_mr(pd_, scratch.data(), kSlot, IBV_ACCESS_LOCAL_WRITE));  // warning: CUR302 "std::vector"
        mrs_.push_back(ibv_reg_mr(pd_, &scratch[0], kSlot, IBV_ACCESS_LOCAL_WRITE));  // warning: CUR302
    }

    void register_slots()
    {
        auto slots = std::make_unique<uint64_t[]>(kSlot / sizeof(uint64_t));
        std::unique_ptr<char[]> tag(new char[2 * kSlot]);
        mrs_.push_back(ibv_reg_mr(pd_, slots.get(), kSlot, IBV_ACCESS_LOCAL_WRITE));  // warning: CUR302 "std::make_unique"
        mrs_.push_back(ibv_reg_mr(pd_, tag.get(), 2 * kSlot, IBV_ACCESS_LOCAL_WRITE));  // warning: CUR302
    }

    void register_grown(size_t count)
    {
        std::vector<uint8_t> grown(kSlot);
        grown.resize(count * kSlot);
        std::vector<uint8_t> sized(count * kSlot);
        std::vector<uint8_t> large(1 << 20);
        std::array<uint8_t, kSlot> inline_slot{};
        auto reused = std::make_unique<uint8_t[]>(kSlot);
        reused.reset(new uint8_t[kSlot * 64]);
        ibv_reg_mr(pd_, grown.data(), count * kSlot, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR302 (resized first)
        ibv_reg_mr(pd_, sized.data(), count * kSlot, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR302 (size not known)
        ibv_reg_mr(pd_, large.data(), 1 << 20, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR302 (past the mmap threshold)
        ibv_reg_mr(pd_, inline_slot.data(), kSlot, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR302 (not read here)
        ibv_reg_mr(pd_, reused.get(), kSlot * 64, IBV_ACCESS_LOCAL_WRITE);  // ok: CUR302 (reset to another block)
    }

  private:
    ibv_pd *pd_;
    std::vector<ibv_mr *> mrs_;
};
