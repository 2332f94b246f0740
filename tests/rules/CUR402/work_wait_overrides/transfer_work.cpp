// Work handles of a transfer-engine process group backend for torch.distributed.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraphsUtils.cuh>
#include <torch/csrc/distributed/c10d/Work.hpp>

using c10d::kNoTimeout;

class TransferWork : public ::c10d::Work {
  public:
    bool wait(std::chrono::milliseconds timeout) override {
        if (timeout == kNoTimeout) {
            done_->synchronize();  // error: CUR402@13
            return true;
        }
        return pollUntil(timeout);
    }

  protected:
    bool pollUntil(std::chrono::milliseconds timeout);
    std::shared_ptr<torch::Event> done_;
    cudaEvent_t raw_done_;
};

class BarrierWork : public TransferWork {
  public:
    bool wait(std::chrono::milliseconds timeout) override;
};

bool BarrierWork::wait(std::chrono::milliseconds timeout) {
    if (timeout != kNoTimeout)
        return pollUntil(timeout);
    cudaEventSynchronize(raw_done_);  // error: CUR402@5
    return true;
}

// Only makes the current stream wait on the transfer: what a capture allows.
class OrderedWork : public c10d::Work {
  public:
    bool wait(std::chrono::milliseconds timeout) override {
        done_->block(at::cuda::getCurrentCUDAStream());  // ok: CUR402 (a stream wait)
        return true;
    }

  private:
    std::shared_ptr<torch::Event> done_;
};

// Waits on the host only when no capture is under way.
class CaptureAwareWork : public c10d::Work {
  public:
    bool wait(std::chrono::milliseconds timeout) override {
        auto stream = at::cuda::getCurrentCUDAStream();
        if (at::cuda::currentStreamCaptureStatus() != c10::cuda::CaptureStatus::None) {
            done_->block(stream);
            return true;
        }
        done_->synchronize();  // ok: CUR402 (not while capturing)
        return true;
    }

  private:
    std::shared_ptr<torch::Event> done_;
};

// Waits on the host only when the caller asks for a timeout, which collectives never pass.
class TimedWork : public c10d::Work {
  public:
    bool wait(std::chrono::milliseconds timeout) override {
        if (timeout != kNoTimeout) {
            stream_.synchronize();  // ok: CUR402 (only with a timeout)
        }
        return true;
    }

  private:
    c10::cuda::CUDAStream stream_;
};

// Wraps another work: its synchronize() is that work's.
class ForwardingWork : public c10d::Work {
  public:
    bool wait(std::chrono::milliseconds timeout) override {
        inner_->synchronize();  // ok: CUR402 (not an event or a stream)
        return true;
    }

  private:
    c10::intrusive_ptr<c10d::Work> inner_;
};

// Not a work handle: a fence of the engine's own threads.
class Fence {
  public:
    bool wait() {
        cudaEventSynchronize(done_);  // ok: CUR402 (no c10d::Work)
        return true;
    }

  private:
    cudaEvent_t done_;
};
