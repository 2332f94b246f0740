"""Windows hook and timer callbacks run inside the message loop of the thread that handed them
over: a local holding the callback is alive for them while its function takes the thread's
messages after the handoff, and dies with a function that returns, or took them only before."""

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
