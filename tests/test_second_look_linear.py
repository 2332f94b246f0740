"""Every rule's parse-free second look, and the prefilter around it, takes time linear in the
file on adversarial text: banners of each punctuation character after each trigger word, long
runs of one character, deep brackets. So does the whole linter on each rule's examples with a
long run of word characters glued before, after or between their words (a search that starts
with a repeated class of word characters tries every start in a run). A backtracking regex over
file content would let one file in a repository stall every pre-commit run."""

from __future__ import annotations

import ast
import keyword
import os
import re
import resource
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from contextlib import contextmanager
from functools import cache

import pytest

import cursedlint.analysis
import cursedlint.rules
from cursedlint.c import context as c_context
from cursedlint.python import scan as python_scan
from cursedlint.languages import C, CPP, CYTHON, PYTHON
from cursedlint.triggers.prefilter import Prefilter
from cursedlint.registry import all_rules
from cursedlint.rule import Rule, trigger_alternatives
from cursedlint.settings import DEFAULT_MAX_FILE_SIZE
from harness import FILE_NAMES, run_project

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


def assert_linear(rule, language, make, what, timed=look_time, sizes=(SMALL, LARGE)) -> None:
    """`timed(rule, language, make(size))` grows about as `size` does (from the first size
    to the second), not as its square."""
    small_size, large_size = sizes
    with deadline(20, f"{rule.code} ({language}) on {what}"):
        timed(rule, language, make(40))  # exponential backtracking shows at once
        small = min(timed(rule, language, make(small_size)) for _ in range(2))
        large = min(timed(rule, language, make(large_size)) for _ in range(2))
    ratio = large_size / small_size
    assert large <= small * ratio * 2.5 + 0.05, (
        f"{rule.code} ({language}) on {what}: {small:.4f} s at {small_size}, "
        f"{large:.4f} s at {large_size}"
    )


@pytest.mark.parametrize("rule", looking_rules(), ids=lambda rule: rule.code)
def test_every_second_look_is_linear_on_banners(rule):
    words = words_of(rule)
    for language in {PYTHON, CYTHON, C, CPP} & set(rule.languages):
        for character in BANNER_CHARACTERS:
            assert_linear(
                rule, language,
                lambda length: banners(words, character, length),
                f"banners of {character!r}",
            )


@pytest.mark.parametrize("rule", looking_rules(), ids=lambda rule: rule.code)
def test_every_second_look_is_linear_on_runs_and_brackets(rule):
    words = words_of(rule)
    for language in {PYTHON, CYTHON, C, CPP} & set(rule.languages):
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


# -- the whole linter -----------------------------------------------------------------------


def lint_time(rule: type[Rule], language: str, data: bytes) -> float:
    """CPU seconds `cursedlint check` spends on a project holding only this file (its index
    included), with only `rule` enabled, as in a new process (the automata built of a file's
    own names are not kept from an earlier lint of it); fails on an internal error (CUR000)."""
    python_scan._automaton.cache_clear()
    c_context._automaton.cache_clear()
    root = tempfile.mkdtemp()
    try:
        with open(os.path.join(root, FILE_NAMES[language]), "wb") as handle:
            handle.write(data)
        started = time.process_time()
        findings = run_project(root, None, [rule.code, "CUR000"])[1]
        elapsed = time.process_time() - started
    finally:
        shutil.rmtree(root)
    assert not [finding for finding in findings if finding.code == "CUR000"], findings
    return elapsed


IMPORT_OF_A_LONG_NAME = "import subprocess\nimport {run}\nsubprocess.Popen(['x'], preexec_fn=f)\n"
REGISTRATION_BESIDE_A_LONG_IDENTIFIER = """\
#include <stdlib.h>
#include <infiniband/verbs.h>
void f(struct ibv_pd *pd) {{
    char *buf = malloc(100);
    int {run} = 0;
    ibv_reg_mr(pd, buf, 100, 0);
}}
"""
REGISTRATIONS_BESIDE_A_HEX_BLOB = """\
#include <stdlib.h>
#include <infiniband/verbs.h>
static const char key[] = "{run}";
void f(struct ibv_pd *pd) {{
    const char *blob = "{run}";
    char *buf = malloc(100);
    ibv_reg_mr(pd, buf, 100, 0);
    ibv_reg_mr(pd, (void *)blob, 64, 0);
}}
"""


@pytest.mark.parametrize("code, language, shape, run", [
    ("CUR101", PYTHON, IMPORT_OF_A_LONG_NAME, "a"),
    ("CUR301", C, REGISTRATION_BESIDE_A_LONG_IDENTIFIER, "a"),
    ("CUR301", C, REGISTRATIONS_BESIDE_A_HEX_BLOB, "0123456789abcdef"),
], ids=["import-of-a-long-name", "long-identifier", "hex-blob"])
def test_the_quadratic_regex_reproducers_lint_in_linear_time(code, language, shape, run):
    """An import of a 40,000-character name (the second look's `name as alias` search took
    22 s); a 40,000-character identifier or hex string beside a registration (the device
    allocators' wrapper search took 41 s)."""
    rule = all_rules()[code]

    def make(length: int) -> bytes:
        return shape.format(run=(run * length)[:length]).encode()

    assert_linear(rule, language, make, "a long word run", lint_time, (10_000, 40_000))
    assert lint_time(rule, language, make(40_000)) < 2


# Word runs glued to each rule's examples. Most modes leave alone the words the rules match
# (`API_WORDS`), so the rules still fire and their analyses read the long names too.
RUN_SIZES = (1_000, 4_000)
C_KEYWORDS = frozenset(
    "auto break case char class const continue default delete do double else enum extern float "
    "for goto if include define int long namespace new private public return short signed "
    "sizeof static struct switch template this typedef typename union unsigned using virtual "
    "void volatile while".split()
)
_WORD = re.compile(r"[A-Za-z_]\w*")
_BETWEEN_WORDS = re.compile(r"(?<=\w)[ \t]+(?=\w)")


@cache
def api_words() -> frozenset[str]:
    """The words of the string constants in cursedlint's rules and analyses (the APIs,
    modules, parameters and settings they match), their docstrings and examples left out."""
    words = set()
    for package in (cursedlint.rules, cursedlint.analysis):
        for folder, _, names in os.walk(os.path.dirname(package.__file__)):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        words |= _constant_words(ast.parse(handle.read()))
    return frozenset(words)


def _constant_words(tree: ast.Module) -> set[str]:
    left_out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr):  # a docstring
            left_out.add(id(node.value))
        elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id in ("valid", "invalid")
                for target in node.targets):
            left_out.update(id(inner) for inner in ast.walk(node.value))
    return {word.lower() for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in left_out for word in _WORD.findall(node.value)}


def examples_of(rule: type[Rule], language: str) -> str:
    """The rule's examples in `language`, one after another; its trigger words where it has
    none in that language."""
    texts = [textwrap.dedent(example.code) for kind in ("invalid", "valid")
             for example in rule.examples(kind) if rule.example_language(example) == language]
    return "\n".join(texts) or "\n".join(words_of(rule)) + "\n"


def glue_modes(rule: type[Rule], language: str) -> dict[str, object]:
    """Ways to put a run of word characters (`run`) into a text: name -> function(text, run)."""
    keywords = frozenset(keyword.kwlist) if language == PYTHON else C_KEYWORDS
    kept = keywords | api_words() | {word.lower() for word in words_of(rule)}

    def glued(kept: frozenset[str], before: bool):
        def glue(text: str, run: str) -> str:
            return _WORD.sub(lambda word: word[0] if word[0].lower() in kept else (
                run + word[0] if before else word[0] + run), text)
        return glue

    def between_lines(text: str, run: str) -> str:
        return "".join(line[:len(line) - len(line.lstrip())] + run + "\n" + line
                       for line in text.splitlines(keepends=True))

    return {
        "before its names": glued(kept, True),
        "after its names": glued(kept, False),
        "before every word": glued(keywords, True),
        "after every word": glued(keywords, False),
        "between words": lambda text, run: _BETWEEN_WORDS.sub(f" {run} ", text),
        "between lines": between_lines,
    }


def example_languages() -> list[tuple[type[Rule], str]]:
    return [(rule, language) for rule in all_rules().values() if rule.valid or rule.invalid
            for language in rule.languages]


@pytest.mark.parametrize("rule, language", example_languages(),
                         ids=lambda value: value if isinstance(value, str) else value.code)
def test_the_linter_is_linear_in_word_runs_glued_to_the_examples(rule, language):
    text = examples_of(rule, language)
    for mode, glue in glue_modes(rule, language).items():
        def make(length: int) -> bytes:
            return glue(text, "a" * length).encode()

        assert len(make(RUN_SIZES[1])) < DEFAULT_MAX_FILE_SIZE, f"{mode}: too large to be linted"
        assert_linear(rule, language, make, f"a word run {mode}", lint_time, RUN_SIZES)


REPRODUCERS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "shared", "repro", "quadratic_regex")


@pytest.mark.skipif(not os.path.isdir(REPRODUCERS), reason="no shared/ beside the checkout")
@pytest.mark.parametrize("name", sorted(os.listdir(REPRODUCERS)) if os.path.isdir(REPRODUCERS)
                         else [])
def test_the_shared_reproducers_lint_at_once(name, tmp_path):
    """`cursedlint check` on each file of shared/repro/quadratic_regex (4-10 s of CPU each
    with the quadratic regexes) takes well under a second of CPU: no traceback, no CUR000."""
    shutil.copyfile(os.path.join(REPRODUCERS, name), tmp_path / name)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "cursedlint", "check", "--no-cache", "--jobs", "1", name],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "CUR000" not in done.stdout
    assert cpu < 2.5, f"{name}: {cpu:.2f} s of CPU"


# Other shapes the audit of every regex over file text found superlinear, each with a rule
# that reads it: (code, language, the file for a length[, the lengths timed]).
REGISTRATION = "#include <infiniband/verbs.h>\nvoid f(struct ibv_pd *pd, char *buf) {{ ibv_reg_mr(pd, buf, 100, 0); }}\n{tail}\n"
SHAPES = {
    "NOLINT( never closed": (
        "CUR301", C, lambda n: REGISTRATION.format(tail="// " + "NOLINT(" * n)),
    "class heads with template arguments": (  # in a comment: tree-sitter reads it quickly
        "CUR301", CPP, lambda n: REGISTRATION.format(tail="// " + "class FOO Bar<x " * n)),
    "blanks after a class head": (
        "CUR301", CPP, lambda n: REGISTRATION.format(tail="class FOO Bar" + " " * n + ";")),
    "%( never closed": (
        "CUR101", PYTHON,
        lambda n: "import os, subprocess\nsubprocess.Popen(['" + "%(" * n
        + "' % 1], preexec_fn=os.setsid)\n", (10_000, 40_000)),
    "a line of item reads": (
        "CUR101", PYTHON,
        lambda n: "import os, subprocess\nkw = {'preexec_fn': os.setsid}\ny = ["
        + "kw[0], " * n + "]\nsubprocess.Popen(['ls'], **kw)\n"),
    "an import alias of a long name": (
        "CUR101", PYTHON,
        lambda n: "from subprocess import Popen as " + "a" * n + "\nPopen(['ls'], preexec_fn=f)\n"),
    "a function-like macro's body of one long word": (  # rounding macros' calls written out
        "CUR302", C, lambda n: REGISTRATION.format(tail="#define RND(n, a) " + "a" * n),
        (5_000, 20_000)),
    "a function-like macro's body in deep parentheses": (  # one round per level, each a pass
        "CUR302", C, lambda n: REGISTRATION.format(
            tail="#define RND(n, a) " + "(" * n + "n" + ")" * n), (2_000, 8_000)),
    "escaped quotes in a shell line": (
        "CUR103", "shell", lambda n: "export RDMAV_FORK_SAFE=1\necho x" + '\\"' * n + "\n"),
    "blanks in a YAML value": (
        "CUR103", "yaml", lambda n: "env:\n  RDMAV_FORK_SAFE: x" + " " * n + "y\n"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_linter_is_linear_in_the_audits_other_shapes(shape):
    code, language, make, *sizes = SHAPES[shape]
    assert_linear(all_rules()[code], language, lambda n: make(n).encode(), shape, lint_time,
                  *sizes)


def test_the_cloner_look_reads_dense_cloner_names_once():
    """Each `,IrCloner<` of a 2 MB line had its own window matched: 14 s."""
    rule = all_rules()["CUR501"]
    data = b"(" + b",IrCloner<" * 200_000
    assert look_time(rule, CPP, data) < 2


def test_the_cloner_index_reads_each_chain_of_names_once():
    """The index's class-head pattern read `class class ...` to its end from every `class`."""
    from cursedlint.rules.cloners import ClonerIndex

    pattern = ClonerIndex().pattern({"Fusion"}, first_round=False)

    def timed(rule, language, data):
        started = time.process_time()
        pattern.search(data)
        return time.process_time() - started

    for make in (lambda n: b"Fusion\n" + b"class " * n, lambda n: b"Fusion\n" + b"public :: " * n):
        assert_linear(all_rules()["CUR501"], CPP, make, "class heads", timed)
