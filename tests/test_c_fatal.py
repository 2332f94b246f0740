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


def checked(code: str) -> dict:
    from cursedlint.analysis.c_fatal import checked_calls

    data = code.encode()
    return checked_calls(CContext(Source.from_bytes("a.c", data, "c"),
                                  Settings(enabled=frozenset()), parse(data, "c")))


def test_a_checked_function_of_the_file_is_a_check_of_what_it_calls():
    found = checked("""
static int step(int pid) { return peer_pull(pid); }
static int stage(int pid) { int rc = step(pid); if (rc) return rc; return 0; }
static int quiet(int pid) { return peer_peek(pid); }
void poll(int pid) { int rc = stage(pid); if (rc) shm_fatal(rc, "poll"); }
void bounce(int pid) { if (quiet(pid) != 0) log_miss(pid); }
""")
    assert found["stage"] == found["step"] == found["peer_pull"] == ("shm_fatal",)
    assert found["quiet"] == found["peer_peek"] == ("log_miss",)
    assert "poll" not in found  # (a function that is no check's callee is not one)
