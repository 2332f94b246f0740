"""The foreign-call model (`analysis.callbacks.foreign_function`): which calls go to a ctypes
library's function, directly or through an alias, and the name the library knows it by."""

from __future__ import annotations

import ast
import textwrap

import pytest

from cursedlint.analysis.callbacks import foreign_function
from cursedlint.python.context import PythonContext
from cursedlint.settings import Settings
from cursedlint.source import Source


def called(text: str) -> str | None:
    """The foreign function the last call of `text` calls (by the library's name), or None."""
    text = textwrap.dedent(text)
    tree = ast.parse(text)
    context = PythonContext(Source.from_text("m.py", text, "python"),
                            Settings(enabled=frozenset()), tree)
    call = max((node for node in ast.walk(tree) if isinstance(node, ast.Call)),
               key=lambda node: (node.lineno, node.col_offset))
    return foreign_function(context, call.func)


@pytest.mark.parametrize("text, expected", [
    ("import ctypes\nlib = ctypes.CDLL('x')\nlib.ev_watch(1)", "ev_watch"),
    ("import ctypes\nlib = ctypes.cdll.LoadLibrary('x')\nwatch = lib.ev_watch\nwatch(1)",
     "ev_watch"),
    ("import ctypes\nlibc = ctypes.cdll.libc\nsort = libc.qsort\nsort(1)", "qsort"),
    ("import ctypes\nenum = ctypes.windll.user32.EnumWindows\nenum(1)", "EnumWindows"),
    ("""
     import ctypes
     def install():
         lib = ctypes.CDLL('x')
         hook = lib.set_hook
         hook(1)
     """, "set_hook"),
    ("""
     import ctypes
     class Client:
         def __init__(self, path):
             self.native = ctypes.CDLL(path)
         def bind(self):
             self._send = self.native.client_send
         def go(self):
             self._send(1)
     """, "client_send"),
    ("""
     from ctypes import CDLL
     class Client:
         def __init__(self, path):
             self._lib = CDLL(path)
         def go(self):
             self._lib.client_send(1)
     """, "client_send"),
    ("import cffi\nffi = cffi.FFI()\nlib = ffi.dlopen('x')\nf = lib.on_tick\nf(1)", "on_tick"),
    ("""
     from cffi import FFI
     class Client:
         def __init__(self):
             self.ffi = FFI()
             self.lib = self.ffi.dlopen('x')
         def go(self):
             self.lib.client_send(1)
     """, "client_send"),
    # a function of the module that returns the library it loads
    ("""
     import ctypes, ctypes.util
     def _load_library(name):
         path = ctypes.util.find_library(name)
         handle = ctypes.CDLL(path)
         return handle
     _snd = _load_library("snd")
     _snd.snd_open(1)
     """, "snd_open"),
    # an out-of-line cffi module's `lib`, imported with its `ffi`
    ("from ._ev_cffi import ffi, lib\nlib.ev_io_start(1)", "ev_io_start"),
])
def test_a_library_function_is_named_by_the_library_whatever_the_alias(text, expected):
    assert called(text) == expected


@pytest.mark.parametrize("text", [
    "import codecs\nfind = codecs.register\nfind(1)",  # a module's function
    "from .helpers import lib\nlib.ev_io_start(1)",  # a `lib` imported without its `ffi`
    # a module function returning something other than a library
    "def _load():\n    return open('x')\nlib = _load()\nlib.ev_watch(1)",
    "def install(registry):\n    register = registry.register\n    register(1)",  # a parameter's
    # bound twice: which one is called is not known
    "import ctypes\nlib = ctypes.CDLL('x')\nf = lib.a\nf = lib.b\nf(1)",
    """
    import ctypes
    class Client:
        def __init__(self, path):
            self._lib = ctypes.CDLL(path)
            self._send = self._lib.send
        def retarget(self, other):
            self._send = other.send
        def go(self):
            self._send(1)
    """,  # the attribute is bound to two values
    "import ctypes\nlib = ctypes.CDLL('x')\ndef f(): pass\nf()",
    "from mylib import ffi\nlib = ffi.dlopen('x')\nlib.on_tick(1)",  # not known to be cffi's
])
def test_anything_else_is_no_foreign_function(text):
    assert called(text) is None


def test_loader_words_read_once_per_tree_for_each_context():
    """Whether a module's text may name a loader is read once per tree (`derived`): the
    lint's context and the index's of the same tree both find the library a module-level
    loader function returns, and a look-alike that names no loader word finds none."""
    from cursedlint.analysis.foreign_keeping import module_loaders, may_be_library

    loading = textwrap.dedent("""
        import ctypes
        def _load(path):
            return ctypes.CDLL(path)
        lib = _load("libev.so")
        lib.ev_watch(1)
        """)
    plain = textwrap.dedent("""
        import json
        def _load(path):
            return json.load(open(path))
        lib = _load("settings.json")
        lib.get(1)
        """)
    for text, loaders, library in ((loading, {"_load"}, "ev_watch"), (plain, set(), None)):
        tree = ast.parse(text)
        first = PythonContext(Source.from_text("m.py", text, "python"),
                              Settings(enabled=frozenset()), tree)
        again = PythonContext(first.source, first.settings, tree, first.tree_index)
        call = tree.body[-1].value
        for context in (first, again):
            assert module_loaders(context) == loaders
            assert may_be_library(context, call.func.value) is (library is not None)
            assert foreign_function(context, call.func) == library
