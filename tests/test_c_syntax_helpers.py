"""C/C++ syntax helpers (cursedlint/analysis/c_syntax.py): which declarators declare a function,
the plain functions a file defines by name, expressions seen through parentheses, casts and
condition clauses (and the climb back out), and the writes of a variable."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_syntax import (
    assigns, declared_name, defined_functions, function_declarator, line_macros, plain_function,
    unwrapped,
    wrappers, writes,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str, language: str = "cpp") -> CContext:
    data = textwrap.dedent(code).encode()
    path = "a.cpp" if language == "cpp" else "a.c"
    return CContext(Source.from_bytes(path, data, language), Settings(enabled=frozenset()),
                    parse(data, language))


def first(context, kind: str):
    return next(node for node in context.descendants(context.root) if node.type == kind)


# -- which declarators declare a function -----------------------------------------------------

@pytest.mark.parametrize("declaration, function", [
    ("int probe(int fd);", "probe"),
    ("const int &limit(int q);", "limit"),              # a reference return type
    ("struct ibv_mr *reg(void *buf, size_t len);", "reg"),
    ("int (*handler_for(int signo))(int);", "handler_for"),  # returns a function pointer
    ("int (*on_event)(int) = 0;", None),                # a pointer to a function
    ("int (*handlers[4])(int);", None),                 # an array of them
    ("int ready = 0;", None),
])
def test_function_declarator_is_the_one_nearest_the_name(declaration, function):
    context = context_of(declaration)
    declarator = function_declarator(first(context, "declaration"))
    assert (declared_name(context, declarator) if declarator else None) == function


def test_function_declarator_of_a_definition_returning_a_reference():
    context = context_of("const Config &current_config(int rank) { return configs[rank]; }\n")
    definition = first(context, "function_definition")
    declarator = function_declarator(definition.child_by_field_name("declarator"))
    assert context.text(declarator.child_by_field_name("declarator")) == "current_config"


# -- plain functions a file defines -----------------------------------------------------------

SOURCES = """\
ssize_t peer_copy(pid_t pid, void *dst, size_t len) { return len; }
static char *scratch_for(int rank) { return slots[rank]; }
const Stats &stats_of(int rank) { return table[rank]; }
ssize_t Channel::pull(void *dst, size_t len) { return 0; }
struct Lane { int poll(int budget) { return budget; } };
#ifdef HAVE_CMA
ssize_t peer_copy(pid_t pid, void *dst, size_t len) { return -1; }
#endif
"""


def test_plain_functions_are_named_functions_not_methods():
    context = context_of(SOURCES)
    names = [context.text(found[0]) if (found := plain_function(node)) else None
             for node in context.descendants(context.root) if node.type == "function_definition"]
    assert names == ["peer_copy", "scratch_for", "stats_of", None, None, "peer_copy"]


def test_defined_functions_are_the_last_definitions_of_the_names_asked():
    context = context_of(SOURCES)
    found = defined_functions(context, {"peer_copy", "stats_of", "pull", "poll", "missing"})
    assert sorted(found) == ["peer_copy", "stats_of"]
    assert found["peer_copy"].start_point[0] == 6  # the one under #ifdef, read last
    assert defined_functions(context, set()) == {}


# -- seeing through parentheses, casts and condition clauses ------------------------------------

def test_unwrapped_sees_through_named_casts_and_condition_clauses():
    context = context_of("""\
        void pull(pid_t pid, struct iovec *l, struct iovec *r) {
          if (static_cast<ssize_t>((process_vm_readv(pid, l, 1, r, 1, 0))) < 0) abort();
        }
        """)
    condition = first(context, "condition_clause")
    comparison = unwrapped(condition)
    assert comparison.type == "binary_expression"
    inner = unwrapped(comparison.child_by_field_name("left"))
    assert context.text(inner).startswith("process_vm_readv(")
    assert unwrapped(None) is None


def test_wrappers_climb_out_through_what_unwrapped_sees_through():
    context = context_of("""\
        void push(pid_t pid, struct iovec *l, struct iovec *r) {
          (void)static_cast<long>((process_vm_writev(pid, l, 1, r, 1, 0)));
          log_result(process_vm_writev(pid, l, 1, r, 1, 0));
        }
        """)
    calls = [call for _, call in context.calls(("process_vm_writev",))]
    climbed = list(wrappers(context, calls[0]))
    assert [node.type for node in climbed] == [
        "parenthesized_expression", "call_expression", "cast_expression"]
    assert unwrapped(climbed[-1]) == calls[0]
    assert list(wrappers(context, calls[1])) == []  # an argument of another call


# -- writes of a variable ---------------------------------------------------------------------

@pytest.mark.parametrize("statement, written, assigned", [
    ("n = bounce_copy(len);", True, True),
    ("n += 4;", True, True),
    ("n++;", True, True),
    ("ssize_t n = 0;", True, False),          # a declaration (a new variable of that name)
    ("read_count(&n);", True, False),         # its address taken
    ("*n = 0;", False, False),                # what it points to
    ("log_count(n);", False, False),
    ("other.n = 1;", False, False),           # a member of that name
])
def test_writes_and_assigns(statement, written, assigned):
    context = context_of(f"void f(ssize_t n) {{\n  {statement}\n}}\n", language="c")
    body = first(context, "compound_statement")
    assert bool(list(writes(context, body, "n"))) == written
    assert assigns(context, body, "n") == assigned


def test_names_found_from_the_index_of_identifiers_are_those_a_search_finds():
    """Past SEARCHES_BEFORE_INDEX wide searches, a file's names come from an index of its
    identifiers: the same (start, end) places, in order, as reading the bytes, for names
    inside longer identifiers, in comments and strings, at the ends of the file, and for spans
    that cut an identifier."""
    import random

    from cursedlint.c import context as c_context

    rng = random.Random(28)
    words = ["buf", "buf_", "_buf", "b", "len", "$x", "x1", "ibv_reg_mr", "mr", "b_len"]
    pieces = []
    while sum(map(len, pieces)) < 2 * c_context.WIDE_SEARCH_BYTES:
        pieces.append(rng.choice(words) * rng.choice([1, 1, 2]))
        pieces.append(rng.choice([" ", "(", ", ", "; ", "\n", "/* ", " */", '"', "->", "1"]))
        pieces.append(" " * rng.randrange(40))  # (fewer hits: the plain search is slow)
    text = "".join(pieces)
    context = CContext(Source.from_bytes("big.c", text.encode(), "c"),
                       Settings(enabled=frozenset()), parse(text.encode(), "c"))
    data = context.source.data
    spans = [(0, len(data)), (1, len(data) - 1), (5, len(data) // 2 + 3)]
    questions = [frozenset(rng.sample(words, rng.choice([1, 2, 3]))) for _ in range(24)]
    for names in questions:
        for start, end in spans:
            assert list(context._spelled(names, start, end)) == list(
                c_context._spelled(names, data, start, end)), (sorted(names), start, end)
    assert context._wide_searches > c_context.SEARCHES_BEFORE_INDEX
    assert context.tree_index._places is not None  # the later answers came from the index


def test_a_few_names_found_one_by_one_are_where_the_automaton_finds_them(monkeypatch):
    """Up to FEW_NAMES plain names are found by `bytes.find` each: the same (start, end)
    places, in order, as one automaton pass of them, for names inside longer identifiers or
    holding one another, at the ends of the bytes, and for spans that cut an identifier."""
    import random

    from cursedlint.c import context as c_context

    rng = random.Random(25)
    words = ["buf", "buf_", "_buf", "b", "len", "$x", "x1", "ibv_reg_mr", "mr", "b_len", "a$b"]
    for _ in range(300):
        pieces = []
        for _ in range(rng.randrange(1, 30)):
            pieces.append(rng.choice(words) * rng.choice([1, 1, 2]))
            pieces.append(rng.choice(["", " ", "(", ", ", "\n", "/*", "$", "9", "_", "->"]))
        data = "".join(pieces).encode()
        names = frozenset(rng.sample(words, rng.randrange(1, c_context.FEW_NAMES + 1)))
        start = rng.randrange(0, len(data) // 2 + 1)
        end = rng.randrange(start, len(data) + 1)
        found = list(c_context._spelled(names, data, start, end))
        monkeypatch.setattr(c_context, "FEW_NAMES", 0)  # (one automaton pass)
        assert found == list(c_context._spelled(names, data, start, end)), (data, names)
        monkeypatch.undo()


def test_names_holding_one_another_are_found_by_one_search_of_the_shortest(monkeypatch):
    """A search of `exit`, `_exit` and `quick_exit` (with `abort`) reads the bytes once for
    the three, from `exit`'s occurrences: the places the automaton finds, in order, a name
    inside a longer identifier none, nor a place cut by the span's ends."""
    from cursedlint.c import context as c_context

    data = (b"static void die(int code) { if (code) _exit(code); quick_exit(code); }\n"
            b"int exit_code; void atexit_handler(void) { exit(exit_code); abort(); }\n"
            b"/* exit */ void f(void) { my_exit(1); __exit(2); exit (3); }\n")
    names = frozenset({"exit", "_exit", "quick_exit", "abort"})
    searched = []
    occurrences = c_context._occurrences
    monkeypatch.setattr(c_context, "_occurrences",
                        lambda name, *rest: searched.append(name) or occurrences(name, *rest))
    spans = [(0, len(data)), (data.index(b"uick_exit"), data.index(b"atexit")),
             (data.index(b"_exit"), len(data) - 5)]
    found = [list(c_context._spelled(names, data, start, end)) for start, end in spans]
    assert searched == [b"exit"] * 3
    assert [data[start:end] for start, end in found[0]] == [
        b"_exit", b"quick_exit", b"exit", b"abort", b"exit", b"exit"]
    monkeypatch.setattr(c_context, "FEW_NAMES", 0)  # (one automaton pass, as before)
    assert found == [list(c_context._spelled(names, data, start, end)) for start, end in spans]


def test_line_macros_are_the_function_like_defines_at_a_line_start():
    data = (b"#define ROUND_UP(n, a) (((n) + (a) - 1) / (a) * (a))\n"
            b"  #  define ALLOC(n) malloc(n)\n"
            b"int x; #define NOT_ONE(a) \\\n"
            b"#define AFTER(a) (a)\n"  # a continued line's next line that starts a define
            b"#define LONG(a, b) f(a, \\\n    b)\r\n"
            b"#define PLAIN 1\n")
    assert line_macros(data) == (
        (b"ROUND_UP", b"n, a", b" (((n) + (a) - 1) / (a) * (a))"),
        (b"ALLOC", b"n", b" malloc(n)"),
        (b"AFTER", b"a", b" (a)"),
        (b"LONG", b"a, b", b" f(a, \\\n    b)\r"),
    )
