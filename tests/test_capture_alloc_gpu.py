"""CUR402 on C/C++ allocation inside a capture, against what a GPU really does.

CUDA prohibits "potentially unsafe" calls (`cudaMalloc`, `cudaFree`, driver `cuMemAlloc`,
`cuMemFree`) during a global or thread-local capture, not during a relaxed one; a
synchronization of the capturing stream is illegal in every mode. For each (mode, call) the
linter's verdict on a small C program is checked everywhere; on a machine with the CUDA driver,
the same calls are made through ctypes (driver API, and the runtime API where libcudart is
found), each case in its own process, and the test asserts that the call and the capture fail
exactly where the linter reports.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import subprocess
import sys
import textwrap

import pytest

from cursedlint.registry import collect
from cursedlint.rules import graph_capture

from harness import lint

RULES = collect([graph_capture])
MODES = {"global": "cudaStreamCaptureModeGlobal", "thread_local":
         "cudaStreamCaptureModeThreadLocal", "relaxed": "cudaStreamCaptureModeRelaxed"}
DRIVER_MODES = {"global": "CU_STREAM_CAPTURE_MODE_GLOBAL", "thread_local":
                "CU_STREAM_CAPTURE_MODE_THREAD_LOCAL", "relaxed": "CU_STREAM_CAPTURE_MODE_RELAXED"}
CALLS = {
    ("runtime", "alloc"): "cudaMalloc(&scratch, 1 << 20);\n    cudaFree(scratch);",
    ("runtime", "sync"): "cudaStreamSynchronize(stream);",
    ("driver", "alloc"): "cuMemAlloc(&device_scratch, 1 << 20);\n    cuMemFree(device_scratch);",
    ("driver", "sync"): "cuStreamSynchronize(driver_stream);",
}
SOURCE = """\
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void halve(float *x) {{ x[threadIdx.x] *= 0.5f; }}

cudaGraph_t record(cudaStream_t stream, CUstream driver_stream, float *x) {{
    cudaGraph_t graph;
    void *scratch;
    CUdeviceptr device_scratch;
    {begin}({stream}, {mode});
    halve<<<1, 32, 0, stream>>>(x);
    {calls}
    {end}({stream}, &graph);
    return graph;
}}
"""

# One case per process: a failed capture may leave state behind for the next one.
PROGRAM = """\
import ctypes, json, sys

MODES = {"global": 0, "thread_local": 1, "relaxed": 2}
api, mode, action = sys.argv[1:4]
cuda = ctypes.CDLL(sys.argv[4])
assert cuda.cuInit(0) == 0
device, context = ctypes.c_int(), ctypes.c_void_p()
cuda.cuDeviceGet(ctypes.byref(device), 0)
cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
cuda.cuCtxSetCurrent(context)
stream, graph = ctypes.c_void_p(), ctypes.c_void_p()
codes = {}
if api == "driver":
    cuda.cuStreamCreate(ctypes.byref(stream), 1)
    codes["begin"] = cuda.cuStreamBeginCapture_v2(stream, MODES[mode])
    if action == "alloc":
        pointer = ctypes.c_uint64()
        codes["call"] = cuda.cuMemAlloc_v2(ctypes.byref(pointer), 1 << 20)
        codes["free"] = cuda.cuMemFree_v2(pointer)
    else:
        codes["call"] = cuda.cuStreamSynchronize(stream)
    codes["end"] = cuda.cuStreamEndCapture(stream, ctypes.byref(graph))
else:
    runtime = ctypes.CDLL(sys.argv[5])
    runtime.cudaStreamCreateWithFlags(ctypes.byref(stream), 1)
    codes["begin"] = runtime.cudaStreamBeginCapture(stream, MODES[mode])
    if action == "alloc":
        pointer = ctypes.c_void_p()
        codes["call"] = runtime.cudaMalloc(ctypes.byref(pointer), 1 << 20)
        codes["free"] = runtime.cudaFree(pointer)
    else:
        codes["call"] = runtime.cudaStreamSynchronize(stream)
    codes["end"] = runtime.cudaStreamEndCapture(stream, ctypes.byref(graph))
print(json.dumps(codes))
"""

CASES = [(api, mode, action) for api in ("runtime", "driver") for mode in MODES
         for action in ("alloc", "sync")]


def source(api: str, mode: str, action: str) -> str:
    driver = api == "driver"
    return SOURCE.format(
        begin="cuStreamBeginCapture" if driver else "cudaStreamBeginCapture",
        end="cuStreamEndCapture" if driver else "cudaStreamEndCapture",
        mode=(DRIVER_MODES if driver else MODES)[mode],
        stream="driver_stream" if driver else "stream", calls=CALLS[api, action])


def reported(text: str) -> list[int]:
    """The lines CUR402 reports in a CUDA source."""
    return [f.line for f in lint(text, RULES, path="record.cu", dedent=False)
            if f.code == "CUR402"]


def expected_lines(api: str, mode: str, action: str) -> list[int]:
    """Allocation is prohibited in global and thread-local captures; a synchronization of
    the capturing stream in every mode."""
    if action == "alloc" and mode == "relaxed":
        return []
    return [12, 13] if action == "alloc" else [12]


@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_linter_verdict(case):
    assert reported(source(*case)) == expected_lines(*case)


def _library(names: list[str]) -> str | None:
    for name in names:
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        return name
    return None


CUDA = _library(["libcuda.so.1", ctypes.util.find_library("cuda") or "libcuda.so"])
RUNTIME = _library(["libcudart.so", "libcudart.so.13", "libcudart.so.12",
                    ctypes.util.find_library("cudart") or "libcudart.so.11.0"])


def _has_device() -> bool:
    if CUDA is None:
        return False
    count = ctypes.c_int()
    driver = ctypes.CDLL(CUDA)
    return driver.cuInit(0) == 0 and driver.cuDeviceGetCount(ctypes.byref(count)) == 0 \
        and count.value > 0


@pytest.mark.skipif(not _has_device(), reason="needs the CUDA driver and a GPU")
@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_gpu_agrees_with_the_linter(case, tmp_path):
    api, mode, action = case
    if api == "runtime" and RUNTIME is None:
        pytest.skip("needs libcudart")
    program = tmp_path / "capture.py"
    program.write_text(textwrap.dedent(PROGRAM))
    done = subprocess.run([sys.executable, str(program), api, mode, action, CUDA,
                           RUNTIME or ""], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    codes = json.loads(done.stdout)
    print(f"{api} {mode} {action}: {codes}")
    assert codes["begin"] == 0
    legal = not expected_lines(*case)
    assert (codes["call"] == 0) == legal
    assert (codes["end"] == 0) == legal
