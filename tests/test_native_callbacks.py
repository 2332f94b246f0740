"""CUR201 and CUR202: spans, messages, options, and the
look-alikes that stay silent (the annotated cases per binding style: tests/rules/CUR201, CUR202)."""

from __future__ import annotations

from functools import partial

import pytest

from cursedlint.rules.native_callbacks import CtypesCallbackLifetime, PythonCallbackIntoCuda

import harness

lint = partial(harness.lint, rules=PythonCallbackIntoCuda)


INCIDENT = """
from numba import cuda

def compute_thread_per_block(kernel):
    ctx = cuda.current_context()
    return ctx.get_max_potential_block_size(kernel, lambda tpb: 0, 0, 1024)
"""


def test_incident_span_is_the_lambda_and_message_says_why_and_how_to_fix():
    [finding] = lint(INCIDENT)
    assert (finding.line, finding.column, finding.span.end_column) == (6, 53, 66)
    message = finding.explained
    assert finding.message == ("lambda on line 6 is handed to get_max_potential_block_size as "
                               "a C callback")
    for part in ("holding a driver lock", "GIL", "deadlocks", "numba.cfunc"):
        assert part in message


def test_wrap_is_reported_when_the_callable_is_wrapped():
    code = """
    import ctypes
    libcuda = ctypes.CDLL("libcuda.so.1")
    HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def done(data):
        pass
    callback = HostFn(done)
    libcuda.cuLaunchHostFunc(stream, callback, None)
    """
    [finding] = lint(code)
    assert (finding.line, finding.column, finding.span.end_column) == (7, 12, 24)
    assert finding.message == ("Python function done() (line 5), a C pointer here, is handed to "
                               "cuLaunchHostFunc as a C callback")
    assert "record an event" in finding.explained


def test_helper_case_reports_the_callers_lambda_and_names_the_helpers_call():
    code = """
    from numba.cuda.cudadrv.driver import driver
    from numba.cuda.cudadrv.drvapi import cu_occupancy_b2d_size

    def best_block(kernel, shared_for):
        callback = cu_occupancy_b2d_size(shared_for)
        driver.cuOccupancyMaxPotentialBlockSize(grid, block, kernel, callback, 0, 0)

    best_block(kernel, lambda tpb: 0)
    """
    [finding] = lint(code)
    assert (finding.line, finding.column) == (9, 20)
    assert finding.message.endswith("is passed to best_block(), which hands 'shared_for' to "
                                    "cuOccupancyMaxPotentialBlockSize (line 6)")


def test_a_wrap_used_twice_is_reported_once():
    code = """
    import ctypes
    HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    keep = HostFn(lambda data: None)
    libcuda.cuLaunchHostFunc(first, keep, None)
    libcuda.cuLaunchHostFunc(second, keep, None)
    """
    assert [f.line for f in lint(code)] == [4]


def test_extra_apis_adds_names_and_triggers():
    code = """
    import ctypes
    HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    gpu.enqueue_host(stream, HostFn(lambda data: None))
    """
    assert lint(code) == []
    [finding] = lint(code, options={"extra-apis": ["enqueue_host"]})
    assert "is handed to enqueue_host" in finding.message
    assert "enqueue_host" in PythonCallbackIntoCuda.triggers_for({"extra-apis": ["enqueue_host"]})


@pytest.mark.parametrize("code", [
    # a parameter nobody in the module passes a callable to
    "def enqueue(stream, fn):\n    libcuda.cuLaunchHostFunc(stream, fn, None)\n",
    # decorated: numba.cfunc makes a compiled function of it
    "import numba\n@numba.cfunc('uintp(int32)')\ndef f(n):\n    return 0\n"
    "libcuda.cuOccupancyMaxPotentialBlockSize(g, b, k, f, 0, 0)\n",
    # an attribute of an unknown object
    "libcuda.cuLaunchHostFunc(stream, handlers.on_done, None)\n",
    # a name bound twice
    "cb = None\ncb = lambda d: None\nlibcuda.cuLaunchHostFunc(stream, cb, None)\n",
    # add_callback on something that is not a CuPy or Numba stream
    "import cupy\nbus.add_callback(lambda: None)\n",
    # a plain function of a stream method's name: no stream receives it
    "import cupy\nadd_callback(lambda: None)\nlaunch_host_func(print, None)\n",
    # the struct field of some other struct
    "params = Options()\nparams.fn = lambda: None\ncuGraphAddHostNode\n",
])
def test_silent(code):
    assert lint(code) == []


def test_lifetime_message_names_the_holder_the_api_and_the_fix():
    code = """
    import ctypes
    libcuda = ctypes.CDLL("libcuda.so.1")
    HostFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def enqueue(stream):
        callback = HostFn(lambda data: None)
        libcuda.cuLaunchHostFunc(stream, callback, None)
    """
    [finding] = lint(code, rules=CtypesCallbackLifetime)
    assert (finding.line, finding.column, finding.span.end_column) == (7, 38, 46)
    assert [(step.line, step.note) for step in finding.related] == [
        (6, "the ctypes callback is made here")]
    for part in ("lambda on line 6", "dies with the local 'callback'",
                 "cuLaunchHostFunc keeps", "freed", "module level or an attribute"):
        assert part in finding.explained


def test_keeping_apis_option_adds_patterns():
    code = """
    import ctypes
    lib = ctypes.CDLL("./libev.so")
    Watcher = ctypes.CFUNCTYPE(None, ctypes.c_int)
    lib.ev_io_start(Watcher(lambda events: None))
    """
    ignoring = {"unknown-foreign-functions": "ignore"}
    assert lint(code, rules=CtypesCallbackLifetime, options=ignoring) == []
    options = {"keeping-apis": ["ev_*_start"], **ignoring}
    assert [f.line for f in lint(code, rules=CtypesCallbackLifetime, options=options)] == [5]
    [assumed] = lint(code, rules=CtypesCallbackLifetime)  # the default: an unknown one keeps
    assert "assumed to keep it" in assumed.related[0].note


# -- the deadlock, on a machine with a GPU (skipped without libcuda) -------------------------

DEADLOCK = r"""
import ctypes as C, sys, threading, time
cu = C.CDLL("libcuda.so.1")
other_lib = C.PyDLL("libcuda.so.1") if sys.argv[1] == "holds-gil" else cu
R, V = C.byref, C.c_void_p
cu.cuInit(0); dev = C.c_int(); cu.cuDeviceGet(R(dev), 0)
ctx = V(); cu.cuDevicePrimaryCtxRetain(R(ctx), dev); cu.cuCtxSetCurrent(ctx)
PTX = b".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(){ret;}\n"
module, kernel = V(), V()
assert cu.cuModuleLoadData(R(module), PTX) == 0
assert cu.cuModuleGetFunction(R(kernel), module, b"k") == 0
inside = threading.Event()

def shared_bytes(block_size):  # the Python callback: runs holding the driver's lock
    if not inside.is_set():
        inside.set()
        time.sleep(1)  # lets the other thread take the GIL and call the driver
    return 0

callback = C.CFUNCTYPE(C.c_size_t, C.c_int)(shared_bytes)

def occupancy():
    cu.cuCtxSetCurrent(ctx)
    grid, block = C.c_int(), C.c_int()
    cu.cuOccupancyMaxPotentialBlockSize(R(grid), R(block), kernel, callback, C.c_size_t(0), 0)

def allocate():  # through PyDLL: calls the driver without releasing the GIL
    assert inside.wait(5)
    cu.cuCtxSetCurrent(ctx)
    pointer = C.c_uint64()
    other_lib.cuMemAlloc_v2(R(pointer), 1 << 20)

threads = [threading.Thread(target=f, daemon=True) for f in (occupancy, allocate)]
[t.start() for t in threads]
[t.join() for t in threads]
"""


def _has_cuda() -> bool:
    import ctypes

    try:
        return ctypes.CDLL("libcuda.so.1").cuInit(0) == 0
    except OSError:
        return False


@pytest.mark.skipif(not _has_cuda(), reason="needs a GPU and libcuda")
def test_python_occupancy_callback_deadlocks_with_a_thread_holding_the_gil():
    import subprocess
    import sys

    def finishes(mode: str) -> bool:
        try:
            subprocess.run([sys.executable, "-c", DEADLOCK, mode], timeout=15, check=True)
        except subprocess.TimeoutExpired:
            return False
        return True

    assert finishes("releases-gil")
    assert not finishes("holds-gil")


# -- the second prefilter look ---------------------------------------------------------------

def second_look(rule, code: str, options: dict | None = None, language: str = "python") -> bool:
    return rule.may_fire(code.encode(), rule.resolved_options(options), (3, 12), language)


@pytest.mark.parametrize("code, parsed", [
    ("loop._add_callback(handle)\n", False),  # asyncio's own method: not the CuPy/Numba one
    ("def test_add_callback_twice(self):\n    pass\n", False),
    ("stream.add_callback(cb, None)\n", True),
    ("from cupy.cuda.runtime import launchHostFunc as launch\n", True),
    ("params = cudaHostNodeParams(fn=cb)\n", True),
])
def test_cur201_needs_an_api_by_its_whole_name(code, parsed):
    assert second_look(PythonCallbackIntoCuda, code) is parsed


LIB = "lib = ctypes.CDLL('./libsensor.so')\n"


@pytest.mark.parametrize("code, parsed", [
    ("Proto = CFUNCTYPE(c_int)\ntable = [('i2d', Proto)]\n", False),
    ("prototype = WINFUNCTYPE(BOOL, UINT)\nget = prototype(('GetCPInfoExW', kernel32))\n", False),
    (LIB + "lib.register_sample_callback(OnSample(record))\n", True),
    (LIB + "lib.Set_Error_Callback (\n    Proto(f))\n", True),  # case and blanks
    (LIB + "lib.  \\\n  add_callback(Proto(f))\n", True),
    (LIB + "(lib.register_callback)(Proto(f))\n", True),
    (LIB + "lib.register_callback  # keeps it\n(Proto(f))\n", True),
    (LIB + "lib.ｒｅｇｉｓｔｅｒ(Proto(f))\n", True),  # NFKC makes it `register`
    ("lib: ctypes.CDLL = load()\nlib.register(Proto(f))\n", True),
    ("self.lib.register(Proto(f))\n", True),
    ("ctypes.CDLL('x').register(Proto(f))\n", True),
    ("from numba.cuda.cudadrv.driver import driver\ndriver.register(Proto(f))\n", True),
    ("libcuda.cuLaunchHostFunc(stream, HostFn(f), None)\n", True),
    ("from cuda import cuLaunchHostFunc as launch\n", True),
    ("import codecs\ncodecs.register(search_function)\n", False),  # a module's function
    ("def install(lib):\n    lib.register(Proto(f))\n", False),  # a parameter: not followed
    ("lib == other\nlib.register(Proto(f))\n", False),
    ("ｌｉｂ = ctypes.CDLL('x')\nlib.register(Proto(f))\n", True),  # NFKC: the same name
    # an alias calls it: the library's function is read, not called, where it is bound
    (LIB + "watch = lib.ev_register_watch\nwatch(fd, Proto(f))\n", True),
    ("self._set_log = self.tdjson.td_set_log_message_callback\n", True),
    ("import codecs\nfind = codecs.register\n", False),  # a module's function
    # any name: whether the function keeps the callback is its C definition's to say
    (LIB + "sort = lib.qsort\nsort(items, n, 8, Proto(f))\n", True),
    ("from cffi import FFI\nlib = FFI().dlopen('x')\nlib.set_tick_callback(cb)\n", True),
    # a compiled cffi module's `lib`: imported, never assigned
    ("from ._ev_cffi import ffi, lib\nlib.ev_watch(fd, ffi.callback('void(int)', f))\n", True),
    ("from .helpers import lib\nlib.ev_watch(fd, ffi.callback('void(int)', f))\n", False),
])
def test_cur202_needs_a_call_that_may_keep_the_callback(code, parsed):
    assert second_look(CtypesCallbackLifetime, code) is parsed


@pytest.mark.parametrize("rule, options, code, language, parsed", [
    (PythonCallbackIntoCuda, {"extra-apis": ["enqueue_host"]}, "gpu.enqueue_host(s, fn)", "python",
     True),
    (PythonCallbackIntoCuda, {"extra-apis": ["enqueue_host"]}, "gpu.enqueue_hosts(s, fn)",
     "python", False),
    # Cython calls C functions by name; in Python any foreign call may keep (its C decides)
    (CtypesCallbackLifetime, {"keeping-apis": ["enqueue_[ab]*"]}, "enqueue_a(<void*>f)", "cython",
     True),
    (CtypesCallbackLifetime, {"keeping-apis": ["enqueue_[ab]*"]}, "dequeue_a(<void*>f)", "cython",
     False),
    (CtypesCallbackLifetime, {"keeping-apis": ["enqueue_[ab]*"]}, "x.lib.dequeue_a(P(f))",
     "python", True),
])
def test_configured_names_reach_the_second_look(rule, options, code, language, parsed):
    assert second_look(rule, code, options, language) is parsed


KWARGS_LAUNCHER = """
from numba.cuda.cudadrv.driver import get_context


class GridSizer:
    def __init__(self, kernel, sharedmem=0):
        self.kernel = kernel
        self.sharedmem = sharedmem

    def threads_per_block(self):
        ctx = get_context()
        kwargs = dict(
            func=self.kernel.handle,
            b2d_func={callback},
            memsize=self.sharedmem,
            blocksizelimit=1024,
        )
        {change}
        _, tpb = ctx.get_max_potential_block_size(**kwargs)
        return tpb
"""


@pytest.mark.parametrize("callback, change, found", [
    ("lambda tpb: 0", "", True),  # the incident's own shape
    ("lambda tpb: 0", "kwargs['b2d_func'] = compiled.address", False),  # changed: unknown
    ("no_shared_memory.address", "", False),  # a compiled callback's address
])
def test_a_callback_handed_over_in_kwargs_built_by_dict(callback, change, found):
    """Reported at the call that hands the dict over (where the user acts), the callable's
    own line in the chain."""
    code = KWARGS_LAUNCHER.format(callback=callback, change=change)
    findings = lint(code)
    assert [f.line for f in findings] == ([19] if found else [])
    if found:
        assert findings[0].message.startswith("lambda on line 14 is handed to "
                                              "get_max_potential_block_size")
        assert [(step.line, step.note) for step in findings[0].related] == [
            (14, "lambda on line 14 is put in the call's arguments here")]


@pytest.mark.parametrize("stream, found", [
    ("cupy.cuda.Stream(non_blocking=True)", True),
    ("queue.Queue()", False),  # a queue's launch_host_func is no CUDA API
])
def test_a_stream_kept_in_an_attribute_is_a_stream(stream, found):
    code = f"""\
        import queue

        import cupy


        class Prefetcher:
            def __init__(self):
                self.stream = {stream}
                self.done = []

            def enqueue(self, batch):
                batch.copy_to_device_async(self.stream)
                self.stream.launch_host_func(lambda _: self.done.append(batch), None)
        """
    assert [(f.code, f.line) for f in lint(code)] == ([("CUR201", 13)] if found else [])


def test_cur202_second_look_on_cython_needs_a_keeping_call():
    options = CtypesCallbackLifetime.resolved_options()

    def may_fire(code: str) -> bool:
        return CtypesCallbackLifetime.may_fire(code.encode(), options, (3, 12), "cython")

    sort = 'cdef extern from "s.h":\n    void qsort_r(void* b, void* arg)\nqsort_r(<void*>x, <void*>k)\n'
    assert not may_fire(sort)
    assert may_fire(sort.replace("qsort_r", "ev_Register_watch"))  # (without case)
    assert may_fire("ev_register_watch(cb, <void*>x)\n")  # (declared in a cimported .pxd)
    assert not may_fire("lib.ev_register_watch(<void*>x)\n")  # Cython calls C functions bare
    assert may_fire("cudaLaunchHostFunc(s, fn, <void*>x)\n")
