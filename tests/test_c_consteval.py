"""The C/C++ constant evaluator: exact values where the file shows them, UNKNOWN otherwise.

Each snippet passes the expressions under test to a call `probe(...)`; `values` returns what the
evaluator says for each argument of each probe call, in source order. The expected values are
what GCC computes for x86-64 Linux (LP64).
"""

from __future__ import annotations

import time

import pytest

from cursedlint.analysis.c_constants import CConstants
from cursedlint.c.context import CContext, parse
from cursedlint.python.consteval import UNKNOWN
from cursedlint.settings import Settings
from cursedlint.source import Source

BOTH = pytest.mark.parametrize("language", ["c", "cpp"])


def context_of(text: str, language: str) -> CContext:
    source = Source.from_text(f"snippet.{language}", text, language)
    return CContext(source, Settings(enabled=frozenset()), parse(source.data, language))


def values(text: str, language: str = "c") -> list:
    context = context_of(text, language)
    constants = CConstants(context)
    return [
        constants.evaluate(argument)
        for _, call in context.calls(["probe"])
        for argument in call.child_by_field_name("arguments").named_children
        if argument.type != "comment"
    ]


def value(text: str, language: str = "c"):
    (only,) = values(text, language)
    return only


def in_function(expressions: str, prelude: str = "") -> str:
    return f"{prelude}\nvoid check(int param) {{\n    probe({expressions});\n}}\n"


# -- literals -----------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("0x1F", 31),
        ("0XffU", 255),
        ("017", 15),
        ("0b1010", 10),
        ("0B11", 3),
        ("4096u", 4096),
        ("4096UL", 4096),
        ("4096lu", 4096),
        ("4096LL", 4096),
        ("4096ull", 4096),
        ("4096LLU", 4096),
        ("0xFFFFFFFFFFFFFFFF", 2**64 - 1),
        ("-1", -1),
        ("-2147483648", -(2**31)),
        ("1.5", UNKNOWN),
        ("1e3", UNKNOWN),
        ("0x1p4", UNKNOWN),
        ("4096.f", UNKNOWN),
        ("18446744073709551616", UNKNOWN),
        ("1" * 5_000, UNKNOWN),  # past int()'s 4,300-digit limit: it raised (CUR000)
        ("0x" + "0" * 5_000 + "10", 16),  # leading zeros count for nothing
    ],
)
def test_integer_literals(language, literal, expected):
    assert value(in_function(literal), language) == expected


def test_cpp_literal_forms():
    text = in_function("1'000'000, 0x10'00, 0b1'0000, 4096z, 4096uz, 1z - 2, 1uz - 2")
    assert values(text, "cpp") == [1_000_000, 4096, 16, 4096, 4096, -1, 2**64 - 1]


@BOTH
def test_literal_types_follow_c(language):
    # 2147483648 does not fit int: decimal becomes long, hex becomes unsigned int
    assert values(in_function("-2147483648 < 0, -0x80000000 < 0, -0x80000000"), language) == [
        1, 0, 2**31]
    # 1u - 2 wraps in unsigned int, 1ul - 2 in unsigned long
    assert values(in_function("1u - 2, 1ul - 2, 1 - 2"), language) == [2**32 - 1, 2**64 - 1, -1]


@BOTH
@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("'a'", 97),
        ("'0'", 48),
        ("' '", 32),
        ("'\\n'", 10),
        ("'\\t'", 9),
        ("'\\0'", 0),
        ("'\\\\'", 92),
        ("'\\''", 39),
        ("'\\x41'", 65),
        ("'\\101'", 65),
        ("L'a'", 97),
        ("u'a'", 97),
        ("U'a'", 97),
        ("'\\xff'", UNKNOWN),  # -1 where char is signed (x86-64), 255 where not (aarch64)
        ("'\\377'", UNKNOWN),
        ("'ab'", UNKNOWN),  # multi-character: implementation-defined
        ("'\\u00e9'", UNKNOWN),
    ],
)
def test_character_literals(language, literal, expected):
    assert value(in_function(literal), language) == expected


def test_character_literal_type_differs_between_c_and_cpp():
    assert value(in_function("sizeof('a')"), "c") == 4
    assert value(in_function("sizeof('a')"), "cpp") == 1


@BOTH
def test_booleans(language):
    assert values(in_function("true, false, true + 1"), language) == [1, 0, 2]


# -- operators ----------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("-(4)", -4),
        ("+4", 4),
        ("~0", -1),
        ("~0u", 2**32 - 1),
        ("!0", 1),
        ("!7", 0),
        ("7 / 2", 3),
        ("-7 / 2", -3),  # C truncates toward zero
        ("7 / -2", -3),
        ("-7 % 2", -1),  # the remainder takes the dividend's sign
        ("7 % -2", 1),
        ("1 << 12", 4096),
        ("1ull << 63", 2**63),
        ("-8 >> 1", -4),
        ("0xF0 & 0x3C", 0x30),
        ("0xF0 | 0x0F", 0xFF),
        ("0xFF ^ 0x0F", 0xF0),
        ("3 < 4", 1),
        ("3 <= 2", 0),
        ("3 > 2", 1),
        ("3 >= 4", 0),
        ("3 == 3", 1),
        ("3 != 3", 0),
        ("-1 < 0u", 0),  # -1 converts to unsigned int
        ("-1 < 0ul", 0),
        ("-1 < 0", 1),
        ("-1L < 1u", 1),  # unsigned int converts to long
        ("-1 / 2u", 2147483647),
        ("1 && 2", 1),
        ("1 && 0", 0),
        ("0 || 3", 1),
        ("0 || 0", 0),
        ("1 ? 2 : 3", 2),
        ("0 ? 2 : 3", 3),
        ("1 ? -1 : 0u", 2**32 - 1),  # the result has the common type
        ("2147483647 + 1", UNKNOWN),  # signed overflow is undefined
        ("-2147483647 - 1", -(2**31)),
        ("2147483647u + 1", 2**31),
        ("4294967295u + 1", 0),
        ("1 << 31", UNKNOWN),
        ("1u << 31", 2**31),
        ("1 << 32", UNKNOWN),
        ("1 << -1", UNKNOWN),
        ("-1 << 1", UNKNOWN),
        ("1 / 0", UNKNOWN),
        ("1 % 0", UNKNOWN),
        ("(-2147483647 - 1) / -1", UNKNOWN),
        ("1, 2", UNKNOWN),
    ],
)
def test_operators(language, expression, expected):
    text = in_function(f"({expression})")
    assert value(text, language) == expected


@BOTH
def test_unknown_operands(language):
    text = in_function("f() + 1, param * 0, param ? 1 : 2, param < 1", "int f(void);")
    assert values(text, language) == [UNKNOWN] * 4


def test_logical_operators_with_an_unknown_operand():
    text = in_function("0 && f(), 1 || f(), param && 0, param || 1", "int f(void);")
    assert values(text, "c") == [0, 1, 0, 1]
    # in C++ an operand of unknown type (a class?) may have an overloaded && or ||
    assert values(text, "cpp") == [UNKNOWN, UNKNOWN, 0, 1]


@BOTH
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(unsigned char)300", 44),
        ("(signed char)200", -56),
        ("(char)65", 65),
        ("(char)200", UNKNOWN),  # char is signed on x86-64, unsigned on aarch64
        ("(unsigned short)-1", 65535),
        ("(int)4294967295u", -1),
        ("(size_t)-1", 2**64 - 1),
        ("(long)(unsigned)-1", 2**32 - 1),
        ("(uint8_t)0x1234", 0x34),
        ("(int)3.5", UNKNOWN),
        ("(void *)0", UNKNOWN),
        ("(struct unseen)1", UNKNOWN),
    ],
)
def test_casts(language, expression, expected):
    assert value(in_function(expression), language) == expected


def test_bool_casts():
    assert values(in_function("(_Bool)5, (_Bool)0"), "c") == [1, 0]
    assert values(in_function("(bool)5, static_cast<bool>(0)"), "cpp") == [1, 0]


def test_cpp_casts():
    text = in_function(
        "static_cast<size_t>(-1), static_cast<uint8_t>(300), size_t(4096), uint16_t(-1),"
        " std::size_t(8), int{7}, unsigned{}, reinterpret_cast<int>(1), static_cast<double>(2)")
    assert values(text, "cpp") == [2**64 - 1, 44, 4096, 65535, 8, 7, 0, UNKNOWN, UNKNOWN]


def test_compound_literal_in_c():
    assert value(in_function("(int){12}"), "c") == 12


# -- macros -------------------------------------------------------------------------------------


@BOTH
def test_object_like_macros(language):
    text = """
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define HUGE_PAGE (PAGE_SIZE * 512)
#define RING_BYTES(n) ((n) * PAGE_SIZE)
#define LONG_ONE (1 + \\
                  2)  /* spans two lines */
void check(void) { probe(PAGE_SIZE, HUGE_PAGE, LONG_ONE, RING_BYTES(2), RING_BYTES); }
"""
    assert values(text, language) == [4096, 2097152, 3, 8192, UNKNOWN]


@BOTH
def test_macro_body_is_text_not_a_value(language):
    text = """
#define SUM 1 + 2
#define WRAPPED (1 + 2)
void check(void) { probe(SUM, SUM * 2, (SUM) * 2, WRAPPED * 2, -SUM); }
"""
    # SUM * 2 is 1 + 2 * 2 = 5 to the compiler: whole-body evaluation would say 6
    assert values(text, language) == [3, UNKNOWN, 6, 6, UNKNOWN]


@BOTH
def test_macro_defined_twice(language):
    text = """
#ifdef SMALL_PAGES
#define PAGE 4096
#else
#define PAGE 65536
#endif
#if defined(__x86_64__)
#define LINE 64
#else
#define LINE (32 * 2)
#endif
void check(void) { probe(PAGE, LINE); }
"""
    assert values(text, language) == [UNKNOWN, 64]


@BOTH
def test_macro_position_and_undef(language):
    text = """
void before(void) { probe(LATE); }
#define LATE 1
void between(void) { probe(LATE, REDEFINED); }
#define REDEFINED 2
#undef LATE
#define LATE 3
void after(void) { probe(LATE, REDEFINED); }
"""
    assert values(text, language) == [UNKNOWN, 1, UNKNOWN, UNKNOWN, 2]


@BOTH
def test_macro_undefined_and_not_redefined(language):
    text = """
#define SLOTS 8
#undef SLOTS
void after(void) { probe(SLOTS); }
"""
    assert values(text, language) == [UNKNOWN]


@BOTH
def test_macro_that_may_come_from_elsewhere(language):
    text = """
#ifndef PAGE_SIZE
#define PAGE_SIZE 4096
#endif
#if !defined(CACHE_LINE)
#define CACHE_LINE 64
#endif
void check(void) { probe(PAGE_SIZE, CACHE_LINE); }
"""
    assert values(text, language) == [UNKNOWN, UNKNOWN]


@BOTH
def test_recursive_and_self_referential_macros(language):
    text = """
#define PING PONG
#define PONG PING
enum { MODE_A = 7 };
#define MODE_A MODE_A
#define EMPTY
void check(void) { probe(PING, MODE_A, EMPTY); }
"""
    # a macro is not expanded inside its own expansion: MODE_A is the enumerator again
    assert values(text, language) == [UNKNOWN, 7, UNKNOWN]


@BOTH
def test_macro_names_resolve_where_used(language):
    text = """
#define BUF_BYTES sizeof(buf)
#define COUNT limit
void check(void) {
    char buf[48];
    const int limit = 3;
    probe(BUF_BYTES, COUNT);
}
"""
    assert values(text, language) == [48, 3]


@BOTH
def test_function_like_macros(language):
    text = """
#define ALIGN_DOWN(x, a) ((x) & ~((a) - 1))
#define ALIGN_UP(x, a) ALIGN_DOWN((x) + ((a) - 1), (a))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ENTRY_BYTES(n) (MAX(n, sizeof(struct elem)) * 2)
struct elem { void *next; void *ptr; };
void check(int param) {
    probe(ALIGN_UP(9, 8), MAX(3, 40), ENTRY_BYTES(8), ALIGN_UP(ENTRY_BYTES(24), 64),
          MAX(param, 8), ALIGN_UP (100 , 64));
}
"""
    assert values(text, language) == [16, 40, 32, 64, UNKNOWN, 128]


@BOTH
def test_function_like_macros_given_types(language):
    text = """
#define ALIGNED_SIZEOF(t, a) (((sizeof(t)) + (a) - 1) & ~((a) - 1))
#define ARRAY_BYTES(t, n) (sizeof(t[n]))
struct slot { long seq; char payload[20]; };
typedef struct slot slot_t;
void check(void) {
    unsigned long slot = ALIGNED_SIZEOF(struct slot, 16);
    unsigned long typed = ALIGNED_SIZEOF(slot_t, 64);
    unsigned long ints = ARRAY_BYTES(int, 3);
    unsigned long commented = ALIGNED_SIZEOF(struct slot, /* a comment */ 8);
    probe(slot, typed, ints, commented);
}
"""
    assert values(text, language) == [32, 64, 12, UNKNOWN]


@BOTH
def test_function_like_macro_bodies_are_text(language):
    text = """
#define SUM(a, b) a + b
#define TWICE(x) (x * 2)
#define NAME(x) sizeof(#x)
#define PASTE(a, b) a ## b
#define ANY(...) (__VA_ARGS__)
#define ONE(x) (x)
#define SELF(x) (SELF(x) + 1)
#define SUFFIXED(UL, x1F) ((UL) + 0x1F + 10UL)
void check(void) {
    probe(SUM(1, 2), SUM(1, 2) * 2, (SUM(1, 2)) * 2, TWICE(1 + 2), NAME(ab), PASTE(1, 2),
          ANY(4), ONE(1, 2), SELF(1), SUFFIXED(1, 2));
}
"""
    # SUM(1, 2) * 2 is 1 + 2 * 2 and TWICE(1 + 2) is (1 + 2 * 2) to the compiler
    assert values(text, language) == [3, UNKNOWN, 6, 5, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN,
                                      UNKNOWN, 42]


@BOTH
def test_function_like_macros_defined_twice_or_late(language):
    text = """
#ifdef BIG_SLOTS
#define SLOT(n) ((n) * 8192)
#else
#define SLOT(n) ((n) * 256)
#endif
#if defined(__x86_64__)
#define LINE(n) ((n) * 64)
#else
#define LINE(n) ((n) << 6)
#endif
#ifndef ROUND
#define ROUND(n) (n)
#endif
void before(void) { probe(LATE(1), SLOT(2), LINE(2), ROUND(5)); }
#define LATE(x) (x)
void between(void) { probe(LATE(1)); }
#undef LATE
void after(void) { probe(LATE(1)); }
"""
    assert values(text, language) == [UNKNOWN, UNKNOWN, 128, UNKNOWN, 1, UNKNOWN]


@BOTH
def test_exponential_function_like_macros_are_unknown_and_fast(language):
    chain = "\n".join(f"#define F{i}(x) (F{i - 1}(x) + F{i - 1}(x))" for i in range(1, 60))
    text = f"#define F0(x) (x)\n{chain}\nvoid check(void) {{ probe(F59(1), F3(1)); }}\n"
    started = time.perf_counter()
    assert values(text, language) == [UNKNOWN, 8]
    assert time.perf_counter() - started < 5


# -- enumerations -------------------------------------------------------------------------------


@BOTH
def test_enumerators(language):
    text = """
enum state { IDLE, BUSY, DONE = 10, FAILED, LAST = FAILED * 2 };
enum { ANON_A = -2, ANON_B, ANON_C };
typedef enum { T_X = 1 << 4, T_Y } kind_t;
void check(void) { probe(IDLE, BUSY, DONE, FAILED, LAST, ANON_A, ANON_B, ANON_C, T_X, T_Y); }
"""
    assert values(text, language) == [0, 1, 10, 11, 22, -2, -1, 0, 16, 17]


@BOTH
def test_enumerator_after_unknown(language):
    text = """
enum opcode {
    OP_READ = UNSEEN_BASE,
    OP_WRITE,
    OP_NOP = 3,
#ifdef EXTRA
    OP_EXTRA,
#endif
    OP_LAST,
};
void check(void) { probe(OP_READ, OP_WRITE, OP_NOP, OP_LAST); }
"""
    assert values(text, language) == [UNKNOWN, UNKNOWN, 3, UNKNOWN]


def test_scoped_and_typed_enums():
    text = """
enum class Access : uint8_t { Local = 1, Remote = 4, Atomic };
enum Color { Red, Green = 5, Blue };
void check() {
    probe(Access::Remote, Access::Atomic, Blue, Color::Blue, static_cast<int>(Access::Atomic) + 1,
          Blue + 1, Access::Local | Access::Remote, sizeof(Access), sizeof(Color));
}
"""
    # a scoped enum has no built-in `|`: it must be a user's overload, not followed
    assert values(text, "cpp") == [4, 5, 6, 6, 6, 7, UNKNOWN, 1, 4]


def test_overloaded_operator_on_enumerators():
    text = """
enum Flags { F_READ = 1, F_WRITE = 2 };
inline Flags operator|(Flags a, Flags b) { return Flags(int(a) | int(b)); }
void check() { probe(F_READ | F_WRITE, F_READ + F_WRITE, F_WRITE); }
"""
    assert values(text, "cpp") == [UNKNOWN, 3, 2]


# -- constants and local variables --------------------------------------------------------------


@BOTH
def test_const_variables(language):
    text = """
const int kSlots = 16;
static const unsigned kDepth = kSlots * 2;
static const unsigned char kWrapped = 300;
extern const int kElsewhere;
int mutable_global = 5;
static int static_global = 6;
const int *const_pointer = 0;
const volatile int kVolatile = 7;
const double kRatio = 1.5;
void check(void) {
    const long local_const = kDepth + 1;
    static const int local_static = 9;
    probe(kSlots, kDepth, kWrapped, kElsewhere, mutable_global, static_global, const_pointer,
          kVolatile, kRatio, local_const, local_static);
}
"""
    static_global = 6 if language == "c" else UNKNOWN  # C++: a reference may change it
    assert values(text, language) == [16, 32, 44, UNKNOWN, UNKNOWN, static_global, UNKNOWN,
                                      UNKNOWN, UNKNOWN, 33, 9]


def test_constexpr_and_auto():
    text = """
constexpr size_t kBytes = 1 << 20;
constexpr auto kHalf = kBytes / 2;
void check() {
    auto count = 3u;
    const auto total = count * 4;
    auto from_call = compute();
    probe(kBytes, kHalf, count - 4, total, from_call, sizeof(count), sizeof(kHalf));
}
"""
    assert values(text, "cpp") == [1 << 20, 1 << 19, 2**32 - 1, 12, UNKNOWN, 4, 8]


@BOTH
def test_const_defined_differently_in_branches(language):
    text = """
#ifdef HUGE
static const int kPages = 512;
#else
static const int kPages = 1;
#endif
#ifdef OTHER
static const int kSame = 4;
#else
static const int kSame = 2 + 2;
#endif
void check(void) { probe(kPages, kSame); }
"""
    assert values(text, language) == [UNKNOWN, 4]


@BOTH
def test_local_assignments(language):
    text = """
int next(void);
void check(int param) {
    int once = 5;
    int twice = 5;
    int bumped = 1;
    int added = 2;
    int addressed = 3;
    int read_in = 4;
    int in_loop = 0;
    int copied = once * 2;
    int from_param = param;
    int from_changed = twice;
    size_t len = sizeof(int) * 4;
    twice = 6;
    bumped++;
    added += 1;
    int *p = &addressed;
    scanf("%d", &read_in);
    for (int i = 0; i < 3; i++) in_loop = i;
    probe(once, twice, bumped, added, addressed, read_in, in_loop, copied, from_param,
          from_changed, len, param);
}
"""
    assert values(text, language) == [5, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN,
                                      10, UNKNOWN, UNKNOWN, 16, UNKNOWN]


@BOTH
def test_static_configuration_defaults(language):
    """A `static` file-scope default is its initializer while nothing in the file may change
    it; a default read from a file, set elsewhere, visible to other files, or named in a
    macro body is unknown."""
    text = """
#include <stdio.h>
static unsigned int def_window = (1 << 12) + 64;
static unsigned int def_read_in = 1 << 17;
static unsigned int def_set = 512;
static unsigned int def_bumped = 8;
static unsigned int def_in_macro = 16;
unsigned int def_exported = 256;
static unsigned int def_unset;
#define RESET_DEFAULTS() (def_in_macro = 0)
void load_defaults(FILE *f) {
    fscanf(f, "%u", &def_read_in);
    def_set = 1024;
    def_bumped++;
}
void check(void) {
    probe(def_window, def_read_in, def_set, def_bumped, def_in_macro, def_exported,
          def_unset);
}
"""
    window = 4160 if language == "c" else UNKNOWN  # C++: a reference may change it
    assert values(text, language) == [window, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN,
                                      UNKNOWN]


@BOTH
def test_block_scopes_and_shadowing(language):
    text = """
static const int width = 100;
void other(void) { int hidden = 1; }
void check(void) {
    probe(width, hidden);
    int width = 8;
    {
        int width = 3;
        probe(width);
    }
    probe(width);
    for (int k = 0; k < 2; k++) { probe(k); }
}
void later(void) { probe(width); }
"""
    assert values(text, language) == [100, UNKNOWN, 3, 8, UNKNOWN, 100]


@BOTH
def test_modified_shadow_makes_outer_unknown(language):
    # changes are tracked by name: an inner variable of the same name counts (conservative)
    text = """
void check(void) {
    int n = 4;
    { int n = 0; n++; }
    probe(n);
}
"""
    assert value(text, language) is UNKNOWN


def test_reference_binding_is_a_change():
    text = """
void check() {
    int n = 4;
    int &alias = n;
    alias = 9;
    int m = 5;
    const int &view = m;
    probe(n, m);
}
"""
    assert values(text, "cpp") == [UNKNOWN, UNKNOWN]


def test_parameters_and_template_parameters_shadow():
    text = """
constexpr int N = 4;
template <int N> int scaled() { return probe(N); }
int by_param(int N) { return probe(N); }
auto lambda = [](int N) { return probe(N); };
int plain() { return probe(N); }
"""
    assert values(text, "cpp") == [UNKNOWN, UNKNOWN, UNKNOWN, 4]


# -- C++ scopes ---------------------------------------------------------------------------------


def test_namespaces_and_classes():
    text = """
constexpr int kDepth = 1;
namespace rdma {
constexpr int kDepth = 64;
namespace detail { constexpr int kShift = 3; }
struct Queue {
    static constexpr int kSlots = 16;
    static const int kSpare = kSlots / 2;
    enum { kBurst = 4 };
    int depth = 7;
    int slots() const { return probe(kSlots, kBurst, kDepth, depth); }
    void ring();
};
void Queue::ring() { probe(kSpare, kBurst); }
int use() { return probe(kDepth, detail::kShift, Queue::kSlots, ::kDepth); }
}
int outside() { return probe(kDepth, rdma::kDepth, rdma::detail::kShift, rdma::Queue::kBurst); }
"""
    assert values(text, "cpp") == [16, 4, 64, UNKNOWN, 8, 4, 64, 3, 16, 1, 1, 64, 3, 4]


def test_member_shadows_file_constant_in_method():
    text = """
constexpr int limit = 10;
class Pool {
    int limit;
    int get() { return probe(limit); }
};
int free_function() { return probe(limit); }
"""
    assert values(text, "cpp") == [UNKNOWN, 10]


def test_function_calls_are_unknown():
    text = """
constexpr int square(int x) { return x * x; }
void check() { probe(square(4), sizeof(square(4))); }
"""
    assert values(text, "cpp") == [UNKNOWN, UNKNOWN]


# -- sizeof -------------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("type_name", "size"),
    [
        ("char", 1),
        ("signed char", 1),
        ("unsigned char", 1),
        ("short", 2),
        ("unsigned short int", 2),
        ("int", 4),
        ("unsigned", 4),
        ("long", 8),
        ("unsigned long", 8),
        ("long long", 8),
        ("unsigned long long int", 8),
        ("float", 4),
        ("double", 8),
        ("long double", 16),
        ("wchar_t", 4),
        ("int8_t", 1),
        ("uint8_t", 1),
        ("int16_t", 2),
        ("uint16_t", 2),
        ("int32_t", 4),
        ("uint32_t", 4),
        ("int64_t", 8),
        ("uint64_t", 8),
        ("size_t", 8),
        ("ssize_t", 8),
        ("ptrdiff_t", 8),
        ("intptr_t", 8),
        ("uintptr_t", 8),
        ("off_t", 8),
        ("pid_t", 4),
        ("socklen_t", 4),
        ("__u32", 4),
        ("__be64", 8),
        ("void *", 8),
        ("char **", 8),
        ("const struct unseen *", 8),
        ("int (*)(int, char)", 8),
        ("int[4]", 16),
        ("char[2][3]", 6),
        ("int *[4]", 32),
        ("int (*)[4]", 8),
        ("uint64_t[PAGES]", 8 * 3),
        ("void", UNKNOWN),
        ("struct unseen", UNKNOWN),
        ("pthread_mutex_t", UNKNOWN),
        ("struct ibv_sge", UNKNOWN),
    ],
)
def test_sizeof_types(language, type_name, size):
    assert value(in_function(f"sizeof({type_name})", "#define PAGES 3"), language) == size


def test_sizeof_bool():
    assert value(in_function("sizeof(_Bool)"), "c") == 1
    assert values(in_function("sizeof(bool), sizeof(char16_t), sizeof(char32_t)"), "cpp") == [
        1, 2, 4]


def test_sizeof_std_types():
    assert values(in_function("sizeof(std::uint32_t), sizeof(std::size_t)"), "cpp") == [4, 8]


@BOTH
def test_sizeof_expressions(language):
    text = """
int table[10];
struct header { unsigned magic; unsigned short len; unsigned short flags; };
void check(int param, int vector[8], const char *name, struct header *hdr, struct header **list) {
    char local[64];
    long matrix[3][5];
    char greeting[] = "hello";
    int primes[] = {2, 3, 5, 7};
    struct header copy;
    probe(sizeof table, sizeof(table), sizeof local, sizeof(matrix), sizeof(matrix[0]),
          sizeof(matrix[0][0]), sizeof(vector), sizeof(*vector), sizeof(name), sizeof(*name),
          sizeof(hdr), sizeof(*hdr), sizeof(**list), sizeof(hdr->len), sizeof(copy.magic),
          sizeof(list[0]->flags), sizeof greeting, sizeof primes, sizeof("abc"),
          sizeof(param), sizeof(param + 1L), sizeof(1 ? param : 2u), sizeof(&copy),
          sizeof(int) * 2, sizeof(char) - 2, sizeof(undeclared));
}
"""
    # sizeof(vector): an array parameter is a pointer
    assert values(text, language) == [40, 40, 64, 120, 40, 8, 8, 4, 8, 1, 8, 8, 8, 2, 4, 2, 6,
                                      16, 4, 4, 8, 4, 8, 8, 2**64 - 1, UNKNOWN]


@BOTH
def test_sizeof_macro_expression(language):
    text = """
#define PAGE 4096
#define FLAGS 0x1UL
void check(void) { probe(sizeof(PAGE), sizeof(FLAGS), sizeof PAGE); }
"""
    assert values(text, language) == [4, 8, 4]


# -- struct, union and class layouts ------------------------------------------------------------


@BOTH
def test_struct_layouts(language):
    text = """
struct padded { char tag; int value; char tail; };
struct packed_by_hand { int value; char tag; char tail; };
struct with_long { char c; long l; };
struct nested { struct padded inner; short s; };
struct with_array { char name[13]; int id; };
struct list_node { struct list_node *next; int key; };
struct wire_header { uint32_t magic; uint16_t len; uint16_t flags; uint64_t addr; };
struct big_align { char c; long double x; };
union number { char c; int i; double d; };
union odd_union { char bytes[5]; short s; };
struct with_union { char kind; union { int i; double d; }; };
struct message { uint32_t len; char payload[]; };
typedef struct { char a; short b; } anonymous_t;
typedef struct padded padded_t;
typedef padded_t padded_twice_t;
typedef struct { int val[2]; } __kernel_pair_t;
struct counted { int n; } counter;
struct padded instances[4];
void check(void) {
    probe(sizeof(struct padded), sizeof(struct packed_by_hand), sizeof(struct with_long),
          sizeof(struct nested), sizeof(struct with_array), sizeof(struct list_node),
          sizeof(struct wire_header), sizeof(struct big_align), sizeof(union number),
          sizeof(union odd_union), sizeof(struct with_union), sizeof(struct message),
          sizeof(anonymous_t), sizeof(padded_t), sizeof(padded_twice_t),
          sizeof(__kernel_pair_t), sizeof(struct counted), sizeof counter, sizeof instances,
          sizeof(instances[1].value));
}
"""
    assert values(text, language) == [12, 8, 16, 16, 20, 16, 16, 32, 8, 6, 16, 4, 4, 12, 12, 8,
                                      4, 4, 48, 4]


@BOTH
def test_layouts_that_are_unknown(language):
    text = """
#include <stdint.h>
struct bits { unsigned a : 3; unsigned b : 5; int whole; };
struct __attribute__((packed, aligned(4))) packed_aligned { char c; int i; };
struct packed_member { char c; int i __attribute__((packed)); };
struct aligned_member { char c; int i __attribute__((aligned(16))); };
struct conditional {
    int always;
#ifdef WITH_STATS
    long stats;
#endif
};
struct from_header { struct unseen inner; int x; };
struct macro_member { LIST_ENTRY(node) link; int x; };
struct attribute_macro { char c; int i; } __packed;
struct capitals_macro { char c; int i; } PACKED;
typedef struct { char c; int i; } __attribute__((aligned(64))) aligned_t;
void check(void) {
    probe(sizeof(struct bits), sizeof(struct packed_aligned), sizeof(struct packed_member),
          sizeof(struct aligned_member), sizeof(struct conditional), sizeof(struct from_header),
          sizeof(struct macro_member), sizeof(struct attribute_macro),
          sizeof(struct capitals_macro), sizeof(aligned_t), sizeof(((struct bits *)0)->whole));
}
"""
    # a field of a struct whose layout is unknown still has a known size
    assert values(text, language) == [UNKNOWN] * 10 + [4]


@BOTH
def test_packed_layouts(language):
    text = """
struct __attribute__((packed)) packed_before { char c; int i; };
struct packed_after { char c; int i; } __attribute__((packed));
struct __attribute__ ((__packed__)) record { uint16_t len; char value[46]; long long key[2]; };
typedef struct { char c; double d; } __attribute__((packed)) packed_t;
struct padded { char c; int i; };
struct __attribute__((packed)) outer { char tag; struct padded inner; };
struct holder { char grh[40]; struct record kv; };
struct mixed { char c; packed_t p; };
union either { char c[5]; int i; } __attribute__((packed));
void check(void) {
    probe(sizeof(struct packed_before), sizeof(struct packed_after), sizeof(struct record),
          sizeof(packed_t), sizeof(struct outer), sizeof(struct holder), sizeof(struct mixed),
          sizeof(union either));
}
"""
    # members one after another, alignment 1; a member of natural layout keeps its padding
    assert values(text, language) == [5, 5, 64, 9, 9, 104, 10, 5]


@BOTH
def test_pragma_pack_makes_every_layout_unknown(language):
    text = """
#pragma pack(push, 1)
struct wire { char c; int i; };
#pragma pack(pop)
void check(void) { probe(sizeof(struct wire), sizeof(int)); }
"""
    assert values(text, language) == [UNKNOWN, 4]


def test_empty_struct():
    text = "struct empty {};\nvoid check(void) { probe(sizeof(struct empty)); }\n"
    assert value(text, "c") is UNKNOWN  # a GNU extension in C (size 0)
    assert value(text, "cpp") == 1


def test_class_layouts():
    text = """
class Buffer {
  public:
    Buffer();
    explicit Buffer(size_t n);
    ~Buffer();
    size_t size() const { return len_; }
    static constexpr size_t kMax = 1 << 20;
    static int instances;
    operator bool() const;
  private:
    char *data_;
    size_t len_;
    uint16_t flags_;
};
struct Pair { int first; char second; Pair() = default; };
struct Base { int x; };
struct Derived : Base { int y; };
struct Virtual { virtual ~Virtual(); int x; };
struct WithRef { int &ref; };
struct Macro { DECLARE_FIELDS(x); int y; };
template <typename T> struct Box { T value; };
using Alias = Buffer;
using word_t = uint32_t;
void check() {
    probe(sizeof(Buffer), sizeof(Pair), sizeof(Alias), sizeof(word_t), sizeof(Derived),
          sizeof(Virtual), sizeof(WithRef), sizeof(Macro), sizeof(Box<int>), Buffer::kMax);
}
"""
    assert values(text, "cpp") == [24, 8, 24, 4, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN,
                                   1 << 20]


def test_member_sizes_in_methods():
    text = """
struct Conn {
    char hdr_[40];
    uint32_t qpn_;
    void post() { probe(sizeof(hdr_), sizeof(qpn_), sizeof(this->qpn_)); }
};
"""
    # `this` is not followed
    assert values(text, "cpp") == [40, 4, UNKNOWN]


@BOTH
def test_sizeof_enum(language):
    text = """
enum small { S_A, S_B };
enum large { L_A = 0x100000000 };
enum unknown { U_A = UNSEEN };
void check(void) { probe(sizeof(enum small), sizeof(enum large), sizeof(enum unknown)); }
"""
    assert values(text, language) == [4, 8, UNKNOWN]


@BOTH
def test_typedef_defined_twice(language):
    text = """
#ifdef NARROW
typedef uint32_t counter_t;
#else
typedef uint64_t counter_t;
#endif
#ifdef A
typedef unsigned int same_t;
#else
typedef uint32_t same_t;
#endif
void check(void) { probe(sizeof(counter_t), sizeof(same_t)); }
"""
    assert values(text, language) == [UNKNOWN, 4]


# -- a rule's view --------------------------------------------------------------------------------


@BOTH
def test_registration_lengths(language):
    text = """
#include <infiniband/verbs.h>
#define HDR_BYTES sizeof(struct msg_header)
struct msg_header { uint32_t opcode; uint32_t len; uint64_t wr_id; };
static const size_t kRingBytes = 64 * 4096;
int setup(struct ibv_pd *pd, char *buf, size_t len) {
    size_t small = HDR_BYTES * 2;
    struct ibv_mr *a = ibv_reg_mr(pd, buf, sizeof(struct msg_header), IBV_ACCESS_LOCAL_WRITE);
    struct ibv_mr *b = ibv_reg_mr(pd, buf, small, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_mr *c = ibv_reg_mr(pd, buf, kRingBytes, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_mr *d = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
    return a && b && c && d;
}
"""
    context = context_of(text, language)
    constants = CConstants(context)
    lengths, flags = [], []
    for _, call in context.calls(["ibv_reg_mr"]):
        arguments = call.child_by_field_name("arguments").named_children
        lengths.append(constants.evaluate(arguments[2]))
        flags.append(constants.evaluate(arguments[3]))
    assert lengths == [16, 32, 262144, UNKNOWN]
    assert flags == [UNKNOWN] * 4  # an enumerator of an unseen header


@BOTH
def test_sizeof_method(language):
    text = "void check(void) { probe(sizeof(long), 8); }"
    context = context_of(text, language)
    constants = CConstants(context)
    (_, call), = context.calls(["probe"])
    size, eight = call.child_by_field_name("arguments").named_children
    assert constants.sizeof(size) == 8
    assert constants.sizeof(eight) is UNKNOWN  # not a sizeof expression
    assert constants.evaluate(call) is UNKNOWN


# -- robustness ---------------------------------------------------------------------------------


@BOTH
def test_deep_and_exponential_input_is_unknown_and_fast(language):
    chain = "1" + " + 1" * 3000
    macros = "\n".join(f"#define M{i} (M{i - 1} + M{i - 1})" for i in range(1, 60))
    links = "\n".join(f"#define L{i} L{i - 1}" for i in range(1, 2000))
    text = (f"#define M0 1\n{macros}\n#define L0 5\n{links}\n"
            f"void check(void) {{ probe({chain}, M59, L1999, M3); }}\n")
    started = time.perf_counter()
    assert values(text, language) == [UNKNOWN, UNKNOWN, UNKNOWN, 8]
    assert time.perf_counter() - started < 5


@BOTH
def test_cyclic_definitions(language):
    text = """
typedef struct loop loop_t;
struct loop { loop_t *self; struct loop inner; };
static const int ping = pong + 1;
static const int pong = ping + 1;
enum { E_A = E_B, E_B };
void check(void) { probe(sizeof(struct loop), ping, E_A, E_B, sizeof(loop_t *)); }
"""
    assert values(text, language) == [UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, 8]


@BOTH
def test_error_nodes_do_not_stop_evaluation(language):
    text = """
#define GUARDED(x) __attribute__((guarded_by(x)))
DECLARE_SOMETHING(weird syntax here +++);
static const int kOk = 12;
void check(void) {
    int broken = (;
    probe(kOk, sizeof(int));
}
"""
    assert values(text, language) == [12, 4]


def test_cuda_launch_syntax():
    text = """
#define THREADS 256
__global__ void kernel(float *x) {}
void launch(float *x) {
    kernel<<<4, THREADS>>>(x);
    probe(THREADS * 4, sizeof(float));
}
"""
    assert values(text, "cpp") == [1024, 4]


@BOTH
def test_evaluates_every_node_of_a_file_without_raising(language):
    text = in_function(
        "sizeof(struct { int a; }), (int[]){1, 2}, &param, *(&param), param++, f(g(h())),"
        " \"text\", x->y.z[3], (a, b), ({ 1; })",
        "#define F(a, b) ((a) + (b))\nstruct s { int x : 3; };\nenum e { A = F(1, 2) };",
    )
    context = context_of(text, language)
    constants = CConstants(context)

    def walk(node):
        yield node
        for child in node.children:
            yield from walk(child)

    for node in walk(context.root):
        constants.evaluate(node)
        constants.sizeof(node)


# -- values set by an earlier assignment (evaluate(node, assignments=True)) ----------------------


def assigned_values(text: str, language: str = "c") -> list:
    context = context_of(text, language)
    constants = CConstants(context)
    return [
        constants.evaluate(argument, assignments=True)
        for _, call in context.calls(["probe"])
        for argument in call.child_by_field_name("arguments").named_children
        if argument.type != "comment"
    ]


ASSIGNED_PRELUDE = """
struct slot { uint32_t word; size_t size; uint8_t tag; };
struct conn { struct slot slot; size_t spare; int fd; };
void refresh(struct conn *conn);
void touch(struct slot *slot);
void resize(struct conn *conn, size_t n) { conn->slot.size = n; conn->spare = n; }
"""
"""The file's own structs: `resize` keeps their members from the value every store of the file
gives (see `test_a_member_every_store_of_the_file_agrees_on`): these tests are of the flow."""


@BOTH
def test_assignments_give_values_where_straight_line(language):
    text = ASSIGNED_PRELUDE + """
void check(struct conn *conn, struct conn *other, struct conn peer, size_t param) {
    size_t len;
    len = sizeof(conn->slot.word) * 2;
    conn->slot.size = sizeof(conn->slot.word);
    peer.spare = 64;
    conn->slot.tag = 300;
    conn->fd = 3;
    refresh(other);
    probe(conn->slot.size, len, peer.spare, conn->slot.tag, (conn)->slot.size, conn->fd + 1);
    conn->slot.size = param;
    probe(conn->slot.size);
}
"""
    assert assigned_values(text, language) == [4, 8, 64, 44, 4, 4, UNKNOWN]
    assert set(values(text, language)) == {UNKNOWN}  # only when asked for


@BOTH
@pytest.mark.parametrize("between", [
    "if (param) conn->slot.size = param;",    # another value on one path
    "conn->slot = *other;",                   # the whole member
    "*conn = *other;",                        # the whole struct
    "conn = other;",                          # another struct
    "other->slot.size = 4096;",               # a member of the same name: may be the same
    "refresh(conn);",                         # a call receiving the struct
    "touch(&conn->slot);",                    # its address passed on
    "conn->slot.size++;",
    "again: param--;",                        # a jump may skip the assignment
])
def test_anything_between_may_change_the_value(language, between):
    text = ASSIGNED_PRELUDE + f"""
void check(struct conn *conn, struct conn *other, size_t param) {{
    conn->slot.size = 8;
    {between}
    probe(conn->slot.size);
}}
"""
    assert assigned_values(text, language) == [UNKNOWN]


@BOTH
def test_a_local_handed_whole_to_a_function_keeps_its_value(language):
    """`malloc(len)` cannot change `len`: a C function gets a copy. A macro may (one defined in
    view, or an all-caps name of no definition in view), a call handed a struct may change its
    members, and a C++ function may take a reference."""
    text = ASSIGNED_PRELUDE + """
#define twice(x) ((x) *= 2)
void *malloc(size_t n);
void log_size(const char *what, size_t n);
void check(struct conn *conn, size_t param) {
    size_t len, grown, logged, shown;
    len = 64;
    grown = 64;
    logged = 64;
    shown = 64;
    conn->spare = 64;
    void *block = malloc(len);
    log_size("block", len + 1);
    twice(grown);
    LOG_SIZE(logged);
    log_size("shown", sizeof(shown) + shown);
    refresh(conn);
    probe(len, grown, logged, shown, conn->spare);
}
"""
    copied = 64 if language == "c" else UNKNOWN
    assert assigned_values(text, language) == [copied, UNKNOWN, UNKNOWN, copied, UNKNOWN]


@BOTH
@pytest.mark.parametrize("function", [
    # assigned in a branch only
    "void check(struct conn *conn, int param) {\n"
    "    if (param) { conn->slot.size = 8; }\n    probe(conn->slot.size);\n}",
    # the address escapes before the assignment
    "void check(struct conn *conn, int param) {\n    size_t *size = &conn->slot.size;\n"
    "    conn->slot.size = 8;\n    *size = param;\n    probe(conn->slot.size);\n}",
    # a loop may change it after the use, before the next one
    "void check(struct conn *conn, int param) {\n    conn->slot.size = 8;\n"
    "    while (param--) {\n        probe(conn->slot.size);\n        conn->slot.size = param;\n"
    "    }\n}",
    # a global: any call may change it
    "struct conn global;\nvoid check(int param) {\n    global.spare = 8;\n"
    "    probe(global.spare);\n}",
    # assigned in the same expression
    "void check(struct conn *conn) {\n    probe(conn->slot.size = 8, conn->slot.size);\n}",
    # a local whose address is taken
    "void check(int param) {\n    size_t len;\n    len = 8;\n    refresh((void *)&len);\n"
    "    probe(len);\n}",
])
def test_assignments_that_may_not_hold_at_the_use(language, function):
    assert set(assigned_values(ASSIGNED_PRELUDE + function, language)) == {UNKNOWN}


@BOTH
def test_a_library_call_given_another_member_keeps_the_member(language):
    """`pthread_mutex_init(&c->lock, NULL)` writes the mutex only, and `free(c)` ends the
    object: `c->spare` keeps its value. A function of the project given `&c->lock` may reach
    the struct from it (`container_of`), a library call given the member itself or the struct
    as another argument may write it, and so may a macro."""
    text = """
#include <pthread.h>
struct pool { pthread_mutex_t lock; size_t spare; size_t used; };
void lock_init(pthread_mutex_t *lock);
#define pthread_cond_init(c, a) ((void)0)
void check(struct pool *c) {
    c->spare = 64;
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return;
    }
    pthread_mutex_lock(&(c)->lock);
    probe(c->spare);
}
void project(struct pool *d) {
    d->spare = 64;
    lock_init(&d->lock);
    probe(d->spare);
}
void twice(struct pool *e) {
    e->spare = 64;
    pthread_mutex_init(&e->lock, (void *)e);
    probe(e->spare);
}
void macro(struct pool *f) {
    f->used = 64;
    pthread_cond_init(&f->lock, NULL);
    probe(f->used);
}
void itself(struct pool *g) {
    g->used = 64;
    pthread_mutex_init((pthread_mutex_t *)&g->used, NULL);
    probe(g->used);
}
"""
    assert assigned_values(text, language) == [64, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]


@BOTH
def test_what_a_returning_branch_does_cannot_reach_the_use(language):
    """A branch that ends in `return` (no `goto`, `break` or `continue` in it) does not reach
    the use after it; the address of a member taken (`&b->handle`) lets no one write the
    pointer `b` itself."""
    text = ASSIGNED_PRELUDE + """
void check(struct conn *conn, struct conn *b, size_t param) {
    conn->spare = 64;
    if (!param) {
        refresh(conn);
        conn->spare = 0;
        return;
    }
    b->fd = 2;
    touch(&b->slot);
    probe(conn->spare);
}
void jumps(struct conn *conn, size_t param) {
    conn->spare = 64;
    while (param--) {
        if (param == 3) {
            refresh(conn);
            break;
            return;
        }
    }
    probe(conn->spare);
}
void inside(struct conn *conn, size_t param) {
    conn->spare = 64;
    if (param) {
        refresh(conn);
        probe(conn->spare);
        return;
    }
}
"""
    assert assigned_values(text, language) == [64, UNKNOWN, UNKNOWN]


def bounds_of(text: str, language: str = "c") -> list:
    context = context_of(text, language)
    constants = CConstants(context)
    return [constants.bounds(argument) for _, call in context.calls(["probe"])
            for argument in call.child_by_field_name("arguments").named_children]


@BOTH
def test_bounds_of_a_count_only_ever_lowered(language):
    """`n = 8; if (left < n) n = left;`: at most 8; at least 1 past a test for zero that
    returns, else at least 0 where unsigned; a write that is not such a lowering, or the
    address taken, leaves no bounds."""
    text = """
struct pool { size_t max, used; };
int grow(struct pool *pool, size_t want) {
    size_t count = 8;
    int signed_count = 8;
    size_t raised = 8;
    size_t taken = 8;
    size_t other = 8;
    if (pool->max > 0 && pool->max - pool->used < count)
        count = pool->max - pool->used;
    if (pool->max - pool->used < signed_count) {
        signed_count = pool->max - pool->used;
    }
    if (want > raised)
        raised = want;
    if (want < taken)
        taken = want;
    size_t *p = &taken;
    if (want < other)
        other = want - 1;
    probe(count * 80, signed_count, raised, taken, other, count + want);
    if (count <= 0) {
        return -1;
    }
    probe(count * 80 + 24, signed_count);
    return 0;
}
"""
    assert bounds_of(text, language) == [(0, 640), None, None, None, None, None, (104, 664),
                                         None]


def test_assignment_inside_a_lambda_is_anywhere():
    text = ASSIGNED_PRELUDE + """
void check(conn *c) {
    auto reset = [&]() { c->spare = 0; };
    c->spare = 8;
    reset();
    probe(c->spare);
    size_t kept;
    kept = 16;
    auto view = [](size_t n) { return n; };
    probe(kept);
}
"""
    assert assigned_values(text, "cpp") == [UNKNOWN, 16]


# -- definitions from headers (CConstants(context, extra=...)) ----------------------------------


def values_with_headers(text: str, headers: list[str], language: str = "c") -> list:
    """What `probe` arguments evaluate to with `headers` included before the text, in order."""
    extra: tuple = ()
    for header in headers:
        extra += (CConstants(context_of(header, language), extra=extra),)
    context = context_of(text, language)
    constants = CConstants(context, extra=extra)
    return [
        constants.evaluate(argument, assignments=True)
        for _, call in context.calls(["probe"])
        for argument in call.child_by_field_name("arguments").named_children
        if argument.type != "comment"
    ]


WIRE_HEADER = """
#define SLOT_WORDS 4
typedef unsigned int word_t;
enum limits { MAX_PEERS = 16 };
struct slot { word_t words[SLOT_WORDS]; size_t size; };
"""


@BOTH
def test_header_definitions_are_used_after_the_files(language):
    text = """
#define MAX_PEERS 3
void check(struct slot *slot) {
    slot->size = sizeof(slot->words);
    probe(SLOT_WORDS, sizeof(word_t), MAX_PEERS, sizeof(struct slot), sizeof(*slot),
          slot->size, UNSEEN);
}
"""
    assert values_with_headers(text, [WIRE_HEADER], language) == [4, 4, 3, 24, 24, 16,
                                                                  UNKNOWN]


@BOTH
def test_function_like_macros_of_headers(language):
    header = WIRE_HEADER + """
#define SLOTS_BYTES(n) ((n) * sizeof(struct slot))
#define ROUNDED(x, a) (((x) + (a) - 1) / (a) * (a))
"""
    text = """
#define ROUNDED(x, a) ((x) + (a))
void check(struct slot *slot, int n) {
    probe(SLOTS_BYTES(MAX_PEERS), SLOTS_BYTES(n), ROUNDED(10, 8));
}
"""
    # the file's ROUNDED disagrees with the header's: UNKNOWN
    assert values_with_headers(text, [header], language) == [384, UNKNOWN, UNKNOWN]


@BOTH
def test_later_headers_see_earlier_ones(language):
    later = "#define RING_BYTES (SLOT_WORDS * sizeof(struct slot))\n"
    text = "void check(void) { probe(RING_BYTES); }\n"
    assert values_with_headers(text, [WIRE_HEADER, later], language) == [96]
    assert values_with_headers(text, [later], language) == [UNKNOWN]


@BOTH
def test_headers_that_disagree_or_pack_give_unknown(language):
    text = """
struct local { int a; char b; };
void check(void) { probe(SLOT_WORDS, sizeof(struct local), sizeof(struct slot)); }
"""
    other = "#define SLOT_WORDS 8\n"
    packed = "#pragma pack(1)\n"
    assert values_with_headers(text, [WIRE_HEADER, other], language) == [UNKNOWN, 8, 24]
    assert values_with_headers(text, [WIRE_HEADER, packed], language) == [4, UNKNOWN, UNKNOWN]


def test_header_namespaces_resolve_from_the_use():
    header = "namespace wire { constexpr int kSlots = 8; }\nconstexpr int kSlots = 2;\n"
    text = """
namespace wire { void check() { probe(kSlots, ::kSlots); } }
void check() { probe(kSlots, wire::kSlots); }
"""
    assert values_with_headers(text, [header], "cpp") == [8, 2, 2, 8]


@pytest.mark.parametrize("between", [
    "*view = 0;",                 # through a pointer
    "slot = spare;",              # the variable the pointer may point to
    "touch(&spare);",             # another escaped variable, handed on
])
def test_writes_that_may_reach_through_a_pointer(between):
    text = ASSIGNED_PRELUDE + f"""
void check(struct slot *view, int param) {{
    struct slot slot, spare;
    struct slot *alias = &slot;
    alias->tag = 8;
    {between}
    probe(alias->tag);
}}
"""
    assert assigned_values(text) == [UNKNOWN]


def test_reference_is_never_followed():
    text = """
void check(int &out, int param) {
    int local = 1;
    int &alias = local;
    out = 4;
    alias = 8;
    local = param;
    probe(out, alias);
}
"""
    assert assigned_values(text, "cpp") == [UNKNOWN, UNKNOWN]


MEMBER_PRELUDE = """
static unsigned def_size = 8192;
struct conf { unsigned size; unsigned spare; unsigned cap; unsigned tag; };
union view { unsigned size; unsigned char bytes[4]; };
struct holder { union { unsigned size; unsigned char raw[4]; } u; unsigned count; };
void init(struct conf *c, struct conf *parent, union view *v, struct holder *h) {
    c->size = def_size;
    c->size = parent->size;
    c->spare = 64;
    c->cap = 64;
    c->tag = 1;
    v->size = 16;
    h->u.size = 16;
    h->count = 16;
}
void set_spare(struct conf *c, unsigned n) { c->spare = n; }
void grow(struct conf *c) { c->cap += 1; }
void name(struct conf *c) { char *p = (char *)&c->tag; *p = 2; }
"""


def test_a_member_every_store_of_the_file_agrees_on():
    """A member of a struct the C source file defines takes the one value every store of the
    file gives it (a copy between members of that name adds none), where stores are asked for;
    not a union's member, nor one another store, a compound assignment or `&` may change."""
    text = MEMBER_PRELUDE + """
void check(struct conf *c, union view *v, struct holder *h) {
    probe(c->size, c->spare, c->cap, c->tag, v->size, h->u.size, h->count);
}
"""
    assert assigned_values(text, "c") == [8192, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, 16]
    assert set(values(text, "c")) == {UNKNOWN}
    assert set(assigned_values(text, "cpp")) == {UNKNOWN}  # constructors may set them


@pytest.mark.parametrize("elsewhere, expected", [
    ("static struct conf defaults = { .size = 8192 };", 8192),  # a designator agreeing
    ("static struct conf table[] = { { .size = 4096 } };", UNKNOWN),  # one disagreeing
    ("static struct conf defaults = { 8192, 0, 0, 0 };", UNKNOWN),  # by position
    ("struct outer { struct conf conf; } o = { .conf = { 8192 } };", UNKNOWN),  # nested
    ("#define SET_SIZE(c) ((c)->size = 8192)", UNKNOWN),  # in a macro body
])
def test_initializers_and_macros_of_a_member(elsewhere, expected):
    text = MEMBER_PRELUDE + elsewhere + """
void check(struct conf *c) {
    probe(c->size);
}
"""
    assert assigned_values(text, "c") == [expected]


def test_a_struct_without_a_name_declared_with_an_initializer():
    by_position = """
struct { unsigned size; } cfg = { 4096 };
void set(void) { cfg.size = 8192; }
void check(void) { probe(cfg.size); }
"""
    assert assigned_values(by_position, "c") == [UNKNOWN]
    assert assigned_values(by_position.replace("{ 4096 }", "{ .size = 8192 }"), "c") == [8192]
