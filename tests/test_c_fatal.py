"""Fatal handlers (cursedlint/analysis/c_fatal.py): the definitions of a file that end the
process (end to end: tests/rules/CUR601)."""

from __future__ import annotations

from cursedlint.analysis.c_fatal import fatal_handlers
from cursedlint.c.context import CContext, parse
from cursedlint.settings import Settings
from cursedlint.source import Source


def handlers(code: str) -> dict:
    data = code.encode()
    context = CContext(Source.from_bytes("a.c", data, "c"), Settings(enabled=frozenset()),
                       parse(data, "c"))
    return fatal_handlers(context, {})


def test_a_name_in_a_comment_or_a_string_makes_no_handler():
    found = handlers("""
void die(const char *why) { fprintf(stderr, "%s\\n", why); exit(1); }
void warn(const char *why) { /* callers abort() or exit() */ fprintf(stderr, "exit: %s", why); }
void fail(int rc) { die("failed"); }
""")
    assert sorted(found) == ["die", "fail"]
    assert (found["die"].calls, found["fail"].calls) == ("exit", "die")
