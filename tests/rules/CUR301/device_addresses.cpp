// Addresses the GPU runtime hands out that are no host pages: a peer's device memory mapped
// with IPC, and the HDP flush register's address a device attribute gives.
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>
#include <hip/hip_runtime.h>
#include <infiniband/verbs.h>

struct PeerWindow {
    ibv_pd *pd = nullptr;
    ibv_mr *mr = nullptr;
    unsigned int *flush_word = nullptr;
    uint64_t *counters = nullptr;

    unsigned int *flushWord() const { return flush_word; }
};

int register_peer_flag(ibv_pd *pd, cudaIpcMemHandle_t handle, ibv_mr **mr) {
    void *peer = nullptr;
    if (cudaIpcOpenMemHandle(&peer, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
        return -1;
    *mr = ibv_reg_mr(pd, peer, sizeof(uint64_t), IBV_ACCESS_REMOTE_WRITE); // ok: CUR301
    return *mr ? 0 : -1;
}

int register_hdp_register(ibv_pd *pd, int device, ibv_mr **mr) {
    unsigned int *hdp = nullptr;
    hipDeviceGetAttribute(reinterpret_cast<int *>(&hdp), hipDeviceAttributeHdpMemFlushCntl,
                          device);
    *mr = ibv_reg_mr(pd, hdp, 32, IBV_ACCESS_REMOTE_WRITE); // ok: CUR301
    return *mr ? 0 : -1;
}

int register_clock_rate(ibv_pd *pd, int device, ibv_mr **mr) {
    // an attribute that is a number: the pointer is not an address the device gave
    int *rate = static_cast<int *>(malloc(sizeof(int)));
    hipDeviceGetAttribute(rate, hipDeviceAttributeClockRate, device);
    *mr = ibv_reg_mr(pd, rate, sizeof(int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return *mr ? 0 : -1;
}

int register_host_flag(PeerWindow *w) {
    // a 4-byte heap block that merely passes through a getter: still host memory
    w->flush_word = static_cast<unsigned int *>(malloc(sizeof(unsigned int)));
    w->mr = ibv_reg_mr(w->pd, w->flushWord(), sizeof(unsigned int), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return w->mr ? 0 : -1;
}

int register_host_counters(PeerWindow *w) {
    // device pointers elsewhere, a 64-byte heap block here: stays reported
    w->counters = static_cast<uint64_t *>(calloc(8, sizeof(uint64_t)));
    w->mr = ibv_reg_mr(w->pd, w->counters, 8 * sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE); // warning: CUR301
    return w->mr ? 0 : -1;
}

int map_counters(PeerWindow *w, cudaIpcMemHandle_t handle) {
    return cudaIpcOpenMemHandle(reinterpret_cast<void **>(&w->counters), handle,
                                cudaIpcMemLazyEnablePeerAccess) == cudaSuccess ? 0 : -1;
}
