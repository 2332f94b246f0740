"""Functions declared never to return, read as fatal handlers (`analysis.c_noreturn`,
`c_fatal.declared_handlers`; end to end: tests/rules/CUR601/noreturn_handlers)."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_fatal import checked_calls, declared_handlers
from cursedlint.analysis.c_noreturn import escaping, noreturn_declared
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, language: str = "c") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(f"a.{language}", data, language),
                    Settings(enabled=frozenset()), parse(data, language))


DECLARATIONS = b"""\
#  define CMK_NORETURN [[noreturn]]
#if defined _Noreturn
#endif
CMK_NORETURN void layer_abort(const char *message);
[[noreturn]] void die(const char *m);
void fail(int) __attribute__((noreturn));
__attribute__((__noreturn__, format(printf, 1, 2))) static void quit(int c) { exit(c); }
CMK_NORETURN
#if defined __GNUC__ || defined __clang__
__attribute__ ((format (printf, 1, 2)))
#endif
void rt_abort(const char *msg, ...);
_Noreturn static inline void rt::stop(void);
class Array { CMK_NORETURN void abort_element(int x); };
EXPORT(rt_core)
RT_NORETURN void rt_halt(int code);
class Worker {
public:
    void halt_worker(int code) RT_NORETURN;
};
"""


def test_each_spelling_of_no_return_declares_the_function_it_marks():
    found = noreturn_declared(DECLARATIONS)
    assert {name: mark for name, (_, mark) in found.items()} == {
        "layer_abort": "CMK_NORETURN", "die": "noreturn", "fail": "noreturn",
        "quit": "__noreturn__", "rt_abort": "CMK_NORETURN", "stop": "_Noreturn",
        "abort_element": "CMK_NORETURN", "rt_halt": "RT_NORETURN",
        "halt_worker": "RT_NORETURN"}
    assert found["rt_abort"][0] == 12  # the declarator's line, past the `#if` between


def test_marks_that_declare_no_function_are_not_read():
    text = b"""\
    #define NORETURN __attribute__((noreturn))
    typedef void (*hook_t)(void) NORETURN;
    /* NORETURN void in_a_comment(void); */
    const char *s = "NORETURN void in_a_string(void);";
    bool isNoReturn() const;
    int n = NORETURN_COUNT(3);
    void f(void) { handle_error(EP_NORETURN, INTERNAL_ERR, "unknown packet"); }
    x = EP_NORETURN + g(1);
    void g(int op) { switch (op) { case OP_NORETURN: mark_dead(op); break; } }
    void h(void) { handle_error(EP_NORETURN, describe(code)); }
    """
    assert noreturn_declared(text) == {}


def test_a_declared_function_whose_definition_throws_or_jumps_out_is_no_handler():
    context = context_of("""\
        [[noreturn]] void raise_error(int err);
        [[noreturn]] void back_to_loop(void);
        [[noreturn]] void stop_all(const char *why);
        void raise_error(int err) { throw std::system_error(err, std::generic_category()); }
        void back_to_loop(void) { longjmp(main_loop, 1); }
        int parse_or_throw(const char *s) { if (!s) throw 1; return 0; }
        """, "cpp")
    assert escaping(context) == {"raise_error", "back_to_loop"}  # (`void` functions only)
    handlers = declared_handlers(context)
    assert set(handlers) == {"stop_all"}
    assert handlers["stop_all"].declared and handlers["stop_all"].calls == "noreturn"


def test_a_call_before_the_jump_that_ends_a_checked_branch_is_where_a_handler_may_be():
    context = context_of("""\
        int copy(int pid) {
            ssize_t n = read_peer(pid);
            if (n < 0) {
                log_failure(n);
                rt_abort("read_peer failed");
                return errno;
            }
            if (read_peer(pid) == 0) {
                rt_warn("empty");
                return 0;
            }
            return 0;
        }
        """)
    assert checked_calls(context) == {"read_peer": ("rt_abort", "rt_warn")}
