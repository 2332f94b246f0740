"""The shipped rules, one module per hazard family (CUR1xx spawning, CUR2xx native callbacks,
CUR3xx RDMA registration, CUR4xx CUDA graph capture, CUR5xx cloners, CUR6xx cross-process
memory). The registry imports every module of this package and collects its Rule classes."""
