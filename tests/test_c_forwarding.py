"""What a C/C++ file's functions pass on (cursedlint/analysis/c_forwarding.py): the calls given
a parameter unchanged, with the argument and parameter positions, through casts, parentheses
and line breaks; a parameter the function changes is not passed on; a callee called twice is
not called once."""

from __future__ import annotations

import textwrap

from cursedlint.analysis.c_forwarding import (
    Forward, Forwarder, forwarded_calls, forwarded_method_calls,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def forwarded(code: str, language: str = "c", skip=frozenset()) -> dict:
    data = textwrap.dedent(code).encode()
    context = CContext(Source.from_bytes(f"a.{language}", data, language),
                       Settings(enabled=frozenset()), parse(data, language))
    return forwarded_calls(context, skip)


def test_parameters_passed_on_with_their_positions():
    found = forwarded("""\
        struct ibv_mr *pin(struct ibv_pd *pd, void *addr, size_t len);
        static struct ibv_mr *pin_bytes(struct ctx *ctx, char *buf,
                                        size_t bytes)
        {
            log_bytes(bytes);
            return pin(ctx->pd,
                       (void *)buf,
                       (bytes));
        }
        """)
    assert found == {"pin_bytes": Forwarder(True, (
        Forward("log_bytes", ((0, 2),), 5, True, False),
        Forward("pin", ((1, 1), (2, 2)), 6, True, False)))}


def test_changed_parameters_and_repeated_calls():
    found = forwarded("""\
        void copy(void *dst, const void *src, unsigned long n);
        void fill(char *buf, unsigned long len, int twice)
        {
            copy(buf, buf, len);
            copy(buf + 1, buf, len);
        }
        void shift(char *buf, unsigned long len)
        {
            len += 64;
            buf++;
            copy(buf, buf, len);
        }
        void measured(char *buf, unsigned long len)
        {
            probe_len(&len);
            copy(buf, buf, len);
        }
        void direct(char *buf, unsigned long len) { copy(buf, buf, len); }
        void caller(char *buf, unsigned long len) { direct(buf, len); }
        """)
    assert found["fill"] == Forwarder(False, (
        Forward("copy", ((0, 0), (1, 0), (2, 1)), 4, False, False),))
    assert "shift" not in found  # both parameters are changed before they are passed on
    assert found["measured"] == Forwarder(False, (  # `len` may be changed through `&len`
        Forward("copy", ((0, 0), (1, 0)), 16, True, False),))
    assert found["caller"] == Forwarder(False, (Forward("direct", ((0, 0), (1, 1)), 19, True,
                                                        True),))


def test_skipped_functions_and_methods():
    found = forwarded("""\
        int wrapped(void *p, int n) { return reg(p, n); }
        class Pool {
            int add(void *p, int n) { return reg(p, n); }
        };
        """, "cpp", skip={"wrapped"})
    assert found == {}


def test_what_other_files_can_reach():
    code = """\
        static int pin(void *buf, int len) { return mr_pin(buf, len); }
        static int log_only(void *buf, int len) { return trace(buf, len); }
        int stage(void *buf, int len) { return pin(buf, len); }
        """
    assert set(forwarded(code)) == {"pin", "log_only", "stage"}
    reached = forwarded_calls_exported(code)
    assert set(reached) == {"pin", "stage"}  # `log_only` is static and no exported one calls it
    assert reached["pin"].static and not reached["stage"].static


def forwarded_calls_exported(code: str) -> dict:
    data = textwrap.dedent(code).encode()
    context = CContext(Source.from_bytes("a.c", data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    return forwarded_calls(context, exported=True)


def forwarded_methods(code: str, language: str = "cpp") -> dict:
    data = textwrap.dedent(code).encode()
    context = CContext(Source.from_bytes(f"a.{language}", data, language),
                       Settings(enabled=frozenset()), parse(data, language))
    return forwarded_method_calls(context)


def test_member_functions_name_their_calls_by_the_receivers_class():
    found = forwarded_methods("""\
        struct Table { int (*reg)(void*, void*, size_t); };
        class Domain {
         public:
          int regMr(void* addr, size_t len);
          int pin(void* addr, size_t len) { return this->regMr(addr, len); }
          int note(void* addr) { return log_range(addr); }
         private:
          Table* table_;
          Domain* next_;
        };
        int Domain::regMr(void* addr, size_t len) {
          next_->regMr(addr, len);
          return table_->reg(handle_, addr, len);
        }
        """)
    assert found == {
        "Domain::note": Forwarder(False, (Forward("log_range", ((0, 0),), 6, True, False),)),
        "Domain::pin": Forwarder(False, (Forward("Domain::regMr", ((0, 0), (1, 1)), 5, True,
                                                 False),)),
        "Domain::regMr": Forwarder(False, (  # (its call of itself left out)
            Forward("table_->reg", ((1, 0), (2, 1)), 13, True, False),))}


def test_c_files_have_no_member_functions():
    assert forwarded_methods("int f(void *a) { return g(a); }", "c") == {}


def test_a_member_function_passing_a_parameter_to_a_template_call():
    """A call written with template arguments (`out.append<int64_t>(v)`) is counted once by
    its last name (it raised: the name ends in `>`)."""
    found = forwarded_methods("""\
        class Writer {
         public:
          void put(Buffer& out, int64_t v) { out.append<int64_t>(v); }
          void twice(Buffer& out, int64_t v) { out.append<int64_t>(v); out.append<int64_t>(v); }
        };
        """)
    assert found["Writer::put"] == Forwarder(False, (
        Forward("Buffer::append<int64_t>", ((0, 1),), 3, True, False),))
    assert [forward.once for forward in found["Writer::twice"].calls] == [False]
