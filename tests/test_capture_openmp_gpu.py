"""CUR401's OpenMP siblings against what a GPU really does.

The rule reports a global-mode capture inside an OpenMP parallel region whose other threads
make CUDA calls (`analysis.c_openmp`): an OpenMP team is a set of OS threads, and CUDA's mode
rules are per thread ("If ... any other thread has a concurrent capture sequence initiated with
cudaStreamCaptureModeGlobal, this thread is prohibited from potentially unsafe API calls").
Thread-local and relaxed captures are left alone. The cuOpt batch fix (regression row
cuopt-batch-memcpy-to-symbol-during-capture) is not reported: its captures are thread-local
on streams made with `cudaStreamNonBlocking`, where the programming guide forbids neither a
sibling's unsafe calls nor its legacy-stream copies (legacy-stream use is invalid only while
a *blocking* stream of the context captures). The linter's verdict on a small program is
checked everywhere; on a machine with the CUDA driver and runtime, each (mode, sibling call,
stream kind) case runs in its own process: a capture begins on one thread, a sibling thread
(what an OpenMP team member is) makes the call, then the capture ends. The test asserts what
the documentation says of each case.
"""

from __future__ import annotations

import pytest

from cursedlint.registry import collect
from cursedlint.rules import graph_capture

from harness import lint
from test_capture_guard_gpu import _has_device, run_case

RULES = collect([graph_capture])

SOURCE = """\
#include <cuda_runtime.h>

void capture_each(float **buffers, cudaStream_t *streams, cudaGraph_t *graphs, int count,
                  int mode) {
#pragma omp parallel for
    for (int i = 0; i < count; ++i) {
        float *scratch;
        cudaMalloc(&scratch, 1 << 20);
        cudaStreamBeginCapture(streams[i], %s);
        cudaMemsetAsync(buffers[i], 0, 1 << 20, streams[i]);
        cudaStreamEndCapture(streams[i], &graphs[i]);
        cudaFree(scratch);
    }
}
"""

CASES = [("global", "malloc", "nonblocking"), ("thread_local", "malloc", "nonblocking"),
         ("relaxed", "malloc", "nonblocking"), ("thread_local", "legacy_copy", "nonblocking"),
         ("global", "legacy_copy", "blocking"), ("thread_local", "legacy_copy", "blocking"),
         ("relaxed", "legacy_copy", "blocking")]

# One case per process: a failed capture may leave state behind for the next one.
PROGRAM = """\
import ctypes, json, sys, threading

MODES = {"global": 0, "thread_local": 1, "relaxed": 2}
mode, call, kind = sys.argv[1:4]
driver, runtime = ctypes.CDLL(sys.argv[4]), ctypes.CDLL(sys.argv[5])
assert runtime.cudaSetDevice(0) == 0
assert runtime.cudaFree(None) == 0
context = ctypes.c_void_p()
driver.cuCtxGetCurrent(ctypes.byref(context))
capturing, graph = ctypes.c_void_p(), ctypes.c_void_p()
runtime.cudaStreamCreateWithFlags(ctypes.byref(capturing), 1 if kind == "nonblocking" else 0)
size = 1 << 20
buffer, target = ctypes.c_void_p(), ctypes.c_void_p()
assert runtime.cudaMalloc(ctypes.byref(buffer), ctypes.c_size_t(size)) == 0
assert runtime.cudaMalloc(ctypes.byref(target), ctypes.c_size_t(size)) == 0
host = ctypes.create_string_buffer(size)
codes = {"begin": runtime.cudaStreamBeginCapture(capturing, MODES[mode])}
codes["memset"] = runtime.cudaMemsetAsync(buffer, 0, ctypes.c_size_t(size), capturing)


def sibling():
    driver.cuCtxSetCurrent(context)
    if call == "malloc":
        scratch = ctypes.c_void_p()
        codes["call"] = runtime.cudaMalloc(ctypes.byref(scratch), ctypes.c_size_t(size))
    else:  # a synchronous copy: legacy default stream, like cudaMemcpyToSymbol
        codes["call"] = runtime.cudaMemcpy(target, host, ctypes.c_size_t(size), 1)


other = threading.Thread(target=sibling)
other.start()
other.join()
codes["end"] = runtime.cudaStreamEndCapture(capturing, ctypes.byref(graph))
print(json.dumps(codes))
"""


@pytest.mark.parametrize("mode, reported", [("cudaStreamCaptureModeGlobal", True),
                                            ("cudaStreamCaptureModeThreadLocal", False),
                                            ("cudaStreamCaptureModeRelaxed", False)])
def test_linter_verdict(mode, reported):
    found = [f.line for f in lint(SOURCE % mode, RULES, path="each.cu", dedent=False)
             if f.code == "CUR401"]
    assert found == ([9] if reported else [])


@pytest.mark.skipif(not _has_device(), reason="needs the CUDA driver, libcudart and a GPU")
@pytest.mark.parametrize("case", CASES, ids="-".join)
def test_sibling_call_beside_a_capture(case, tmp_path):
    mode, call, kind = case
    codes = run_case(tmp_path, PROGRAM, mode, call, kind)
    print(f"{mode} {call} {kind}: {codes}")
    assert codes["begin"] == 0 and codes["memset"] == 0
    if kind == "blocking":  # legacy-stream use while a blocking stream captures: every mode
        assert codes["call"] != 0 or codes["end"] != 0
    elif mode == "global":  # a sibling's unsafe call beside a global-mode capture
        assert codes["call"] != 0 and codes["end"] != 0
    else:  # thread-local or relaxed capture on a non-blocking stream: the sibling is free
        assert codes["call"] == 0 and codes["end"] == 0
