"""Which of CPython's three ways of starting a program a subprocess call takes.

On the configured Python version and C library (`Platform`): posix_spawn, vfork (Linux,
Python 3.10+), or a full fork. The conditions are those of CPython's own sources:
`Popen._execute_child` in Lib/subprocess.py (the posix_spawn test), `_use_posix_spawn` and
`_HAVE_POSIX_SPAWN_CLOSEFROM` (which libcs), and `subprocess_fork_exec` in
Modules/_posixsubprocess.c (when vfork is used). `spawn_call(call, context)` binds a call of a
Popen-family function (`APIS`) to its parameters; `SpawnCall.path(platform)` says which way
it takes and, for a fork, the conditions (`Blocker`) that keep it from the cheaper ways.
"""

from __future__ import annotations

import ast
from typing import Any

from msgspec import Struct, field

from cursedlint.python.consteval import UNKNOWN

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
    def vfork_needs_newer_python(self) -> bool:
        """Linux, where this Python is older than the vfork path (3.10)."""
        return self.libc != MACOS and not self.has_vfork

    @property
    def system(self) -> str:
        """`sys.platform` there: macOS's libSystem means Darwin, every other libc Linux."""
        return "darwin" if self.libc == MACOS else "linux"


def _any(values: list[Any]) -> Any:
    if any(value is True for value in values):
        return True
    return UNKNOWN if any(value is UNKNOWN for value in values) else False


def _all(values: list[Any]) -> Any:
    if any(value is False for value in values):
        return False
    return UNKNOWN if any(value is UNKNOWN for value in values) else True


POPEN_POSITIONAL = (
    "args", "bufsize", "executable", "stdin", "stdout", "stderr", "preexec_fn", "close_fds",
    "shell", "cwd", "env", "universal_newlines", "startupinfo", "creationflags",
    "restore_signals", "start_new_session", "pass_fds",
)
"""Popen's positional parameters, in order."""
FORCING_KEYWORDS = ("preexec_fn", "user", "group", "extra_groups")
"""The arguments that keep a call off vfork too: CPython runs them only in a forked child."""
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


_POPEN = Api(POPEN_POSITIONAL)
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
    "subprocess.check_output": Api(POPEN_POSITIONAL, implied={"stdout": _PIPE}),
    "os.popen": _OS_POPEN,
    "asyncio.create_subprocess_shell": _SHELL,
    "asyncio.subprocess.create_subprocess_shell": _SHELL,
    "asyncio.create_subprocess_exec": _EXEC,
    "asyncio.subprocess.create_subprocess_exec": _EXEC,
}
_API_NAMES = frozenset(APIS)  # (`qualified_name` answers a set of names without resolving most)
API_LAST_NAMES = frozenset(name.rpartition(".")[2] for name in APIS)
"""The last names of the calls `spawn_call` may answer for."""

_STREAM_CONSTANTS = {"PIPE": -1, "STDOUT": -2, "DEVNULL": -3}
_STANDARD_STREAMS = {"stdin": 0, "stdout": 1, "stderr": 2}
_PIPE_OR_FILE = 3  # any descriptor above 2
_STDOUT = _STREAM_CONSTANTS["STDOUT"]
_NEVER_NONE = (
    ast.Lambda, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
    ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
)
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


PREEXEC_REASON = "preexec_fn= is set"


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
        if isinstance(node, _NEVER_NONE):
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
            return executable, string_literal(self.node("executable"))
        shell = self.is_true("shell", False)
        if shell is not False:
            return ("/bin/sh" if shell is True else UNKNOWN), None
        node = self.node(self.api.program)
        command = UNKNOWN if node is None else self.context.evaluate(node)
        if isinstance(command, (str, bytes)) or self.api.program == "program":
            return command, string_literal(node)
        if isinstance(command, (list, tuple)) and command:
            first = node.elts[0] if isinstance(node, (ast.List, ast.Tuple)) else None
            return command[0], string_literal(first)
        return UNKNOWN, None

    # -- the conditions of Popen._execute_child ------------------------------------------------
    def conditions(self, platform: Platform) -> list[Blocker | Undecided]:
        """Each posix_spawn condition that the call fails (Blocker) or may fail (Undecided)."""
        found = [
            self._program_condition(),
            _condition(
                self.is_set("preexec_fn"),
                PREEXEC_REASON,
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
            *[self._identity_condition(name) for name in FORCING_KEYWORDS[1:]],
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
            f"{name}= is set",
            f"drop {name}= and switch identity in the command (e.g. setpriv, runuser)",
            forces_fork=True,
        )

    def may_force_fork(self) -> bool:
        """Whether an argument that forces a fork on every platform (preexec_fn, user, group,
        extra_groups) is or may be set; where CPython has vfork, no other call forks."""
        return any(self.is_set(name) is not False for name in FORCING_KEYWORDS)

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


def string_literal(node: Any) -> ast.Constant | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node
    return None


_NO_SPAWN_NO_VFORK = Blocker(
    "CPython does not use posix_spawn with musl, and has no vfork path before Python 3.10",
    "run it on Python 3.10 or newer, where subprocess uses vfork on Linux",
)


def spawn_call(call: ast.Call, context) -> SpawnCall | None:
    """The call as a SpawnCall when it calls a Popen-family function, else None. Answered
    once per call of the file (two rules ask of each call as the walk meets it)."""
    if not context.imports.may_resolve_to(call.func, API_LAST_NAMES):
        return None  # (most calls: no resolution, nothing remembered)
    known = context.shared(_SPAWN_CALLS, dict)
    key = id(call)
    if key not in known:
        known[key] = _spawn_call(call, context)
    return known[key]


_SPAWN_CALLS = "spawn-calls"


def _spawn_call(call: ast.Call, context) -> SpawnCall | None:
    name = context.qualified_name(call.func, among=_API_NAMES)
    api = APIS.get(name)
    return SpawnCall(name, api, call, context) if api else None
