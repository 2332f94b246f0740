"""Callables handed to a library that runs them later, in the same process.

A registration hands a function or bound method to a library that calls it after the
registering call returns, in the process that made it: a signal's slot
(`button.clicked.connect(self.on_click)`: Qt, blinker, Django), a thread's or timer's code
(`threading.Thread(target=f)`, `threading.Timer(5, f)`, `QTimer.singleShot(0, f)`), an exit
handler (`atexit.register(f)`), a signal handler (`signal.signal(SIGTERM, f)`); also through
`functools.partial(f, ...)`. What the process held at the registration it holds when the
callable runs, so CUR102 reads a registration as a caller of the callable (`registrations_of`
in the module; `REGISTERED` summary calls across the project). A lambda registered
(`lambda: self.save(path)`) needs nothing here: its calls are read as calls of the function
around it, where it is written. What runs the callable (an event loop) is not read.
"""

from __future__ import annotations

import ast

from cursedlint.analysis.python_project import (
    REGISTERED, OutCall, dotted, may_be_project, scope_nodes, value_of,
)
from cursedlint.patterns import LazyPattern

THREAD_TARGETS = {"threading.Thread": (1, "target"), "threading.Timer": (1, "function")}
"""The thread classes, and the argument (position, keyword) that gives the code a thread runs."""
_HANDED_TO = {**THREAD_TARGETS, "atexit.register": (0, "func"), "signal.signal": (1, "handler")}
"""Library calls that keep a callable to run later, and the argument that gives it."""
_PARTIAL = frozenset({"functools.partial"})
_WORDS = LazyPattern(rb"\.connect\(|singleShot|Thread|Timer|atexit|signal\(")
"""Text a module must hold to register anything (a first, cheap look)."""


def registered(context, call: ast.Call) -> ast.AST | None:
    """The callable expression `call` registers (a name or attribute, unwrapped from
    `functools.partial`); None when it registers none."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "connect" and call.args:
        given = call.args[0]
    elif isinstance(func, ast.Attribute) and func.attr == "singleShot" and len(call.args) == 2:
        given = call.args[1]
    else:
        name = context.qualified_name(func, among=_HANDED_TO)
        given = context.argument(call, *_HANDED_TO[name]) if name else None
    if isinstance(given, ast.Call) and given.args and context.qualified_name(
            given.func, among=_PARTIAL):
        given = given.args[0]
    return given if isinstance(given, (ast.Name, ast.Attribute)) else None


def _may_register(context) -> bool:
    """Whether the module's text may register anything (`_WORDS`), asked once per file."""
    return bool(context.shared(_WORDS, lambda: _WORDS.search(context.source.data)))


def registrations_of(context, function: ast.AST) -> list[ast.Call]:
    """The module's calls that register `function` (a def of the module: by its name, or
    `self.<method>` in its class), in walk order."""
    return _registrations(context).get(id(function), [])


def _registrations(context) -> dict[int, list[ast.Call]]:
    """id(def) -> the calls that register it (once per file)."""
    def find() -> dict[int, list[ast.Call]]:
        found: dict[int, list[ast.Call]] = {}
        if not _may_register(context):
            return found
        for call in context.nodes(ast.Call):
            given = registered(context, call)
            bound = value_of(context, given) if given is not None else None
            if isinstance(bound, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(id(bound), []).append(call)
        return found
    return context.derived("registrations", find)


def registration_calls(context, function: ast.AST, imports: dict[str, str],
                       local: set[str]) -> list[OutCall]:
    """The registrations `function` (a def, or the module) makes, as summary calls of the
    callables they register (`REGISTERED` names), where the callable may be the project's
    (`may_be_project`)."""
    if not _may_register(context):
        return []
    calls = []
    for node in scope_nodes(context, function):
        if isinstance(node, ast.Call):
            given = registered(context, node)
            name = dotted(given) if given is not None else None
            if name is not None and may_be_project(name, imports, local):
                calls.append(OutCall(node.lineno, REGISTERED + name))
    return calls
