"""CUR402's wrong-stream guard against what a GPU really does.

The rule reports a device-wide synchronization (`cudaDeviceSynchronize`, `cuCtxSynchronize`)
guarded only by the capture status of one stream, in a project that begins captures on other
streams: CUDA's programming guide makes synchronizing "a broader handle which encompasses an
active stream capture, such as a device or context handle" invalid, whichever stream the caller
checked. The linter's verdict on a small program is checked everywhere; on a machine with the
CUDA driver and runtime, each (mode, thread, call) case runs in its own process: a capture
begins on one stream, another stream of the context is asked (`cudaStreamIsCapturing`: not
capturing), and the device is synchronized on the capturing thread or on another one. The test
asserts that the guard passes, and that the synchronization and the capture then fail.
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import textwrap

import pytest

from cursedlint.registry import collect
from cursedlint.rules import graph_capture

from harness import lint
from test_capture_alloc_gpu import CUDA, RUNTIME

RULES = collect([graph_capture])
MODES = ("global", "thread_local", "relaxed")
CASES = [(mode, thread, call) for mode in MODES for thread in ("same", "other")
         for call in ("runtime", "driver")]

SOURCE = """\
#include <cuda_runtime.h>

static cudaGraph_t graph;

void check(cudaStream_t current) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(current, &status);
    if (status == cudaStreamCaptureStatusNone)
        cudaDeviceSynchronize();
}

void record(cudaStream_t capturing, cudaStream_t current, float *x, size_t n) {
    cudaStreamBeginCapture(capturing, cudaStreamCaptureModeThreadLocal);
    cudaMemsetAsync(x, 0, n, capturing);
    check(current);
    cudaStreamEndCapture(capturing, &graph);
}
"""

# One case per process: a failed capture may leave state behind for the next one.
PROGRAM = """\
import ctypes, json, sys, threading

MODES = {"global": 0, "thread_local": 1, "relaxed": 2}
mode, thread, call = sys.argv[1:4]
driver, runtime = ctypes.CDLL(sys.argv[4]), ctypes.CDLL(sys.argv[5])
assert runtime.cudaSetDevice(0) == 0
assert runtime.cudaFree(None) == 0  # (the primary context, current on this thread)
context = ctypes.c_void_p()
driver.cuCtxGetCurrent(ctypes.byref(context))
capturing, current, graph = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
runtime.cudaStreamCreateWithFlags(ctypes.byref(capturing), 1)
runtime.cudaStreamCreateWithFlags(ctypes.byref(current), 1)
buffer = ctypes.c_void_p()
assert runtime.cudaMalloc(ctypes.byref(buffer), ctypes.c_size_t(1 << 20)) == 0
codes = {"begin": runtime.cudaStreamBeginCapture(capturing, MODES[mode])}
codes["memset"] = runtime.cudaMemsetAsync(buffer, 0, ctypes.c_size_t(1 << 20), capturing)


def guarded_sync():
    driver.cuCtxSetCurrent(context)
    status = ctypes.c_int(-1)
    codes["query"] = runtime.cudaStreamIsCapturing(current, ctypes.byref(status))
    codes["status"] = status.value
    codes["call"] = runtime.cudaDeviceSynchronize() if call == "runtime" \\
        else driver.cuCtxSynchronize()


if thread == "same":
    guarded_sync()
else:
    other = threading.Thread(target=guarded_sync)
    other.start()
    other.join()
codes["end"] = runtime.cudaStreamEndCapture(capturing, ctypes.byref(graph))
print(json.dumps(codes))
"""


def test_linter_verdict():
    found = [f for f in lint(SOURCE, RULES, path="record.cu", dedent=False)
             if f.code == "CUR402"]
    assert [f.line for f in found] == [9]


def _has_device() -> bool:
    if CUDA is None or RUNTIME is None:
        return False
    count = ctypes.c_int()
    driver = ctypes.CDLL(CUDA)
    return driver.cuInit(0) == 0 and driver.cuDeviceGetCount(ctypes.byref(count)) == 0 \
        and count.value > 0


def run_case(tmp_path, program: str, *arguments: str) -> dict:
    """Run one case's program in its own process (a failed capture may leave state behind),
    given `arguments` and the CUDA libraries' paths; the result codes it prints as JSON."""
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(program))
    done = subprocess.run([sys.executable, str(path), *arguments, CUDA, RUNTIME],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not _has_device(), reason="needs the CUDA driver, libcudart and a GPU")
@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_device_sync_beside_a_capture_fails(case, tmp_path):
    mode, thread, call = case
    codes = run_case(tmp_path, PROGRAM, mode, thread, call)
    print(f"{mode} {thread} {call}: {codes}")
    assert codes["begin"] == 0 and codes["memset"] == 0
    assert codes["query"] == 0 and codes["status"] == 0  # the guard lets the call through
    assert codes["call"] != 0
    assert codes["end"] != 0
