"""Windows hook and timer callbacks run inside the message loop of the thread that handed them
over: a local holding the callback is alive for them while its function takes the thread's
messages after the handoff (itself, or through a method or function it calls), and dies with a
function that returns, or took them only before."""

import ctypes
from ctypes import wintypes

user32 = ctypes.WinDLL("user32", use_last_error=True)
HOOKPROC = ctypes.WINFUNCTYPE(ctypes.c_ssize_t, ctypes.c_int, wintypes.WPARAM, wintypes.LPARAM)
TIMERPROC = ctypes.WINFUNCTYPE(None, wintypes.HWND, wintypes.UINT, ctypes.c_size_t,
                               wintypes.DWORD)
WH_MOUSE_LL = 14


def listen_to_mouse(events):
    def on_mouse(code, wparam, lparam):
        events.put(wparam)
        return user32.CallNextHookEx(None, code, wparam, lparam)

    mouse_proc = HOOKPROC(on_mouse)
    hook = user32.SetWindowsHookExW(WH_MOUSE_LL, mouse_proc, None, 0)  # ok: CUR202 (runs in the loop)
    message = wintypes.MSG()
    while user32.GetMessageW(ctypes.byref(message), None, 0, 0) > 0:
        user32.TranslateMessage(ctypes.byref(message))
        user32.DispatchMessageW(ctypes.byref(message))
    user32.UnhookWindowsHookEx(hook)


def tick_until_quit(on_tick):
    timer_proc = TIMERPROC(lambda hwnd, msg, timer, now: on_tick(now))
    timer = user32.SetTimer(None, 0, 250, timer_proc)  # ok: CUR202 (runs in the loop)
    message = wintypes.MSG()
    while True:
        if user32.PeekMessageW(ctypes.byref(message), None, 0, 0, 1):
            if message.message == 0x0012:  # WM_QUIT
                break
            user32.DispatchMessageW(ctypes.byref(message))
    user32.KillTimer(None, timer)


def drain_then_hook(events):
    def on_mouse(code, wparam, lparam):
        events.put(wparam)
        return user32.CallNextHookEx(None, code, wparam, lparam)

    message = wintypes.MSG()
    while user32.PeekMessageW(ctypes.byref(message), None, 0, 0, 1):
        user32.DispatchMessageW(ctypes.byref(message))
    mouse_proc = HOOKPROC(on_mouse)
    return user32.SetWindowsHookExW(WH_MOUSE_LL, mouse_proc, None, 0)  # error: CUR202@50


def hook_and_return(events):
    def on_mouse(code, wparam, lparam):
        events.put(wparam)
        return user32.CallNextHookEx(None, code, wparam, lparam)

    mouse_proc = HOOKPROC(on_mouse)
    return user32.SetWindowsHookExW(WH_MOUSE_LL, mouse_proc, None, 0)  # error: CUR202@50


class MouseListener:
    """The hook's function runs the message loop through its own methods, after the handoff:
    the decorated local lives as long as the hook can be called."""

    def __init__(self, events):
        self.events = events
        self.hooked = False

    def hook(self):
        @HOOKPROC
        def on_mouse(code, wparam, lparam):
            self.events.put(wparam)
            return user32.CallNextHookEx(None, code, wparam, lparam)

        self.hooked = True
        self.hook_id = user32.SetWindowsHookExW(WH_MOUSE_LL, on_mouse, None, 0)  # ok: CUR202 (the loop)
        self.listen()

    def listen(self):
        while self.hooked:
            self._pump()

    def _pump(self):
        message = wintypes.MSG()
        while user32.PeekMessageW(ctypes.byref(message), None, 0, 0, 1):
            if message.message == 0x0012:  # WM_QUIT
                self.hooked = False
                user32.UnhookWindowsHookEx(self.hook_id)
            user32.DispatchMessageW(ctypes.byref(message))


class DetachedListener:
    """Its methods after the handoff take no messages: the local dies when `hook` returns."""

    def __init__(self, events):
        self.events = events

    def hook(self):
        @HOOKPROC
        def on_mouse(code, wparam, lparam):
            self.events.put(wparam)
            return user32.CallNextHookEx(None, code, wparam, lparam)

        self.hook_id = user32.SetWindowsHookExW(WH_MOUSE_LL, on_mouse, None, 0)  # error: CUR202@62
        self.record()

    def record(self):
        self.events.put(("hooked", self.hook_id))
