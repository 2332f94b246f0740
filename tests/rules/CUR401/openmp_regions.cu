// Graphs captured by OpenMP threads: every thread of a parallel region runs its block at once,
// so one thread's global-mode capture overlaps the CUDA calls of the others.
#include <cuda_runtime.h>
#include <omp.h>

__global__ void scale(float *data, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] *= factor;
    }
}

static void upload_table(float *device, const float *host, int n) {
    cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
}

void capture_per_bucket(float **buckets, int count, int n, cudaGraphExec_t *execs) {
#pragma omp parallel for num_threads(4)
    for (int b = 0; b < count; ++b) {
        cudaStream_t stream;
        cudaStreamCreate(&stream);
        cudaGraph_t graph;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@9 "OpenMP region"
        scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&execs[b], graph, nullptr, nullptr, 0);
    }
}

void capture_beside_upload(float *data, float *table, const float *host, int n,
                           cudaStream_t stream, cudaGraphExec_t *exec) {
#pragma omp parallel sections
    {
#pragma omp section
        {
            cudaGraph_t graph;
            cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // error: CUR401@13 "upload_table"
            scale<<<(n + 255) / 256, 256, 0, stream>>>(data, 2.0f, n);
            cudaStreamEndCapture(stream, &graph);
            cudaGraphInstantiate(exec, graph, nullptr, nullptr, 0);
        }
#pragma omp section
        upload_table(table, host, n);
    }
}

void capture_in_team(float *data, int n, cudaStream_t *streams, cudaGraph_t *graphs) {
#pragma omp parallel
    // one graph per thread of the team
    {
        int me = omp_get_thread_num();
        cudaStreamBeginCapture(streams[me], cudaStreamCaptureModeGlobal);  // error: CUR401@9 "omp parallel"
        scale<<<(n + 255) / 256, 256, 0, streams[me]>>>(data + me * n, 3.0f, n);
        cudaStreamEndCapture(streams[me], &graphs[me]);
    }
}

// Each thread captures in thread-local mode: the others' calls do not touch its capture.
void capture_per_bucket_private(float **buckets, int count, int n, cudaGraphExec_t *execs) {
#pragma omp parallel for
    for (int b = 0; b < count; ++b) {
        cudaStream_t stream;
        cudaStreamCreate(&stream);
        cudaGraph_t graph;
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);  // ok: CUR401
        scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(stream, &graph);
        cudaGraphInstantiate(&execs[b], graph, nullptr, nullptr, 0);
    }
}

// Each thread turns its own interaction mode to relaxed before any CUDA call.
void capture_per_bucket_relaxed(float **buckets, int count, int n, cudaGraph_t *graphs) {
#pragma omp parallel for
    for (int b = 0; b < count; ++b) {
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        cudaThreadExchangeStreamCaptureMode(&mode);
        cudaStream_t stream;
        cudaStreamCreate(&stream);
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
        scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(stream, &graphs[b]);
    }
}

// A plain loop: one capture at a time on the calling thread.
void capture_serially(float **buckets, int count, int n, cudaStream_t stream,
                      cudaGraph_t *graphs) {
    for (int b = 0; b < count; ++b) {
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
        scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(stream, &graphs[b]);
    }
}

// A team of one thread.
void capture_single_threaded(float **buckets, int count, int n, cudaStream_t stream,
                             cudaGraph_t *graphs) {
#pragma omp parallel for num_threads(1)
    for (int b = 0; b < count; ++b) {
        cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
        scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(stream, &graphs[b]);
    }
}

// One thread captures; the others only fill host buffers meanwhile.
void capture_once_in_team(float *data, float *host, int n, cudaStream_t stream,
                          cudaGraph_t *graph) {
#pragma omp parallel
    {
#pragma omp single
        {
            cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
            scale<<<(n + 255) / 256, 256, 0, stream>>>(data, 0.5f, n);
            cudaStreamEndCapture(stream, graph);
        }
#pragma omp for
        for (int i = 0; i < n; ++i) {
            host[i] = 0.0f;
        }
    }
}

// The region's threads are joined at its end, before the capture begins.
void capture_after_region(float **buckets, const float **hosts, int count, int n,
                          cudaStream_t stream, cudaGraph_t *graph) {
#pragma omp parallel for
    for (int b = 0; b < count; ++b) {
        upload_table(buckets[b], hosts[b], n);
    }
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
    scale<<<(n + 255) / 256, 256, 0, stream>>>(buckets[0], 0.5f, n);
    cudaStreamEndCapture(stream, graph);
}

// The capture's section runs beside a section doing host work only.
void capture_beside_host_work(float *data, float *host, int n, cudaStream_t stream,
                              cudaGraph_t *graph) {
#pragma omp parallel sections
    {
#pragma omp section
        {
            cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);  // ok: CUR401
            scale<<<(n + 255) / 256, 256, 0, stream>>>(data, 0.5f, n);
            cudaStreamEndCapture(stream, graph);
        }
#pragma omp section
        for (int i = 0; i < n; ++i) {
            host[i] = 1.0f;
        }
    }
}

// Thread-local captures, but each thread waits for the whole device after its capture: that
// waits for the other threads' capturing streams, invalid in every mode.
void capture_then_drain(float **buckets, int count, int n, cudaStream_t *streams,
                        cudaGraph_t *graphs) {
#pragma omp parallel for
    for (int b = 0; b < count; ++b) {
        cudaStreamBeginCapture(streams[b], cudaStreamCaptureModeThreadLocal);  // error: CUR401@9 "cudaDeviceSynchronize"
        scale<<<(n + 255) / 256, 256, 0, streams[b]>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(streams[b], &graphs[b]);
        cudaDeviceSynchronize();
    }
}

// The same, each thread waiting for its own stream only.
void capture_then_wait_own(float **buckets, int count, int n, cudaStream_t *streams,
                           cudaGraph_t *graphs) {
#pragma omp parallel for
    for (int b = 0; b < count; ++b) {
        cudaStreamBeginCapture(streams[b], cudaStreamCaptureModeThreadLocal);  // ok: CUR401
        scale<<<(n + 255) / 256, 256, 0, streams[b]>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(streams[b], &graphs[b]);
        cudaStreamSynchronize(streams[b]);
    }
}

// The team's directive and the loop's on two lines.
void capture_per_bucket_two_lines(float **buckets, int count, int n, cudaStream_t *streams,
                                  cudaGraph_t *graphs) {
#pragma omp parallel
#pragma omp for
    for (int b = 0; b < count; ++b) {
        float *scratch;
        cudaMalloc(&scratch, n * sizeof(float));
        cudaStreamBeginCapture(streams[b], cudaStreamCaptureModeGlobal);  // error: CUR401@9 "cudaMalloc"
        scale<<<(n + 255) / 256, 256, 0, streams[b]>>>(buckets[b], 0.5f, n);
        cudaStreamEndCapture(streams[b], &graphs[b]);
        cudaFree(scratch);
    }
}
