"""The Cython front end (`python.cython`): the Python reading of Cython syntax keeps every line
and column, the facts it keeps beside the tree, and what happens to a file it cannot read."""

from __future__ import annotations

import ast
import random
import re
import textwrap
import time

import pytest

from cursedlint.languages import CYTHON, language_of
from cursedlint.python.cython import (
    _function_type, _without_name_string, parse_cython, translate,
)
from cursedlint.rules.native_callbacks import CtypesCallbackLifetime, PythonCallbackIntoCuda

import harness

SYNTAX = textwrap.dedent('''\
    # cython: language_level=3
    cimport cython
    from libc.stdlib cimport malloc, free
    from cpython.ref cimport Py_INCREF, Py_DECREF
    include "config.pxi"

    DEF BLOCK = 256

    IF UNAME_SYSNAME == "Windows":
        cdef int PLATFORM = 1
    ELIF UNAME_SYSNAME == "Darwin":
        cdef int PLATFORM = 2
    ELSE:
        cdef int PLATFORM = 0

    ctypedef fused number:
        int
        double

    ctypedef unsigned long long handle_t
    ctypedef void _DoneDef(void* data)
    ctypedef _DoneDef* done_fn "done_fn_t"
    ctypedef done_fn done_alias

    cdef extern from "pipeline.h" nogil:
        """
        static int ring_depth(void) { return 4; }
        """
        ctypedef struct ring_t:
            int head
        int ring_push(ring_t* ring, void (*on_drain)(void*), void* user)
        int ring_sort(ring_t* ring, int (*compare)(const void*, const void*))
        int ring_done(ring_t* ring, done_alias fn, void* user)

    cdef struct pair:
        int a
        double b

    cdef public class Buffer [object BufferObject, type BufferType]:
        cdef readonly Py_ssize_t size
        cdef double* data
        cdef:
            object owner
            int flags

        def __cinit__(self, Py_ssize_t size, object owner=None):
            self.data = <double*>malloc(size * sizeof(double))

        cdef inline double get(self, Py_ssize_t i) nogil except? -1:
            return self.data[i]

        cpdef double total(self, double[:, ::1] weights not None, unsigned char tag[4]):
            cdef Py_ssize_t i, j
            cdef double acc = 0.0, *cursor = self.data
            for j from 0 <= j < weights.shape[1] by 2:
                acc += weights[0, j] * cursor[j]
            return acc

        property capacity:
            def __get__(self):
                return self.size

    cdef number twice(number x) noexcept nogil:
        return x * 2

    cdef (int, int) bounds(int n):
        return 0, n

    cdef void drained(void* user) noexcept with gil:
        obj = <object>user
        Py_DECREF(obj)

    def run(Buffer buf, list items, int n=3):
        cdef ring_t ring
        cdef int* counts = <int*>malloc(n * sizeof(int*))
        cdef long size = sizeof(unsigned long int)
        cdef unsigned char[::1] view = (<unsigned char[:(n + 1):1]>(<char*>counts))[:n]
        cdef:
            int k = 0
            object kept = (buf, items)
        Py_INCREF(kept)
        with nogil:
            ring_push(&ring, drained, <void*>kept)
            with gil:
                print(f"{(<object>kept)!r}", <long>k, 0x7fffffffUL)
        cdef int (*fn)(int) noexcept nogil
        (<int (*)(int*) noexcept nogil>fn)(&k)
        on_close(<function[void (int, shared_ptr[void]) except *]>nullptr, <shared_ptr[void]>nullptr)
        free(counts)
        return twice[int](n)
    ''')


def test_every_line_and_column_is_kept():
    python, _ = translate(SYNTAX)
    assert len(python) == len(SYNTAX)
    assert [i for i, c in enumerate(python) if c == "\n"] == \
        [i for i, c in enumerate(SYNTAX) if c == "\n"]
    tree = ast.parse(python)
    lines = SYNTAX.splitlines()
    names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    assert names
    for node in names:  # every name is where the Cython text has it
        assert lines[node.lineno - 1][node.col_offset:].startswith(node.id), node.id
    calls = {node.func.id: node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    push = calls["ring_push"]
    assert lines[push.lineno - 1].index("ring_push") == push.col_offset


def test_cdef_functions_classes_and_blocks_become_python():
    tree, _ = parse_cython(SYNTAX)
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert {"__cinit__", "get", "total", "twice", "bounds", "drained", "run", "__get__"} <= \
        set(functions)
    assert [arg.arg for arg in functions["total"].args.args] == ["self", "weights", "tag"]
    assert [arg.arg for arg in functions["run"].args.args] == ["buf", "items", "n"]
    classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    assert classes == {"Buffer", "capacity"}
    nogil = [node for node in ast.walk(tree) if isinstance(node, ast.With)
             and node.items[0].context_expr.id == "nogil"]
    assert len(nogil) == 1  # `with nogil:` and `with gil:` stay as Python reads them
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert {"malloc", "free", "Py_INCREF", "Py_DECREF"} <= imported


def test_facts_beside_the_tree():
    _, facts = translate(SYNTAX)
    drained = facts.functions["drained"]
    assert (drained.kind, drained.with_gil, drained.nogil) == ("cdef", True, False)
    assert facts.functions["get"].nogil and facts.functions["total"].kind == "cpdef"
    assert facts.functions["total"].params[2].type == "unsigned char[4]"
    assert [param.callback for param in facts.externs["ring_push"]] == [False, True, False]
    assert [param.callback for param in facts.externs["ring_sort"]] == [False, True]
    assert [param.callback for param in facts.externs["ring_done"]] == [False, True, False]
    assert {"done_fn", "done_alias"} <= facts.callback_types
    assert "handle_t" not in facts.callback_types
    lines = SYNTAX.splitlines()
    push = next(n for n, line in enumerate(lines, 1) if "ring_push(&ring" in line)
    kept = lines[push - 1].index("<void*>kept") + len("<void*>")
    assert facts.casts[(push, kept)] == "void*"
    assert (push, lines[push - 1].index("&ring") + 1) in facts.addresses
    run = next(n for n, line in enumerate(lines, 1) if line.startswith("def run("))
    assert facts.c_type(run, "kept") == "object" and facts.c_type(run, "counts") == "int*"
    assert facts.c_type(run, "n") == "int" and facts.c_type(run, "items") == "list"
    assert facts.c_type(run, "PLATFORM") == "int"  # a module-level declaration
    buffer = next(n for n, line in enumerate(lines, 1) if line.startswith("cdef public class"))
    assert facts.c_type(buffer, "data") == "double*" and facts.c_type(run, "data") is None
    assert facts.c_type(buffer, "size") == "Py_ssize_t"  # (`readonly` is no part of the type)
    assert facts.includes == ("config.pxi",)


@pytest.mark.parametrize("name", ["a.pyx", "b.pxd", "c.pxi", "D.PYX"])
def test_discovery_reads_cython_files(name):
    assert language_of(f"pkg/{name}") == CYTHON


def test_a_file_it_cannot_read_is_a_syntax_error_notice_not_a_crash():
    findings = harness.lint("""
        cdef extern from "cuda.h":
            int cuLaunchHostFunc(void* stream, void* fn, void* data)

        def report(value):
            print "launched", value
        """, [PythonCallbackIntoCuda, "CUR001"], language="cython")
    [finding] = findings
    assert finding.code == "CUR001" and finding.line == 6
    assert finding.message.startswith("syntax error (in its Python reading)")


def test_suppression_comments_work_in_cython():
    code = """
        cdef extern from "cuda.h":
            ctypedef void (*CUhostFn)(void*)
            int cuLaunchHostFunc(void* stream, CUhostFn fn, void* data)

        cdef void notify(void* data) noexcept with gil:
            print("done")

        def enqueue(stream):
            cuLaunchHostFunc(<void*>stream, notify, NULL)  # noqa: CUR201
            cuLaunchHostFunc(<void*>stream, notify, NULL)
        """
    [finding] = harness.lint(code, PythonCallbackIntoCuda, language="cython")
    assert (finding.code, finding.line, finding.column) == ("CUR201", 11, 37)


def test_a_lambda_handed_over_in_cython_is_python_not_a_cdef_function():
    code = """
        from cuda.bindings import driver

        def enqueue(stream):
            driver.cuLaunchHostFunc(stream, lambda data: print("done"), None)
        """
    [finding] = harness.lint(code, PythonCallbackIntoCuda, language="cython")
    assert (finding.code, finding.line) == ("CUR201", 5)


def test_one_shot_reference_chain_names_the_incref_and_the_decref():
    code = """
        cimport cpython

        cdef extern from "cuda_runtime.h" nogil:
            ctypedef void (*cudaHostFn_t)(void*)
            int cudaLaunchHostFunc(void* stream, cudaHostFn_t fn, void* data)

        cdef void once(void* data) noexcept with gil:
            obj = <object>data
            cpython.Py_DECREF(obj)
            obj()

        def launch(stream, callback):
            cpython.Py_INCREF(callback)
            cudaLaunchHostFunc(<void*>stream, once, <void*>callback)
        """
    # a parameter: its caller's to keep (and the one-shot release is not followed into callers)
    assert harness.lint(code, CtypesCallbackLifetime, language="cython") == []
    findings = harness.lint(code.replace("cpython.Py_INCREF(callback)",
                                         "held = callback; cpython.Py_INCREF(held)")
                                .replace("<void*>callback", "<void*>held"),
                            CtypesCallbackLifetime, language="cython")
    [finding] = findings
    assert [step.line for step in finding.related] == [14, 10, 15]
    assert finding.message == ("<void*> user data of cudaLaunchHostFunc: once() releases it on "
                               "its first call, but a captured graph calls it again")


@pytest.mark.parametrize("piece", [
    "<void*>x, &y, sizeof(int*), ",  # casts, addresses, type stars on one long line
    "a < b > c, ",                   # comparisons that look like casts
    "f(*args), ",
])
def test_translation_time_is_linear_in_a_long_line(piece):
    def seconds(count: int) -> float:
        text = "def f():\n    g(" + piece * count + ")\n"
        start = time.process_time()  # CPU time: a loaded machine's waits are not the code's
        translate(text)
        return time.process_time() - start

    seconds(200)  # (warm the regular expressions)
    small, large = min(seconds(2_000) for _ in range(3)), min(seconds(16_000) for _ in range(3))
    assert large < 24 * small, (small, large)  # 8x the input; quadratic would be 64x


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_break_python_knows(newline):
    code = "cdef int f(int x):\n    return <int>x\n\ncdef class K:\n    cdef int n\n"
    python, facts = translate(code.replace("\n", newline))
    tree = ast.parse(python)
    assert [node.lineno for node in tree.body] == [1, 4]
    assert facts.cast_of(tree.body[0].body[0].value) == "int"
    assert python.count("\r") == code.replace("\n", newline).count("\r")


def test_ctypedef_reads_are_the_patterns_they_replace_in_time_linear_in_the_line():
    """A ctypedef's C name string and function type were read by patterns that tried every
    quote, or every `name(`, against the rest of the line (8,000 of them: ~0.9 s; a 2 MiB line
    about 60,000 times that); the reads that replace them give what the patterns gave."""
    name_string = re.compile(r"\s*(['\"]).*?\1\s*$")
    function_type = re.compile(r"(.*?)\b([A-Za-z_]\w*)\s*\(.*\)\s*(?:nogil|noexcept|except.*)?$")
    pieces = ["a", " ", "'", '"', "x1", "\t", "(", ")", "S", "nogil", "except", "*", ","]
    chosen = random.Random(29)
    for _ in range(30_000):
        line = "".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 12)))
        assert _without_name_string(line) == name_string.sub("", line), line
        found = function_type.match(line)
        assert _function_type(line) == (found and (found[1], found[2])), line

    def seconds(piece: str, count: int) -> float:
        code = 'cdef extern from "x.h":\n    ctypedef int ' + piece * count + "x\n"
        start = time.process_time()
        translate(code)
        return time.process_time() - start

    for piece in ('"a', "'", "S", "a("):
        small = min(seconds(piece, 4_000) for _ in range(2))
        large = min(seconds(piece, 32_000) for _ in range(2))
        assert large < 8 * small * 2.5 + 0.05, (piece, small, large)


def test_masked_name_strings_are_dropped_and_names_ending_in_s_are_kept():
    """The translation masks a string as `S`s: a C name string (`f "cf"(...)`, a ctypedef's
    `'cudaHostFn_t'`) is dropped as a whole masked token; a name ending in S (`HOOKS`) or named
    `S` keeps every letter."""
    _, facts = translate(textwrap.dedent("""\
        cdef extern from "ring.h":
            ctypedef void (*done_fn)(void *)
            ctypedef done_fn HOOKS
            ctypedef done_fn named "ring_done_t"
            void S(HOOKS hook)
            int ring_push "ring_push_v2"(done_fn done)
        """))
    assert {"done_fn", "HOOKS", "named"} <= facts.callback_types
    assert [param.callback for param in facts.externs["S"]] == [True]
    assert [param.callback for param in facts.externs["ring_push"]] == [True]
