"""Each kernel registers a ctypes trampoline as an XLA FFI target; XLA keeps the target's
address for the rest of the process, whoever still holds the kernel object."""

import ctypes

import jax
from jax.lib import xla_client


class CallFrame(ctypes.Structure):
    _fields_ = [("api_version", ctypes.c_int), ("args", ctypes.c_void_p)]


HANDLER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(CallFrame))
_BY_NAME = {}
_HANDLERS = {}


class FfiKernel:
    def __init__(self, name, launch):
        self.name = name
        self.launch = launch
        self.handler = HANDLER(lambda frame: self.run(frame))
        address = ctypes.cast(self.handler, ctypes.c_void_p)
        capsule = jax.ffi.pycapsule(address.value)
        jax.ffi.register_ffi_target(self.name, capsule, platform="CUDA")  # error: CUR202@48

    def run(self, frame):
        self.launch(frame.contents.args)

    def __call__(self, *arrays):
        return jax.ffi.ffi_call(self.name, arrays[0])(*arrays)


def ffi_kernel(name, launch):
    """Returned to the caller: XLA outlives any caller that drops it."""
    return FfiKernel(name, launch)


class LegacyTarget:
    def __init__(self, name, body):
        self.body = body
        self.trampoline = HANDLER(self.call)
        xla_client.register_custom_call_target(
            name, jax.ffi.pycapsule(ctypes.cast(self.trampoline, ctypes.c_void_p).value),  # error: CUR202@19
            platform="CUDA", api_version=0)

    def call(self, frame):
        self.body(frame)


def legacy_target(name, body):
    return LegacyTarget(name, body)


class CachedKernel:
    def __init__(self, name, launch):
        self.launch = launch
        self.handler = HANDLER(lambda frame: self.launch(frame))
        jax.ffi.register_ffi_target(
            name, jax.ffi.pycapsule(ctypes.cast(self.handler, ctypes.c_void_p).value))


def cached_kernel(name, launch):
    """Kept in a module-level registry for the process, as long as XLA keeps the target."""
    kernel = CachedKernel(name, launch)
    _BY_NAME[name] = kernel
    return kernel


def register_function(name, body):
    """The trampoline is kept at module level under the target's name."""
    handler = HANDLER(body)
    _HANDLERS[name] = handler
    capsule = jax.ffi.pycapsule(ctypes.cast(handler, ctypes.c_void_p).value)
    jax.ffi.register_ffi_target(name, capsule, platform="CUDA")
