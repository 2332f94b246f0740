"""Which bindings of a local name may reach a use of it (reaching definitions, by the
statements' structure): what a question about a name bound more than once reads.

`reaching(context, name)` answers for a name read in the function (or module) that binds it:
the binding nodes that may have given it its value there (`Bindings.at`), over-approximated
(every path through branches, loops, `try` and `match` is taken; an exception may leave a
`try` body after any statement), and, for a name read in a `while` loop's test, those that reach
the loop's entry (`Bindings.first`: the test is read at least once with one of them). A binding
is the node that binds: an `Assign`/`AnnAssign` (its value), an `AugAssign` (whose earlier value
is `at` its own node), a `NamedExpr`, a parameter's `ast.arg`, or any other binding statement
(`for`, `with ... as`, `import`, `def`, `del`, an `except ... as`, a `match` pattern). None where
the scope declares the name `global`/`nonlocal` (or a nested scope does), the use is in a nested
scope or comprehension binding it again, or the module's functions declare it `global`."""

from __future__ import annotations

import ast

from cursedlint.python.consteval import _bound_names

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_MAX_ROUNDS = 16
"""Rounds of a loop's body (its states only grow) before the name is given up."""


class _GiveUp(Exception):
    """The name is declared `global`/`nonlocal` (its bindings are not the scope's alone), or
    a loop's states did not settle."""


class Bindings:
    """The bindings of one name in one scope that reach each of its uses."""

    def __init__(self, scope: ast.AST, name: str):
        self.name = name
        self.at: dict[int, frozenset[ast.AST]] = {}  # id(use or AugAssign) -> bindings
        self.first: dict[int, frozenset[ast.AST]] = {}  # id(use in a `while` test) -> entry
        self._loops: list[tuple[list, list]] = []  # (breaks, continues) of each open loop
        self._tries: list[list[frozenset]] = []  # the states met in each open `try` body
        state: frozenset[ast.AST] = frozenset()
        if isinstance(scope, _FUNCTIONS):
            arguments = scope.args
            state = frozenset(arg for arg in (*arguments.posonlyargs, *arguments.args,
                                              *arguments.kwonlyargs, arguments.vararg,
                                              arguments.kwarg)
                              if arg is not None and arg.arg == name)
        self._block(scope.body, state)

    # -- statements -----------------------------------------------------------------------
    def _block(self, statements: list[ast.stmt], state: frozenset) -> frozenset:
        for statement in statements:
            state = self._statement(statement, state)
            for met in self._tries:
                met.append(state)
        return state

    def _statement(self, node: ast.stmt, state: frozenset) -> frozenset:
        name = self.name
        kind = type(node)
        if kind in (ast.Global, ast.Nonlocal):
            if name in node.names:
                raise _GiveUp
            return state
        if kind is ast.Assign:
            state = self._expression(node.value, state)
            for target in node.targets:
                state = self._expression(target, state)
            bound = any(name in _bound_names(target) for target in node.targets)
            return frozenset((node,)) if bound else state
        if kind is ast.AugAssign:
            if isinstance(node.target, ast.Name) and node.target.id == name:
                self._record(node, state)
                state = self._expression(node.value, state)
                return frozenset((node,))
            return self._expression(node.value, self._expression(node.target, state))
        if kind is ast.AnnAssign:
            if node.value is None:
                return state
            state = self._expression(node.value, state)
            if isinstance(node.target, ast.Name) and node.target.id == name:
                return frozenset((node,))
            return self._expression(node.target, state)
        if kind in (ast.If, ast.While) or kind in (ast.For, ast.AsyncFor):
            return self._branch_or_loop(node, state)
        if kind in (ast.With, ast.AsyncWith):
            for item in node.items:
                state = self._expression(item.context_expr, state)
                if item.optional_vars is not None:
                    state = self._bind(node, item.optional_vars, state)
            return self._block(node.body, state)
        if kind is ast.Try or kind.__name__ == "TryStar":
            return self._try(node, state)
        if kind is getattr(ast, "Match", None):
            state = self._expression(node.subject, state)
            after = state
            for case in node.cases:
                entered = state
                if any(isinstance(p, (ast.MatchAs, ast.MatchStar)) and p.name == name
                       or isinstance(p, ast.MatchMapping) and p.rest == name
                       for p in ast.walk(case.pattern)):
                    entered = frozenset((case.pattern,))
                if case.guard is not None:
                    entered = self._expression(case.guard, entered)
                after = after | self._block(case.body, entered)
            return after
        if kind in (ast.Return, ast.Raise):
            for child in ast.iter_child_nodes(node):
                state = self._expression(child, state)
            return frozenset()
        if kind in (ast.Break, ast.Continue):
            if self._loops:
                self._loops[-1][0 if kind is ast.Break else 1].append(state)
            return frozenset()
        if kind in _NESTED:
            for child in (*node.decorator_list, *getattr(node, "bases", ()),
                          *(k.value for k in getattr(node, "keywords", ())),
                          *_defaults(node)):
                state = self._expression(child, state)
            return frozenset((node,)) if node.name == name else state
        if kind in (ast.Import, ast.ImportFrom):
            bound = any((alias.asname or alias.name).partition(".")[0] == name
                        for alias in node.names)
            return frozenset((node,)) if bound else state
        if kind is ast.Delete:
            for target in node.targets:
                state = self._bind(node, target, state)
            return state
        for child in ast.iter_child_nodes(node):  # Expr, Assert, Pass, type aliases
            if isinstance(child, ast.expr):
                state = self._expression(child, state)
        return state

    def _branch_or_loop(self, node: ast.stmt, state: frozenset) -> frozenset:
        if isinstance(node, ast.If):
            state = self._expression(node.test, state)
            return self._block(node.body, state) | self._block(node.orelse, state)
        if isinstance(node, ast.While):
            for use in ast.walk(node.test):
                if isinstance(use, ast.Name) and use.id == self.name:
                    key = id(use)
                    self.first[key] = self.first.get(key, frozenset()) | state
            state = self._expression(node.test, state)
        else:
            state = self._expression(node.iter, state)
        head = state
        breaks: list[frozenset] = []
        for rounds in range(_MAX_ROUNDS + 1):
            if rounds == _MAX_ROUNDS:
                raise _GiveUp
            breaks, continues = [], []
            self._loops.append((breaks, continues))
            entered = head
            if isinstance(node, ast.While):
                entered = self._expression(node.test, head)
            else:
                entered = self._bind(node, node.target, head)
            out = self._block(node.body, entered)
            self._loops.pop()
            grown = head.union(out, *continues)
            if grown == head:
                break
            head = grown
        if isinstance(node, ast.While):
            head = self._expression(node.test, head)
        return self._block(node.orelse, head).union(*breaks)

    def _try(self, node: ast.stmt, state: frozenset) -> frozenset:
        met = [state]
        self._tries.append(met)
        loops_at = [(len(b), len(c)) for b, c in self._loops]
        body = self._block(node.body, state)
        self._tries.pop()
        raised = frozenset().union(*met)
        after = self._block(node.orelse, body)
        for handler in node.handlers:
            entered = raised
            if handler.type is not None:
                entered = self._expression(handler.type, entered)
            if handler.name == self.name:
                entered = frozenset((handler,))
            after = after | self._block(handler.body, entered)
        if not node.finalbody:
            return after
        for (breaks, continues), (b, c) in zip(self._loops, loops_at):  # through `finally`
            breaks[b:] = [self._block(node.finalbody, s) for s in breaks[b:]]
            continues[c:] = [self._block(node.finalbody, s) for s in continues[c:]]
        return self._block(node.finalbody, after | raised)

    def _bind(self, node: ast.AST, target: ast.AST, state: frozenset) -> frozenset:
        """A binding by `node` of `target` (a loop's, `with ... as`, `del`): the name's uses
        in it (`x[i]`) read the state before."""
        if self.name in _bound_names(target):
            return frozenset((node,))
        return self._expression(target, state)

    # -- expressions ----------------------------------------------------------------------
    def _expression(self, node: ast.AST, state: frozenset) -> frozenset:
        """Records the state at each use of the name in `node` (not in a nested scope, or a
        comprehension binding the name itself); a `:=` binding it may or may not have run."""
        name = self.name
        walrus = []
        pending = [node]
        while pending:
            child = pending.pop()
            kind = type(child)
            if kind is ast.Name:
                if child.id == name and isinstance(child.ctx, ast.Load):
                    self._record(child, state)
                continue
            if kind is ast.Lambda:
                pending.extend(_defaults(child))
                continue
            if kind is ast.NamedExpr and child.target.id == name:
                walrus.append(child)
            if kind in _COMPREHENSIONS and any(name in _bound_names(generator.target)
                                               for generator in child.generators):
                pending.append(child.generators[0].iter)  # (run in the enclosing scope)
                continue
            pending.extend(ast.iter_child_nodes(child))
        if walrus:
            state = state | frozenset(walrus)
        return state

    def _record(self, node: ast.AST, state: frozenset) -> None:
        key = id(node)
        self.at[key] = self.at.get(key, frozenset()) | state


def _defaults(node: ast.AST) -> list[ast.expr]:
    """A def's or lambda's default values (a class has none), run where it is defined."""
    arguments = getattr(node, "args", None)
    if arguments is None:
        return []
    return [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]


def bindings_of(context, name: ast.Name, nodes_of) -> list[ast.AST] | None:
    """The nodes of the scope `name` is read in that bind it, flow aside (`_binders`): what
    a question asks before `reaching`, which walks the scope for one name (most names it
    would be asked of are bound by a loop or to a value the question rules out); None where
    `reaching` would not answer. Once per tree for each scope (all names). `nodes_of(scope)`:
    the scope's own nodes (`python_project.scope_nodes`, which the other analyses list)."""
    scope = _scope(context, name)
    if scope is None:
        return None
    table = context.derived(("bindings", id(scope)), lambda: _binders(scope, nodes_of(scope)))
    return table.get(name.id, [])


def _scope(context, name: ast.Name) -> ast.AST | None:
    """The function (or module) whose binding of `name` `reaching` follows, or None."""
    scope = context.scope_of(name)
    if isinstance(scope, (ast.ClassDef, ast.Lambda)):
        return None
    scope = context.tree if scope is None else scope
    evaluator = context.evaluator
    if evaluator.binding_scope(name.id, name) is not scope or \
            evaluator.declared_elsewhere(name.id, scope):
        return None
    return scope


def _binders(scope: ast.AST, nodes: list[ast.AST]) -> dict[str, list[ast.AST]]:
    """name -> the nodes of the scope's own code (`nodes`) that bind it: the statement, `:=`
    or parameter whose target it is (not a nested def or class, which they leave out)."""
    table: dict[str, list[ast.AST]] = {}

    def add(names, node) -> None:
        for name in names:
            table.setdefault(name, []).append(node)

    if isinstance(scope, _FUNCTIONS):
        arguments = scope.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                    arguments.vararg, arguments.kwarg):
            if arg is not None:
                add((arg.arg,), arg)
    for node in nodes:
        kind = type(node)
        if kind is ast.Assign:
            add([name for target in node.targets for name in _bound_names(target)], node)
        elif kind in _TARGETED:
            add(_bound_names(node.target), node)
        elif kind in (ast.With, ast.AsyncWith):
            add([name for item in node.items if item.optional_vars is not None
                 for name in _bound_names(item.optional_vars)], node)
        elif kind in (ast.Import, ast.ImportFrom):
            add([(alias.asname or alias.name).partition(".")[0] for alias in node.names], node)
        elif kind is ast.ExceptHandler and node.name:
            add((node.name,), node)
        elif kind is ast.Delete:
            add([name for target in node.targets for name in _bound_names(target)], node)
        elif kind in _PATTERNS and getattr(node, "name", None) or \
                kind is getattr(ast, "MatchMapping", None) and node.rest:
            add((getattr(node, "name", None) or node.rest,), node)
    return table


_TARGETED = (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)
_PATTERNS = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))


def reaching(context, name: ast.Name) -> Bindings | None:
    """The bindings of `name`'s scope that reach it (see the module's docstring), or None.
    Once per tree for each scope and name."""
    scope = _scope(context, name)
    if scope is None:
        return None
    found = context.derived(("reaching", id(scope), name.id),
                            lambda: _made(scope, name.id))
    return found if found is not None and id(name) in found.at else None


def _made(scope: ast.AST, name: str) -> Bindings | None:
    try:
        return Bindings(scope, name)
    except _GiveUp:
        return None
