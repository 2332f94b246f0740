"""The CUDA and ctypes APIs that Python callbacks meet: the functions that hand a callable on to
the driver and when the driver calls it (`CALLBACK_APIS`), the CuPy and Numba streams whose
methods do, graph host-node parameter structs, ctypes prototypes and the pointer conversions
that pass a callable through, the CUDA functions that call back after they return, and ctypes
libraries. CUR201 and CUR202 read them through `analysis.callbacks`.
"""

from __future__ import annotations

from msgspec import Struct


class Callback(Struct, frozen=True):
    """When the driver calls a host callback, and how to replace a Python one."""

    when: str
    fix: str


OCCUPANCY = Callback(
    "from inside the call while holding a driver lock",
    "pass a compiled function instead: `numba.cfunc(sig)(f).address` (or `.ctypes`), or a C "
    "function from a loaded shared library",
)
HOST_FUNCTION = Callback(
    "later, from the driver's callback thread, blocking the stream until it returns",
    "record an event after the work and do the Python part on a host thread that waits for "
    "it, or enqueue a compiled function (`numba.cfunc(sig)(f).address`)",
)
CONFIGURED = Callback(
    "back from the driver",
    "pass a compiled function instead: `numba.cfunc(sig)(f).address`, or a C function",
)
DESTRUCTOR = Callback(
    "from a shared internal driver thread when the object's last reference goes",
    "pass a compiled destructor (`numba.cfunc(sig)(f).address`, or a C function)",
)


class CallbackApi(Struct, frozen=True):
    """A function that passes a callable on to the driver. `slot` is the callback's (index,
    keyword), for APIs whose other arguments may be any Python object; None: any argument (the
    C functions, whose argument order differs between ctypes, cuda-python and numba). With
    `stream_method`, the name is a method found only on a CuPy or Numba stream object."""

    callback: Callback
    slot: tuple[int, str] | None = None
    stream_method: bool = False


_ANY_OCCUPANCY = CallbackApi(OCCUPANCY)
_ANY_HOST_FUNCTION = CallbackApi(HOST_FUNCTION)
CALLBACK_APIS: dict[str, CallbackApi] = {
    # driver and runtime C API, through ctypes (`libcuda.cuLaunchHostFunc`), cuda-python
    # (`cuda.cuda`, `cuda.cudart`, `cuda.bindings.driver/runtime`) or numba's `driver` object
    "cuOccupancyMaxPotentialBlockSize": _ANY_OCCUPANCY,
    "cuOccupancyMaxPotentialBlockSizeWithFlags": _ANY_OCCUPANCY,
    "cudaOccupancyMaxPotentialBlockSizeVariableSMem": _ANY_OCCUPANCY,
    "cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags": _ANY_OCCUPANCY,
    "cuLaunchHostFunc": _ANY_HOST_FUNCTION,
    "cudaLaunchHostFunc": _ANY_HOST_FUNCTION,
    "cuStreamAddCallback": _ANY_HOST_FUNCTION,
    "cudaStreamAddCallback": _ANY_HOST_FUNCTION,
    "cuGraphAddHostNode": _ANY_HOST_FUNCTION,
    "cudaGraphAddHostNode": _ANY_HOST_FUNCTION,
    "cuGraphHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cudaGraphHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cuGraphExecHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cudaGraphExecHostNodeSetParams": _ANY_HOST_FUNCTION,
    "cuUserObjectCreate": CallbackApi(DESTRUCTOR),
    "cudaUserObjectCreate": CallbackApi(DESTRUCTOR),
    # numba's driver wrapper: Context.get_max_potential_block_size (the incident's call)
    "get_max_potential_block_size": CallbackApi(OCCUPANCY, (1, "b2d_func")),
    # CuPy's runtime module (`cupy.cuda.runtime`) takes the Python callable itself
    "launchHostFunc": CallbackApi(HOST_FUNCTION, (1, "callback")),
    "streamAddCallback": CallbackApi(HOST_FUNCTION, (1, "callback")),
    # CuPy and Numba stream objects
    "add_callback": CallbackApi(HOST_FUNCTION, (0, "callback"), stream_method=True),
    "launch_host_func": CallbackApi(HOST_FUNCTION, (0, "callback"), stream_method=True),
}
"""Function name (the last part of the called name) -> how it passes a callback on."""

STREAM_FACTORIES = frozenset({
    "cupy.cuda.Stream", "cupy.cuda.ExternalStream", "cupy.cuda.get_current_stream",
    "cupy.cuda.stream.Stream", "cupy.cuda.stream.ExternalStream",
    "cupy.cuda.stream.get_current_stream", "numba.cuda.stream", "numba.cuda.default_stream",
    "numba.cuda.legacy_default_stream", "numba.cuda.per_thread_default_stream",
    "numba.cuda.external_stream",
})
STREAM_OBJECTS = frozenset({
    "cupy.cuda.Stream.null", "cupy.cuda.Stream.ptds", "cupy.cuda.stream.Stream.null",
    "cupy.cuda.stream.Stream.ptds",
})
HOST_NODE_PARAMS = frozenset({"CUDA_HOST_NODE_PARAMS", "CUDA_HOST_NODE_PARAMS_v1",
                              "cudaHostNodeParams"})
"""Struct types whose `fn` field the driver calls when a graph host node runs."""


def callback_words(extra_apis=()) -> tuple[str, ...]:
    """The names a module must hold to hand a callable to the driver: the APIs, the host-node
    parameter structs, and `extra_apis` (more API names a configuration adds)."""
    return (*CALLBACK_APIS, *HOST_NODE_PARAMS, *extra_apis)


PROTOTYPE_FACTORIES = frozenset({"ctypes.CFUNCTYPE", "ctypes.PYFUNCTYPE", "ctypes.WINFUNCTYPE"})
KNOWN_PROTOTYPES = frozenset({
    "numba.cuda.cudadrv.drvapi.cu_occupancy_b2d_size",
    "numba.cuda.cudadrv.drvapi.cu_stream_callback_pyobj",
})
FUNCTION_POINTER_TYPES = frozenset({"CUhostFn", "cudaHostFn_t", "CUstreamCallback",
                                    "cudaStreamCallback_t", "CUoccupancyB2DSize"})
"""Callback types of cuda-python (`cudaHostFn_t(_ptr=address)`, `CUhostFn(address)`) and
common ctypes spellings: called with one value, they pass it through."""
POINTER_CASTS = frozenset({"ctypes.cast", "ctypes.addressof"})
CAPSULE_MAKERS = frozenset({"jax.ffi.pycapsule", "jax.extend.ffi.pycapsule",
                            "ctypes.pythonapi.PyCapsule_New"})
"""Functions that wrap a pointer (their first argument) in a PyCapsule holding no reference to
the object it points into (`jax.ffi.pycapsule` calls `PyCapsule_New(ptr, None, NULL)`)."""
PERMANENT_KEEPERS = frozenset({
    "jax.ffi.register_ffi_target", "jax.extend.ffi.register_ffi_target",
    "jax.lib.xla_client.register_custom_call_target",
    "jaxlib.xla_client.register_custom_call_target",
})
"""Registries that keep a handler's function pointer for the rest of the process, with no way to
take it back: XLA's custom-call targets, looked up by name whenever a program calls them."""

class RemovingFlag(Struct, frozen=True):
    """The argument of a keeping API that, with a constant zero (or, with `below_one`, any
    constant under one), makes the call take its callback back rather than keep it."""

    position: int
    below_one: bool = False


REMOVING_FLAGS: dict[str, RemovingFlag] = {
    "SetConsoleCtrlHandler": RemovingFlag(1),  # `Add`: FALSE removes the handler
    "sqlite3_trace_v2": RemovingFlag(1),  # `uMask` 0 clears the callback
    "sqlite3_progress_handler": RemovingFlag(1, below_one=True),  # `N` < 1 clears it
}
"""Foreign functions (by name) that add or remove a callback by a flag argument."""

ASYNC_CUDA_APIS = frozenset({
    "cuLaunchHostFunc", "cudaLaunchHostFunc", "cuStreamAddCallback", "cudaStreamAddCallback",
    "cuUserObjectCreate", "cudaUserObjectCreate",
})
"""CUDA functions that return before they call the callback (on the driver's thread)."""

LIBRARY_LOADERS = frozenset({
    "ctypes.CDLL", "ctypes.PyDLL", "ctypes.WinDLL", "ctypes.OleDLL", "ctypes.cdll.LoadLibrary",
    "ctypes.pydll.LoadLibrary", "ctypes.windll.LoadLibrary",
})
LIBRARY_OBJECTS = ("ctypes.cdll.", "ctypes.pydll.", "ctypes.windll.", "ctypes.oledll.")
"""The prefixes of a library's qualified name loaded by attribute (`ctypes.cdll.libc`)."""
FFI_FACTORIES = frozenset({"cffi.FFI", "cffi.api.FFI"})
"""cffi's `FFI()`: its `dlopen(...)` loads a library, its `callback(cdecl, f)` (or
`@ffi.callback(cdecl)`) makes a C function pointer of a Python callable, which C may call only
while the returned object lives."""
NUMBA_DRIVER = frozenset({"numba.cuda.cudadrv.driver.driver"})
"""numba's driver object, whose attributes are the driver's C functions."""
