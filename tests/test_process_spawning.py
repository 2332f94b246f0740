"""CUR101 and CUR102: version and libc differences, unknown values, messages, spans, and
CUR101's shutil.which fix (differential test: *_reality.py; the annotated cases:
tests/rules/CUR101, CUR102)."""

from __future__ import annotations

import ast

import pytest

from cursedlint.findings import Edit, Finding
from cursedlint.analysis.subprocess_spawn import GLIBC, MACOS, MUSL, OLD_GLIBC
from cursedlint.rules.process_spawning import ForkInAcceleratedProcess, SubprocessForkPath

import harness

VERSIONS = [(3, minor) for minor in range(8, 15)]


def version(python: tuple[int, int]) -> str:
    """A target-python setting ("3.11")."""
    return "%d.%d" % python


def cur101(code: str, python=(3, 11), libc=GLIBC) -> list[Finding]:
    return harness.lint(code, SubprocessForkPath, options={"libc": libc},
                        target_python=version(python))


def cur102(code: str, python=(3, 12), **options) -> list[Finding]:
    """Every fork-based start the code leaves open too (`all-forks`): which calls start
    processes by fork. What the default reports is tested in tests/rules/CUR102."""
    return harness.lint(code, ForkInAcceleratedProcess, options={"all-forks": True, **options},
                        target_python=version(python))


# -- CUR101: versions and C libraries ------------------------------------------------------------

INCIDENT = 'import subprocess\nsubprocess.run(["s5cmd", "cp", SRC, DST])\n'
ABSOLUTE = 'import subprocess\nsubprocess.run(["/usr/bin/s5cmd", "cp", SRC, DST])\n'
ABSOLUTE_NO_CLOSE = 'import subprocess\nsubprocess.run(["/usr/bin/s5cmd"], close_fds=False)\n'
SHELL_NO_CLOSE = 'import subprocess\nsubprocess.run("make", shell=True, close_fds=False)\n'
PREEXEC = 'import os, subprocess\nsubprocess.run(["/bin/ls"], close_fds=False, preexec_fn=os.setsid)\n'
NEW_SESSION = 'import subprocess\nsubprocess.run(["/bin/ls"], close_fds=False, start_new_session=True)\n'


@pytest.mark.parametrize("code, libc, forks_on", [
    # the incident's call: fork before vfork (3.10) on glibc, always on macOS
    (INCIDENT, GLIBC, {(3, 8), (3, 9)}),
    (INCIDENT, MACOS, set(VERSIONS)),
    (INCIDENT, MUSL, {(3, 8), (3, 9)}),
    # absolute path with the default close_fds: posix_spawn from 3.13 with glibc 2.34
    (ABSOLUTE, GLIBC, {(3, 8), (3, 9)}),
    (ABSOLUTE, OLD_GLIBC, {(3, 8), (3, 9)}),
    (ABSOLUTE, MACOS, set(VERSIONS)),
    # the incident's workaround, and shell=True (an absolute /bin/sh) with close_fds=False
    (ABSOLUTE_NO_CLOSE, GLIBC, set()),
    (ABSOLUTE_NO_CLOSE, MACOS, set()),
    (ABSOLUTE_NO_CLOSE, MUSL, {(3, 8), (3, 9)}),  # musl: no posix_spawn in CPython at all
    (SHELL_NO_CLOSE, MACOS, set()),
    # preexec_fn forks everywhere; start_new_session only where vfork is missing
    (PREEXEC, GLIBC, set(VERSIONS)),
    (PREEXEC, MUSL, set(VERSIONS)),
    (NEW_SESSION, GLIBC, {(3, 8), (3, 9)}),
    (NEW_SESSION, MACOS, set(VERSIONS)),
])
def test_versions_and_libcs(code, libc, forks_on):
    flagged = {version for version in VERSIONS if cur101(code, version, libc)}
    assert flagged == forks_on


@pytest.mark.parametrize("python, libc, wording", [
    ((3, 12), MACOS, "close_fds=True (the default) blocks posix_spawn on macOS"),
    ((3, 9), GLIBC, "close_fds=True (the default) blocks posix_spawn before Python 3.13"),
])
def test_close_fds_reason_names_the_platform(python, libc, wording):
    [finding] = cur101(ABSOLUTE, python, libc)
    assert wording in finding.explained


def test_musl_before_310_names_the_libc():
    [finding] = cur101(ABSOLUTE_NO_CLOSE, (3, 9), MUSL)
    assert "does not use posix_spawn with musl" in finding.explained
    assert "Python 3.10 or newer" in finding.explained


# -- CUR101: the message lists every condition -------------------------------------------------

def test_message_lists_every_blocking_condition_and_its_change():
    code = """
        import subprocess
        import sys
        subprocess.run(["s5cmd", "ls"], cwd="/scratch", stdout=sys.stdout, pass_fds=(5,),
                       stderr=subprocess.STDOUT, umask=0o077)
    """
    [finding] = cur101(code, (3, 9))
    for reason in ("executable 's5cmd' has no directory part",
                   "close_fds=True (the default) blocks posix_spawn", "cwd= is set",
                   "stdout=sys.stdout is fd 1", "pass_fds= is set", "umask= is set",
                   "pass its path (e.g. shutil.which('s5cmd'))", "pass close_fds=False"):
        assert reason in finding.explained
    assert "stderr" not in finding.explained  # STDOUT goes to stdout's fd, already reported


def test_stderr_to_unredirected_stdout_is_fd_1():
    code = "import subprocess\nsubprocess.run(['/bin/ls'], close_fds=False, stderr=subprocess.STDOUT)\n"
    [finding] = cur101(code, (3, 9))
    assert "stderr=STDOUT with stdout not redirected maps fd 2 to fd 1" in finding.explained
    piped = code.replace("stderr=", "stdout=subprocess.PIPE, stderr=")
    assert not cur101(piped, (3, 9))
    assert not cur101(code.replace("subprocess.run", "subprocess.check_output"), (3, 9))


def test_vfork_targets_name_only_the_conditions_that_force_the_fork():
    code = 'import subprocess\nsubprocess.run(["s5cmd"], cwd="/", user="nobody", preexec_fn=print)\n'
    [finding] = cur101(code, (3, 12))
    assert "user= is set" in finding.explained and "preexec_fn= is set" in finding.message
    assert "cwd" not in finding.message and "s5cmd" not in finding.explained


def test_finding_spans_the_call():
    code = 'import subprocess\nresult = subprocess.run(\n    ["ls"], preexec_fn=print,\n)\n'
    [finding] = cur101(code)
    assert (finding.span.line, finding.span.column, finding.span.end_line,
            finding.span.end_column) == (2, 10, 4, 2)


# -- CUR101: unknown values ------------------------------------------------------------------------

@pytest.mark.parametrize("code, python, libc", [
    ("subprocess.run(command, close_fds=False)", (3, 8), GLIBC),
    ("subprocess.run(['/bin/ls'], close_fds=keep)", (3, 8), GLIBC),
    ("subprocess.run(['/bin/ls'], preexec_fn=hook)", (3, 11), GLIBC),
    ("subprocess.run(['/bin/ls'], **options)", (3, 11), GLIBC),
    ("subprocess.run(*command_and_options)", (3, 8), GLIBC),
    ("subprocess.run(['/bin/ls'], close_fds=False, stdout=log)", (3, 8), GLIBC),
    ("subprocess.run(['/bin/ls'], close_fds=False, shell=use_shell)", (3, 8), GLIBC),
])
def test_unknown_values_keep_it_silent(code, python, libc):
    assert not cur101("import subprocess\n" + code + "\n", python, libc)


@pytest.mark.parametrize("code, python, libc", [
    ("subprocess.run(command)", (3, 8), GLIBC),  # the default close_fds alone blocks
    ("subprocess.run(command, preexec_fn=os.setsid)", (3, 11), GLIBC),
    ("subprocess.run(command, **options, extra_groups=[])", (3, 11), GLIBC),
    ("subprocess.run(command, cwd=f'{root}/run')", (3, 8), MACOS),
    ("subprocess.run(['/bin/ls'], stdout=log)", (3, 12), MACOS),  # close_fds alone blocks
])
def test_a_known_condition_decides_despite_unknown_values(code, python, libc):
    assert cur101("import os, subprocess\n" + code + "\n", python, libc)


def test_local_constants_are_followed():
    code = """
        import subprocess
        TOOL = "s5cmd"
        def copy(src):
            command = [TOOL, "cp", src, "/scratch"]
            subprocess.run(command, close_fds=False)
    """
    [finding] = cur101(code, (3, 12), MACOS)
    assert "executable 's5cmd' has no directory part" in finding.explained
    assert not cur101(code.replace('"s5cmd"', '"/opt/bin/s5cmd"'), (3, 12), MACOS)


# -- CUR101: the shutil.which fix ----------------------------------------------------------------

def apply_edits(text: str, edits: tuple[Edit, ...]) -> str:
    """Apply text edits (1-based lines, 1-based character columns, exclusive ends)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    for edit in sorted(edits, key=lambda e: (e.span.line, e.span.column), reverse=True):
        span = edit.span
        text = text[:offset(span.line, span.column)] + edit.content + text[offset(span.end_line, span.end_column):]
    return text


@pytest.mark.parametrize("code, expected", [
    (
        '"""Copy checkpoints."""\nfrom __future__ import annotations\nimport subprocess\n'
        'subprocess.run(["s5cmd", "cp", "a", "b"], close_fds=False)\n',
        '"""Copy checkpoints."""\nfrom __future__ import annotations\nimport shutil\nimport subprocess\n'
        'subprocess.run([shutil.which("s5cmd"), "cp", "a", "b"], close_fds=False)\n',
    ),
    (
        "import shutil as sh\nimport subprocess\nsubprocess.Popen('s5cmd', close_fds=False)\n",
        "import shutil as sh\nimport subprocess\nsubprocess.Popen(sh.which('s5cmd'), close_fds=False)\n",
    ),
    (
        "from shutil import which\nfrom subprocess import run\nrun(['ls'], executable='ls', close_fds=False)\n",
        "from shutil import which\nfrom subprocess import run\nrun(['ls'], executable=which('ls'), close_fds=False)\n",
    ),
])
def test_which_fix_resolves_a_bare_literal(code, expected):
    [finding] = cur101(code, (3, 12), MACOS)
    assert finding.fix is not None and not finding.fix.safe
    fixed = apply_edits(code, finding.fix.edits)
    assert fixed == expected
    ast.parse(fixed)
    assert not cur101(fixed, (3, 12), MACOS)


@pytest.mark.parametrize("code", [
    "subprocess.run(['s5cmd'])",  # close_fds blocks too
    "subprocess.run([TOOL], close_fds=False)",  # not a literal at the call
    "subprocess.run(['/bin/ls'], close_fds=False, cwd='/')",
])
def test_no_fix_unless_a_bare_literal_is_the_only_condition(code):
    [finding] = cur101(f"import subprocess\nTOOL = 's5cmd'\n{code}\n", (3, 12), MACOS)
    assert finding.fix is None


# -- CUR102 ----------------------------------------------------------------------------------------

POOL = "import multiprocessing\nimport torch\npool = multiprocessing.Pool(4)\n"


@pytest.mark.parametrize("python, flagged", [((3, 10), True), ((3, 13), True), ((3, 14), False)])
def test_default_start_method_is_fork_before_314(python, flagged):
    assert bool(cur102(POOL, python)) is flagged


def test_explicit_fork_is_reported_on_every_version():
    code = ("import multiprocessing\nimport torch\n\n\ndef workers():\n"
            "    ctx = multiprocessing.get_context('fork')\n    return ctx.Pool(2)\n")
    assert all(cur102(code, python) for python in VERSIONS)


def test_a_fork_context_that_makes_only_a_queue_starts_nothing():
    code = ("import multiprocessing\nimport torch\n\n\ndef channel():\n"
            "    ctx = multiprocessing.get_context('fork')\n    return ctx.Queue()\n")
    assert cur102(code, (3, 12)) == []


WORKER = ("import multiprocessing\nimport torch\n\n\nclass Prefetcher({base}):\n"
          "    def run(self):\n        torch.ones(1).cuda()\n\n\n"
          "def start(queue):\n    worker = Prefetcher()\n    worker.start()\n    return worker\n")


@pytest.mark.parametrize("base, flagged", [
    ("multiprocessing.Process", True),
    ("Runner", False),  # a class of its own with `run`: no process
])
def test_a_call_of_no_multiprocessing_name_is_a_start_where_it_makes_a_process_class(
        base, flagged):
    """A call whose callee names none of the functions CUR102 reads (`Prefetcher()`) is a
    start only where it makes the module's subclass of `Process` that defines `run`."""
    found = cur102(WORKER.format(base=base), (3, 12))
    assert [finding.span.line for finding in found] == ([11] if flagged else [])


def test_start_method_set_anywhere_in_the_module_silences_the_defaults():
    code = POOL + "def main():\n    multiprocessing.set_start_method(method)\n"
    assert not cur102(code, (3, 12))


def test_message_is_one_short_line_naming_the_library():
    """The cause at this spot in one short line; why it breaks and the fix are the rule's
    documentation."""
    [finding] = cur102(POOL, (3, 12))
    assert "(torch is imported)" in finding.explained
    assert len(finding.message) < 120 and "\n" not in finding.message
    assert "Cannot re-initialize CUDA in forked subprocess" in ForkInAcceleratedProcess.__doc__
    assert "forkserver" in ForkInAcceleratedProcess.__doc__


def test_module_option_narrows_the_libraries():
    assert not cur102(POOL, (3, 12), modules=["jax"])
    assert cur102(POOL.replace("torch", "jax"), (3, 12), modules=["jax"])


def test_module_option_adds_a_library():
    code = POOL.replace("import torch", "import habana_frameworks")
    assert cur102(code, (3, 12), modules=["habana_frameworks"])


# -- the second prefilter look (vfork targets) -------------------------------------------------

SPAWN_ONLY = b"import subprocess\nsubprocess.run(['s5cmd', 'ls'], cwd='/scratch', close_fds=True)\n"


@pytest.mark.parametrize("python, libc, parsed", [
    ((3, 12), GLIBC, False), ((3, 10), MUSL, False), ((3, 11), OLD_GLIBC, False),
    ((3, 9), GLIBC, True), ((3, 12), MACOS, True),
])
def test_files_without_a_forcing_argument_are_not_parsed_where_vfork_exists(python, libc, parsed):
    assert SubprocessForkPath.may_fire(SPAWN_ONLY, {"libc": libc}, python, "python") is parsed
    from cursedlint.triggers.prefilter import Prefilter

    prefilter = Prefilter([SubprocessForkPath], {"CUR101": {"libc": libc}}, target_python=python)
    assert bool(prefilter.triggered(SPAWN_ONLY.decode())) is parsed  # flake8 hands over text


@pytest.mark.parametrize("call", [
    "Popen(['/bin/ls'], -1, None, None, None, None, os.setsid)",
    "Popen(\n    ['/bin/ls'], 0, None,\n    None, None, None,  # streams\n    os.setsid)",
    "run(['/bin/ls'], user  # whom\n    = 1000)",
    "run(['/bin/ls'], preexec_fn \\\n    = os.setsid)",
    "check_call(['/bin/ls'], extra_groups=[10])",
    "import subprocess as sp\nsp.Popen(['/bin/ls'], -1, None, None, None, None, lambda: None)",
    "from subprocess import Popen as spawn\nspawn(['/bin/ls'], -1, None, None, None, None, print)",
    "print(f\"{check_call(['/bin/ls'], group=0)}\")",
])
def test_forcing_arguments_in_any_spelling_reach_the_rule(call):
    code = f"import os\nfrom subprocess import Popen, run, check_call\n{call}\n"
    assert SubprocessForkPath.may_fire(code.encode(), {"libc": GLIBC}, (3, 12), "python")
    assert [f.code for f in cur101(code, python=(3, 12))] == ["CUR101"]


@pytest.mark.parametrize("python, libc", [((3, 12), GLIBC), ((3, 12), MACOS), ((3, 9), GLIBC)])
def test_os_popen_with_a_keyword_it_does_not_take_starts_nothing(python, libc):
    code = "import os\nos.popen('/bin/ls', user=0)\n"
    assert cur101(code, python=python, libc=libc) == []
    if libc == GLIBC and python >= (3, 10):
        assert not SubprocessForkPath.may_fire(code.encode(), {"libc": libc}, python, "python")


def test_forcing_words_in_strings_and_comments_do_not_count():
    code = b'import subprocess\nhelp = "user = the account"  # preexec_fn=\nsubprocess.run(cmd)\n'
    assert not SubprocessForkPath.may_fire(code, {"libc": GLIBC}, (3, 12), "python")


@pytest.mark.parametrize("code, parsed", [
    (b"entities = {'cudarrl;': 0x2938, 'forkv;': 0x2ad9}\n", False),
    (b"import torchvision_like_name\nos.fork()\n", False),
    (b"import torch.cuda\nos.fork()\n", True),
    (b"from numba import cuda\nos.forkpty()\n", True),
])
def test_cur102_needs_a_library_by_its_whole_name(code, parsed):
    options = ForkInAcceleratedProcess.resolved_options(None)
    assert ForkInAcceleratedProcess.may_fire(code, options, (3, 12), "python") is parsed


def test_cur102_triggers_need_the_module_that_defines_the_start():
    from cursedlint.triggers.prefilter import Prefilter

    prefilter = Prefilter([ForkInAcceleratedProcess], {})
    assert not prefilter.triggered(b"import torch\ngroup = torch.distributed.ProcessGroup\n")
    assert not prefilter.triggered(b"import torch\npool = torch.nn.MaxPool2d(2)\n")
    assert prefilter.triggered(
        b"import torch\nfrom concurrent.futures import ProcessPoolExecutor\nProcessPoolExecutor(4)\n")
    assert prefilter.triggered(b"import torch.multiprocessing as mp\nmp.Pool(2)\n")
    assert prefilter.triggered(b"import os, torch\nos.fork()\n")


@pytest.mark.parametrize("code, parsed", [
    # `fork` beside torch, but no start: an RNG tracker's fork, comments and docstrings
    (b"import os, torch\nwith get_rng_tracker().fork():\n    x = torch.ones(2)\n", False),
    (b"import torch\ntracker = Tracker()\nwith tracker.fork('model-parallel'):\n    pass\n", False),
    (b'import torch\n"""Process groups; the Pool of buffers; a fork of the RNG state."""\n# os.fork()\n', False),
    (b"import torch\nfrom multiprocessing import Process\n", False),  # imported, never started
    (b"import os, torch\nos.fork()\n", True),
    (b"import torch\nimport os as system\npid = system.forkpty()\n", True),
    (b"import torch\nfrom pty import fork as spawn_child\nspawn_child()\n", True),
    (b"import torch\nctx = make_context()\nworker = ctx.Process(target=run)\n", True),
    (b"import torch\nimport multiprocessing as mp\nmp.set_start_method(METHOD)\n", True),
    (b"import torch\nfrom torch.utils.data import DataLoader\nDataLoader(rows, num_workers=2)\n", True),
    (b"import torch\nrows.map(embed, num_proc=4)\n", True),
    (b"import torch, multiprocessing\nclass Worker(multiprocessing.Process):\n"
     b"    def run(self):\n        torch.ones(1).cuda()\nWorker().start()\n", True),
])
def test_cur102_parses_only_a_file_with_a_start_it_reads(code, parsed):
    options = ForkInAcceleratedProcess.resolved_options(None)
    assert ForkInAcceleratedProcess.may_fire(code, options, (3, 12), "python") is parsed


def _scrambled_call(rng) -> str:
    """A forcing call wrapped in the spellings a byte scan can trip on: aliases, chains across
    lines and comments, strings holding brackets, quotes and keywords, f-strings, comments and
    continuations between the arguments."""
    head = rng.choice([
        ("import subprocess\n", "subprocess.run"),
        ("import subprocess as sp\n", "sp.Popen"),
        ("from subprocess import check_call as go\n", "go"),
        ("from subprocess import (\n    Popen as P,  # the class\n)\n", "P"),
        ("import asyncio\n", "asyncio.create_subprocess_exec"),
        ("import subprocess\n", "(subprocess  # the module\n    .run)"),
        ("import subprocess\n", "subprocess.\\\n    call"),
        ("import subprocess\n", "(subprocess.run)"),
        ("import subprocess as sp\n", "(sp).check_output"),
        ("from subprocess import run\n", "(run)"),
    ])
    noise = [
        "'a)b'", '"(["', "'''x,\n)y'''", "f'{n}) ('", "r'\\''", "b')'", '"user=1"',
        "[1, (2, 3)]", "{'user': 0}", "len(('a', 'b'))", "lambda a=1, b=2: a",
    ]
    forcing = rng.choice([
        "preexec_fn=os.setsid", "user=1000", "group  =  0", "extra_groups=[10]",
        "user  # the account\n        = 'nobody'", "preexec_fn \\\n        = f",
    ])
    arguments = ["['/bin/true']"]
    for name in rng.sample(["env", "cwd", "input", "stdin"], rng.randrange(4)):
        arguments.append(f"{name}={rng.choice(noise)}")
    arguments.insert(rng.randrange(1, len(arguments) + 1), forcing)
    separators = [", ", ",\n        ", ",  # a comment, with (brackets\n        ", ", \\\n        "]
    text = arguments[0] + "".join(rng.choice(separators) + a for a in arguments[1:])
    prefix = rng.choice([
        "", "x = ", "print(", "result = f(1, ", "def f():\n    return ",
        "async def f():\n    await ", "def f():\n    yield not ",
    ])
    suffix = ")" if prefix.endswith(", ") or prefix.endswith("(") else ""
    return f"import os\n{head[0]}{prefix}{head[1]}({text}){suffix}\n"


def test_the_second_look_passes_every_scrambled_forcing_call():
    """Randomized (seeded): every call the rule reports when it runs without the prefilter,
    the parse-free look lets through."""
    import random

    from cursedlint.source import Source

    linter = harness.make_linter(SubprocessForkPath, {"libc": GLIBC}, target_python="3.12")
    rng = random.Random("CUR101 second look")
    reported = 0
    for _ in range(400):
        code = _scrambled_call(rng)
        source = Source.from_text("scrambled.py", code, "python")
        if linter.lint_source(source, [SubprocessForkPath], linter.settings.enabled).findings:
            reported += 1
            look = SubprocessForkPath.may_fire(code.encode(), {"libc": GLIBC}, (3, 12), "python")
            assert look, code
    assert reported > 250


def test_a_spread_the_rule_can_read_passes_the_second_look():
    """`**options` may hold a forcing keyword (the rule reads a dict the module shows), so the
    look lets the file through to the parse, and the rule reports it."""
    code = ("import os, subprocess\noptions = {'preexec_fn': os.setsid}\n"
            "subprocess.run(['ls'], **options)\n")
    assert SubprocessForkPath.may_fire(code.encode(), {"libc": GLIBC}, (3, 12), "python")
    assert [f.line for f in cur101(code, (3, 12))] == [3]


def test_a_spread_of_a_parameter_does_not_pass_the_second_look():
    """What a parameter's `**kwargs` holds is unknown to the rule, so the look need not parse
    the file for it."""
    code = "import subprocess\n\ndef launch(cmd, **kwargs):\n    subprocess.run(cmd, **kwargs)\n"
    assert not SubprocessForkPath.may_fire(code.encode(), {"libc": GLIBC}, (3, 12), "python")


def test_a_fork_context_of_another_function_is_not_this_ones():
    code = ("import multiprocessing as mp\nimport torch\n\n\ndef forked():\n"
            "    ctx = mp.get_context('fork')\n    return ctx.Queue()\n\n\n"
            "def chosen(mode='spawn'):\n    ctx = mp.get_context(mode)\n"
            "    return ctx.Process(target=print)\n")
    assert cur102(code, (3, 12)) == []


def test_a_pool_made_in_a_lambdas_default_is_no_internal_error():
    """The fuzz's reproducer: the start's scope is a lambda, whose body is one expression (an
    f-string), not statements (CUR000: 'JoinedStr' object is not iterable)."""
    code = ("import jax\nimport multiprocessing\n"
            "with open('x') as t, lambda k=(multiprocessing.Pool()): (f'{k}'):\n    pass\n")
    found = harness.lint(code, ["CUR102", "CUR000"], options={"all-forks": True},
                         target_python="3.12")
    assert [(f.code, f.line) for f in found] == [("CUR102", 3)]
