"""The fact behind CUR202's callback that drops its own object (`analysis.callback_self_release`):
a ctypes callback object whose callback clears the only attribute holding it is freed while C
is still running it. C calling a pointer it kept is a prototype made from the bare address (it
holds no reference to the object); the callable's `__del__` marks when the object goes. Run in
a child process: returning through the freed trampoline may crash it."""

import subprocess
import sys

_SCRIPT = """
import ctypes, gc, sys
DONE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)
events = []

class Callable:
    def __init__(self, owner):
        self.owner = owner
    def __call__(self, status):
        self.owner.close()
        gc.collect()  # (a collection while the callback runs: any allocation may start one)
        events.append("callback returns")
        return status
    def __del__(self):
        events.append("object freed")

class Transfer:
    shared = None
    def __init__(self, keep_on_class):
        thunk = DONE(Callable(self))
        if keep_on_class:
            Transfer.shared = thunk
        self.on_done = thunk
    def close(self):
        self.on_done = None

transfer = Transfer(sys.argv[1] == "class")
DONE(ctypes.cast(transfer.on_done, ctypes.c_void_p).value)(1)  # C calls the pointer it kept
events.append("C call returned")
Transfer.shared = None
gc.collect()
print(",".join(events))
"""


def _events(keep: str) -> list[str] | None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT, keep], capture_output=True,
                          text=True, timeout=60)
    return done.stdout.strip().split(",") if done.returncode == 0 else None


def test_the_object_is_freed_before_c_returns_from_it():
    events = _events("attribute")
    assert events is None or events.index("object freed") < events.index("C call returned")


def test_an_object_kept_elsewhere_outlives_the_call():
    events = _events("class")
    assert events is not None and \
        events.index("C call returned") < events.index("object freed")
