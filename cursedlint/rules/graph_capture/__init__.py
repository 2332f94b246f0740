"""CUR4xx: CUDA work that breaks CUDA graph capture.

CUR401 looks for threads alive when a capture region starts, CUR402 for synchronizing calls
inside a region, CUR403 for the incident's pinned DataLoader iterator, CUR404 for cuBLAS/cuDNN
work captured with no warm-up before it. Each rule (docs, examples, wording) is a module of
its own, on the shared base `capture_rule`; each language's checker is in its own module
(`python`, `cpp`), over the shared analyses of regions (`analysis.capture_regions`), CUDA use
(`analysis.cuda_use`), threads (`analysis.thread_starts`) and the project's functions
(`analysis.cuda_reach`). A mode, a thread target or a loader setting that the code does not
show is not a finding.
"""

from cursedlint.rules.graph_capture.capture_without_warmup import CaptureWithoutWarmup
from cursedlint.rules.graph_capture.cuda_thread_during_capture import CudaThreadDuringCapture
from cursedlint.rules.graph_capture.pinned_loader_during_capture import PinnedLoaderDuringCapture
from cursedlint.rules.graph_capture.sync_in_capture import SyncInCapture

__all__ = ["CaptureWithoutWarmup", "CudaThreadDuringCapture", "PinnedLoaderDuringCapture",
           "SyncInCapture"]
