"""Every rule's parse-free second look, and the prefilter around it, takes time linear in the
file on adversarial text: banners of each punctuation character after each trigger word, long
runs of one character, deep brackets. A backtracking regex over file content would let one
file in a repository stall every pre-commit run."""

from __future__ import annotations

import signal
import string
import time
from contextlib import contextmanager

import pytest

from cursedlint.languages import C, CPP, PYTHON
from cursedlint.prefilter import Prefilter
from cursedlint.registry import all_rules
from cursedlint.rule import Rule, trigger_alternatives

SMALL, LARGE = 2_500, 10_000
BANNER_CHARACTERS = string.punctuation + " \t\n"
AFTER_WORD = ("", ".", "(", " ", "\n")
"""What may stand between a trigger word and a banner."""


def looking_rules() -> list[type[Rule]]:
    rules = [rule for rule in all_rules().values()
             if any(rule.checker(language).look.__func__ is not Rule.look.__func__
                    for language in rule.languages)]
    assert len(rules) >= 8, "every rule with a second look is timed"
    return rules


def words_of(rule: type[Rule]) -> list[str]:
    options = rule.resolved_options()
    return sorted(set().union(*trigger_alternatives(rule.triggers_for(options))))


def banners(words: list[str], character: str, length: int) -> bytes:
    """Every trigger word (so every alternative of the rule holds), then each word followed by
    each separator and a banner of `character`."""
    head = "\n".join(words) + "\n"
    body = "".join(
        f"{word}{after}{character * length}\n" for word in words for after in AFTER_WORD
    )
    return (head + body).encode()


def runs_and_brackets(words: list[str], length: int) -> list[bytes]:
    head = ("\n".join(words) + "\n").encode()
    deep = "(" * length + "x" + ")" * length
    unclosed = "".join(f"{word}(" * (length // 50) for word in words)
    nested = "".join(f"{word}(x, " * (length // 50) for word in words)
    return [
        head + (".#" * (length // 2)).encode(),  # each `.` opens a gap to the line's end
        head + ("#.\n" * (length // 3)).encode(),  # each gap runs over every later line
        head + ("'.#" * (length // 3)).encode(),  # a quote: the `#` may be in a string
        head + ("lib:" * (length // 4) + "\n").encode(),  # an annotation without `=`
        head + "".join(f"r{n}.register(x)\n" for n in range(length // 16)).encode(),
        head + nested.encode(),
        head + b"x" * length,
        head + b"." * length + words[0].encode() + b"(",
        head + deep.encode(),
        head + ("[{(" * (length // 3)).encode(),
        head + unclosed.encode(),
        head + ("'" * length).encode(),
        head + ('"""' + "\\" * length).encode(),
        head + ("import a as b, " * (length // 15)).encode(),
        head + "".join(f"{word}(x) " for word in words * (length // 200 + 1)).encode(),
    ]


@contextmanager
def deadline(seconds: int, what: str):
    """Fail (instead of hanging the suite) when the block runs longer than `seconds`."""

    def expired(signum, frame):
        raise AssertionError(f"{what}: still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def look_time(rule: type[Rule], language: str, data: bytes) -> float:
    options = rule.resolved_options()
    started = time.process_time()
    rule.may_fire(data, options, (3, 12), language)
    return time.process_time() - started


def assert_linear(rule, language, make, what) -> None:
    with deadline(20, f"{rule.code} ({language}) on {what}"):
        look_time(rule, language, make(40))  # exponential backtracking shows at once
        small = min(look_time(rule, language, make(SMALL)) for _ in range(2))
        large = min(look_time(rule, language, make(LARGE)) for _ in range(2))
    ratio = LARGE / SMALL
    assert large <= small * ratio * 2.5 + 0.05, (
        f"{rule.code} ({language}) on {what}: {small:.4f} s at {SMALL}, {large:.4f} s at {LARGE}"
    )


@pytest.mark.parametrize("rule", looking_rules(), ids=lambda rule: rule.code)
def test_every_second_look_is_linear_on_banners(rule):
    words = words_of(rule)
    for language in {PYTHON, C, CPP} & set(rule.languages):
        for character in BANNER_CHARACTERS:
            assert_linear(
                rule, language,
                lambda length: banners(words, character, length),
                f"banners of {character!r}",
            )


@pytest.mark.parametrize("rule", looking_rules(), ids=lambda rule: rule.code)
def test_every_second_look_is_linear_on_runs_and_brackets(rule):
    words = words_of(rule)
    for language in {PYTHON, C, CPP} & set(rule.languages):
        for shape in range(len(runs_and_brackets(words, 40))):
            assert_linear(
                rule, language,
                lambda length: runs_and_brackets(words, length)[shape],
                f"input shape {shape}",
            )


def test_the_issue_reproducers_finish_at_once():
    """Comment banners after a `.` or a called name, in files with CUR101 and CUR202 words."""
    prefilter = Prefilter(all_rules().values(), {}, target_python=(3, 12))
    inputs = [
        b"import ctypes\nCB = ctypes.CFUNCTYPE(None)\nTIMEOUT = 5.  " + b"#" * 10_000 + b"\n",
        b"import ctypes\nCB = ctypes.CFUNCTYPE(None, ctypes.c_int)\n\n# Helpers.\n"
        + b"#" * 10_000 + b"\n",
        b"import os, subprocess\nspawn = subprocess.Popen  " + b"#" * 10_000
        + b"\nsubprocess.Popen(['ls'], preexec_fn=os.setsid)\n",
        b"." + b"#" * 10_000 + b"stFUNCTYPE",
    ]
    for data in inputs:
        with deadline(5, repr(data[:40])):
            prefilter.triggered(data)
