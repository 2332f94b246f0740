"""CUR101, CUR102 and CUR103 in Python."""

from __future__ import annotations

import ast
import os
from typing import Any

from cursedlint.analysis.capture_regions import DATA_LOADERS
from cursedlint.analysis.dataset_maps import MAP_METHODS, NUM_PROC, dataset_workers
from cursedlint.analysis.fork_protection import CALL_LAST_NAMES, EnvironmentSettings
from cursedlint.analysis.platform import excluding_guard, only_without_fork
from cursedlint.analysis.process_state import (
    ALWAYS_FORK, DEFAULT_CONTEXT_USERS, PROCESS_BASES, fork_analysis, never_runs,
    process_class, process_classes,
)
from cursedlint.analysis.python_modules import imports_project_module
from cursedlint.analysis.start_methods import (
    MULTIPROCESS_SPAWN_SET, SPAWN_SET, START_METHOD_ARGUMENTS, START_METHOD_SETTERS,
    START_METHODS, StartMethodValues,
    in_main_block, made_from, multiprocessing_name, started_after_spawn, torch_spellings,
    uses_default_context,
)
from cursedlint.analysis.subprocess_spawn import (
    API_LAST_NAMES, APIS, FORCING_KEYWORDS, POPEN_POSITIONAL, PREEXEC_REASON, Blocker, Platform,
    SpawnCall, spawn_call, string_literal,
)
from cursedlint.analysis.syntax_version import python_needed
from cursedlint.findings import MESSAGE_WIDTH, Edit, Fix, Rewrite, Severity, Span, Step
from cursedlint.rules.process_spawning.fork_in_accelerated_process import (
    ForkInAcceleratedProcess,
)
from cursedlint.rules.process_spawning.fork_safe_mode_enabled import (
    ForkSafeModeEnabled, setting_message,
)
from cursedlint.rules.process_spawning.subprocess_fork_path import SubprocessForkPath
from cursedlint.triggers.second_look import (
    AllOf, AnyOf, Call, Names, Pattern, Text, last_words, module_words,
)

_PREEXEC_REPLACEMENTS = {"os.setsid": ("start_new_session", "True", (3, 2)),
                         "os.setpgrp": ("process_group", "0", (3, 11))}
"""preexec_fn -> (the Popen argument that does the same in the child, its value, since)."""

_FORCING_KEYWORD_NAMES = frozenset(name.encode() for name in FORCING_KEYWORDS)
_SPAWN_CALLEES = last_words(APIS)
_SPAWN_MODULES = module_words(APIS)

_STARTS = AnyOf((  # (the cheaper first)
    Names(frozenset({NUM_PROC.encode()})),
    AllOf((Names(last_words(PROCESS_BASES)), Pattern(rb"def[ \t\\\r\n]+run\b"))),
    Call(last_words({*DEFAULT_CONTEXT_USERS, *START_METHOD_ARGUMENTS, *DATA_LOADERS})),
    Call(last_words(ALWAYS_FORK), modules=module_words(ALWAYS_FORK)),
))
"""What CUR102's reports start from, on raw bytes: a dataset's map given `num_proc`; a class
of the module with a `run()` deriving from `Process` (`process_class`); a call of a start, a
start method's setter or a DataLoader (on any receiver: `ctx.Process` of a context);
`os.fork()` and the like, through the import table. A file with an accelerator library and
`fork` alone, as `tracker.fork()` or in its comments, holds none of these."""

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
        if not (index == 0 and string_literal(getattr(statement, "value", None)))
        and not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
    )


_CUR102_CALLS = torch_spellings(
    {*ALWAYS_FORK, *START_METHOD_SETTERS, *START_METHOD_ARGUMENTS, *DEFAULT_CONTEXT_USERS}
)
"""Every function name CUR102 looks at, as written (torch.multiprocessing included)."""
_CUR102_CALLEES = frozenset(
    name.rpartition(".")[2] for name in (*_CUR102_CALLS, *DATA_LOADERS)) | MAP_METHODS
"""The last names of the calls CUR102's `visit_Call` reads, but for the module's process
classes (`process_class`): its calls, DataLoaders and datasets' maps."""
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _callee_text(call: ast.Call) -> str:
    """The callee as the call writes it, cut short when long (`mp.get_context('fork').Pool`)."""
    text = ast.unparse(call.func)
    return text if len(text) <= 48 else "..." + text[-45:]


_FORKED_CUDA_HELP = (
    "A forked child is a copy of a process whose CUDA runtime was initialized, without the "
    "driver state behind it: its first CUDA call fails ('Cannot re-initialize CUDA in forked "
    "subprocess'; pinned memory: 'CUDA error: initialization error'). A child that does CPU "
    "work only is fine. Start children that use CUDA with a 'spawn' or 'forkserver' context "
    "(multiprocessing.get_context('spawn'), mp_context= for ProcessPoolExecutor, "
    "torch.multiprocessing.spawn), or set one for the process in its entry point (a datasets "
    "map given num_proc forks through multiprocess: multiprocess.set_start_method('spawn')); "
    "or fork before anything initializes CUDA (torch.cuda.is_available() does, unless "
    "PYTORCH_NVML_BASED_CUDA_CHECK=1)."
)
_PROTECTED_FORK_HELP = (
    "With RDMA fork protection on, every registered range is rounded out to whole pages "
    "marked MADV_DONTFORK: a forked child has no such pages at all, so whatever data shares a "
    "page with a registration (malloc arenas, Python objects) is gone in the child, which "
    "crashes far from the cause. Start children with a 'spawn' or 'forkserver' context, or "
    "leave fork protection off (Linux 5.12+ needs none)."
)


def _fork_message(call: SpawnCall, blockers: list[Blocker], platform: Platform) -> str:
    """`NAME() fork()s this whole process: REASONS`, the reasons cut to the first and how
    many more where all of them would not fit one terminal line (the help says how to remove
    each; the message points nowhere: CI annotations and --concise carry no help). Where the
    fork is the target Python's (no vfork before 3.10), the message names it: the same call
    on a newer Python does not fork."""
    python = ".".join(map(str, platform.python))
    said = f"{call.name}() fork()s this whole process on Python {python} (no vfork): " \
        if _for_lack_of_vfork(blockers, platform) else f"{call.name}() fork()s this whole process: "
    reasons = "; ".join(blocker.reason for blocker in blockers)
    if len(said) + len(reasons) > MESSAGE_WIDTH and len(blockers) > 1:
        reasons = f"{blockers[0].reason} (and {len(blockers) - 1} more)"
    return said + reasons


def _fork_help(call: SpawnCall, blockers: list[Blocker], platform: Platform) -> str:
    """Why CPython forks here, what a fork costs, and how to start the program without one."""
    if any(blocker.forces_fork for blocker in blockers):
        why = ("CPython runs preexec_fn, and changes user or groups, only in a forked copy of "
               "the calling process")
    else:
        why = ("CPython starts the program with posix_spawn (or vfork) only when no condition "
               f"keeps it off; here: {'; '.join(blocker.reason for blocker in blockers)}")
    if _for_lack_of_vfork(blockers, platform):
        why += (f". On Linux, Python 3.10 and newer start it with vfork instead; the target is "
                f"Python {'.'.join(map(str, platform.python))} (`target-python`, else the "
                "lowest version `requires-python` allows, else the running interpreter: "
                "`--verbose` says which)")
    changes = call.api.replacement or "; ".join(blocker.change for blocker in blockers)
    if _for_lack_of_vfork(blockers, platform):
        changes += "; or run it on Python 3.10 or newer"
    return f"{why}. {_FORK_COST}. To start the program without a fork, {changes}."


def _for_lack_of_vfork(blockers: list[Blocker], platform: Platform) -> bool:
    """Whether the call would take CPython's vfork path on a newer Python (3.10+, Linux):
    nothing forces the fork, and a C library with posix_spawn said why not that."""
    return platform.vfork_needs_newer_python and platform.has_posix_spawn and \
        not any(blocker.forces_fork for blocker in blockers)


class SubprocessForkPathPython(SubprocessForkPath):
    """CUR101: which path each subprocess call takes on the target platform."""

    callee_names = API_LAST_NAMES  # (`spawn_call`'s)

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
                positional=POPEN_POSITIONAL.index("preexec_fn") + 1,
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
        if platform.vfork_needs_newer_python and \
                _runs_only_with_vfork(call, platform, self.context):
            return  # the module's own code needs a Python that starts the program with vfork
        self.report(node, _fork_message(call, blockers, platform),
                    help=_fork_help(call, blockers, platform),
                    fix=self._preexec_fix(call, blockers) or self._which_fix(call, blockers))

    def _preexec_fix(self, call: SpawnCall, blockers: list[Blocker]) -> Fix | None:
        """`preexec_fn=os.setsid` -> `start_new_session=True`, `preexec_fn=os.setpgrp` ->
        `process_group=0` (3.11+), where preexec_fn, written as a keyword, is the only
        condition: the child does the same without a preexec_fn, so nothing forks (safe)."""
        keyword = next((k for k in call.call.keywords if k.arg == "preexec_fn"), None)
        if keyword is None or [blocker.reason for blocker in blockers] != [PREEXEC_REASON]:
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


def _runs_only_with_vfork(call: SpawnCall, platform: Platform, context) -> bool:
    """Whether every Python the module's own code runs on (`python_needed`, above the
    target) starts this call's program without a fork."""
    needed = python_needed(context)
    return needed > platform.python and \
        call.path(Platform(needed, platform.libc))[0] != "fork"


class ForkInAcceleratedProcessPython(ForkInAcceleratedProcess):
    """CUR102: each start of fork-based processes, judged on what the process is shown to hold
    before it and what its children are shown to run (`analysis.process_state`)."""

    @classmethod
    def look(cls, options, target_python, language):
        """A finding needs the module to import an accelerator library: the library's
        top-level name occurs as a whole name (not `cudarrl` in an HTML entity table); or
        a `multiprocessing` process given a `target`, or a dataset's map given `num_proc`
        (another module's code, which may use CUDA in a process the project shows holding it).
        And it needs a start `visit_Call` reads (`_STARTS`)."""
        return AllOf((AnyOf((
            Names(frozenset(module.partition(".")[0].encode() for module in options["modules"])),
            AllOf((Names(frozenset({b"multiprocessing"})), Text((b"target",)))),
            Text((NUM_PROC.encode(),)),
        )), _STARTS))

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.library = next(
            (m for m in self.option["modules"] if context.imports.imports_module(m)), None
        )
        self.all_forks = self.option["all-forks"]
        # without one, the process holds CUDA only through the project's other modules:
        # what the module shows of the fork is judged on what they show of both sides
        self.active = self.library is not None or ((
            context.imports.imports_module("multiprocessing") or NUM_PROC.encode() in
            context.source.data) and imports_project_module(context))
        self.default_context_users: list[tuple[ast.Call, str]] = []
        self.fork_contexts: list[tuple[ast.Call, tuple[Step, ...]]] = []
        self.start_methods_set: list[tuple[ast.Call, Any]] = []
        self.state, self.children = (fork_analysis(context, START_METHODS) if self.active
                                     else (None, None))
        self.callee_names = _CUR102_CALLEES | frozenset(process_classes(context)) if self.active \
            else frozenset()
        self.methods = StartMethodValues(context) if self.active else None

    def visit_Call(self, node: ast.Call) -> None:
        if not self.active:
            return
        written = self.context.qualified_name(node.func, among=_CUR102_CALLS)
        name = multiprocessing_name(written)
        if name in ALWAYS_FORK:
            self._report_start(node, f"{written}() forks")
            return
        if self.children.loader_workers(node):
            self._report_start(node, f"{_callee_text(node)}() forks its workers")
            return
        if dataset_workers(self.context, node):
            if not started_after_spawn(self.context, node, MULTIPROCESS_SPAWN_SET):
                self._report_start(node, f"{_callee_text(node)}() forks its num_proc workers",
                                   cleared=MULTIPROCESS_SPAWN_SET)
            return
        if name is None:  # (most calls: none of the names looked at, no start method given)
            if process_class(self.context, node) is not None:
                self.default_context_users.append((node, "multiprocessing.Process"))
            return
        method, steps = self.methods.given(node, name)
        if name in START_METHOD_SETTERS:
            self.start_methods_set.append((node, method))
        if method == "fork":
            if name == "multiprocessing.get_context":
                self.fork_contexts.append((node, steps))  # a start only where it makes processes
            elif name in START_METHOD_SETTERS:
                self._report_setting(node, steps)
            else:
                self._report_start(node, f"{_callee_text(node)}() forks (start method 'fork')",
                                   steps=steps)
        elif name in DEFAULT_CONTEXT_USERS and uses_default_context(self.context, node, name):
            self.default_context_users.append((node, written))

    def check(self) -> None:
        for context_call, steps in self.fork_contexts:
            for start in made_from(self.context, context_call):
                self._report_start(start, f"{_callee_text(start)}() forks (a 'fork' context)",
                                   steps=steps)
        set_methods = [method for _, method in self.start_methods_set]
        if set_methods and set_methods != ["fork"] * len(set_methods):
            return  # the module picks another start method (or one the code does not show)
        if not set_methods and self.context.settings.target_python >= (3, 14):
            return
        for node, written in self.default_context_users:
            if not set_methods and started_after_spawn(self.context, node):
                continue
            what = (f"{_callee_text(node)}() forks (start method 'fork' set on line "
                    f"{self.start_methods_set[0][0].lineno})" if set_methods
                    else f"{_callee_text(node)}() forks by default (Python < 3.14)")
            self._report_start(node, what, fix=self._spawn_fix(
                node, multiprocessing_name(written)) if not set_methods else None,
                cleared=None if set_methods else SPAWN_SET)

    def _spawn_fix(self, node: ast.Call, name: str) -> Fix | None:
        """The start in a 'spawn' context: `mp.Pool(...)` -> `mp.get_context("spawn").Pool(...)`,
        `ProcessPoolExecutor(...)` -> `ProcessPoolExecutor(..., mp_context=mp.get_context(
        "spawn"))` where the module imports multiprocessing (as `mp` here). Unsafe: the
        children then import the main module afresh, and arguments and results must pickle."""
        message = 'start it in a "spawn" context (arguments must pickle)'
        modules = ("multiprocessing", "torch.multiprocessing")
        slot = DEFAULT_CONTEXT_USERS[name]
        if slot is None:
            func = node.func
            if not (isinstance(func, ast.Attribute)
                    and self.context.qualified_name(func.value) in modules):
                return None
            text = f'{ast.unparse(func.value)}.get_context("spawn").{func.attr}'
            return Fix(message, (Edit(self.context.span_of(func), text),), safe=False)
        local = next((local for local, imported in self.context.imports.names.items()
                      if imported in modules), None)
        if local is None or len(node.args) > slot[0]:
            return None
        return Fix(message, (), safe=False, rewrites=(Rewrite(
            self.context.span_of(node), slot[1], f'{local}.get_context("spawn")'),))

    def _report_start(self, start: ast.Call, what: str, steps: tuple[Step, ...] = (),
                      fix: Fix | None = None, cleared: str | None = None) -> None:
        """Report a fork-based start where both sides are shown: an error when the process
        holds CUDA before it and a child uses CUDA, or when fork protection is on before it.
        With `all-forks`, a warning where the code leaves it open (see the rule's docs).
        `steps`: where the 'fork' start method comes from; `cleared`: for a start in the
        process's default start method, the setting that makes it another on some ways to it
        (`ProcessState.held_before`)."""
        if self._not_a_fork(start):
            return
        callee = f"{_callee_text(start)}()"
        held = self.state.held_before(start, cleared=cleared) or next(filter(None, (
            self.state.held_before(task, cleared=cleared)
            for task in self.children.lazy_starts(start))), None)
        if held is not None and held.protection:
            self.report(start, f"{callee} forks after {held.what} turned on fork "
                        f"protection ({self._at(held)}): the child loses registered pages",
                        severity=Severity.ERROR, related=(*steps, *held.steps),
                        help=_PROTECTED_FORK_HELP, fix=fix)
            return
        child = self.children.use(start)
        if held is not None and child is not None:
            label, uses = child
            failure = Step(uses[-1].path, uses[-1].line, f"{uses[-1].note}: in the forked child "
                           "this fails (\"Cannot re-initialize CUDA in forked subprocess\")")
            self.report(start, f"{callee} forks: the child uses CUDA ({self._at(uses[-1])}) but "
                        f"CUDA was initialized before the fork ({self._at(held)})",
                        severity=Severity.ERROR,
                        related=(*steps, *held.steps, *uses[:-1], failure),
                        help=_FORKED_CUDA_HELP, fix=fix)
            return
        if self.library is None and child is None:
            return  # nothing here shows CUDA: neither side is the project's
        if self.all_forks and not self.children.loader_workers(start):
            self._report_undecided(start, what, held, child, steps, fix)

    def _report_undecided(self, start: ast.Call, what: str, held, child,
                          steps: tuple[Step, ...], fix: Fix | None) -> None:
        """`all-forks`: a warning for a start the code leaves open, saying which side is not
        shown; silent where the children are known to do CPU work only and CUDA state is
        shown (such a fork works) or the start runs first in the entry point."""
        complete = self.children.of(start)[1]
        if held is not None:
            if not complete:
                self.report(start, f"{what} after CUDA was initialized ({self._at(held)}); "
                            "what the children run is not shown", related=(*steps, *held.steps),
                            help=_FORKED_CUDA_HELP, fix=fix, severity=Severity.WARNING)
            return
        scope = self.context.scope_of(start)
        function = getattr(scope, "name", None) if not isinstance(scope, ast.ClassDef) else None
        if child is None and complete and (scope is None or in_main_block(self.context, start)):
            return  # first in the entry point, and its children do CPU work only
        if child is not None:
            where = (f"callers of {function}() decide if CUDA was initialized" if function
                     else f"CUDA may be initialized ({self.library} is imported)" if self.library
                     else "the program decides if CUDA was initialized")
            self.report(start, f"{what}; the child uses CUDA ({self._at(child[1][-1])}): {where}",
                        related=(*steps, *child[1]), help=_FORKED_CUDA_HELP, fix=fix,
                        severity=Severity.WARNING)
            return
        where = (f"callers of {function}() decide if CUDA/RDMA state exists" if function
                 else f"CUDA/RDMA state may exist ({self.library} is imported)")
        self.report(start, f"{what}; {where}", related=steps, help=_FORKED_CUDA_HELP, fix=fix,
                    severity=Severity.WARNING)

    def _report_setting(self, node: ast.Call, steps: tuple[Step, ...]) -> None:
        """`set_start_method("fork")`: the starts after it are judged (`check`); the setting
        itself is listed with `all-forks`, where the module uses an accelerator library (one
        judged only through the project shows no CUDA of its own to fork)."""
        if self.all_forks and self.library is not None and not self._not_a_fork(node):
            self.report(node, f"{_callee_text(node)}() makes every default start fork",
                        related=steps, help=_FORKED_CUDA_HELP,
                        severity=Severity.WARNING)

    def _not_a_fork(self, start: ast.Call) -> bool:
        """A start that forks nothing that can break: a test of fork behaviour, a branch
        only Windows (or no platform) takes, a start refused when CUDA is initialized."""
        return (self._tests_fork(start) or only_without_fork(start, self.context)
                or never_runs(self.context, start)
                or self.state.refused_when_initialized(start))

    def _tests_fork(self, start: ast.Call) -> bool:
        """Whether the start is the subject of a test of fork behaviour: in a test module
        (`test_*.py`, `*_test.py`) whose name, or whose test class or function holding it,
        says fork (`test_fork_safety.py`, `def test_cuda_after_fork`)."""
        stem = os.path.splitext(os.path.basename(self.context.source.path))[0]
        if not (stem.startswith("test_") or stem.endswith("_test")):
            return False
        names = [stem] + [scope.name for scope in self.context.ancestors(start)
                          if isinstance(scope, _DEFINITIONS)
                          and scope.name.lower().startswith("test")]
        return any("fork" in name.lower() for name in names)

    def _at(self, where) -> str:
        """`line N` in this file, `file.py:N` in another (a Shown or a Step)."""
        if os.path.abspath(where.path) == os.path.abspath(self.context.source.path):
            return f"line {where.line}"
        return f"{os.path.basename(where.path)}:{where.line}"


class ForkSafeModeEnabledPython(ForkSafeModeEnabled):
    """CUR103 in Python: the variables set in `os.environ` or in an environment passed to a
    process."""

    callee_names = CALL_LAST_NAMES  # (`EnvironmentSettings.may_set_or_pass`'s)

    def __init__(self, context, options=None):
        super().__init__(context, options)
        self.settings = EnvironmentSettings(context)
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
            if isinstance(target, ast.Subscript):
                break
        else:
            return  # (an entry is set through a subscript alone: most assignments set none)
        self._report_entries(self.settings.in_process(node))
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                self._fill(target.value, [(target, self.settings.variable(target.slice))])

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._report_entries(self.settings.in_process(node))
        if isinstance(node.op, ast.BitOr):  # env |= {...}
            self._fill(node.target, self.settings.mapping_entries(node.value))

    def visit_Call(self, node: ast.Call) -> None:
        if not self.settings.may_set_or_pass(node):
            return
        self._report_entries(self.settings.in_process(node))
        if isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" and node.args:
            self._fill(node.func.value, [(node, self.settings.variable(node.args[0]))])
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            self._fill(node.func.value, self.settings.argument_entries(node, 0))
        env = self.settings.passed_environment(node)
        if isinstance(env, ast.expr):
            self._report_entries(self.settings.mapping_entries(env))
            if isinstance(env, ast.Name):
                self.passed_envs.add((self.context.scope_of(env), env.id))

    def _fill(self, container: ast.expr, entries: list[tuple[ast.AST, str | None]]) -> None:
        """Entries set in a local name: kept until the file shows whether the name is passed
        as a process environment."""
        entries = [(node, variable) for node, variable in entries if variable]
        if entries and isinstance(container, ast.Name) \
                and not self.settings.is_environ(container):
            self.filled.append((self.context.scope_of(container), container.id, entries))

    def _report_entries(self, entries: list[tuple[Any, str | None]]) -> None:
        for node, variable in entries:
            if variable and id(node) not in self.reported:
                self.reported.add(id(node))
                message, help = setting_message(variable)
                self.report(node, message, help=help)
