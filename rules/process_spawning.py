"""CUR1xx: process creation that fork()s a large process (Python).

CUR101 works out, from the arguments of a subprocess call, which of CPython's three ways of
starting a program the call takes on the configured Python version and C library: posix_spawn,
vfork (Linux, Python 3.10+), or a full fork. The conditions are those of CPython's own sources:
`Popen._execute_child` in Lib/subprocess.py (the posix_spawn test), `_use_posix_spawn` and
`_HAVE_POSIX_SPAWN_CLOSEFROM` (which libcs), and `subprocess_fork_exec` in
Modules/_posixsubprocess.c (when vfork is used). CUR102 finds fork-based process creation in
modules that import CUDA or RDMA libraries.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from cursedlint.findings import Edit, Fix, Severity, Span
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rule import Example, Option, Rule

# -- platforms -------------------------------------------------------------------------------

GLIBC, OLD_GLIBC, MUSL, MACOS = "glibc>=2.34", "glibc<2.34", "musl", "macos"


@dataclass(frozen=True)
class Platform:
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


@dataclass(frozen=True)
class Api:
    """How a function hands its arguments to `subprocess.Popen`. `program` names the argument
    holding the command (Popen's `args`, or asyncio's `program`); `implied` are the keywords the
    function itself passes; with `varargs`, extra positional arguments are program arguments."""

    positional: tuple[str, ...]
    program: str = "args"
    implied: dict[str, ast.expr] = field(default_factory=dict)
    varargs: bool = False
    replacement: str = ""  # for functions that take none of the arguments to change


_POPEN = Api(_POPEN_POSITIONAL)
_SHELL = Api(("args",), implied={"shell": _TRUE}, varargs=True)
_EXEC = Api(("program",), program="program", varargs=True)
_OS_POPEN = Api(
    ("args",),
    implied={"shell": _TRUE},
    varargs=True,
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


@dataclass(frozen=True)
class Blocker:
    """A condition that keeps a call off posix_spawn; with `forces_fork`, off vfork too."""

    reason: str
    change: str
    forces_fork: bool = False


@dataclass(frozen=True)
class Undecided:
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
        bound: dict[str, Any] = dict(self.api.implied)
        for index, argument in enumerate(self.call.args):
            if isinstance(argument, ast.Starred):
                bound.update(dict.fromkeys(self.api.positional[index:], UNKNOWN))
                break
            if index < len(self.api.positional):
                bound[self.api.positional[index]] = argument
        opened = False
        for keyword in self.call.keywords:
            if keyword.arg is None:
                opened = True  # **kwargs: any keyword not written out may be in it
            else:
                bound[keyword.arg] = keyword.value
        return bound, opened

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
        return ast.get_source_segment(self.context.source.text, self.arguments[name])

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
            *[self._identity_condition(name) for name in ("user", "group", "extra_groups")],
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

    def rejected(self) -> bool:
        """Whether Popen surely raises before starting anything: a user, group or extra group
        id out of range (ValueError below 0, OverflowError/ValueError from 2**32 on)."""
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
    name = context.qualified_name(call.func)
    api = APIS.get(name)
    return SpawnCall(name, api, call, context) if api else None


# -- CUR101 ----------------------------------------------------------------------------------

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
            "except before Python 3.10 with musl, where CPython always forks.",
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

    def visit_Call(self, node: ast.Call) -> None:
        call = spawn_call(node, self.context)
        if call is None:
            return
        platform = Platform(self.context.settings.target_python, self.option["libc"])
        path, blockers = call.path(platform)
        if path != "fork":
            return
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
        text = ast.get_source_segment(self.context.source.text, literal)
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


def _fork_and_library_words(modules) -> tuple[tuple[str, str], ...]:
    """Triggers: a fork word together with the top-level name of an accelerator library."""
    return tuple(
        (fork_word, module.partition(".")[0]) for fork_word in _FORK_WORDS for module in modules
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


def _multiprocessing_name(name: str | None) -> str | None:
    """torch.multiprocessing re-exports multiprocessing: map its names onto the originals."""
    prefix = "torch.multiprocessing."
    if name and name.startswith(prefix) and name != prefix + "start_processes":
        return "multiprocessing." + name[len(prefix):]
    return name


def _argument(call: ast.Call, position: tuple[int | None, str]) -> Any:
    """The argument at (positional index, keyword), None when absent, UNKNOWN when it may
    be in *args or **kwargs. A None index means keyword-only."""
    index, keyword = position
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    positional = call.args[:index] if index is not None else []
    if any(isinstance(item, ast.Starred) for item in positional) or any(
        item.arg is None for item in call.keywords
    ):
        return UNKNOWN
    return call.args[index] if index is not None and index < len(call.args) else None


class ForkInAcceleratedProcess(Rule):
    """## What it does
    Finds fork-based process creation in a module that imports a CUDA or RDMA library (option
    `modules`): `os.fork()`, `os.forkpty()`, `pty.fork()`, the `"fork"` start method
    (`multiprocessing.get_context("fork")`, `set_start_method("fork")`,
    `torch.multiprocessing.start_processes(..., start_method="fork")`), and
    `multiprocessing.Process`/`Pool`/`Manager`, `multiprocessing.pool.Pool` and
    `concurrent.futures.ProcessPoolExecutor` without a context, whose default start method is
    `fork` on Linux before Python 3.14 (3.14 made it `forkserver`). The default-context
    constructors are not reported when the module sets a start method itself.

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
    triggers = _fork_and_library_words(ACCELERATOR_MODULES)
    summary = "a fork-based process start in a module that imports CUDA or RDMA libraries"
    severity = Severity.WARNING
    options = {
        "modules": Option(
            (list, tuple),
            ACCELERATOR_MODULES,
            "modules (and their submodules) whose import means the process may hold CUDA or "
            "RDMA state.",
        )
    }
    @classmethod
    def triggers_for(cls, options):
        return _fork_and_library_words(options["modules"])

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
        self.sets_start_method = False

    def visit_Call(self, node: ast.Call) -> None:
        if self.library is None:
            return
        written = self.context.qualified_name(node.func)
        name = _multiprocessing_name(written)
        if name in _START_METHOD_SETTERS:
            self.sets_start_method = True
        if name in _ALWAYS_FORK:
            self.report(node, f"{written}() forks this process, and this module imports "
                              f"{self.library}: {_FORK_HARM}")
        elif self._start_method(node, name) == "fork":
            self.report(node, f"{written}() with the 'fork' start method starts processes as "
                              f"forks of this one, and this module imports {self.library}: "
                              f"{_FORK_HARM}")
        elif name in _DEFAULT_CONTEXT_USERS and self._uses_default_context(node, name):
            self.default_context_users.append((node, written))

    def check(self) -> None:
        if self.sets_start_method or self.context.settings.target_python >= (3, 14):
            return
        for node, written in self.default_context_users:
            self.report(
                node,
                f"{written}() starts processes with the default start method, 'fork' on Linux "
                f"before Python 3.14, and this module imports {self.library}: {_FORK_HARM}",
            )

    def _start_method(self, node: ast.Call, name: str | None) -> Any:
        position = _START_METHOD_ARGUMENT.get(name)
        if position is None:
            return None
        argument = _argument(node, position)
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
            argument = _argument(node, position)
            if argument is UNKNOWN:
                return False
            if argument is not None and self.context.evaluate(argument) is not None:
                return False
        return True
