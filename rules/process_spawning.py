"""CUR1xx: process creation that fork()s a large process (Python).

CUR101 works out, from the arguments of a subprocess call, which of CPython's three ways of
starting a program the call takes on the configured Python version and C library: posix_spawn,
vfork (Linux, Python 3.10+), or a full fork. The conditions are those of CPython's own sources:
`Popen._execute_child` in Lib/subprocess.py (the posix_spawn test), `_use_posix_spawn` and
`_HAVE_POSIX_SPAWN_CLOSEFROM` (which libcs), and `subprocess_fork_exec` in
Modules/_posixsubprocess.c (when vfork is used). CUR102 finds fork-based process creation in
modules that import CUDA or RDMA libraries. CUR103 finds code and configuration (Python, C/C++,
shell, Dockerfile, YAML) that turn on libibverbs' legacy fork protection.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Any, Iterator

from msgspec import Struct, field

from cursedlint.analysis.c_memory import declarations_in
from cursedlint.analysis.c_syntax import arguments, assigns, scope_of, unwrapped, within
from cursedlint.analysis.platform import excluding_guard
from cursedlint.analysis.python_project import (
    MAX_DEPTH, MODULE, FunctionIndexer, Reach, call_target, calling_function, own_nodes,
    project_functions,
)
from cursedlint.findings import Edit, Fix, Severity, Span, Step
from cursedlint.languages import C, CPP, DOCKERFILE, PYTHON, SHELL, YAML
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rule import MODULE_NAME, Example, LazyPattern, Option, Rule
from cursedlint.analysis.capture_regions import body_of, capture_analysis
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.analysis.cuda_use import CudaUse
from cursedlint.second_look import AllOf, Call, Names, Text

# -- platforms -------------------------------------------------------------------------------

GLIBC, OLD_GLIBC, MUSL, MACOS = "glibc>=2.34", "glibc<2.34", "musl", "macos"


class Platform(Struct, frozen=True):
    """The Python version and C library a program runs on: what CPython's choice depends on."""

    python: tuple[int, int]
    libc: str

    @property
    def has_posix_spawn(self) -> bool:
        """`_use_posix_spawn()`: macOS, or Linux with glibc >= 2.24 (never musl)."""
        return self.libc != MUSL

    @property
    def spawn_closes_fds(self) -> bool:
        """3.13+ passes close_fds=True to posix_spawn where libc has
        posix_spawn_file_actions_addclosefrom_np (glibc 2.34; not macOS or musl)."""
        return self.libc == GLIBC and self.python >= (3, 13)

    @property
    def has_vfork(self) -> bool:
        """_posixsubprocess uses vfork() on Linux since 3.10 (bpo-35823), never on macOS."""
        return self.libc != MACOS and self.python >= (3, 10)

    @property
    def system(self) -> str:
        """`sys.platform` there: macOS's libSystem means Darwin, every other libc Linux."""
        return "darwin" if self.libc == MACOS else "linux"


# -- three-valued logic: True, False, or UNKNOWN ---------------------------------------------


def _any(values: list[Any]) -> Any:
    if any(value is True for value in values):
        return True
    return UNKNOWN if any(value is UNKNOWN for value in values) else False


def _all(values: list[Any]) -> Any:
    if any(value is False for value in values):
        return False
    return UNKNOWN if any(value is UNKNOWN for value in values) else True


# -- the calls -------------------------------------------------------------------------------

_POPEN_POSITIONAL = (
    "args", "bufsize", "executable", "stdin", "stdout", "stderr", "preexec_fn", "close_fds",
    "shell", "cwd", "env", "universal_newlines", "startupinfo", "creationflags",
    "restore_signals", "start_new_session", "pass_fds",
)
_PIPE = ast.Constant(-1)  # subprocess.PIPE
_TRUE = ast.Constant(True)


class Api(Struct, frozen=True):
    """How a function hands its arguments to `subprocess.Popen`. `program` names the argument
    holding the command (Popen's `args`, or asyncio's `program`); `implied` are the keywords the
    function itself passes; with `varargs`, extra positional arguments are program arguments.
    `keywords`, where set, are the only keyword arguments the function takes (any other one
    raises TypeError before anything starts)."""

    positional: tuple[str, ...]
    program: str = "args"
    implied: dict[str, ast.expr] = field(default_factory=dict)
    varargs: bool = False
    keywords: frozenset[str] | None = None
    replacement: str = ""  # for functions that take none of the arguments to change


_POPEN = Api(_POPEN_POSITIONAL)
_SHELL = Api(("args",), implied={"shell": _TRUE}, varargs=True)
_EXEC = Api(("program",), program="program", varargs=True)
_OS_POPEN = Api(
    ("args",),
    implied={"shell": _TRUE},
    varargs=True,
    keywords=frozenset({"cmd", "mode", "buffering"}),
    replacement="call subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE, text=True, "
    "close_fds=False) instead of os.popen(cmd)",
)
APIS = {
    "subprocess.Popen": _POPEN,
    "subprocess.run": _POPEN,
    "subprocess.call": _POPEN,
    "subprocess.check_call": _POPEN,
    "subprocess.check_output": Api(_POPEN_POSITIONAL, implied={"stdout": _PIPE}),
    "os.popen": _OS_POPEN,
    "asyncio.create_subprocess_shell": _SHELL,
    "asyncio.subprocess.create_subprocess_shell": _SHELL,
    "asyncio.create_subprocess_exec": _EXEC,
    "asyncio.subprocess.create_subprocess_exec": _EXEC,
}

_STREAM_CONSTANTS = {"PIPE": -1, "STDOUT": -2, "DEVNULL": -3}
_STANDARD_STREAMS = {"stdin": 0, "stdout": 1, "stderr": 2}
_PIPE_OR_FILE = 3  # any descriptor above 2
_STDOUT = _STREAM_CONSTANTS["STDOUT"]
_NEVER_NONE = (
    ast.Lambda, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
    ast.SetComp, ast.DictComp, ast.GeneratorExp,
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NEVER_NONE_MODULES = ("builtins", "os", "signal", "resource")  # functions and constants
_RETURNS_VALUE = frozenset({
    "builtins.str", "builtins.bytes", "builtins.int", "os.fspath", "os.getcwd", "os.getuid",
    "os.getgid", "os.path.join", "os.path.abspath", "os.path.realpath", "os.path.dirname",
    "os.path.expanduser", "pathlib.Path", "tempfile.mkdtemp", "tempfile.gettempdir",
})


class Blocker(Struct, frozen=True):
    """A condition that keeps a call off posix_spawn; with `forces_fork`, off vfork too."""

    reason: str
    change: str
    forces_fork: bool = False


class Undecided(Struct, frozen=True):
    """A condition the code does not decide (a value the linter cannot evaluate)."""

    forces_fork: bool = False


def _condition(state: Any, reason: str, change: str, forces_fork: bool = False) -> Any:
    """A Blocker when `state` is True, None when False, Undecided when UNKNOWN."""
    if state is UNKNOWN:
        return Undecided(forces_fork)
    return Blocker(reason, change, forces_fork) if state else None


class SpawnCall:
    """One call of a Popen-family function and its arguments as far as the code shows them."""

    def __init__(self, name: str, api: Api, call: ast.Call, context):
        self.name = name
        self.api = api
        self.call = call
        self.context = context
        self.arguments, self.open = self._bind()

    def _bind(self) -> tuple[dict[str, Any], bool]:
        """Parameter name -> the expression passed (UNKNOWN where a `*args` spread the module
        does not show may hold it), and whether a `**kwargs` spread it does not show may hold
        any keyword not written out."""
        arguments = self.context.arguments(self.call)
        bound: dict[str, Any] = dict(self.api.implied)
        bound.update(zip(self.api.positional, arguments.positional))
        if arguments.more_positional:
            bound.update(dict.fromkeys(self.api.positional[len(arguments.positional):], UNKNOWN))
        bound.update(arguments.keywords)
        return bound, arguments.more_keywords

    # -- argument values -----------------------------------------------------------------------
    def node(self, name: str) -> Any:
        """The argument's expression; None when absent (the default applies); UNKNOWN when it
        may come from *args or **kwargs."""
        if name in self.arguments:
            return self.arguments[name]
        return UNKNOWN if self.open else None

    def value(self, name: str, default: Any) -> Any:
        node = self.node(name)
        if node is None:
            return default
        return UNKNOWN if node is UNKNOWN else self.context.evaluate(node)

    def is_true(self, name: str, default: bool) -> Any:
        value = self.value(name, default)
        return UNKNOWN if value is UNKNOWN else bool(value)

    def is_set(self, name: str) -> Any:
        """Whether the argument is given and not None."""
        node = self.node(name)
        if node is None or node is UNKNOWN:
            return False if node is None else UNKNOWN
        value = self.context.evaluate(node)
        if value is not UNKNOWN:
            return value is not None
        return True if self._never_none(node) else UNKNOWN

    def _never_none(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            node = self.context.definition(node) or node
        if isinstance(node, _NEVER_NONE + _DEFINITIONS):
            return True
        if isinstance(node, ast.Call):
            return self.context.qualified_name(node.func) in _RETURNS_VALUE
        qualified = self.context.qualified_name(node) or ""
        return qualified.partition(".")[0] in _NEVER_NONE_MODULES

    def source(self, name: str) -> str:
        return self.context.text_of(self.arguments[name])

    # -- the program ---------------------------------------------------------------------------
    def program(self) -> tuple[Any, ast.Constant | None]:
        """The path CPython checks with os.path.dirname (`executable=`, else /bin/sh with
        shell=True, else the command or its first element), and the string literal naming it."""
        executable = self.value("executable", None)
        if executable is not None:
            return executable, _string_literal(self.node("executable"))
        shell = self.is_true("shell", False)
        if shell is not False:
            return ("/bin/sh" if shell is True else UNKNOWN), None
        node = self.node(self.api.program)
        command = UNKNOWN if node is None else self.context.evaluate(node)
        if isinstance(command, (str, bytes)) or self.api.program == "program":
            return command, _string_literal(node)
        if isinstance(command, (list, tuple)) and command:
            first = node.elts[0] if isinstance(node, (ast.List, ast.Tuple)) else None
            return command[0], _string_literal(first)
        return UNKNOWN, None

    # -- the conditions of Popen._execute_child ------------------------------------------------
    def conditions(self, platform: Platform) -> list[Blocker | Undecided]:
        """Each posix_spawn condition that the call fails (Blocker) or may fail (Undecided)."""
        found = [
            self._program_condition(),
            _condition(
                self.is_set("preexec_fn"),
                "preexec_fn is set, and CPython can only run it in a forked copy of this process",
                "drop preexec_fn (start_new_session=, process_group=, umask= and env= do the "
                "usual jobs without it)",
                forces_fork=True,
            ),
            self._close_fds_condition(platform),
            _condition(
                self.is_true("pass_fds", False),
                "pass_fds= is set",
                "make those descriptors inheritable (os.set_inheritable) and pass "
                "close_fds=False instead",
            ),
            _condition(
                self.is_set("cwd"),
                "cwd= is set",
                "pass absolute paths instead of changing directory",
            ),
            *self._stream_conditions(),
            _condition(
                self.is_true("start_new_session", False),
                "start_new_session=True",
                "start the command through the setsid program instead",
            ),
            _condition(
                self._process_group_set(),
                "process_group= is set",
                "set the process group in the command instead",
            ),
            *[self._identity_condition(name) for name in _FORCING_KEYWORDS[1:]],
            _condition(self._umask_set(), "umask= is set", "set the umask in the command instead"),
        ]
        return [condition for condition in found if condition is not None]

    def _program_condition(self) -> Blocker | Undecided | None:
        program, _ = self.program()
        if not isinstance(program, (str, bytes)):
            return Undecided()
        return _condition(
            ("/" if isinstance(program, str) else b"/") not in program,
            f"executable {program!r} has no directory part",
            f"pass its path (e.g. shutil.which({program!r}))",
        )

    def _close_fds_condition(self, platform: Platform) -> Blocker | Undecided | None:
        if platform.spawn_closes_fds:
            return None
        written = "close_fds=True" + ("" if "close_fds" in self.arguments else " (the default)")
        where = (
            "on macOS, which lacks posix_spawn_file_actions_addclosefrom_np"
            if platform.libc == MACOS
            else "before Python 3.13"  # later, Linux has vfork: only the posix_spawn choice differs
        )
        return _condition(
            self.is_true("close_fds", True),
            f"{written} blocks posix_spawn {where}",
            "pass close_fds=False (descriptors Python opens are not inherited anyway, PEP 446)",
        )

    def _identity_condition(self, name: str) -> Blocker | Undecided | None:
        return _condition(
            self.is_set(name),
            f"{name}= is set, and CPython only changes identity in a forked copy of this process",
            f"drop {name}= and switch identity in the command (e.g. setpriv, runuser)",
            forces_fork=True,
        )

    def may_force_fork(self) -> bool:
        """Whether an argument that forces a fork on every platform (preexec_fn, user, group,
        extra_groups) is or may be set; where CPython has vfork, no other call forks."""
        return any(self.is_set(name) is not False for name in _FORCING_KEYWORDS)

    def rejected(self) -> bool:
        """Whether Popen surely raises before starting anything: a user, group or extra group
        id out of range (ValueError below 0, OverflowError/ValueError from 2**32 on), or a
        keyword the function does not take (`os.popen(cmd, user=0)`: TypeError)."""
        if self.api.keywords is not None and any(
            keyword.arg is not None and keyword.arg not in self.api.keywords
            for keyword in self.call.keywords
        ):
            return True
        ids = [self.value("user", None), self.value("group", None)]
        groups = self.value("extra_groups", None)
        ids += groups if isinstance(groups, (list, tuple)) else []
        return any(isinstance(value, int) and not 0 <= value < 2**32 for value in ids)

    def _process_group_set(self) -> Any:
        value = self.value("process_group", None)
        return UNKNOWN if value is UNKNOWN else value not in (None, -1)

    def _umask_set(self) -> Any:
        value = self.value("umask", -1)
        return value >= 0 if isinstance(value, int) else UNKNOWN

    def _stream_conditions(self) -> list[Blocker | Undecided | None]:
        """posix_spawn needs each redirected child stream (p2cread, c2pwrite, errwrite) to be a
        descriptor above 2. stderr=STDOUT takes stdout's descriptor, which stdout's own
        condition covers, or fd 1 when stdout is not redirected."""
        fds = {name: self._stream_fd(name) for name in _STANDARD_STREAMS}
        found = [self._fd_condition(name, fds[name]) for name in ("stdin", "stdout")]
        if fds["stderr"] != _STDOUT:
            return found + [self._fd_condition("stderr", fds["stderr"])]
        if fds["stdout"] is None:
            return found + [Blocker(
                "stderr=STDOUT with stdout not redirected maps fd 2 to fd 1",
                "redirect stdout as well (e.g. stdout=PIPE) or leave stderr unset",
            )]
        return found

    def _fd_condition(self, name: str, fd: Any) -> Blocker | Undecided | None:
        if fd is UNKNOWN or fd == _STDOUT:
            return Undecided()
        if fd is None or fd > 2:
            return None
        return Blocker(
            f"{name}={self.source(name)} is fd {fd}",
            f"leave {name} unset or redirect it to a pipe or a file",
        )

    def _stream_fd(self, name: str) -> Any:
        """The descriptor a stream argument gives the child: None when not redirected,
        _PIPE_OR_FILE for a new pipe or /dev/null, _STDOUT, a number, or UNKNOWN."""
        node = self.node(name)
        if node is None or node is UNKNOWN:
            return node
        value = self.context.evaluate(node)
        if value is UNKNOWN:
            value = self._named_stream(node)
        if value in (_STREAM_CONSTANTS["PIPE"], _STREAM_CONSTANTS["DEVNULL"]):
            return _PIPE_OR_FILE
        return value if value is None or isinstance(value, int) else UNKNOWN

    def _named_stream(self, node: ast.expr) -> Any:
        module, _, attribute = (self.context.qualified_name(node) or "").rpartition(".")
        if module in ("subprocess", "asyncio.subprocess") and attribute in _STREAM_CONSTANTS:
            return _STREAM_CONSTANTS[attribute]
        if module == "sys":
            return _STANDARD_STREAMS.get(attribute.strip("_"), UNKNOWN)
        return UNKNOWN

    # -- the verdict ---------------------------------------------------------------------------
    def path(self, platform: Platform) -> tuple[Any, list[Blocker]]:
        """"posix_spawn", "vfork", "fork", "none" (Popen raises first) or UNKNOWN, and for
        "fork" the conditions that keep the call from the cheaper ways."""
        if self.rejected():
            return "none", []
        conditions = self.conditions(platform)
        spawn = _any([_state(c) for c in conditions]) if platform.has_posix_spawn else True
        vfork = (
            _any([_state(c) for c in conditions if c.forces_fork]) if platform.has_vfork else True
        )
        if spawn is False:
            return "posix_spawn", []
        if vfork is False:
            return ("vfork" if spawn is True else UNKNOWN), []
        if _all([spawn, vfork]) is not True:
            return UNKNOWN, []
        if not (platform.has_posix_spawn or platform.has_vfork):
            return "fork", [_NO_SPAWN_NO_VFORK]
        blocking = [c for c in conditions if isinstance(c, Blocker)]
        return "fork", [c for c in blocking if c.forces_fork or not platform.has_vfork]


def _state(condition: Blocker | Undecided) -> Any:
    return True if isinstance(condition, Blocker) else UNKNOWN


def _string_literal(node: Any) -> ast.Constant | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node
    return None


_NO_SPAWN_NO_VFORK = Blocker(
    "CPython does not use posix_spawn with musl, and has no vfork path before Python 3.10",
    "run it on Python 3.10 or newer, where subprocess uses vfork on Linux",
)


def spawn_call(call: ast.Call, context) -> SpawnCall | None:
    """The call as a SpawnCall when it calls a Popen-family function, else None."""
    name = context.qualified_name(call.func, among=APIS)
    api = APIS.get(name)
    return SpawnCall(name, api, call, context) if api else None


# -- CUR101 ----------------------------------------------------------------------------------

_FORCING_KEYWORDS = ("preexec_fn", "user", "group", "extra_groups")
_FORCING_KEYWORD_NAMES = frozenset(name.encode() for name in _FORCING_KEYWORDS)
_SPAWN_CALLEES = frozenset(name.rpartition(".")[2].encode() for name in APIS)
_SPAWN_MODULES = frozenset(part.encode() for name in APIS for part in name.split(".")[:-1])

_FORK_COST = (
    "A fork copies a large process's page tables, drops its MADV_DONTFORK pages (RDMA "
    "buffers) from the child and keeps the locks other threads held"
)


class SubprocessForkPath(Rule):
    """## What it does
    Finds `subprocess.Popen`/`run`/`call`/`check_call`/`check_output`,
    `asyncio.create_subprocess_exec`/`_shell` and `os.popen` calls that make CPython `fork()`
    the whole calling process to start the program, on the configured `target-python` and
    `libc`, and lists every argument that causes it.

    CPython starts a program in one of three ways. `posix_spawn` (a vfork-like clone) when
    every condition of `Popen._execute_child` holds: the program has a directory part,
    `close_fds=False` (or Python 3.13+ with glibc >= 2.34), and no `preexec_fn`, `pass_fds`,
    `cwd`, `start_new_session`, `process_group`, `user`, `group`, `extra_groups`, `umask`, or
    redirection of the child's stdin/stdout/stderr to fds 0-2. Otherwise `_posixsubprocess`,
    which on Linux since Python 3.10 uses `vfork()` unless `preexec_fn`, `user`, `group` or
    `extra_groups` is given, and `fork()` in every other case (always on macOS and before 3.10).
    Only the full `fork()` is reported. Arguments the linter cannot evaluate make it silent,
    unless a condition it can see already forces the fork.

    Calls in code the target platform never runs are not reported: a branch whose condition is
    false there (`if sys.platform == "win32":`, `os.name == "nt"`, `platform.system() ==
    "Windows"`, a module constant defined once from them such as `IS_WINDOWS`, the `else` of
    `if IS_LINUX:`, the right side of `IS_WINDOWS and ...`), code after an early exit the
    platform takes (`if sys.platform != "linux": return`, or `pytest.skip(...,
    allow_module_level=True)`), and tests the platform skips: a function or the methods of a
    class decorated with `@unittest.skipUnless(IS_WINDOWS, ...)`, `@unittest.skipIf(...)` or
    `@pytest.mark.skipif(...)` whose condition skips there (a pytest string condition such as
    `"sys.platform == 'win32'"` is parsed, never run), and the tests of a module whose
    `pytestmark` skips. A test skipped always (`@unittest.skip("slow")`) runs nowhere: its
    calls are reported again when the skip is removed. `libc = "macos"` means Darwin, every
    other `libc` Linux. A condition the linter cannot evaluate (a call, a configuration value,
    a constant imported from another module) leaves the call reported.

    ## Why it is cursed
    `fork()` duplicates the page tables of a process that may map tens of GB, which is slow,
    and the copy is not faithful: pages that libibverbs marked `MADV_DONTFORK` for RDMA are
    absent in the child, and locks held by other threads (malloc arenas) stay held. Between
    fork and exec the child then crashes in `__malloc_fork_unlock_child` or fails with
    `OSError: [Errno 14] Bad address`, on a fraction of a percent of the nodes. Nothing in the
    `subprocess` documentation says which arguments decide the way a child is started.

    ## Example
    ```python
    import subprocess

    # everywhere: preexec_fn forces a fork
    subprocess.Popen(["/usr/bin/nvidia-smi"], preexec_fn=os.setsid)
    # macOS (and Linux before 3.10, the incident's 3.8): executable 's5cmd' has no directory
    # part; close_fds=True (the default). On Linux 3.10+ this call uses vfork: not reported.
    subprocess.run(["s5cmd", "cp", src, dst])
    ```

    ## Fix
    Remove the arguments the message names: pass the program's path (`shutil.which`),
    `close_fds=False`, no `cwd=` or `preexec_fn=` (`start_new_session=True` or
    `process_group=0` cover the usual use of `preexec_fn`, and on Linux with Python 3.10+ they
    keep the vfork path). Where the only condition is a bare program name written as a string
    literal, an unsafe fix resolves it with `shutil.which` (unsafe: the lookup moves from the
    child's exec to the call, with the parent's `PATH`).

    ## References
    - Incident 000, "A Cursed Bug": https://blog.nelhage.com/post/a-cursed-bug/
    - `Popen._execute_child`, the posix_spawn conditions:
      https://github.com/python/cpython/blob/v3.13.0/Lib/subprocess.py#L1836-L1856
    - vfork in `_posixsubprocess` since 3.10: https://github.com/python/cpython/issues/80004
    - posix_spawn with `close_fds=True` since 3.13: https://github.com/python/cpython/issues/113117
    - `madvise(MADV_DONTFORK)`: https://man7.org/linux/man-pages/man2/madvise.2.html
    """

    code = "CUR101"
    name = "subprocess-fork-path"
    languages = ("python",)
    triggers = ("subprocess", "popen")
    summary = "a subprocess call that makes CPython fork() the whole calling process"
    severity = Severity.WARNING
    options = {
        "libc": Option(
            str,
            GLIBC,
            "the C library the code runs on: glibc 2.34 or newer, glibc 2.24 to 2.33, musl, "
            "or macOS (libSystem). On Linux it only decides between posix_spawn and vfork, "
            "except before Python 3.10 with musl, where CPython always forks. It also names the "
            "system for platform branches: macOS is Darwin, the others Linux.",
            choices=(GLIBC, OLD_GLIBC, MUSL, MACOS),
        )
    }
    valid = (
        Example(
            """
            import subprocess

            subprocess.run(["/usr/local/bin/s5cmd", "cp", SRC, DST], close_fds=False)
            """,
            settings={"target-python": "3.12", "options": {"libc": MACOS}},
        ),
        Example(
            """
            import subprocess

            subprocess.check_call("make -j8", shell=True, close_fds=False, cwd=None)
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
        """
        import subprocess

        # Linux, Python 3.10+: vfork, no copy of this process
        subprocess.run(["s5cmd", "cp", "s3://bucket/ckpt", "/scratch"], cwd="/scratch")
        """,
        Example(
            """
            import subprocess

            # Python 3.13+ with glibc 2.34+: posix_spawn closes the descriptors itself
            subprocess.run(["/usr/bin/rsync", "-a", SRC, DST])
            """,
            settings={"target-python": "3.13", "options": {"libc": GLIBC}},
        ),
        """
        def run(command, preexec_fn=None):
            print("would run", command)

        run(["s5cmd", "ls"], preexec_fn=print)
        """,
        """
        import os
        import subprocess

        print("subprocess would fork here without posix_spawn")
        os.system("s5cmd ls s3://bucket")
        """,
        Example(
            """
            import subprocess
            import sys

            IS_WINDOWS = sys.platform == "win32"

            if IS_WINDOWS:
                # Linux never runs this branch
                subprocess.run(["notepad.exe", "train.log"])
            """,
            settings={"target-python": "3.8"},
        ),
        Example(
            """
            import subprocess

            def launch(command, **options):
                return subprocess.Popen(command, **options)
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
    )
    invalid = (
        Example(
            """
            import subprocess

            subprocess.run(["s5cmd", "cp", SRC, DST])  # warning: CUR101
            """,
            settings={"target-python": "3.12", "options": {"libc": MACOS}},
        ),
        """
        import os
        from subprocess import Popen as P

        P(["/usr/bin/nvidia-smi", "-L"], preexec_fn=os.setsid)  # warning: CUR101
        """,
        """
        import os
        import subprocess

        # preexec_fn is Popen's 7th positional parameter
        subprocess.Popen(["/usr/bin/nvidia-smi"], -1, None, None, None, None, os.setsid)  # warning: CUR101
        """,
        """
        import asyncio.subprocess as aio

        async def archive(path):
            tar = aio.create_subprocess_exec("/bin/tar", "cf", path, user="bk")  # warning: CUR101
            return await tar
        """,
        Example(
            """
            import subprocess

            subprocess.check_call("make -j8", shell=True)  # warning: CUR101
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
        Example(
            """
            import os

            listing = os.popen("ls /scratch").read()  # warning: CUR101
            """,
            settings={"target-python": "3.11", "options": {"libc": MACOS}},
        ),
    )

    @classmethod
    def look(cls, options, target_python, language):
        """Where CPython has vfork (Linux, 3.10+), only an argument that forces the fork makes a
        call fork: one of the _FORCING_KEYWORDS written out as a keyword argument of a
        Popen-family call, or preexec_fn as the 7th positional argument of one (7 positional
        arguments of any of them are taken as such); os.popen takes neither, so the file must
        name `subprocess`. Such a call is found by `spawn_call` only through the import table,
        so its callee ends in the function's own name or in an `as` alias."""
        if not Platform(target_python, options["libc"]).has_vfork:
            return None
        return AllOf((
            Text(frozenset({b"subprocess"})),
            Call(
                _SPAWN_CALLEES,
                modules=_SPAWN_MODULES,
                positional=_POPEN_POSITIONAL.index("preexec_fn") + 1,
                keywords=_FORCING_KEYWORD_NAMES,
            ),
        ))

    def visit_Call(self, node: ast.Call) -> None:
        call = spawn_call(node, self.context)
        if call is None:
            return
        platform = Platform(self.context.settings.target_python, self.option["libc"])
        if platform.has_vfork and not call.may_force_fork():
            return  # the call forks only for a forcing argument (path() would say so, slowly)
        path, blockers = call.path(platform)
        if path != "fork" or excluding_guard(node, platform.system, self.context) is not None:
            return  # no fork, or in a branch the platform never takes (`if IS_WINDOWS:`)
        reasons = "; ".join(blocker.reason for blocker in blockers)
        changes = call.api.replacement or "; ".join(blocker.change for blocker in blockers)
        message = (
            f"{call.name}() fork()s this whole process because {reasons}. {_FORK_COST}; "
            f"to start the program without a fork, {changes}"
        )
        self.report(node, message, fix=self._which_fix(call, blockers))

    def _which_fix(self, call: SpawnCall, blockers: list[Blocker]) -> Fix | None:
        """When a bare program name written as a string literal is the only condition, resolve
        it with shutil.which (unsafe: the lookup moves from the child's exec to the call)."""
        _, literal = call.program()
        if literal is None or [blocker.reason for blocker in blockers] != [
            f"executable {literal.value!r} has no directory part"
        ]:
            return None
        which, import_edits = _shutil_which(self.context)
        text = self.context.text_of(literal)
        edits = (Edit(self.context.span_of(literal), f"{which}({text})"), *import_edits)
        message = f"resolve {literal.value!r} with shutil.which() when the call runs"
        return Fix(message, edits, safe=False)


def _shutil_which(context) -> tuple[str, tuple[Edit, ...]]:
    """How this module can spell shutil.which, and the edit adding `import shutil` if needed."""
    spelling = context.imports.local_name("shutil.which")
    if spelling:
        return spelling, ()
    line = _first_import_line(context.tree)
    return "shutil.which", (Edit(Span(line, 1, line, 1), "import shutil\n"),)


def _first_import_line(module: ast.Module) -> int:
    """The line of the first statement after the docstring and `from __future__` imports
    (there is one: the call being fixed)."""
    return next(
        statement.lineno
        for index, statement in enumerate(module.body)
        if not (index == 0 and _string_literal(getattr(statement, "value", None)))
        and not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
    )


# -- CUR102 ----------------------------------------------------------------------------------

ACCELERATOR_MODULES = (
    "torch", "cupy", "numba.cuda", "jax", "tensorflow", "pyverbs", "pycuda", "cuda", "nccl",
)
_FORK_WORDS = ("fork", "Process", "Pool", "Manager")

_ALWAYS_FORK = frozenset({"os.fork", "os.forkpty", "pty.fork"})


_PROCESS_MODULES = ("multiprocessing", "concurrent")


def _fork_and_library_words(modules) -> tuple[tuple[str, ...], ...]:
    """Triggers: a fork word together with the top-level name of an accelerator library; a
    fork word other than `fork` only with the module that can define it (every call CUR102
    reports is found through the import table: os.fork, os.forkpty and pty.fork hold `fork`,
    the rest are imported from (torch.)multiprocessing or concurrent.futures)."""
    libraries = sorted({module.partition(".")[0] for module in modules})
    return (
        *(("fork", library) for library in libraries),
        *(
            (fork_word, process_module, library)
            for fork_word in _FORK_WORDS[1:]
            for process_module in _PROCESS_MODULES
            for library in libraries
        ),
    )


_START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method"})
# function -> (positional index, keyword) of its start method argument
_START_METHOD_ARGUMENT = {
    "multiprocessing.get_context": (0, "method"),
    "multiprocessing.set_start_method": (0, "method"),
    "torch.multiprocessing.start_processes": (5, "start_method"),
}
# constructors that use the default start method, and the argument that can pass a context
_DEFAULT_CONTEXT_USERS = {
    "multiprocessing.Process": None,
    "multiprocessing.Pool": None,
    "multiprocessing.Manager": None,
    "multiprocessing.pool.Pool": (4, "context"),
    "concurrent.futures.ProcessPoolExecutor": (1, "mp_context"),
    "concurrent.futures.process.ProcessPoolExecutor": (1, "mp_context"),
}

_FORK_HARM = (
    "if CUDA or RDMA state exists when it runs, the child cannot use CUDA (\"Cannot "
    "re-initialize CUDA in forked subprocess\") and lacks every page registered for RDMA "
    "(madvise MADV_DONTFORK); use a 'spawn' or 'forkserver' context "
    "(multiprocessing.get_context(\"spawn\")), or start the processes before CUDA and RDMA are "
    "initialized"
)


def _torch_spellings(names) -> frozenset[str]:
    """`names` with the torch.multiprocessing spelling of each multiprocessing name added."""
    return frozenset(names) | {
        "torch." + name for name in names if name.startswith("multiprocessing.")
    }


def _multiprocessing_name(name: str | None) -> str | None:
    """torch.multiprocessing re-exports multiprocessing: map its names onto the originals."""
    prefix = "torch.multiprocessing."
    if name and name.startswith(prefix) and name != prefix + "start_processes":
        return "multiprocessing." + name[len(prefix):]
    return name


_CUR102_CALLS = _torch_spellings(
    {*_ALWAYS_FORK, *_START_METHOD_SETTERS, *_START_METHOD_ARGUMENT, *_DEFAULT_CONTEXT_USERS}
)
"""Every function name CUR102 looks at, as written (torch.multiprocessing included)."""


SPAWN_SET = "spawn_set"


class StartMethods(FunctionIndexer):
    """Where the project's modules set a start method other than fork for the whole process
    (at module level, or under `if __name__ == "__main__":`), and every summarized function's
    calls: CUR102 clears a helper's default start when each of its callers in the project runs
    only after such a setting."""

    name = "start-methods"
    module_level = True

    def words(self, settings):
        return ("set_start_method",)

    def local_facts(self, context, function: ast.AST) -> dict[str, Reach]:
        """A setting at the top level of the module (its `__main__` block included) or of a
        function (`def main(): set_start_method("spawn"); ...`): what runs after it in that
        body runs after the setting."""
        statements = _entry_statements(function) if isinstance(function, ast.Module) \
            else function.body
        for statement in statements:
            call = statement.value if isinstance(statement, ast.Expr) else None
            if not isinstance(call, ast.Call):
                continue
            written = context.qualified_name(call.func, among=_SETTERS)
            method = context.evaluate(context.argument(call, 0, "method")) if written else None
            if method in ("spawn", "forkserver"):
                return {SPAWN_SET: Reach(call.lineno, f"set_start_method({method!r})")}
        return {}

    def more_words(self, facts, settings):
        """The project names called after such a setting, and (by name) by the functions
        those reach: any module that names one may call it too."""
        names: set[str] = set()
        for summary in facts.values():
            for function in summary.functions.values():
                setting = function.facts.get(SPAWN_SET)
                if setting is not None:
                    names.update(call.name.rpartition(".")[2] for call in function.calls
                                 if call.line > setting.line)
        grew = True
        while grew:  # what the reached functions call
            grew = False
            for summary in facts.values():
                for qualname, function in summary.functions.items():
                    if qualname.rpartition(".")[2] in names:
                        more = {call.name.rpartition(".")[2] for call in function.calls}
                        grew = grew or not more <= names
                        names |= more
        return names


def _entry_statements(module: ast.Module) -> Iterator[ast.stmt]:
    """The module's top-level statements, and those of its `if __name__ == "__main__":`
    block in place of it."""
    for statement in module.body:
        if isinstance(statement, ast.If) and _is_main_guard(statement.test):
            yield from statement.body
        else:
            yield statement


def _is_main_guard(test: ast.AST) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.comparators) == 1
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


_SETTERS = _torch_spellings(_START_METHOD_SETTERS)
START_METHODS = StartMethods()


class ForkInAcceleratedProcess(Rule):
    """## What it does
    Finds fork-based process creation in a module that imports a CUDA or RDMA library (option
    `modules`): `os.fork()`, `os.forkpty()`, `pty.fork()`, the `"fork"` start method
    (`multiprocessing.get_context("fork")`, `set_start_method("fork")`,
    `torch.multiprocessing.start_processes(..., start_method="fork")`), and
    `multiprocessing.Process`/`Pool`/`Manager`, `multiprocessing.pool.Pool` and
    `concurrent.futures.ProcessPoolExecutor` without a context, whose default start method is
    `fork` on Linux before Python 3.14 (3.14 made it `forkserver`). A `fork` context is a
    start where it makes processes (`ctx.Pool()`, `ctx.Process()`, `ctx.Manager()`,
    `ProcessPoolExecutor(mp_context=ctx)`); one that only makes a `Queue` starts none.

    The finding follows the evidence. It is an error when the module shows CUDA work before
    the start (in its function, or at import time: `.cuda()`, `.to("cuda")`, a tensor made
    on a CUDA device, `torch.cuda.*`, through the module's functions and other project
    modules' functions), an NCCL process group made before it, or a child whose code uses
    CUDA (`Process(target=f)`, `pool.map(f, ...)`, `executor.submit(f, ...)`: the child
    fails). It is silent when the start runs at import time or in the `__main__` block with
    no such work before it and every child's code is known to use no CUDA (a `Manager()`'s
    server included). Otherwise it is a warning that names the function whose callers
    decide. The default-context
    constructors are not reported when the module sets a start method itself, nor in a
    function every call of which in the project runs after an entry point set `spawn` or
    `forkserver` for the process (`set_start_method` at module level or under
    `if __name__ == "__main__":`, before the call); a function nobody in the project calls,
    or that another caller reaches without the setting, stays reported.

    ## Why it is cursed
    A forked child is a copy of a process that may hold a CUDA context and RDMA registrations.
    CUDA cannot be used in it: the first CUDA call fails with "Cannot re-initialize CUDA in
    forked subprocess" (or hangs in driver locks copied while held). Memory registered with
    libibverbs is marked `MADV_DONTFORK`, so those pages are simply missing in the child: reading
    them crashes, and the malloc arenas or strings that happen to share a page with a small
    registration go with them. Whether it breaks depends on what the parent did before the
    fork, so it breaks rarely, far from the cause.

    ## Example
    ```python
    import multiprocessing
    import torch

    model = torch.nn.Linear(8, 8).cuda()
    with multiprocessing.Pool(4) as pool:  # fork on Linux before 3.14
        pool.map(preprocess, shards)
    ```

    ## Fix
    Create processes from a `spawn` or `forkserver` context
    (`multiprocessing.get_context("spawn").Pool(4)`,
    `ProcessPoolExecutor(mp_context=multiprocessing.get_context("forkserver"))`,
    `torch.multiprocessing.spawn`), or start them before CUDA or RDMA are initialized.

    ## References
    - CUDA and fork: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#initialization
    - PyTorch, CUDA in multiprocessing:
      https://pytorch.org/docs/stable/notes/multiprocessing.html#cuda-in-multiprocessing
    - Start methods, and the 3.14 default:
      https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods
    - Incident 000, pages missing after fork: https://blog.nelhage.com/post/a-cursed-bug/
    """

    code = "CUR102"
    name = "fork-in-accelerated-process"
    languages = ("python",)
    indexer = START_METHODS
    reads_facts_of = (CUDA_REACH,)
    triggers = _fork_and_library_words(ACCELERATOR_MODULES)
    summary = "a fork-based process start in a module that imports CUDA or RDMA libraries"
    severity = Severity.WARNING
    options = {
        "modules": Option(
            (list, tuple),
            ACCELERATOR_MODULES,
            "modules (and their submodules) whose import means the process may hold CUDA or "
            "RDMA state.",
            item=str, form=MODULE_NAME,
        )
    }
    @classmethod
    def triggers_for(cls, options):
        return _fork_and_library_words(options["modules"])

    @classmethod
    def look(cls, options, target_python, language):
        """A finding needs the module to import an accelerator library: the library's
        top-level name occurs as a whole name (not `cudarrl` in an HTML entity table)."""
        return Names(frozenset(module.partition(".")[0].encode() for module in options["modules"]))

    valid = (
        """
        import multiprocessing
        import torch

        with multiprocessing.get_context("spawn").Pool(4) as pool:
            pool.map(torch.load, ["a.pt", "b.pt"])
        """,
        """
        import logging
        import torch

        logging.info("workers fork from the launcher before torch.cuda.init()")
        """,
        """
        import os

        if os.fork() == 0:
            os.execv("/usr/bin/true", ["true"])
        """,
        Example(
            """
            from concurrent.futures import ProcessPoolExecutor
            import jax

            executor = ProcessPoolExecutor(max_workers=4)
            """,
            settings={"target-python": "3.14"},
        ),
        """
        import multiprocessing
        from multiprocessing.pool import ThreadPool
        import cupy

        multiprocessing.set_start_method("forkserver")
        workers = multiprocessing.Pool(2)
        threads = ThreadPool(8)
        """,
    )
    invalid = (
        Example(
            """
            import multiprocessing
            import torch

            def preprocess_all(shards):
                with multiprocessing.Pool(8) as pool:  # warning: CUR102
                    return pool.map(torch.load, shards)
            """,
            settings={"target-python": "3.12"},
        ),
        """
        import os
        from pyverbs.device import Context

        def daemonize():
            if os.fork():  # warning: CUR102
                os._exit(0)
        """,
        """
        import torch.multiprocessing as mp

        mp.set_start_method("fork")  # warning: CUR102
        """,
        Example(
            """
            from concurrent.futures import ProcessPoolExecutor
            from numba import cuda

            pool = ProcessPoolExecutor(4)  # warning: CUR102
            """,
            settings={"target-python": "3.10"},
        ),
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.library = next(
            (m for m in self.option["modules"] if context.imports.imports_module(m)), None
        )
        self.default_context_users: list[tuple[ast.Call, str]] = []
        self.fork_contexts: list[ast.Call] = []
        self.calls: list[ast.Call] = []
        self.sets_start_method = False
        self.evidence = ForkEvidence(context) if self.library else None

    def visit_Call(self, node: ast.Call) -> None:
        if self.library is None:
            return
        self.calls.append(node)
        written = self.context.qualified_name(node.func, among=_CUR102_CALLS)
        name = _multiprocessing_name(written)
        if name in _START_METHOD_SETTERS:
            self.sets_start_method = True
        if name in _ALWAYS_FORK:
            self._report_start(node, f"{written}() forks this process")
        elif self._start_method(node, name) == "fork":
            if name == "multiprocessing.get_context":
                self.fork_contexts.append(node)  # a start only where it makes processes
            else:
                self._report_start(node, f"{written}() with the 'fork' start method starts "
                                         "processes as forks of this one", switch=True)
        elif name in _DEFAULT_CONTEXT_USERS and self._uses_default_context(node, name):
            self.default_context_users.append((node, written))

    def check(self) -> None:
        for context_call in self.fork_contexts:
            for start in self.evidence.made_from(context_call, self.calls):
                self._report_start(start, f"{ast.unparse(start.func)}() starts processes "
                                          "from a 'fork' context")
        if self.sets_start_method or self.context.settings.target_python >= (3, 14):
            return
        for node, written in self.default_context_users:
            if self._started_after_spawn(node):
                continue
            self._report_start(node, f"{written}() starts processes with the default start "
                                     "method, 'fork' on Linux before Python 3.14")

    def _report_start(self, start: ast.Call, what: str, switch: bool = False) -> None:
        """Report a fork-based start with its evidence: CUDA work before it, or a child that
        uses CUDA, make it an error; at import time or in `__main__` with neither, and with
        children known to do CPU work only, it is silent; otherwise a warning that names
        the function whose callers decide (`switch`: a setting, not a start: always said)."""
        found = self.evidence.of(start)
        if found is not None:
            why, steps = found
            self.report(start, f"{what}{why}, and this module imports {self.library}: "
                               f"{_FORK_HARM}", severity=Severity.ERROR, related=steps)
            return
        function = calling_function(self.context, start)
        if not switch and self.evidence.before_accelerators(start, function):
            return
        where = (f"whether CUDA or RDMA state exists when it runs depends on the callers of "
                 f"{function}()" if function else "if CUDA or RDMA state exists by then")
        self.report(start, f"{what}, in a module that imports {self.library}; {where}: "
                           f"{_FORK_HARM}")

    def _started_after_spawn(self, node: ast.Call) -> bool:
        """Whether the function holding `node` is called in the project, and every call of
        it runs only after an entry point set 'spawn' or 'forkserver' for the process."""
        project = project_functions(self.context, START_METHODS)
        caller = calling_function(self.context, node)
        if project is None or caller is None:
            return False
        return _only_after_setting(project, os.path.abspath(self.context.source.path), caller,
                                   0, frozenset())

    def _start_method(self, node: ast.Call, name: str | None) -> Any:
        position = _START_METHOD_ARGUMENT.get(name)
        if position is None:
            return None
        argument = self.context.argument(node, *position)
        if argument is None or argument is UNKNOWN:
            return argument
        return self.context.evaluate(argument)

    def _uses_default_context(self, node: ast.Call, name: str) -> bool:
        """Whether the call surely passes no context (and, for ProcessPoolExecutor on 3.11+,
        no max_tasks_per_child, which makes it use 'spawn')."""
        arguments = [_DEFAULT_CONTEXT_USERS[name]]
        if name.endswith("ProcessPoolExecutor") and self.context.settings.target_python >= (3, 11):
            arguments.append((None, "max_tasks_per_child"))
        for position in filter(None, arguments):
            argument = self.context.argument(node, *position)
            if argument is UNKNOWN:
                return False
            if argument is not None and self.context.evaluate(argument) is not None:
                return False
        return True


_TASK_METHODS = frozenset({"map", "imap", "imap_unordered", "map_async", "starmap",
                           "starmap_async", "apply", "apply_async", "submit"})
"""Pool and executor methods whose first argument runs in a child."""
_PROCESS_MAKERS = frozenset({"Process", "Pool", "Manager"})
"""Context methods that start processes (a Queue or a Lock starts none)."""
_CONTEXT_KEYWORDS = frozenset({"mp_context", "context"})
_NCCL_GROUPS = frozenset({"torch.distributed.init_process_group"})


class ForkEvidence:
    """What the module shows about a fork-based start: CUDA (or NCCL) work before it, in its
    function or at import time; the code its children run, and whether that uses CUDA
    (`CudaUse` of the CUR4xx rules, into other modules through the `cuda-reach` facts)."""

    def __init__(self, context):
        self.context = context
        self.analysis = capture_analysis(context)
        self.uses = CudaUse(context, self.analysis, project_functions(context, CUDA_REACH))

    def of(self, start: ast.Call) -> tuple[str, tuple[Step, ...]] | None:
        """Why the start is surely hazardous, with the chain; None when the module does not
        show it."""
        for code, label in self.children(start)[0]:
            found = self._uses_cuda(code)
            if found is not None:
                line, what, steps = found
                return (f", and the child runs {label}, which uses CUDA (line {line}: {what}): "
                        "it fails with \"Cannot re-initialize CUDA in forked subprocess\"",
                        steps)
        earlier = self._earlier(start)
        found = self.uses.first(earlier, self.uses.sure_use)
        if found is not None:
            node, what, via = found
            through = "".join(f" through {name}()" for name in via)
            return (f" after CUDA work on line {node.lineno}{through} ({what})",
                    self.uses.steps_for(node))
        group = next((node for node in own_nodes(earlier) if isinstance(node, ast.Call)
                      and self.context.qualified_name(node.func, among=_NCCL_GROUPS)
                      and self._nccl(node)), None)
        if group is not None:
            return f" after an NCCL process group is made on line {group.lineno}", ()
        return None

    def before_accelerators(self, start: ast.Call, function: str | None) -> bool:
        """Whether the start runs at import time or in the `__main__` block (no CUDA work
        before it, as `of` found) and every child's code is known and uses no CUDA."""
        scope = self.context.scope_of(start)
        if scope is not None and not self._in_main_block(start):
            return False
        return self.children(start)[1]

    def children(self, start: ast.Call) -> tuple[list[tuple[ast.AST, str]], bool]:
        """The code the start's children run, labelled, and whether that is all of it:
        `Process(target=f)`, and the tasks given to a pool or executor made here
        (`pool.map(f, ...)`, `executor.submit(f, ...)`); a `Manager()`'s server runs
        multiprocessing's own code only."""
        if _last_name(start.func) == "Manager":
            return [], True
        if _last_name(start.func) == "Process":
            target = self.context.argument(start, 1, "target")
            code = self._code(target)
            return ([code] if code else []), code is not None
        handle = self._handle(start)
        if handle is None:
            return [], False
        tasks = [call.args[0] for call in self._calls_in_scope(start)
                 if isinstance(call.func, ast.Attribute) and call.func.attr in _TASK_METHODS
                 and call.args and _text(call.func.value) == handle]
        codes = [self._code(task) for task in tasks]
        return [code for code in codes if code], bool(tasks) and None not in codes

    def made_from(self, context_call: ast.Call, calls: list[ast.Call]) -> list[ast.Call]:
        """The calls that make processes from a context (`ctx.Process(...)`, `ctx.Pool()`,
        `ProcessPoolExecutor(mp_context=ctx)`): a context used for a Queue starts none."""
        parent = self.context.parent_of(context_call)
        if isinstance(parent, ast.Attribute) and parent.attr in _PROCESS_MAKERS:
            made = self.context.parent_of(parent)
            return [made] if isinstance(made, ast.Call) else []
        if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
            return []
        name, scope = _text(parent.targets[0]), self.context.scope_of(context_call)
        return [call for call in calls if self.context.scope_of(call) is scope and ((
            isinstance(call.func, ast.Attribute) and call.func.attr in _PROCESS_MAKERS
            and _text(call.func.value) == name
        ) or any(keyword.arg in _CONTEXT_KEYWORDS and _text(keyword.value) == name
                 for keyword in call.keywords))]

    # -- the module's code ---------------------------------------------------------------
    def _code(self, target: ast.AST | None):
        """(code, label) of a callable the module shows: a def, lambda, partial or method of
        the module, or a function of another project module."""
        code = self.analysis.code_of(target)
        if code is not None:
            label = f"the lambda on line {code.lineno}" if isinstance(code, ast.Lambda) \
                else f"{code.name}()"
            return code, label
        project = self.uses.project
        found = call_target(self.context, project, target) if project and target else None
        return (found, f"{found[1]}() ({os.path.basename(found[0])})") if found else None

    def _uses_cuda(self, code) -> tuple[int, str, tuple[Step, ...]] | None:
        if isinstance(code, tuple):  # another module's function
            found = self.uses.project.reach(*code, "sure_cuda")
            return None if found is None else (found[-1].line, found[-1].note, found)
        found = self.uses.first(body_of(code), self.uses.sure_use)
        if found is None:
            return None
        node, what, _ = found
        return node.lineno, what, self.uses.steps_for(node)

    def _earlier(self, start: ast.Call) -> list[ast.stmt]:
        """The statements that run before the start: those of its function before the one
        holding it, after the module's import-time statements (which run first)."""
        module = [s for s in self.context.tree.body if not isinstance(s, _DEFINITIONS)]
        scope = self.context.scope_of(start)
        body = module if scope is None else list(getattr(scope, "body", []))
        before = [s for s in body if s.end_lineno < start.lineno]
        if scope is None:
            main = self._main_block(start)
            before += [s for s in (main.body if main else []) if s.end_lineno < start.lineno]
            return before
        return [s for s in module if s.end_lineno < scope.lineno] + before

    def _nccl(self, call: ast.Call) -> bool:
        backend = self.context.evaluate(self.context.argument(call, 0, "backend"))
        return isinstance(backend, str) and "nccl" in backend

    def _handle(self, start: ast.Call) -> str | None:
        """The name a pool or executor is kept in: `with Pool() as pool`, `pool = Pool()`."""
        parent = self.context.parent_of(start)
        if isinstance(parent, ast.withitem) and parent.optional_vars is not None:
            return _text(parent.optional_vars)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            return _text(parent.targets[0])
        return None

    def _calls_in_scope(self, start: ast.Call) -> list[ast.Call]:
        scope = self.context.scope_of(start)
        body = self.context.tree.body if scope is None else getattr(scope, "body", [])
        return [node for node in own_nodes(body) if isinstance(node, ast.Call)]

    def _main_block(self, node: ast.AST) -> ast.If | None:
        return next((a for a in self.context.ancestors(node) if isinstance(a, ast.If)
                     and self.context.parent_of(a) is self.context.tree
                     and _is_main_guard(a.test)), None)

    def _in_main_block(self, node: ast.AST) -> bool:
        return self._main_block(node) is not None


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                ast.ImportFrom)


def _text(node: ast.AST) -> str:
    return ast.unparse(node)


def _last_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _only_after_setting(project, path: str, qualname: str, depth: int, seen: frozenset) -> bool:
    """Whether the function has callers in the project and each runs after a process-wide
    setting: module code after the setting, or a function all of whose calls do (bounded)."""
    callers = project.callers(path, qualname)
    if not callers or depth > MAX_DEPTH or (path, qualname) in seen:
        return False
    for caller_path, caller, line in callers:
        setting = project.fact(caller_path, caller, SPAWN_SET)
        if setting is not None and setting.line < line:
            continue
        if caller == MODULE or not _only_after_setting(project, caller_path, caller,
                                                       depth + 1, seen | {(path, qualname)}):
            return False
    return True


# -- CUR103 ----------------------------------------------------------------------------------

FORK_SAFE_VARIABLES = ("RDMAV_FORK_SAFE", "IBV_FORK_SAFE")
"""libibverbs' own (ibv_fork_init(3))."""
PROVIDER_FORK_SAFE_VARIABLES = {
    # fi_efa(7) "FI_EFA_FORK_SAFE: Enable fork() support"; the provider then calls
    # ibv_fork_init() (prov/efa/src/efa_fork_support.c)
    "FI_EFA_FORK_SAFE": "libfabric's EFA provider then calls ibv_fork_init()",
    # fi_cxi(7) "CXI Specific Fork Environment Variables": set, whatever its value, libcxi
    # madvise(MADV_DONTFORK)s every registered range aligned to pages. CXI_FORK_SAFE_HP only
    # changes the page size, and only together with CXI_FORK_SAFE: not listed.
    "CXI_FORK_SAFE": "libcxi (libfabric's cxi provider) then marks every registered range, "
                     "rounded out to whole pages, MADV_DONTFORK whatever the kernel",
}
"""Libfabric provider variables that turn on MADV_DONTFORK-based fork support: why."""
FORK_SETTINGS = (*FORK_SAFE_VARIABLES, *PROVIDER_FORK_SAFE_VARIABLES)
_ENVIRON = frozenset({"os.environ", "os.environb"})
# os functions that take the new program's environment: positional index of `env` (-1: last)
_ENV_POSITIONS = {
    "os.execve": 2, "os.execvpe": 2, "os.execle": -1, "os.execlpe": -1,
    "os.spawnve": 3, "os.spawnvpe": 3, "os.spawnle": -1, "os.spawnlpe": -1,
    "os.posix_spawn": 2, "os.posix_spawnp": 2,
}
_CUR103_CALLS = frozenset({"os.putenv", *_ENV_POSITIONS})
_MAX_MAPPING_DEPTH = 8  # names bound to mappings built from other names
_C_SETTERS = ("setenv", "putenv", "ibv_fork_init")
_VERBS_REGISTRATIONS = ("ibv_reg_mr", "ibv_reg_mr_iova", "ibv_reg_mr_iova2")
# a condition asking the user (a fork setting read by name) or the kernel (rdma-core 35+)
_C_ASKS = re.compile(rf'"(?:{"|".join(FORK_SETTINGS)})"|\bibv_is_fork_initialized\b'
                     r"|\bIBV_FORK_UNNEEDED\b")
_C_STRING = LazyPattern(r'(?:u8|[uUL])?"([^"\\]*)"')
_C_COMMENT = LazyPattern(r"/\*.*?\*/|//.*")


def _setting_message(variable: str) -> str:
    why = PROVIDER_FORK_SAFE_VARIABLES.get(variable)
    if variable == "CXI_FORK_SAFE":
        return (
            f"Setting {variable} turns on libcxi's fork support: {why}, so one registration "
            "smaller than a page takes the unrelated data sharing its page away from every "
            "forked child, which then crashes (fi_cxi(7), 'Fork Support'; the hole of "
            "incident 000). Remove the setting where no fork needs it, or give every "
            "registration its own page-aligned allocation of whole pages"
        )
    return _fork_safe_message(f"Setting {variable}" + (f" ({why})" if why else ""))


def _fork_safe_message(subject: str) -> str:
    return (
        f"{subject} turns on libibverbs' legacy fork protection: every RDMA registration is then "
        "rounded out to whole pages marked MADV_DONTFORK, so one registration smaller than a "
        "page (incident 000: 4 bytes inside a malloc'ed buffer, in aws-ofi-nccl) takes the "
        "unrelated heap data sharing its page away from every forked child, which then crashes "
        "between fork and exec. Linux 5.12+ copies pinned pages on fork, so the protection is "
        "unneeded there (rdma-core 35+: ibv_is_fork_initialized() returns IBV_FORK_UNNEEDED), "
        "yet rdma-core releases before 2024 still turn it on when asked; remove the setting, "
        "or where a kernel before 5.12 needs it, give every registration "
        "its own page-aligned allocation of whole pages"
    )


# Text kinds: each scanner yields (line, start, end, variable) with 0-based columns of the
# `NAME=value` word (the `NAME: value` entry in YAML mappings, the name of Kubernetes entries).
_KEY = rf"(?P<key>{'|'.join(FORK_SETTINGS)})"
_QUOTED = r""""(?:[^"\\]|\\.)*"|'[^']*'"""
_WORD = rf"""(?:{_QUOTED}|\\.|[^\s"'\\;&|<>()`])*"""  # a shell word, up to an operator
_SHELL_QUOTED = LazyPattern(_QUOTED)
_SHELL_COMMENT = LazyPattern(r"(?:^|(?<=\s))#.*")
_SHELL_SETTING = LazyPattern(
    # where a command starts, or an option passing NAME=value to a child's environment
    # (`mpirun -x`, `docker run --env`, `apptainer exec --env`)
    r"(?:^|[;&|(){}!`]|\b(?:then|do|else|elif|if|while|until|time)(?=\s)|\s(?:-x\s|--env[\s=]))"
    r"\s*"
    r"(?:(?:export|declare|typeset|readonly|local)(?:\s+[-+]\w+)*\s+"
    r"|env(?:\s+(?:-u\s+\S+|-\S+))*\s+)?"
    rf"(?:[A-Za-z_]\w*={_WORD}\s+)*"  # assignments before ours
    rf"(?P<word>{_KEY}={_WORD})"
)


def _blanked(quoted: re.Match) -> str:
    """A quoted string with its content replaced by as many underscores."""
    text = quoted[0]
    return text[0] + "_" * (len(text) - 2) + text[-1]


def _shell_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """Assignments where a command starts: `NAME=v cmd`, `export`/`declare -x`/`env NAME=v`.
    Quoted text is blanked first (same length), so strings and `#` inside them are inert."""
    for number, line in enumerate(lines, start=1):
        code = _SHELL_QUOTED.sub(_blanked, line)
        comment = _SHELL_COMMENT.search(code)
        code = code[: comment.start()] if comment else code
        for match in _SHELL_SETTING.finditer(code):
            yield number, match.start("word"), match.end("word"), match.group("key")


_DOCKER_ENV = LazyPattern(r"\s*ENV(?:\s+|$)", re.IGNORECASE)
# the legacy form `ENV NAME value`: a first word without "=" (the rest is NAME's value)
_DOCKER_LEGACY = LazyPattern(r"(?P<word>(?P<key>[^\s=\\]+)(?=\s|$)(?:[ \t]+[^\s\\]+)?)")
_DOCKER_PAIR = LazyPattern(rf"(?<!\S)(?P<word>{_KEY}={_WORD})")


def _dockerfile_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """`ENV NAME=value ...` pairs, on continuation lines too, and the legacy `ENV NAME value`.
    Comment and blank lines inside a continued instruction are skipped, as Docker does."""
    env = continued = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        start = 0
        if not continued:
            instruction = _DOCKER_ENV.match(line)
            env, start = bool(instruction), instruction.end() if instruction else 0
            legacy = env and _DOCKER_LEGACY.match(line, start)
            if legacy:
                env = False
                if legacy.group("key") in FORK_SETTINGS:
                    yield number, legacy.start("word"), legacy.end("word"), legacy.group("key")
        if env:
            for pair in _DOCKER_PAIR.finditer(line, start):
                yield number, pair.start("word"), pair.end("word"), pair.group("key")
        continued = stripped.endswith("\\")


_YAML_ENV_KEYS = frozenset({"env", "environment", "variables"})
_YAML_TAIL = r"\s*(?:#.*)?$"
_YAML_ENTRIES = (  # (pattern, is a sequence entry)
    # a mapping entry `NAME: value` (GitHub Actions and Compose env, GitLab CI variables)
    (LazyPattern(rf"""(?P<indent>\s*)(?P<word>(?P<q>["']?){_KEY}(?P=q)\s*:\s+"""
                rf"""(?:"[^"]*"|'[^']*'|[^\s#"'][^#]*?)){_YAML_TAIL}"""), False),
    # a Compose list entry `- NAME=value`
    (LazyPattern(rf"""(?P<indent>\s*)(?P<dash>-\s+)(?P<word>(?P<q>["']?){_KEY}=[^\s#"']*(?P=q))"""
                rf"{_YAML_TAIL}"), True),
    # a Kubernetes entry `- name: NAME` (with value/valueFrom, or none: the empty string)
    (LazyPattern(rf"""(?P<indent>\s*)(?P<dash>-\s+)?name\s*:\s+(?P<q>["']?)(?P<word>{_KEY})(?P=q)"""
                rf"{_YAML_TAIL}"), True),
)
_YAML_BLOCK_KEY = LazyPattern(r"""\s*(?:-\s+)?["']?(?P<key>[\w.-]+)["']?\s*:""" + _YAML_TAIL)
_YAML_ITEM = LazyPattern(r"\s*-\s+")


def _yaml_owner(lines: list[str], index: int, column: int, sequence: bool) -> int | None:
    """The line holding the block that line `index` (content at `column`) belongs to: the first
    line above indented less or, for a sequence entry, as much but not an entry itself (YAML's
    indentless sequences, as in `env:` then `- name: X` at the same indentation)."""
    for above in range(index - 1, -1, -1):
        text = lines[above]
        content = text.lstrip()
        if not content or content.startswith("#"):
            continue
        indent = len(text) - len(content)
        if indent < column or (sequence and indent == column and not content.startswith("-")):
            return above
    return None


def _yaml_in_environment(lines: list[str], index: int, match: re.Match, sequence: bool) -> bool:
    """Whether the entry matched on line `index` belongs to an `env`, `environment` or
    `variables` block. A sequence entry's `name:` below the item's first line is looked up
    from the item's `- ` line."""
    column = len(match.group("indent"))
    if sequence and not match.group("dash"):
        index = _yaml_owner(lines, index, column, False)
        item = _YAML_ITEM.match(lines[index]) if index is not None else None
        if item is None or item.end() != column:
            return False
        column = len(lines[index]) - len(lines[index].lstrip())
    owner = _yaml_owner(lines, index, column, sequence)
    key = _YAML_BLOCK_KEY.match(lines[owner]) if owner is not None else None
    return key is not None and key.group("key") in _YAML_ENV_KEYS


def _yaml_settings(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """Entries of `env:`, `environment:` and `variables:` blocks that set a variable."""
    for index, line in enumerate(lines):
        for pattern, sequence in _YAML_ENTRIES:
            match = pattern.match(line)
            if match and _yaml_in_environment(lines, index, match, sequence):
                yield index + 1, match.start("word"), match.end("word"), match.group("key")


_TEXT_SCANNERS = {SHELL: _shell_settings, DOCKERFILE: _dockerfile_settings, YAML: _yaml_settings}


class ForkSafeModeEnabled(Rule):
    """## What it does
    Finds code and configuration that turn on libibverbs' legacy fork protection: setting
    `RDMAV_FORK_SAFE` or `IBV_FORK_SAFE` (to any value), and calling `ibv_fork_init()`; and
    the libfabric provider variables that turn on the same MADV_DONTFORK-based fork support:
    `FI_EFA_FORK_SAFE` (the EFA provider then calls `ibv_fork_init()`, fi_efa(7)) and
    `CXI_FORK_SAFE` (libcxi then marks every registered range, rounded out to pages,
    `MADV_DONTFORK`, fi_cxi(7)). `CXI_FORK_SAFE_HP` alone turns nothing on (it only makes
    libcxi find the right page size when `CXI_FORK_SAFE` is set) and is not reported.
    - Python: `os.environ[NAME] = ...` and `|=`, `os.environ.setdefault/update`, `os.putenv`, and
      the entries of the `env` mapping of `subprocess`/`asyncio` process functions, `os.exec*e`,
      `os.spawn*e` and `os.posix_spawn[p]`: a dict display, `dict(...)`, `a | b`, or a local
      name those fill (`env["RDMAV_FORK_SAFE"] = "1"` before `Popen(..., env=env)`). The name
      may be a constant (`FORK_SAFE = "RDMAV_FORK_SAFE"`).
    - C/C++: `setenv(NAME, ...)` and `putenv("NAME=...")`, with the name written out, in a
      `#define`d string, or in a local initialised with one (or with `c ? "A" : "B"`) and
      never assigned; and `ibv_fork_init()`, except where it honours or probes the setting:
      under an `if` (or after an earlier `if` that returns) that reads a fork variable by name
      (`getenv("RDMAV_FORK_SAFE")`), asks `ibv_is_fork_initialized()`, or compares a status
      variable with a value the file gives it only under such an `if`; or after the same
      function registered memory with `ibv_reg_mr` (the call then fails with EINVAL and only
      probes whether protection is on).
    - Shell: `NAME=value` where a command starts (`NAME=1 cmd`), after `export`, `declare`,
      `typeset`, `readonly`, `local` and `env`, and after the options that pass it to a
      child's environment: `mpirun -x`, `docker run --env`, `apptainer exec --env`.
    - Dockerfile: `ENV NAME=value` (among other pairs, on continuation lines) and `ENV NAME value`.
    - YAML: Kubernetes `env` entries (`- name: NAME`), `NAME: value` in `env:`/`environment:`/
      `variables:` maps (GitHub Actions, Docker Compose, GitLab CI) and Compose's `- NAME=value`.

    Reading the variable (`os.environ.get`, `getenv`, `$NAME`), unsetting it (`unset`, `del`,
    `pop`, `unsetenv`, glibc's `putenv("NAME")`), comments and strings are not reported.

    ## Why it is cursed
    With fork protection on, libibverbs calls `madvise(MADV_DONTFORK)` on every registered
    memory range after rounding its start down and its end up to page boundaries. One
    registration smaller than a page (incident 000: a 4-byte buffer in the middle of a malloc'ed
    allocation, in aws-ofi-nccl) makes that whole page, with whatever malloc put next to the
    buffer, vanish from every forked child: children crash in `__malloc_fork_unlock_child` or
    fail with `EFAULT` between fork and exec, on a fraction of a percent of the nodes.

    The protection was for kernels whose fork left pinned pages shared copy-on-write with the
    child. Linux copies pinned pages at fork since 5.9 (5.12 for hugetlb pages), so on 5.12+ it
    is unneeded; from 5.13 the kernel says so and `ibv_is_fork_initialized()` (rdma-core 35+)
    returns `IBV_FORK_UNNEEDED`. An explicit request still turns it on there, except with
    rdma-core releases since early 2024 (PR 1431), which ignore it on such kernels unless
    `RDMAV_USE_MADVISE` is set. Any value counts: rdma-core before 2022 (PR 1132) enables it
    even for `0`, so only unsetting the variable is off everywhere. The finding is a warning
    because the harm also needs a sub-page registration somewhere in the process (often in a
    library), a fork, and a kernel or rdma-core old enough, which the code does not show.

    ## Example
    ```sh
    export RDMAV_FORK_SAFE=1   # copied from an old HPC guide
    torchrun --nproc-per-node 8 train.py
    ```

    ## Fix
    Remove the setting and the `ibv_fork_init()` call: on Linux 5.12+ a fork does not disturb
    registered memory without them. Where a kernel before 5.12 really needs the protection, make
    every registration its own page-aligned allocation of whole pages (`posix_memalign` with the
    page size and a length rounded up to it, or `mmap`), so that no other object shares a
    registered page, and ask `ibv_is_fork_initialized()` before turning it on.

    ## References
    - ibv_fork_init(3), the environment variables:
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/man/ibv_fork_init.3.md
    - fi_efa(7) (`FI_EFA_FORK_SAFE`), fi_cxi(7) ("Fork Support", `CXI_FORK_SAFE`,
      `CXI_FORK_SAFE_HP`): https://ofiwg.github.io/libfabric/main/man/fi_cxi.7.html
    - ibv_is_fork_initialized(3):
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/man/ibv_is_fork_initialized.3.md
    - The page rounding (`ibv_madvise_range`) and the 2024 check in `ibv_fork_init`:
      https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/memory.c
    - rdma-core PRs: 975 (`IBV_FORK_UNNEEDED`), 1132 (`0` means off), 1431 (ignored when unneeded):
      https://github.com/linux-rdma/rdma-core/pull/1431
    - Linux 70e806e4e645 "mm: Do early cow for pinned pages during fork() for ptes" (5.9),
      4eae4efa2c29 "hugetlb: do early cow when page pinned on src mm" (5.12), 6cc9e215eb27
      "RDMA/nldev: Add copy-on-fork attribute to get sys command" (5.13):
      https://github.com/torvalds/linux/commit/4eae4efa2c299f85b7ebfbeeda56c19c5eba2768
    - Incident 000, "A Cursed Bug": https://blog.nelhage.com/post/a-cursed-bug/
    """

    code = "CUR103"
    name = "fork-safe-mode-enabled"
    languages = (PYTHON, C, CPP, SHELL, DOCKERFILE, YAML)
    triggers = (*FORK_SETTINGS, "ibv_fork_init")
    summary = "a setting or call that turns on libibverbs' legacy fork protection (MADV_DONTFORK)"
    severity = Severity.WARNING
    valid = (
        """
        import logging
        import os

        # RDMAV_FORK_SAFE is unneeded on Linux 5.12+: the kernel copies pinned pages on fork
        if os.environ.get("RDMAV_FORK_SAFE"):
            logging.warning("dropping RDMAV_FORK_SAFE=%s", os.environ["RDMAV_FORK_SAFE"])
            del os.environ["RDMAV_FORK_SAFE"]
        os.environ.pop("IBV_FORK_SAFE", None)
        """,
        """
        import os
        import subprocess

        def rdma_report():
            report = {}
            report["RDMAV_FORK_SAFE"] = os.environ.get("RDMAV_FORK_SAFE", "<unset>")
            env = {k: v for k, v in os.environ.items() if k != "IBV_FORK_SAFE"}
            subprocess.run(["/usr/bin/ibv_devinfo"], env=env, check=True)
            return report
        """,
        Example(
            """
            #include <stdio.h>
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            void check_fork_mode(void)
            {
                const char *requested = getenv("RDMAV_FORK_SAFE");

                if (requested && ibv_is_fork_initialized() == IBV_FORK_UNNEEDED)
                    fprintf(stderr, "RDMAV_FORK_SAFE=%s is unneeded here\\n", requested);
                unsetenv("RDMAV_FORK_SAFE");
                putenv("IBV_FORK_SAFE"); /* glibc: no '=' removes the variable */
            }
            """,
            language=C,
        ),
        Example(
            """
            #!/bin/bash
            # export RDMAV_FORK_SAFE=1 was only needed before Linux 5.12
            unset RDMAV_FORK_SAFE IBV_FORK_SAFE
            echo "RDMAV_FORK_SAFE=${RDMAV_FORK_SAFE:-unset}"
            if [ -n "$IBV_FORK_SAFE" ]; then echo "IBV_FORK_SAFE is set" >&2; fi
            """,
            language=SHELL,
        ),
        Example(
            """
            FROM nvcr.io/nvidia/pytorch:24.05-py3
            # ENV RDMAV_FORK_SAFE=1 is unneeded on Linux 5.12+
            ENV NCCL_DEBUG=INFO
            RUN echo "RDMAV_FORK_SAFE=${RDMAV_FORK_SAFE:-unset}"
            """,
            language=DOCKERFILE,
        ),
        Example(
            """
            env:
              NCCL_DEBUG: INFO
            jobs:
              check:
                runs-on: [self-hosted, rdma]
                steps:
                  # RDMAV_FORK_SAFE: "1" is unneeded on Linux 5.12+
                  - name: RDMAV_FORK_SAFE must be unset
                    run: test -z "${RDMAV_FORK_SAFE:-}"
            """,
            language=YAML,
        ),
    )
    invalid = (
        """
        import os

        os.environ["RDMAV_FORK_SAFE"] = "1"  # warning: CUR103
        os.environ.setdefault("IBV_FORK_SAFE", "1")  # warning: CUR103
        """,
        """
        import os
        import subprocess

        FORK_SAFE = "RDMAV_FORK_SAFE"

        def launch(command):
            env = {**os.environ, "NCCL_DEBUG": "INFO", FORK_SAFE: "1"}  # warning: CUR103
            return subprocess.Popen(command, env=env)

        def benchmark(binary):
            env = os.environ.copy()
            env["IBV_FORK_SAFE"] = "1"  # warning: CUR103
            subprocess.run([binary, "--iters", "100"], env=env, check=True)

        def exec_trainer(argv):
            os.execve(argv[0], argv, dict(os.environ, RDMAV_FORK_SAFE="1"))  # warning: CUR103
        """,
        Example(
            """
            #include <stdlib.h>
            #include <infiniband/verbs.h>

            #define FORK_SAFE_VARIABLE "RDMAV_FORK_SAFE"

            int rdma_init(void)
            {
                setenv(FORK_SAFE_VARIABLE, "1", 1); // warning: CUR103
                putenv("IBV_FORK_SAFE=1"); // warning: CUR103
                return ibv_fork_init(); // warning: CUR103
            }
            """,
            language=C,
        ),
        Example(
            """
            #include <cstdlib>

            void enable_fork_support()
            {
                ::setenv("IBV_FORK_SAFE", "1", 0); // warning: CUR103
            }
            """,
            language=CPP,
        ),
        Example(
            """
            #!/bin/bash
            export RDMAV_FORK_SAFE=1  # warning: CUR103
            IBV_FORK_SAFE=1 torchrun --nproc-per-node 8 train.py  # warning: CUR103
            env -u NCCL_DEBUG RDMAV_FORK_SAFE=1 python eval.py  # warning: CUR103
            mpirun -np 16 -x RDMAV_FORK_SAFE=1 ./all_reduce_perf  # warning: CUR103
            """,
            language=SHELL,
        ),
        Example(
            """
            FROM nvcr.io/nvidia/pytorch:24.05-py3
            ENV NCCL_DEBUG=INFO \\
                RDMAV_FORK_SAFE=1  # warning: CUR103
            ENV IBV_FORK_SAFE 1  # warning: CUR103
            """,
            language=DOCKERFILE,
        ),
        Example(
            """
            spec:
              containers:
                - name: trainer
                  image: registry.example.com/trainer:1.4
                  env:
                    - name: NCCL_DEBUG
                      value: INFO
                    - name: RDMAV_FORK_SAFE  # warning: CUR103
                      value: "1"
            """,
            language=YAML,
        ),
        Example(
            """
            services:
              trainer:
                image: registry.example.com/trainer:1.4
                environment:
                  RDMAV_FORK_SAFE: "1"  # warning: CUR103
              evaluator:
                environment:
                  - IBV_FORK_SAFE=1  # warning: CUR103
            """,
            language=YAML,
        ),
    )

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.reported: set[int] = set()
        # Python: entries set in local names, and the names passed as a process environment
        self.filled: list[tuple[Any, str, list[tuple[ast.AST, str]]]] = []
        self.passed_envs: set[tuple[Any, str]] = set()

    def check(self) -> None:
        language = self.context.source.language
        if language == PYTHON:
            for scope, name, entries in self.filled:
                if (scope, name) in self.passed_envs:
                    self._report_entries(entries)
        elif language in (C, CPP):
            self._check_c()
        else:
            for line, start, end, variable in _TEXT_SCANNERS[language](self.context.source.lines):
                self.report(Span(line, start + 1, line, end + 1),
                            _setting_message(variable))

    # -- Python ----------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            variable = self._variable(target.slice) if isinstance(target, ast.Subscript) else None
            if variable:
                self._set_in(target.value, [(target, variable)])

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.BitOr):  # os.environ |= {...}
            self._set_in(node.target, self._mapping_entries(node.value))

    def visit_Call(self, node: ast.Call) -> None:
        name = self.context.qualified_name(node.func, among=_CUR103_CALLS)
        if name == "os.putenv" and node.args:
            self._report_entries([(node, self._variable(node.args[0]))])
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" and node.args:
            self._set_in(node.func.value, [(node, self._variable(node.args[0]))])
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            self._set_in(node.func.value, self._argument_entries(node, 0))
        env = self._env_argument(node, name)
        if isinstance(env, ast.expr):
            self._report_entries(self._mapping_entries(env))
            if isinstance(env, ast.Name):
                self.passed_envs.add((self.context.scope_of(env), env.id))

    def _variable(self, node: ast.expr) -> str | None:
        """The fork-safe variable an expression names (str or bytes), or None."""
        value = self.context.evaluate(node)
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        return value if isinstance(value, str) and value in FORK_SETTINGS else None

    def _set_in(self, container: ast.expr, entries: list[tuple[ast.AST, str | None]]) -> None:
        """Entries set in `container`: reported for os.environ, kept for a local name until
        the file shows whether the name is passed as a process environment."""
        entries = [(node, variable) for node, variable in entries if variable]
        if not entries:
            return
        if self._is_environ(container):
            self._report_entries(entries)
        elif isinstance(container, ast.Name):
            self.filled.append((self.context.scope_of(container), container.id, entries))

    def _is_environ(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            bound = self.context.definition(node)
            node = bound if isinstance(bound, ast.expr) else node
        return self.context.qualified_name(node) in _ENVIRON

    def _env_argument(self, call: ast.Call, name: str | None) -> Any:
        """The expression passed as the new program's environment, None or UNKNOWN."""
        spawn = spawn_call(call, self.context)
        if spawn is not None:
            return spawn.node("env")
        position = _ENV_POSITIONS.get(name)
        if position == -1:
            return call.args[-1] if call.args else None
        return self.context.argument(call, position, "env") if position is not None else None

    def _mapping_entries(self, node: Any, depth: int = 0) -> list[tuple[ast.AST, str]]:
        """(node, variable) for each entry of a mapping expression that sets a fork-safe
        variable: dict displays (with `**` parts), `dict(...)`, `a | b`, names bound once."""
        if depth > _MAX_MAPPING_DEPTH:
            return []
        depth += 1
        if isinstance(node, ast.Name):
            return self._mapping_entries(self.context.definition(node), depth)
        if isinstance(node, ast.Dict):
            found = []
            for key, value in zip(node.keys, node.values):
                if key is None:  # {**base, ...}
                    found += self._mapping_entries(value, depth)
                elif variable := self._variable(key):
                    found.append((key, variable))
            return found
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return [*self._mapping_entries(node.left, depth),
                    *self._mapping_entries(node.right, depth)]
        if isinstance(node, ast.Call) and self.context.qualified_name(node.func) == "builtins.dict":
            return self._argument_entries(node, depth)
        return []

    def _argument_entries(self, call: ast.Call, depth: int) -> list[tuple[ast.AST, str]]:
        """Entries set by the arguments of `dict(...)` or `.update(...)`: a mapping, keywords."""
        found = [entry for argument in call.args[:1] for entry in
                 self._mapping_entries(argument, depth)]
        for keyword in call.keywords:
            if keyword.arg is None:
                found += self._mapping_entries(keyword.value, depth)
            elif keyword.arg in FORK_SETTINGS:
                found.append((keyword, keyword.arg))
        return found

    def _report_entries(self, entries: list[tuple[Any, str | None]]) -> None:
        for node, variable in entries:
            if variable and id(node) not in self.reported:
                self.reported.add(id(node))
                self.report(node, _setting_message(variable))

    # -- C/C++ -----------------------------------------------------------------------------
    def _check_c(self) -> None:
        for function, call in self.context.calls(_C_SETTERS):
            if function == "ibv_fork_init":
                if not self._c_honours_or_probes(call):
                    self.report(call, _fork_safe_message("Calling ibv_fork_init()"))
                continue
            variables = self._c_variables(function, call)
            if variables:
                self.report(call, _setting_message(" or ".join(variables)))

    def _c_variables(self, function: str, call) -> list[str]:
        """The fork settings `setenv(NAME, ...)` or `putenv("NAME=value")` may set, when every
        value NAME may have is known."""
        given = arguments(call)
        texts = self._c_strings(given[0]) if given else None
        if texts is None:
            return []
        if function == "putenv":  # glibc: putenv("NAME") unsets NAME
            texts = {text.partition("=")[0] for text in texts if "=" in text}
        return sorted(text for text in texts if text in FORK_SETTINGS)

    def _c_strings(self, node, depth: int = 0) -> set[str] | None:
        """The strings an expression may be: a literal, an object-like macro defined as one,
        `c ? a : b` of these, or a local initialised with one and never assigned; None when
        unknown."""
        node = unwrapped(node)
        if depth > _MAX_MAPPING_DEPTH:
            return None
        if node.type == "conditional_expression":
            sides = [self._c_strings(node.child_by_field_name(side), depth + 1)
                     for side in ("consequence", "alternative")]
            return None if None in sides else sides[0] | sides[1]
        text = self._c_string(node)
        if text is not None:
            return {text}
        value = self._c_local_value(node) if node.type == "identifier" else None
        return self._c_strings(value, depth + 1) if value is not None else None

    def _c_local_value(self, node):
        """The initializer of the local `node` names, if the function never assigns it."""
        scope = scope_of(self.context, node)
        name = self.context.text(node)
        found = [declarator for _, declarator in declarations_in(self.context, scope, name)
                 if declarator.start_byte < node.start_byte] if scope is not None else []
        if not found or found[-1].type != "init_declarator" or assigns(self.context, scope,
                                                                        name):
            return None
        return found[-1].child_by_field_name("value")

    def _c_string(self, node) -> str | None:
        """A string literal's value, or that of an object-like macro defined before `node` as
        one string literal (every definition the same)."""
        if node.type == "string_literal":
            match = _C_STRING.fullmatch(self.context.text(node))
            return match.group(1) if match else None
        if node.type != "identifier":
            return None
        definitions = self._c_defines(self.context.text(node))
        if not definitions or definitions[0].start_byte > node.start_byte:
            return None
        values = set()
        for define in definitions:
            body = define.child_by_field_name("value")
            text = _C_COMMENT.sub("", self.context.text(body)).strip() if body else ""
            match = _C_STRING.fullmatch(text)
            values.add(match.group(1) if match else None)
        return values.pop() if len(values) == 1 else None

    def _c_honours_or_probes(self, call) -> bool:
        """Whether `ibv_fork_init()` runs only where the user asked for fork support or the
        kernel needs it (an `if` around it, or an earlier `if` that returns, asks
        `getenv("RDMAV_FORK_SAFE")`, `ibv_is_fork_initialized()`, or a status variable set
        only under such a test), or after the same function registered memory (then it cannot
        turn protection on: EINVAL, a probe)."""
        scope = scope_of(self.context, call)
        if scope is None:
            return False
        if any(found.start_byte < call.start_byte
               for _, found in self.context.calls(_VERBS_REGISTRATIONS, scope)):
            return True
        for statement in self.context.descendants(scope):
            if statement.type != "if_statement" or statement.start_byte > call.start_byte:
                continue
            condition = statement.child_by_field_name("condition")
            consequence = statement.child_by_field_name("consequence")
            if condition is None or consequence is None:
                continue  # a statement tree-sitter could not read whole
            around = within(call, statement) and not within(call, condition)
            returns = not around and not within(call, statement) and any(
                node.type == "return_statement"
                for node in (consequence, *self.context.descendants(consequence)))
            if (around or returns) and self._c_asks(condition, call):
                return True
        return False

    def _c_asks(self, condition, call=None) -> bool:
        """Whether a condition reads the user's fork setting or the kernel's need, itself or
        (for the `if` around `call`) through a variable compared with a value it is given
        only under such a condition before `call` can run."""
        text = self.context.text(condition)
        if _C_ASKS.search(text):
            return True
        if call is None:
            return False
        for comparison in self.context.descendants(condition):
            if comparison.type != "binary_expression" or self.context.text(
                    comparison.child_by_field_name("operator")) not in ("==", "!="):
                continue
            left, right = (comparison.child_by_field_name(side) for side in ("left", "right"))
            if left is None or right is None:
                continue
            left = unwrapped(left)
            if left.type == "identifier" and self._c_status_set_on_request(
                    self.context.text(left), self.context.text(right), call):
                return True
        return False

    def _c_status_set_on_request(self, variable: str, value: str, call) -> bool:
        """Whether every `variable = value;` of the file that may run before `call` (not later
        in its function) sits under an `if` that asks (and there is one)."""
        scope = scope_of(self.context, call)
        settings = []
        for _, leaf in self.context.tokens((variable,)):
            assignment = self.context.parent(leaf)
            if (leaf.type == "identifier" and assignment.type == "assignment_expression"
                    and assignment.child_by_field_name("left") == leaf
                    and self.context.text(assignment.child_by_field_name("right")) == value
                    and not (within(assignment, scope)
                             and assignment.start_byte > call.start_byte)):
                settings.append(assignment)
        return bool(settings) and all(
            any(found.type == "if_statement" and found.child_by_field_name("condition")
                and not within(assignment, found.child_by_field_name("condition"))
                and self._c_asks(found.child_by_field_name("condition"))
                for found in self.context.ancestors(assignment))
            for assignment in settings)

    def _c_defines(self, name: str) -> list:
        """The `#define` lines of the macro `name`, in file order."""
        found = []
        for _, leaf in self.context.tokens((name,)):
            define = self.context.parent(leaf)
            if (leaf.type == "identifier" and define.type == "preproc_def"
                    and define.child_by_field_name("name") == leaf):
                found.append(define)
        return found
