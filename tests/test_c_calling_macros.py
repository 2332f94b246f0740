"""Macros that call the function an argument names (cursedlint/analysis/c_calling_macros.py):
shapes read from definitions, resolved through nested and variadic macros; a macro that only
names its argument, declares a function by it, or whose definitions disagree calls nothing;
a call of a calling macro reads as a call of the function, with the mapped arguments."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_calling_macros import (
    REST, CallingMacro, calling_macros, macro_calls, macro_shapes, macros_reached,
)
from cursedlint.analysis.c_syntax import arguments, callee
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

NESTED = b"""\
#define CTX_TIMED(_ctx, _what, _fn, ...) \\
    ({ __typeof__(_fn(__VA_ARGS__)) _r = _fn(__VA_ARGS__); record(_ctx, _what); _r; })
#define NAMED_CALL(_what, _fn, ...) CTX_TIMED(0, _what, _fn, ##__VA_ARGS__)
#define TIMED_CALL(_fn, ...) NAMED_CALL(#_fn, _fn, ##__VA_ARGS__)
#define PAIR_CALL(_fn, a, b) _fn(b, a)
#define FIRST_THEN(_fn, a, ...) CTX_TIMED(0, "x", _fn, a, __VA_ARGS__)
"""


def test_nested_variadic_macros_resolve_to_the_call_they_make():
    shapes = macro_shapes(NESTED)
    assert shapes["TIMED_CALL"][0].calls == (("NAMED_CALL", (-1, 0, REST)),)
    found = calling_macros(shapes)
    assert found["CTX_TIMED"] == CallingMacro(2, (), 3)
    assert found["NAMED_CALL"] == CallingMacro(1, (), 2)
    assert found["TIMED_CALL"] == CallingMacro(0, (), 1)
    assert found["PAIR_CALL"] == CallingMacro(0, (2, 1))
    assert found["FIRST_THEN"] == CallingMacro(0, (1,), 2)
    assert CallingMacro(0, (2, 1)).mapped(["f", "x", "y"]) == ["y", "x"]
    assert CallingMacro(0, (), 1).mapped(["f", "p", "a", "l"]) == ["p", "a", "l"]
    assert CallingMacro(0, (3,)).mapped(["f", "x"]) is None


def test_macros_that_call_nothing_they_are_given():
    found = calling_macros(macro_shapes(b"""\
#define ANNOUNCE(_fn, ...) note(#_fn, __VA_ARGS__)
#define DECLARE(_ret, _name, ...) _ret _name(__VA_ARGS__); static _ret _name##_x(__VA_ARGS__)
#define WITH_CTX(_fn, ...) _fn(g_ctx, __VA_ARGS__)
#define ADD(a, b) ((a) + (b))
#define GUARDED(_fn, x) if (x) _fn(x)
#define PASTED(name, h, k) table_get_##name(h, k)
#define QUOTED(_fn, x) log_line("_fn(x, y)", x) /* _fn(x, x) */
"""))
    assert set(found) == {"GUARDED"}  # (a call of its parameter with a parameter: it calls)


def test_definitions_that_disagree_call_nothing():
    shapes = macro_shapes(b"""\
#ifdef PROFILE
#define CALL(_fn, ...) _fn(__VA_ARGS__)
#define SAME(_fn, ...) _fn(__VA_ARGS__)
#else
#define CALL(_fn, a, ...) _fn(a)
#define SAME(_fn, ...) (_fn(__VA_ARGS__))
#endif
""")
    assert len(shapes["CALL"]) == 2
    assert calling_macros(shapes) == {"SAME": CallingMacro(0, (), 1)}


def test_a_macro_call_reads_as_a_call_of_the_function():
    data = NESTED + textwrap.dedent("""\
        void *open_region(struct ibv_pd *pd, void *buf, unsigned long len)
        {
            note(ibv_reg_mr, pd);
            return TIMED_CALL(ibv_reg_mr, pd, buf, len, 1);
        }
        """).encode()
    context = CContext(Source.from_bytes("a.c", data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    found = macro_calls(context, ("ibv_reg_mr",), calling_macros(macro_shapes(data)))
    assert len(found) == 1
    name, call = found[0]
    assert name == "ibv_reg_mr" and callee(context, call) == "ibv_reg_mr"
    assert [context.text(argument) for argument in arguments(call)] == ["pd", "buf", "len", "1"]
    assert context.text(call).startswith("TIMED_CALL(") and call.start_point[0] == 9
    assert macro_calls(context, ("ibv_reg_mr",), {}) == []


def test_macros_reached_from_the_argument_naming_the_function():
    shapes = macro_shapes(NESTED + b"""\
#define LOGGED(_fn, _fmt, ...) (log_line(_fmt, __VA_ARGS__), TIMED_CALL(_fn, __VA_ARGS__))
""")
    assert macros_reached(shapes, {("LOGGED", 0)}) == {
        "LOGGED", "TIMED_CALL", "NAMED_CALL", "CTX_TIMED"}  # (not log_line: given `_fmt`)
    assert macros_reached(shapes, {("LOGGED", 1)}) == {"LOGGED", "log_line"}
    assert macros_reached(shapes, {("PAIR_CALL", 1)}) == {"PAIR_CALL"}
