"""GPU kernels exposed to JAX as XLA FFI targets through ctypes trampolines."""
