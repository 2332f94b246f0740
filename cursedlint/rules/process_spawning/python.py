"""CUR101, CUR102 and CUR103 in Python."""

from __future__ import annotations

import ast
import os
from typing import Any

from msgspec import Struct, field

from cursedlint.analysis.capture_regions import body_of, capture_analysis
from cursedlint.analysis.cuda_reach import CUDA_REACH
from cursedlint.analysis.cuda_use import CudaUse
from cursedlint.analysis.platform import excluding_guard
from cursedlint.analysis.python_project import (
    MAX_DEPTH, MODULE, call_target, calling_function, last_name, own_nodes, project_functions,
    value_of,
)
from cursedlint.analysis.start_methods import (
    SPAWN_SET, START_METHOD_ARGUMENTS, START_METHOD_SETTERS, START_METHODS, StartMethodValues,
    is_main_guard, multiprocessing_name, torch_spellings,
)
from cursedlint.findings import MESSAGE_WIDTH, Edit, Fix, Rewrite, Severity, Span, Step
from cursedlint.python_consteval import UNKNOWN
from cursedlint.rules.process_spawning import (
    FORK_SETTINGS, MACOS, MAX_MAPPING_DEPTH, ForkInAcceleratedProcess, ForkSafeModeEnabled,
    Platform, SubprocessForkPath, setting_message,
)
from cursedlint.second_look import AllOf, Call, Names, Text

def _any(values: list[Any]) -> Any:
    if any(value is True for value in values):
        return True
    return UNKNOWN if any(value is UNKNOWN for value in values) else False


def _all(values: list[Any]) -> Any:
    if any(value is False for value in values):
        return False
    return UNKNOWN if any(value is UNKNOWN for value in values) else True


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


_PREEXEC_REASON = "preexec_fn= is set"
_PREEXEC_REPLACEMENTS = {"os.setsid": ("start_new_session", "True", (3, 2)),
                         "os.setpgrp": ("process_group", "0", (3, 11))}
"""preexec_fn -> (the Popen argument that does the same in the child, its value, since)."""


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
                _PREEXEC_REASON,
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
            f"{name}= is set",
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


_FORCING_KEYWORDS = ("preexec_fn", "user", "group", "extra_groups")
_FORCING_KEYWORD_NAMES = frozenset(name.encode() for name in _FORCING_KEYWORDS)
_SPAWN_CALLEES = frozenset(name.rpartition(".")[2].encode() for name in APIS)
_SPAWN_MODULES = frozenset(part.encode() for name in APIS for part in name.split(".")[:-1])

_FORK_COST = (
    "A fork copies a large process's page tables, drops its MADV_DONTFORK pages (RDMA "
    "buffers) from the child and keeps the locks other threads held"
)


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


_ALWAYS_FORK = frozenset({"os.fork", "os.forkpty", "pty.fork"})


# constructors that use the default start method, and the argument that can pass a context
_DEFAULT_CONTEXT_USERS = {
    "multiprocessing.Process": None,
    "multiprocessing.Pool": None,
    "multiprocessing.Manager": None,
    "multiprocessing.pool.Pool": (4, "context"),
    "concurrent.futures.ProcessPoolExecutor": (1, "mp_context"),
    "concurrent.futures.process.ProcessPoolExecutor": (1, "mp_context"),
}

_CUR102_CALLS = torch_spellings(
    {*_ALWAYS_FORK, *START_METHOD_SETTERS, *START_METHOD_ARGUMENTS, *_DEFAULT_CONTEXT_USERS}
)
"""Every function name CUR102 looks at, as written (torch.multiprocessing included)."""


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
        """Why the start is surely hazardous (the message's end), with the chain; None when
        the module does not show it."""
        path = self.context.source.path
        for code, label in self.children(start)[0]:
            found = self._uses_cuda(code)
            if found is not None:
                line, what, steps = found
                steps = steps or (Step(path, line, what),)
                failure = Step(steps[-1].path, steps[-1].line, f"{steps[-1].note}: in a forked "
                               "child this fails with \"Cannot re-initialize CUDA in forked "
                               "subprocess\"")
                return f"; the child runs {label}, which uses CUDA", (*steps[:-1], failure)
        earlier = self._earlier(start)
        found = self.uses.first(earlier, self.uses.sure_use)
        if found is not None:
            node, what, via = found
            through = "".join(f" through {name}()" for name in via)
            return (f" after CUDA work on line {node.lineno}{through}",
                    self.uses.steps_for(node) or (Step(path, node.lineno, what),))
        group = next((node for node in own_nodes(earlier) if isinstance(node, ast.Call)
                      and self.context.qualified_name(node.func, among=_NCCL_GROUPS)
                      and self._nccl(node)), None)
        if group is not None:
            return (f" after an NCCL process group is made on line {group.lineno}",
                    (Step(path, group.lineno, "an NCCL process group is made"),))
        return None

    def tests_fork(self, start: ast.Call) -> bool:
        """Whether the start is the subject of a test of fork behaviour: in a test module
        (`test_*.py`, `*_test.py`) whose name, or whose test class or function holding it,
        says fork (`test_fork_safety.py`, `def test_cuda_after_fork`)."""
        stem = os.path.splitext(os.path.basename(self.context.source.path))[0]
        if not (stem.startswith("test_") or stem.endswith("_test")):
            return False
        names = [stem] + [scope.name for scope in self.context.ancestors(start)
                          if isinstance(scope, _DEFINITIONS[:3])
                          and scope.name.lower().startswith("test")]
        return any("fork" in name.lower() for name in names)

    def before_accelerators(self, start: ast.Call) -> bool:
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
        if last_name(start.func) == "Manager":
            return [], True
        if last_name(start.func) == "Process":
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
        `ProcessPoolExecutor(mp_context=ctx)`, `self.ctx.Process(...)` with `self.ctx` set to
        it): a context used for a Queue starts none."""
        parent = self.context.parent_of(context_call)
        if isinstance(parent, ast.Attribute) and parent.attr in _PROCESS_MAKERS:
            made = self.context.parent_of(parent)
            return [made] if isinstance(made, ast.Call) else []
        return [call for call in calls if (
            isinstance(call.func, ast.Attribute) and call.func.attr in _PROCESS_MAKERS
            and value_of(self.context, call.func.value) is context_call
        ) or any(keyword.arg in _CONTEXT_KEYWORDS
                 and value_of(self.context, keyword.value) is context_call
                 for keyword in call.keywords)]

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
        if project is None and target is not None:
            # a project function that does no CUDA work would make the child's code known
            self.context.asks_any_fact.add(CUDA_REACH.name)
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
        body = module if scope is None else getattr(scope, "body", [])
        if not isinstance(body, list):  # a lambda's body is one expression: no statements
            body = []
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
                     and is_main_guard(a.test)), None)

    def _in_main_block(self, node: ast.AST) -> bool:
        return self._main_block(node) is not None


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                ast.ImportFrom)


def _text(node: ast.AST) -> str:
    return ast.unparse(node)


def _callee_text(call: ast.Call) -> str:
    """The callee as the call writes it, cut short when long (`mp.get_context('fork').Pool`)."""
    text = _text(call.func)
    return text if len(text) <= 48 else "..." + text[-45:]


def _only_without_fork(node: ast.AST, context) -> bool:
    """Whether `node` runs only on a system without fork (under `if sys.platform == "win32":`,
    `if IS_WINDOWS:`, the `else` of `if IS_LINUX:`): neither Linux nor macOS takes its branch."""
    return all(excluding_guard(node, system, context) is not None
               for system in ("linux", "darwin"))


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


_ENVIRON = frozenset({"os.environ", "os.environb"})
# os functions that take the new program's environment: positional index of `env` (-1: last)
_ENV_POSITIONS = {
    "os.execve": 2, "os.execvpe": 2, "os.execle": -1, "os.execlpe": -1,
    "os.spawnve": 3, "os.spawnvpe": 3, "os.spawnle": -1, "os.spawnlpe": -1,
    "os.posix_spawn": 2, "os.posix_spawnp": 2,
}
_CUR103_CALLS = frozenset({"os.putenv", *_ENV_POSITIONS})


_FORKED_CUDA_HELP = (
    "A forked child inherits the parent's CUDA context and RDMA registrations without the "
    "driver threads behind them: its first CUDA call fails ('Cannot re-initialize CUDA in "
    "forked subprocess') or hangs, and pages the parent registered may be missing. Start "
    "children with a 'spawn' or 'forkserver' context (multiprocessing.get_context('spawn'), "
    "mp_context= for ProcessPoolExecutor), or set one for the process in its entry point."
)


def _fork_message(call: SpawnCall, blockers: list[Blocker]) -> str:
    """`NAME() fork()s this whole process: REASONS`, the reasons cut to the first and how
    many more where all of them would not fit one terminal line (the help says how to remove
    each; the message points nowhere: CI annotations and --concise carry no help)."""
    said = f"{call.name}() fork()s this whole process: "
    reasons = "; ".join(blocker.reason for blocker in blockers)
    if len(said) + len(reasons) > MESSAGE_WIDTH and len(blockers) > 1:
        reasons = f"{blockers[0].reason} (and {len(blockers) - 1} more)"
    return said + reasons


def _fork_help(call: SpawnCall, blockers: list[Blocker]) -> str:
    """Why CPython forks here, what a fork costs, and how to start the program without one."""
    if any(blocker.forces_fork for blocker in blockers):
        why = ("CPython runs preexec_fn, and changes user or groups, only in a forked copy of "
               "the calling process")
    else:
        why = ("CPython starts the program with posix_spawn (or vfork) only when no condition "
               f"keeps it off; here: {'; '.join(blocker.reason for blocker in blockers)}")
    changes = call.api.replacement or "; ".join(blocker.change for blocker in blockers)
    return f"{why}. {_FORK_COST}. To start the program without a fork, {changes}."


class SubprocessForkPathPython(SubprocessForkPath):
    """CUR101: which path each subprocess call takes on the target platform."""

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
        self.report(node, _fork_message(call, blockers), help=_fork_help(call, blockers),
                    fix=self._preexec_fix(call, blockers) or self._which_fix(call, blockers))

    def _preexec_fix(self, call: SpawnCall, blockers: list[Blocker]) -> Fix | None:
        """`preexec_fn=os.setsid` -> `start_new_session=True`, `preexec_fn=os.setpgrp` ->
        `process_group=0` (3.11+), where preexec_fn, written as a keyword, is the only
        condition: the child does the same without a preexec_fn, so nothing forks (safe)."""
        keyword = next((k for k in call.call.keywords if k.arg == "preexec_fn"), None)
        if keyword is None or [blocker.reason for blocker in blockers] != [_PREEXEC_REASON]:
            return None
        name = self.context.qualified_name(keyword.value, among=_PREEXEC_REPLACEMENTS)
        replacement = _PREEXEC_REPLACEMENTS.get(name)
        if replacement is None or self.context.settings.target_python < replacement[2] or \
                call.node(replacement[0]) is not None:
            return None
        argument, value, _ = replacement
        rewrite = Rewrite(self.context.span_of(call.call), argument, value, replaces="preexec_fn")
        return Fix(f"replace preexec_fn={name} with {argument}={value}", (), rewrites=(rewrite,))

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


class ForkInAcceleratedProcessPython(ForkInAcceleratedProcess):
    """CUR102: each start of fork-based processes, judged on the evidence of the module and
    the project."""

    @classmethod
    def look(cls, options, target_python, language):
        """A finding needs the module to import an accelerator library: the library's
        top-level name occurs as a whole name (not `cudarrl` in an HTML entity table)."""
        return Names(frozenset(module.partition(".")[0].encode() for module in options["modules"]))

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.library = next(
            (m for m in self.option["modules"] if context.imports.imports_module(m)), None
        )
        self.default_context_users: list[tuple[ast.Call, str]] = []
        self.fork_contexts: list[tuple[ast.Call, tuple[Step, ...]]] = []
        self.calls: list[ast.Call] = []
        self.sets_start_method = False
        self.evidence = ForkEvidence(context) if self.library else None
        self.methods = StartMethodValues(context) if self.library else None

    def visit_Call(self, node: ast.Call) -> None:
        if self.library is None:
            return
        self.calls.append(node)
        written = self.context.qualified_name(node.func, among=_CUR102_CALLS)
        name = multiprocessing_name(written)
        if name in START_METHOD_SETTERS:
            self.sets_start_method = True
        if name in _ALWAYS_FORK:
            self._report_start(node, f"{written}() forks")
            return
        method, steps = self._start_method(node, name)
        if method == "fork":
            if name == "multiprocessing.get_context":
                self.fork_contexts.append((node, steps))  # a start only where it makes processes
            else:
                self._report_start(node, f"{_callee_text(node)}() forks (start method 'fork')",
                                   switch=True, steps=steps)
        elif name in _DEFAULT_CONTEXT_USERS and self._uses_default_context(node, name):
            self.default_context_users.append((node, written))

    def check(self) -> None:
        for context_call, steps in self.fork_contexts:
            for start in self.evidence.made_from(context_call, self.calls):
                self._report_start(start, f"{_callee_text(start)}() forks (a 'fork' context)",
                                   steps=steps)
        if self.sets_start_method or self.context.settings.target_python >= (3, 14):
            return
        for node, written in self.default_context_users:
            if self._started_after_spawn(node):
                continue
            self._report_start(node, f"{_callee_text(node)}() forks by default (Python < 3.14)",
                               fix=self._spawn_fix(node, multiprocessing_name(written)))

    def _spawn_fix(self, node: ast.Call, name: str) -> Fix | None:
        """The start in a 'spawn' context: `mp.Pool(...)` -> `mp.get_context("spawn").Pool(...)`,
        `ProcessPoolExecutor(...)` -> `ProcessPoolExecutor(..., mp_context=mp.get_context(
        "spawn"))` where the module imports multiprocessing (as `mp` here). Unsafe: the
        children then import the main module afresh, and arguments and results must pickle."""
        message = 'start it in a "spawn" context (arguments must pickle)'
        modules = ("multiprocessing", "torch.multiprocessing")
        slot = _DEFAULT_CONTEXT_USERS[name]
        if slot is None:
            func = node.func
            if not (isinstance(func, ast.Attribute)
                    and self.context.qualified_name(func.value) in modules):
                return None
            text = f'{_text(func.value)}.get_context("spawn").{func.attr}'
            return Fix(message, (Edit(self.context.span_of(func), text),), safe=False)
        local = next((local for local, imported in self.context.imports.names.items()
                      if imported in modules), None)
        if local is None or len(node.args) > slot[0]:
            return None
        return Fix(message, (), safe=False, rewrites=(Rewrite(
            self.context.span_of(node), slot[1], f'{local}.get_context("spawn")'),))

    def _report_start(self, start: ast.Call, what: str, switch: bool = False,
                      steps: tuple[Step, ...] = (), fix: Fix | None = None) -> None:
        """Report a fork-based start with its evidence: CUDA work before it, or a child that
        uses CUDA, make it an error; at import time or in `__main__` with neither, and with
        children known to do CPU work only, it is silent, as in a test about fork; otherwise
        a warning that names the function whose callers decide (`switch`: a setting, not a
        start: always said). `steps`: where the 'fork' start method comes from."""
        if self.evidence.tests_fork(start) or _only_without_fork(start, self.context):
            return
        found = self.evidence.of(start)
        if found is not None:
            why, evidence = found
            self.report(start, f"{what}{why}", severity=Severity.ERROR,
                        related=(*steps, *evidence), help=_FORKED_CUDA_HELP, fix=fix)
            return
        scope = self.context.scope_of(start)
        function = getattr(scope, "name", None) if not isinstance(scope, ast.ClassDef) else None
        if not switch and self.evidence.before_accelerators(start):
            return
        where = (f"callers of {function}() decide if CUDA/RDMA state exists" if function
                 else f"CUDA/RDMA state may exist ({self.library} is imported)")
        self.report(start, f"{what}; {where}", related=steps, help=_FORKED_CUDA_HELP, fix=fix)

    def _started_after_spawn(self, node: ast.Call) -> bool:
        """Whether the function holding `node` is called in the project, and every call of
        it runs only after an entry point set 'spawn' or 'forkserver' for the process."""
        project = project_functions(self.context, START_METHODS)
        caller = calling_function(self.context, node)
        if project is None or caller is None:
            return False
        return _only_after_setting(project, os.path.abspath(self.context.source.path), caller,
                                   0, frozenset())

    def _start_method(self, node: ast.Call, name: str | None) -> tuple[Any, tuple[Step, ...]]:
        """The start method the call is given (followed through the code), with the steps
        that give it; None when it takes none, UNKNOWN when the code does not show it."""
        position = START_METHOD_ARGUMENTS.get(name)
        if position is None:
            return None, ()
        argument = self.context.argument(node, *position)
        if argument is None or argument is UNKNOWN:
            return argument, ()
        return self.methods.of(argument)

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


class ForkSafeModeEnabledPython(ForkSafeModeEnabled):
    """CUR103 in Python: the variables set in `os.environ` or in an environment passed to a
    process."""

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.reported: set[int] = set()
        # entries set in local names, and the names passed as a process environment
        self.filled: list[tuple[Any, str, list[tuple[ast.AST, str]]]] = []
        self.passed_envs: set[tuple[Any, str]] = set()

    def check(self) -> None:
        for scope, name, entries in self.filled:
            if (scope, name) in self.passed_envs:
                self._report_entries(entries)

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
        if depth > MAX_MAPPING_DEPTH:
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
                message, help = setting_message(variable)
                self.report(node, message, help=help)
