"""`called_pieces._calls_any`, the test of whether a file may call one of some names (files
that may are summarized): never fewer places than a name followed by blanks, comments and
continued lines and a `(`, and time linear in the file, comments never closed included."""

from __future__ import annotations

import random
import re
import time

import pytest

from cursedlint.analysis.called_pieces import _calls_any

_THEN_CALLED = re.compile(rb"(?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*|\\\n)*\(")
_NAME = re.compile(rb"(?<!\w)f(?!\w)")


def called_by_pattern(data: bytes) -> bool:
    """The definition: `f` as a whole word, then what a pattern lets stand before `(`."""
    return any(_THEN_CALLED.match(data, found.end()) for found in _NAME.finditer(data))


@pytest.mark.parametrize("data, called", [
    (b"f(x);", True),
    (b"f /* why */ (x);", True),
    (b"f \\\n  (x);", True),
    (b"f // a comment\n  (x);", True),
    (b"int f; /* f */ g(x);", False),
    (b"f /* never closed (", False),
    (b"return f;", False),
    (b"ff(x); f_(y);", False),
])
def test_a_call_is_a_name_then_blanks_and_comments_then_a_parenthesis(data, called):
    assert _calls_any(data, ["f"]) is called


def test_never_fewer_places_than_the_pattern():
    pieces = [b"f", b" ", b"\n", b"/*", b"*/", b"//", b"(", b"\\\n", b"x", b"*", b"/"]
    chosen = random.Random(29)
    for _ in range(50_000):
        data = b"".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 10)))
        assert _calls_any(data, ["f"]) or not called_by_pattern(data), data


@pytest.mark.parametrize("unit", [b"f /*", b"f // f", b"f /* f */ ", b"f // /*\n", b"f \\\n"])
def test_time_is_linear_in_the_file(unit):
    def spent(n: int) -> float:
        data = unit * n
        started = time.process_time()
        _calls_any(data, ["f"])
        return time.process_time() - started

    small = min(spent(8_000) for _ in range(2))
    large = min(spent(64_000) for _ in range(2))
    assert large < 8 * small * 2.5 + 0.05, (small, large)


PROVIDER = b"""\
static int efa_mr_reg_internal(struct fid_mr *mr) { return 0; }
/* wraps ft_reg_mr for tests; ft_reg_mr() in a comment counts */
int efa_register(struct fid_domain *d, void *buf) {
    int ft_reg_mr_count = 0;                 /* a longer name, not a call */
    return efa_mr_reg_internal /* cached */ (NULL);
}
"""


@pytest.mark.parametrize("names, called", [
    (["rxm_mr_reg", "ft_reg_mr_coun"], False),  # inside a longer name only
    (["ft_reg_mr", "rxm_mr_reg"], True),  # before a `(` in a comment: more places, never fewer
    (["ft_reg_mr", "efa_mr_reg_internal"], True),  # a comment before the `(`
    (["mr_reg_internal", "reg_mr"], False),  # only inside longer names
    (["efa_register", "rxm_mr_reg", "ft_reg_mr", "mr_create", "mr_create_ext"], True),
    ([f"rxm_mr_reg_{n}" for n in range(12)] + ["mr_reg_internal", "ft_reg_mr_coun"], False),
    ([f"rxm_mr_reg_{n}" for n in range(12)] + ["efa_mr_reg_internal"], True),
])
def test_several_names_are_looked_for_at_once(names, called):
    assert _calls_any(PROVIDER, names) is called
    assert _calls_any(PROVIDER, reversed(names)) is called


def test_a_call_past_the_first_window_of_a_big_file_is_found():
    data = b"int table_entry;\n" * 70_000 + b"void g(void) { ft_reg_mr(NULL); }\n"
    assert len(data) > 1 << 20
    for more in ([], [f"fi_mr_reg_{n}" for n in range(10)]):  # (by `bytes.find`, by automaton)
        assert _calls_any(data, ["ft_reg_mr", "table", *more]) is True
        assert _calls_any(data, ["table_entr", "reg_mr", *more]) is False
