"""The settings that turn on RDMA fork protection, and where a Python module makes them.

`FORK_SETTINGS`: the environment variables that make libibverbs (or a libfabric provider)
mark registered pages MADV_DONTFORK (CUR103 reports setting them; CUR102 takes one set in the
process before a fork as a fork that loses pages). `EnvironmentSettings` reads a module's
environment mappings: which fork-protection variable an expression names, the entries of a
mapping expression, the settings made in the process itself (`os.environ[...] = ...`), and the
environment a call hands a new program (`passed_environment`).
"""

from __future__ import annotations

import ast
from typing import Any

from cursedlint.analysis.subprocess_spawn import APIS as SPAWN_APIS, spawn_call

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
MAX_MAPPING_DEPTH = 8  # names bound to mappings built from other names
FORK_SETTINGS = (*FORK_SAFE_VARIABLES, *PROVIDER_FORK_SAFE_VARIABLES)
ENVIRON = frozenset({"os.environ", "os.environb"})


class EnvironmentSettings:
    """Where a module's code names the fork-protection variables (`context`: its
    PythonContext)."""

    def __init__(self, context):
        self.context = context

    def in_process(self, node: ast.AST) -> list[tuple[ast.AST, str]]:
        """(node, variable) for each variable `node` sets in the process's own environment:
        `os.environ[NAME] = ...`, `os.environ |= {...}`, `os.environ.setdefault(NAME, ...)`,
        `os.environ.update(...)`, `os.putenv(NAME, ...)`."""
        if isinstance(node, ast.Assign):
            return [(target, variable) for target in node.targets
                    if isinstance(target, ast.Subscript) and (variable := self._set(target))]
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr) \
                and self.is_environ(node.target):
            return self.mapping_entries(node.value)
        if not isinstance(node, ast.Call) or \
                not self.context.imports.may_resolve_to(node.func, _SETTER_LAST_NAMES):
            return []
        if self.context.qualified_name(node.func, among=_PUTENV) and node.args:
            variable = self.variable(node.args[0])
            return [(node, variable)] if variable else []
        func = node.func  # (the method first: whether its object is os.environ costs more)
        if isinstance(func, ast.Attribute) and func.attr in ("setdefault", "update") and \
                self.is_environ(func.value):
            if func.attr == "setdefault" and node.args:
                variable = self.variable(node.args[0])
                return [(node, variable)] if variable else []
            if func.attr == "update":
                return self.argument_entries(node, 0)
        return []

    def _set(self, target: ast.Subscript) -> str | None:
        """The variable an assignment to `target` sets in `os.environ`, if any: a constant key
        is read first (most are no such variable; whether the object is `os.environ` asks
        for its scope's bindings)."""
        if isinstance(target.slice, ast.Constant):
            variable = self.variable(target.slice)
            return variable if variable and self.is_environ(target.value) else None
        return self.variable(target.slice) if self.is_environ(target.value) else None

    def may_set_or_pass(self, call: ast.Call) -> bool:
        """Whether `in_process` or `passed_environment` may find anything in `call` (the cheap
        test, by its callee's last name: most calls are neither)."""
        return self.context.imports.may_resolve_to(call.func, CALL_LAST_NAMES)

    def passed_environment(self, call: ast.Call) -> Any:
        """The expression a call passes as the new program's environment (`env=` of a
        subprocess or asyncio process function; that of `os.exec*e`, `os.spawn*e`,
        `os.posix_spawn[p]`), None or UNKNOWN."""
        if not self.context.imports.may_resolve_to(call.func, _PASSING_LAST_NAMES):
            return None
        spawn = spawn_call(call, self.context)
        if spawn is not None:
            return spawn.node("env")
        position = _ENV_POSITIONS.get(self.context.qualified_name(call.func, among=_ENV_TAKERS))
        if position == -1:
            return call.args[-1] if call.args else None
        return self.context.argument(call, position, "env") if position is not None else None

    def variable(self, node: ast.expr) -> str | None:
        """The fork-protection variable an expression names (str or bytes), or None."""
        value = self.context.evaluate(node)
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        return value if isinstance(value, str) and value in FORK_SETTINGS else None

    def is_environ(self, node: ast.expr) -> bool:
        """`os.environ`, or a name bound once to it."""
        if isinstance(node, ast.Name):
            bound = self.context.definition(node)
            node = bound if isinstance(bound, ast.expr) else node
        return self.context.qualified_name(node) in ENVIRON

    def mapping_entries(self, node: Any, depth: int = 0) -> list[tuple[ast.AST, str]]:
        """(node, variable) for each entry of a mapping expression that sets a fork-protection
        variable: dict displays (with `**` parts), `dict(...)`, `a | b`, names bound once."""
        if depth > MAX_MAPPING_DEPTH:
            return []
        depth += 1
        if isinstance(node, ast.Name):
            return self.mapping_entries(self.context.definition(node), depth)
        if isinstance(node, ast.Dict):
            found = []
            for key, value in zip(node.keys, node.values):
                if key is None:  # {**base, ...}
                    found += self.mapping_entries(value, depth)
                elif variable := self.variable(key):
                    found.append((key, variable))
            return found
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return [*self.mapping_entries(node.left, depth),
                    *self.mapping_entries(node.right, depth)]
        if isinstance(node, ast.Call) and self.context.qualified_name(node.func) == "builtins.dict":
            return self.argument_entries(node, depth)
        return []

    def argument_entries(self, call: ast.Call, depth: int) -> list[tuple[ast.AST, str]]:
        """Entries set by the arguments of `dict(...)` or `.update(...)`: a mapping, keywords."""
        found = [entry for argument in call.args[:1] for entry in
                 self.mapping_entries(argument, depth)]
        for keyword in call.keywords:
            if keyword.arg is None:
                found += self.mapping_entries(keyword.value, depth)
            elif keyword.arg in FORK_SETTINGS:
                found.append((keyword, keyword.arg))
        return found


_PUTENV = frozenset({"os.putenv"})
# os functions that take the new program's environment: positional index of `env` (-1: last)
_ENV_POSITIONS = {
    "os.execve": 2, "os.execvpe": 2, "os.execle": -1, "os.execlpe": -1,
    "os.spawnve": 3, "os.spawnvpe": 3, "os.spawnle": -1, "os.spawnlpe": -1,
    "os.posix_spawn": 2, "os.posix_spawnp": 2,
}
_ENV_TAKERS = frozenset(_ENV_POSITIONS)  # (a set: `qualified_name` rules most calls out by name)
_SETTER_LAST_NAMES = frozenset({"putenv", "setdefault", "update"})
"""The last names of the calls that may set a variable in the process (`in_process`)."""
_PASSING_LAST_NAMES = frozenset(name.rpartition(".")[2] for name in (*_ENV_TAKERS, *SPAWN_APIS))
"""The last names of the calls that may pass an environment (`passed_environment`)."""
CALL_LAST_NAMES = _SETTER_LAST_NAMES | _PASSING_LAST_NAMES
"""The last names of the calls `in_process` or `passed_environment` may answer for."""
