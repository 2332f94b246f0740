"""CUR103: spans, the message, look-alikes that stay
silent, values the linter cannot know, and suppression in the text kinds (the annotated cases
for every language: tests/rules/CUR103)."""

from __future__ import annotations

from functools import partial

import pytest

from cursedlint.findings import Severity
from cursedlint.rules.process_spawning import ForkSafeModeEnabled

import harness



lint = partial(harness.lint, rules=ForkSafeModeEnabled)
"""CUR103's findings for `code` in a file named `path` (its name decides the language)."""


def spans(code: str, path: str) -> list[tuple[int, int, int, int]]:
    return [(f.span.line, f.span.column, f.span.end_line, f.span.end_column)
            for f in lint(code, path=path)]


# -- spans: the assignment target, the key, the call, the NAME=value word ------------------------

@pytest.mark.parametrize("code, path, expected", [
    ('import os\nos.environ["RDMAV_FORK_SAFE"] = "1"\n', "a.py", [(2, 1, 2, 30)]),
    ('import os\nos.environ.update({"IBV_FORK_SAFE": "1"})\n', "a.py", [(2, 20, 2, 35)]),
    ('import os\nos.execve(p, a, dict(os.environ, IBV_FORK_SAFE="1"))\n', "a.py",
     [(2, 34, 2, 51)]),
    ('int f(void) { return setenv("IBV_FORK_SAFE", "1", 1); }\n', "a.c", [(1, 22, 1, 53)]),
    ("export A=1 RDMAV_FORK_SAFE='on please'; run\n", "a.sh", [(1, 12, 1, 39)]),
    ("ENV A=1 RDMAV_FORK_SAFE=1\nENV IBV_FORK_SAFE 1\n", "Dockerfile",
     [(1, 9, 1, 26), (2, 5, 2, 20)]),
    ('env:\n  - name: "RDMAV_FORK_SAFE"\n    value: "1"\n', "a.yaml", [(2, 12, 2, 27)]),
    ('environment:\n  IBV_FORK_SAFE: "1"  # on\n', "a.yml", [(2, 3, 2, 21)]),
    ("environment:\n  - RDMAV_FORK_SAFE=1\n", "compose.yml", [(2, 5, 2, 22)]),
    # an environment passed through a `**` spread of a dict display (argument binding)
    ('import subprocess\nsubprocess.run(["/bin/true"], **{"env": {"RDMAV_FORK_SAFE": "1"}})\n',
     "a.py", [(2, 42, 2, 59)]),
])
def test_span(code, path, expected):
    assert spans(code, path) == expected


def test_message_names_the_variable_the_mechanism_and_the_fix():
    [finding] = lint("export IBV_FORK_SAFE=1\n", path="launch.sh")
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith("setting IBV_FORK_SAFE turns on libibverbs' fork protection")
    for fact in ("rounded out to whole pages", "MADV_DONTFORK",
                 "forked child", "Linux 5.12+ copies pinned pages on fork",
                 "ibv_is_fork_initialized()", "rdma-core releases before 2024",
                 "Remove the setting", "page-aligned allocation of whole pages"):
        assert fact in finding.explained
    [call] = lint("void f(void) { ibv_fork_init(); }\n", path="verbs.c")
    assert call.message.startswith("ibv_fork_init() turns on")


# -- what stays silent ---------------------------------------------------------------------------

@pytest.mark.parametrize("code, path", [
    # Python: names and values the linter cannot know, containers never passed as env
    ('import os\nos.environ[name] = "1"\n', "a.py"),
    ('import os\nos.putenv(variable(), "1")\n', "a.py"),
    ('import subprocess\nsubprocess.run(["/bin/true"], env=make_env("RDMAV_FORK_SAFE"))\n', "a.py"),
    ('config = {}\nconfig["RDMAV_FORK_SAFE"] = "1"\nconfig.update(IBV_FORK_SAFE="1")\n', "a.py"),
    ('def run(command, env=None):\n    pass\nrun("x", env={"RDMAV_FORK_SAFE": "1"})\n', "a.py"),
    # C: a name that is not a string the file shows
    ('void f(const char *n) { setenv(n, "1", 1); putenv(strdup("RDMAV_FORK_SAFE=1")); }\n',
     "a.c"),
    ('struct verbs { int (*ibv_fork_init)(void); };\nint f(struct verbs *v) '
     '{ return v->ibv_fork_init(); }\n', "a.c"),
    # text kinds: arguments, strings, expansions, and blocks that are not environments
    ('ssh node01 RDMAV_FORK_SAFE=1 ./train\nprintf "%s\\n" "a; IBV_FORK_SAFE=1"\n'
     ': "${RDMAV_FORK_SAFE:-1}"\n', "a.sh"),
    ("ENV MOTD RDMAV_FORK_SAFE=1 is unneeded\nLABEL note=RDMAV_FORK_SAFE=1\n", "Dockerfile"),
    ('data:\n  RDMAV_FORK_SAFE: "1"\nsteps:\n  - name: IBV_FORK_SAFE\n', "a.yaml"),
    ("environment:\n  RDMAV_FORK_SAFE:\n  - IBV_FORK_SAFE\n", "compose.yaml"),
])
def test_silent(code, path):
    assert not lint(code, path=path)


def test_noqa_suppresses_in_text_files():
    assert not lint("export RDMAV_FORK_SAFE=1  # noqa: CUR103\n", path="launch.sh")
    assert not lint("env:\n  RDMAV_FORK_SAFE: 1  # noqa\n", path="ci.yml")


def test_files_without_trigger_words_are_not_read():
    result = harness.lint_result("export NCCL_DEBUG=INFO\n", ForkSafeModeEnabled, path="launch.sh")
    assert result.status == "clean"


# -- item assignment mutates, it does not rebind: `os.environ[KEY] = v` binds neither `os` nor KEY

def test_constant_key_in_an_environ_assignment():
    code = 'import os\nKEY = "RDMAV_FORK_SAFE"\nos.environ[KEY] = "1"\n'
    assert spans(code, "a.py") == [(3, 1, 3, 16)]


def test_environ_assignment_inside_a_function():
    code = 'import os\n\ndef setup():\n    os.environ["RDMAV_FORK_SAFE"] = "1"\n'
    assert spans(code, "a.py") == [(4, 5, 4, 34)]
