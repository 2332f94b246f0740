"""What a C definition does with the function pointer a foreign call hands it
(`analysis.foreign_keeping`): stored where it outlives the call, handed on to a function that
stores it, or only used while the call runs."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.foreign_keeping import (
    KEPT, NOT_KEPT, UNDECIDED, ForeignFacts, ForeignKeeping, c_keeping,
)
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source

SOURCE = """\
typedef void (*cb_f)(int);
struct watcher { cb_f fn; int fd; };
struct visit { cb_f fn; long seen; };
static cb_f saved_global;
static cb_f table[4];
extern void forward_to_driver(cb_f fn);

void keep_in_field(struct watcher *w, cb_f fn) { w->fn = fn; }
void keep_in_global(int unused, cb_f fn) { saved_global = fn; }
void keep_in_array(cb_f fn, int slot) { table[slot] = fn; }
void keep_in_static_local(cb_f fn) { static cb_f last; last = fn; }
static void store(cb_f fn, int replace) { if (replace) saved_global = fn; }
void keep_through_call(cb_f fn) { store(fn, 1); }
void keep_through_two_calls(cb_f fn) { keep_through_call(fn); }
int only_call(cb_f fn, int n) { for (int i = 0; i < n; i++) fn(i); return n; }
void only_local_alias(cb_f fn) { cb_f mine; mine = fn; mine(1); }
void only_stack_struct(cb_f fn) { struct visit v; v.fn = fn; v.seen = 0; }
void to_a_sort(int *xs, int n, int (*cmp)(const void *, const void *)) { qsort(xs, n, sizeof *xs, cmp); }
void to_a_thread(void *(*run)(void *)) { pthread_t t; pthread_create(&t, 0, run, 0); }
void to_the_unknown(cb_f fn) { forward_to_driver(fn); }
"""


def facts_of(code: str, path: str = "lib.c") -> dict[str, ForeignFacts]:
    data = textwrap.dedent(code).encode()
    context = CContext(Source.from_bytes(path, data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    return {path: ForeignKeeping().summarize(context)}


@pytest.mark.parametrize("function, position, verdict, where", [
    ("keep_in_field", 1, KEPT, "the field `fn`"),
    ("keep_in_global", 1, KEPT, "the global `saved_global`"),
    ("keep_in_array", 0, KEPT, "the array `table`"),
    ("keep_in_static_local", 0, KEPT, "the global `last`"),
    ("keep_through_call", 0, KEPT, "`keep_through_call()` hands it to `store()`"),
    ("keep_through_two_calls", 0, KEPT, "hands it to `keep_through_call()`"),
    ("keep_in_global", 0, NOT_KEPT, ""),  # another parameter
    ("only_call", 0, NOT_KEPT, ""),
    ("only_local_alias", 0, NOT_KEPT, ""),
    ("only_stack_struct", 0, NOT_KEPT, ""),
    ("to_a_sort", 2, NOT_KEPT, ""),
    ("to_a_thread", 0, KEPT, ""),
    ("to_the_unknown", 0, UNDECIDED, ""),
    ("not_defined_here", 0, UNDECIDED, ""),
    ("cuda_sort_pairs", 0, NOT_KEPT, ""),  # undefined, and its name says sort
])
def test_keeping_by_the_definition(function, position, verdict, where):
    keeping = c_keeping(facts_of(SOURCE), function, position)
    assert keeping.verdict == verdict
    assert where in " ".join(step.note for step in keeping.steps)
    assert (keeping.steps[0].line > 0) if verdict == KEPT and where else True


def test_definitions_that_disagree_decide_nothing():
    facts = facts_of("void f(void (*cb)(void)) { cb(); }\n", "a.c") | facts_of(
        "static void (*kept)(void);\nvoid f(void (*cb)(void)) { kept = cb; }\n", "b.c")
    assert c_keeping(facts, "f", 0).verdict == UNDECIDED


def test_a_cycle_of_hand_ons_ends_undecided():
    code = "void ping(void (*cb)(void)) { pong(cb); }\nvoid pong(void (*cb)(void)) { ping(cb); }\n"
    assert c_keeping(facts_of(code), "ping", 0).verdict == UNDECIDED


def test_a_definition_under_thousands_of_nested_conditionals_is_read():
    """File scope is read without recursion: `#if`s nested 3,000 deep once made the index
    raise RecursionError (a CUR000 on the file) and miss the definition."""
    code = ("#ifdef A\n" * 3000 + "static void (*kept)(void);\n"
            "void keep(void (*cb)(void)) { kept = cb; }\n" + "#endif\n" * 3000)
    assert c_keeping(facts_of(code), "keep", 0).verdict == KEPT


def test_trigger_words_are_the_prototypes_other_modules_import():
    facts = facts_of(SOURCE) | {"m.py": ForeignFacts(prototypes=["DISPATCH"])}
    assert set(ForeignKeeping().trigger_words(facts)) == {"DISPATCH"}


def test_later_rounds_follow_function_pointers_only():
    code = """\
    typedef void (*cb_f)(int);
    struct box { long size; };
    void resize(struct box *b, long size) { set_size(b, size); }
    void hook(cb_f fn) { install(fn); }
    void hook_raw(void (*fn)(int)) { install_raw(fn); }
    """
    assert set(ForeignKeeping().more_words(facts_of(code), None)) == {"install", "install_raw"}


PROTOTYPE_MODULES = [
    "import ctypes\nOnLog = ctypes.CFUNCTYPE(None, ctypes.c_char_p)\n",
    "from ctypes import CFUNCTYPE as CF, c_int\nOnTick = CF(None, c_int)\n",
    "import ctypes\nCF = ctypes.CFUNCTYPE\nOnTick = CF(None, ctypes.c_int)\nOnDone = OnTick\n",
    "import ctypes\nOnRead = (\n    ctypes\n    .CFUNCTYPE(None, ctypes.c_void_p)\n)\n",
    "import ctypes\nOnRead = \\\n    ctypes.CFUNCTYPE(None)\n",
    "import ctypes, sys\nif sys.platform == 'win32':\n    Hook = ctypes.WINFUNCTYPE(None)\n"
    "else:\n    Hook = ctypes.CFUNCTYPE(None)\n",
    "import ctypes\n\ndef _load():\n    global Cb\n    Cb = ctypes.CFUNCTYPE(ctypes.c_int)\n",
    "import ctypes as c\nÉcho = c.CFUNCTYPE(None)\n",
]


@pytest.mark.parametrize("text", PROTOTYPE_MODULES)
def test_trigger_names_hold_every_prototype_the_summary_finds(text):
    """What a trigger-only gathering skips a module for (`Indexer.trigger_names`: it binds no
    name a linted file holds) must never leave out a prototype its summary would give."""
    import ast

    from cursedlint.python.context import PythonContext

    context = PythonContext(Source.from_text("m.py", text, "python"),
                            Settings(enabled=frozenset()), ast.parse(text))
    summary = ForeignKeeping().summarize(context)
    prototypes = {name.encode() for name in (summary.prototypes if summary else ())}
    names = ForeignKeeping().trigger_names(text.encode())
    assert prototypes <= set(names)


def test_trigger_names_leave_out_the_names_bound_to_other_values():
    text = (b"import ctypes\nlib = ctypes.CDLL('libev.so')\nOnIo = ctypes.CFUNCTYPE(None)\n"
            b"def run(values):\n    total = sum(values)\n    return total\n")
    assert ForeignKeeping().trigger_names(text) == {b"OnIo"}


def test_trigger_names_keep_a_value_whose_brackets_never_close():
    """A value read to the end of the file unclosed may hold anything: its name is kept, also
    in a module naming no prototype factory, and so is a name bound to it."""
    text = b"import ctypes\nOnIo = make(ctypes.c_int,\n" + b"    ctypes.c_int,\n" * 3
    assert ForeignKeeping().trigger_names(text) == {b"OnIo"}
    text = b"Table = [\n" + b"    'row',\n" * 3 + b"Alias = Table\n"
    assert ForeignKeeping().trigger_names(text) == {b"Table", b"Alias"}


@pytest.mark.parametrize("text", [
    b"import ctypes\nCF = ctypes.CFUNCTYPE\nOnTick = CF(None)\nOnTickX = CFX(None)\nA = OnTick\n",
    b"from ctypes import CFUNCTYPE as CF_2\nP = CF_2(None)\nQ = [CF_2, 1]\nR = xCF_2\n",
    b"import ctypes\nP = ctypes.CFUNCTYPE(None)\nP.x = 1\nQ = P.argtypes\nR = _P\nS = P1\n",
    b"import ctypes\nT$ = ctypes.CFUNCTYPE(None)\nU = T$\nV = xT$\nW = T\n",
    b"import ctypes\n*rest = ctypes.CFUNCTYPE(None)\nU = f(*rest)\nV = rest\n",
    b"import ctypes\nP = ctypes.CFUNCTYPE(None)\nQ = 'P'\nR = P_\nS = (\n  P\n)\n",
])
def test_trigger_names_find_a_name_held_as_a_whole_word_as_a_pattern_does(text):
    """A value holds a name where a pattern bounded by non-word characters finds it: names of
    word characters are read from the value's runs of them, others searched as before."""
    import re

    from cursedlint.analysis import foreign_keeping

    bindings = [(found[1], foreign_keeping._value(text, found))
                for found in foreign_keeping._BINDING.finditer(text)]
    words = {word for word in foreign_keeping._FACTORY_WORDS if word in text}
    words |= set(foreign_keeping._IMPORTED_AS.findall(text))
    names: set[bytes] = set()
    while True:
        held = re.compile(rb"(?<![\w])(?:%s)(?![\w])" % b"|".join(map(re.escape, words)))
        found = {name for name, value in bindings if name not in names
                 and (value is None or held.search(value))}
        if not found:
            break
        names |= found
        words |= found
    assert ForeignKeeping().trigger_names(text) == names


def test_every_loader_word_holds_a_part_searched_first():
    """`_may_name_loader` answers False only where no loader word can be: each holds a part."""
    from cursedlint.analysis.foreign_keeping import _LOADER_PARTS, _LOADER_WORDS, _may_name_loader

    assert all(any(part in word for part in _LOADER_PARTS) for word in _LOADER_WORDS)
    assert all(_may_name_loader(f"x = {word}('libc.so.6')") for word in _LOADER_WORDS)
    assert not _may_name_loader("import os\nhandle = open('dl')\n")


def test_every_library_loader_is_named_by_a_loader_word():
    """A module whose text names no loader word loads no library (`_names_loader`): each
    loader's last name is one of the words."""
    from cursedlint.analysis.callback_apis import LIBRARY_LOADERS
    from cursedlint.analysis.foreign_keeping import _LOADER_WORDS, _names_loader

    assert {name.rpartition(".")[2] for name in LIBRARY_LOADERS} | {"dlopen"} <= _LOADER_WORDS
    assert all(_names_loader(f"lib = {name}('libm.so.6')") for name in _LOADER_WORDS)
