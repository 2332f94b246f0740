"""A call that takes a callback back keeps nothing: a function whose name says it removes one
(and says no adding), or a keeping API called with its flag of removal (a constant zero). The
same APIs called to add, names of adding that hold a word of removal, and flags the module
computes are kept as before."""

import ctypes
from ctypes import wintypes

kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
HandlerRoutine = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.DWORD)
_set_ctrl_handler = kernel32.SetConsoleCtrlHandler

sqlite = ctypes.CDLL("libsqlite3.so.0")
Progress = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
Trace = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.c_void_p)

media = ctypes.CDLL("libmedia.so.3")
EventFilter = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
OnEvent = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def on_ctrl(kind):
    return 1 if kind == 0 else 0


def wait_interruptibly(wait):
    _set_ctrl_handler(HandlerRoutine(on_ctrl), 1)  # error: CUR202@23
    try:
        wait()
    finally:
        _set_ctrl_handler(HandlerRoutine(on_ctrl), 0)  # ok: CUR202 (Add = FALSE removes)


def quiet_console():
    kernel32.SetConsoleCtrlHandler(HandlerRoutine(on_ctrl), False)  # ok: CUR202 (removes)
    kernel32.SetConsoleCtrlHandler(HandlerRoutine(on_ctrl), True)  # error: CUR202@36


def ctrl_handler_by_flag(add):
    kernel32.SetConsoleCtrlHandler(HandlerRoutine(on_ctrl), add)  # error: CUR202@36


def keep_going(_):
    return 0


def trace_line(kind, context, statement, extra):
    return 0


def run_query(db, sql):
    sqlite.sqlite3_progress_handler(db, 0, Progress(keep_going), None)  # ok: CUR202 (N < 1)
    sqlite.sqlite3_progress_handler(db, -1, Progress(keep_going), None)  # ok: CUR202 (N < 1)
    sqlite.sqlite3_trace_v2(db, 0, Trace(trace_line), None)  # ok: CUR202 (mask 0 clears it)
    sqlite.sqlite3_exec(db, sql, None, None, None)


def trace_queries(db):
    sqlite.sqlite3_progress_handler(db, 1000, Progress(keep_going), None)  # error: CUR202@47
    sqlite.sqlite3_trace_v2(db, 1, Trace(trace_line), None)  # error: CUR202@36


def on_event(source, event):
    print(source, event)


def drop_filter(events):
    media.MED_DelEventWatch(EventFilter(lambda data, event: 1), None)  # ok: CUR202 (removal)
    media.med_event_detach(events, 3, OnEvent(on_event), None)  # ok: CUR202 (removal)
    media.med_deregister_listener(OnEvent(on_event))  # ok: CUR202 (removal)


def watch(events):
    media.MED_AddEventWatch(EventFilter(lambda data, event: 1), None)  # error: CUR202@29
    media.med_set_remove_callback(events, OnEvent(on_event))  # error: CUR202@43
    media.med_on_delete(events, OnEvent(on_event))  # error: CUR202@33
    media.med_model_watch(events, OnEvent(on_event))  # error: CUR202@35
