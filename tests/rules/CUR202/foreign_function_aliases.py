"""CUR202: the foreign function reached through an alias (a module-level name, a local, an
attribute a method binds) keeps a callback: the alias's target is what the keeping patterns
read, whatever the alias is called. Prototypes kept in attributes decorate too. The
look-alikes keep the callback for the process's life, or alias a function that calls back only
while it runs, or alias something that is not a library's function."""
import ctypes

WATCH = ctypes.CFUNCTYPE(None, ctypes.c_int)
ORDER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

engine = ctypes.CDLL("libengine.so")
libc = ctypes.cdll.LoadLibrary("libc.so.6")

watch_fd = engine.engine_register_watch
sort_in_place = libc.qsort
_WATCHERS = []


def add_watcher(fd):
    handler = WATCH(lambda events: print(fd, events))
    watch_fd(fd, handler)  # error: CUR202@18


def add_kept_watcher(fd):
    handler = WATCH(lambda events: print(fd, events))  # ok: CUR202 (kept on a module list)
    _WATCHERS.append(handler)
    watch_fd(fd, handler)


def order(items, count):
    compare = ORDER(lambda left, right: 0)  # ok: CUR202 (qsort calls it only while it runs)
    sort_in_place(items, count, 8, compare)


def count_windows():
    enumerate_windows = ctypes.windll.user32.EnumWindows
    found = []
    visit = ORDER(lambda window, data: found.append(window) or 1)  # ok: CUR202 (an enumeration: called only during the call)
    enumerate_windows(visit, 0)
    return len(found)


def install_local_alias(fd):
    set_handler = engine.engine_set_handler
    set_handler(fd, WATCH(lambda events: print(events)))  # error: CUR202


def not_a_library(registry, fd):
    register = registry.register
    register(fd, WATCH(lambda events: print(events)))  # ok: CUR202 (a parameter's method, not a library's function)


class Session:
    def __init__(self, path):
        self.native = ctypes.CDLL(path)
        self.message_type = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)
        self._on_message = self.native.session_set_message_callback
        self._logger = self.message_type(self._log)  # ok: CUR202 (kept by the object)
        self._on_message(self._logger)

    def _log(self, level, text):
        print(level, text)

    def quiet(self):
        @self.message_type
        def drop(level, text):
            pass

        self._on_message(drop)  # error: CUR202@26
