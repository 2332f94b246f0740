"""Python analysis shared by all rules of one file, and the single walk that drives them.

The tree is the stdlib `ast` (C parser, exact start/end positions). The walk is iterative, so
1,000-deep input cannot overflow the interpreter's stack, and it calls every enabled rule's
`visit_<Class>`/`leave_<Class>` for each node in one pass.
"""

from __future__ import annotations

import ast
import collections
import heapq
from typing import Any, Callable, Container, Iterable, Iterator

from cursedlint.analysis.arguments import Arguments, bind
from cursedlint.context import FileContext
from cursedlint.findings import Span
from cursedlint.python.consteval import UNKNOWN, ConstantEvaluator, ModuleTables
from cursedlint.python.imports import ImportTable

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class TreeIndex:
    """What one walk of a module's tree gives every analysis of it: each node's parent, and
    its nodes by class in `ast.walk`'s order. Walked on first use, as the context's walk goes:
    not into the shared singletons of expression contexts and operators (`_child_fields`)."""

    def __init__(self, tree: ast.AST):
        self.tree = tree
        self.built = False
        self._parents: dict[ast.AST, ast.AST] = {}  # (keyed by the node: no int made per node)
        self._by_class: dict[type, tuple[list[ast.AST], list[int]]] = {}
        self._statements: dict[type, tuple[list[ast.AST], list[int]]] | None = None
        self._derived: dict[Any, Any] = {}

    def derived(self, key: Any, factory: Callable[[], Any]) -> Any:
        """What is made of the tree and its text alone (never of facts, settings or a
        context's walk), made once for all the contexts of the tree: a file linted again with
        facts, or summarized for the index, does not make it again."""
        derived = self._derived
        if key in derived:
            return derived[key]
        made = derived[key] = factory()
        return made

    def parent_of(self, node: ast.AST) -> ast.AST | None:
        """The parent of `node`."""
        self._build()
        return self._parents.get(node)

    def of(self, *classes: type) -> list[ast.AST]:
        """The nodes of `classes` (exactly these classes, not subclasses), in walk order.
        Statements alone (most questions) are found without walking the expressions."""
        if self.built or not all(issubclass(cls, _BLOCK_NODES) for cls in classes):
            self._build()
            by_class = self._by_class
        else:
            by_class = self._statements_by_class()
        found = [by_class[cls] for cls in classes if cls in by_class]
        if len(found) == 1:
            return found[0][0]
        return [node for _, node in heapq.merge(
            *(zip(positions, nodes) for nodes, positions in found), key=lambda pair: pair[0])]

    def _statements_by_class(self) -> dict[type, tuple[list[ast.AST], list[int]]]:
        """The statements, except handlers and match cases by class (`statements`): the
        nodes `_build` finds of their classes, in the same order."""
        if self._statements is None:
            by_class: dict[type, tuple[list[ast.AST], list[int]]] = {}
            pending = collections.deque([self.tree])
            position = 0
            while pending:  # (`statements` inlined)
                node = pending.popleft()
                kind = type(node)
                entry = by_class.get(kind)
                if entry is None:
                    entry = by_class[kind] = ([], [])
                entry[0].append(node)
                entry[1].append(position)
                position += 1
                fields = _BLOCK_FIELDS.get(kind)
                for name in _block_fields(kind) if fields is None else fields:
                    pending.extend(getattr(node, name))
            self._statements = by_class
        return self._statements

    def _build(self) -> None:
        if self.built:
            return
        self.built = True
        parents, by_class = self._parents, self._by_class
        node_class = ast.AST
        pending = collections.deque([self.tree])
        position = 0
        while pending:  # breadth first, children in field order: `ast.walk`'s order
            # (`child_nodes` inlined: 7 ms against 10 ms for torch/__init__'s 60,000 nodes)
            node = pending.popleft()
            kind = type(node)
            entry = by_class.get(kind)
            if entry is None:
                entry = by_class[kind] = ([], [])
            entry[0].append(node)
            entry[1].append(position)
            position += 1
            fields = _CHILD_FIELDS.get(kind)
            if fields is None:
                fields = _child_fields(kind)
            if not fields:
                continue  # (most nodes: names, constants)
            attributes = node.__dict__  # (a node's fields: read without `getattr`)
            for name in fields:
                value = attributes.get(name)
                if isinstance(value, list):
                    for child in value:
                        if isinstance(child, node_class):
                            parents[child] = node
                            pending.append(child)
                elif isinstance(value, node_class):
                    parents[value] = node
                    pending.append(value)


_LAST_NAMES: dict[int, tuple[frozenset[str], frozenset[str]]] = {}


def _last_names(names: frozenset[str]) -> frozenset[str]:
    """The last parts of dotted `names` (`Popen` of `subprocess.Popen`), remembered for the
    few sets the rules ask of (the entry keeps the set, and so its id, alive)."""
    known = _LAST_NAMES.get(id(names))
    if known is None or known[0] is not names:
        if len(_LAST_NAMES) > 1024:  # (sets made on the fly must not pile up)
            _LAST_NAMES.clear()
        known = _LAST_NAMES[id(names)] = (names, frozenset(
            name.rpartition(".")[2] for name in names))
    return known[1]


STATEMENT_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
"""The fields that hold statements (or the except handlers and match cases that hold them)."""
_BLOCK_NODES = (ast.stmt, ast.excepthandler, ast.match_case, ast.Module)
"""The nodes found in statement blocks (and the module that holds the first)."""


class PythonContext(FileContext):
    """`tree` is the module's ast; `imports` resolves aliases; `evaluate` folds constants."""

    def __init__(self, source, settings, tree: ast.Module, tree_index: TreeIndex | None = None):
        super().__init__(source, settings)
        self.tree = tree
        self.imports = ImportTable()
        self.imports.add_module_level(tree)
        self.parents: dict[ast.AST, ast.AST] = {}  # what this context's walk and analyses record
        self.tree_index = TreeIndex(tree) if tree_index is None else tree_index
        """The tree's parents and nodes by class, from one walk at most per tree: the contexts
        the engine makes of one tree (its first look, the index's summaries, its lint with
        facts) share it."""
        self._derived = self.tree_index if self.tree_index.tree is tree else TreeIndex(tree)
        self.evaluator = ConstantEvaluator(tree, self.scope_of, source.text,
                                           self.derived(ModuleTables, ModuleTables))
        self._scope_imports: dict[int, set[str]] = {}
        self._arguments: dict[ast.Call, Arguments] = {}
        self._scopes: dict[ast.AST, ast.AST | None] = {}  # a node that is no scope -> its scope
        self._current: ast.AST = tree
        self._met: dict[type, list[ast.AST]] | None = None  # what a finished walk met (`met`)
        self.cython = None
        """A Cython file's `python.cython.CythonFacts` (what its Python tree does not say)."""

    def derived(self, key: Any, factory: Callable[[], Any]) -> Any:
        """`TreeIndex.derived` of the context's tree: what is made of the tree and its text
        alone, shared with the other contexts of the tree (a Cython module parsed again has
        its own)."""
        derived = self._derived._derived  # (`TreeIndex.derived` inlined: asked per node)
        if key in derived:
            return derived[key]
        made = derived[key] = factory()
        return made

    def release(self) -> None:
        """`FileContext.release`, and the evaluator (it holds `scope_of`, the context's)."""
        super().release()
        self.evaluator = None

    # -- names and values ------------------------------------------------------------------
    def qualified_name(self, node: ast.AST, among: Container[str] | None = None) -> str | None:
        """The dotted name an expression refers to through imports (`subprocess.Popen`), or
        None when a local binding shadows the import or builtin. With `among` (the names the
        caller looks for), any other name is None without the scope analysis, which is the
        costly part."""
        if among is not None and type(node) is ast.Attribute and type(among) is frozenset and \
                node.attr not in _last_names(among):
            return None  # (`x.y` is some `?.y`: most calls, asked of a few names, are not)
        name = self.imports.qualified_name(node)
        if name is None or (among is not None and name not in among):
            return None
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        scope = self.evaluator.binding_scope(base.id, base)
        if scope is not None and name.startswith("builtins."):
            return None  # the module's own `open`, not the builtin
        if scope not in (None, self.tree) and base.id not in self._imported_names(scope):
            return None  # a parameter or local of that name, not another scope's import
        return name

    def _imported_names(self, scope: ast.AST) -> set[str]:
        """The names import statements in `scope` bind (cached per scope)."""
        names = self._scope_imports.get(id(scope))
        if names is None:
            names = self._scope_imports[id(scope)] = {
                (alias.asname or alias.name).partition(".")[0]
                for node in ast.walk(scope)
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names
            }
        return names

    def evaluate(self, node: Any) -> Any:
        """The constant value of an expression, or `UNKNOWN`."""
        return UNKNOWN if node is UNKNOWN else self.evaluator.evaluate(node)

    def arguments(self, call: ast.Call) -> Arguments:
        """The call's arguments as Python binds them (`analysis.arguments`)."""
        found = self._arguments.get(call)
        if found is None:
            found = self._arguments[call] = bind(call, self)
        return found

    def argument(self, call: ast.Call, index: int | None, keyword: str) -> Any:
        """The expression `call` passes for the parameter at position `index` (None:
        keyword-only) named `keyword`; None when it passes none, UNKNOWN when a spread the
        module does not show may hold it."""
        return self.arguments(call).get(index, keyword)

    def definition(self, name: ast.Name) -> ast.AST | None:
        """The one node that binds `name` where it is used: the assigned expression, or the
        `def`/`class` statement. None when the name is bound more than once or not at all."""
        bound = self.evaluator.lookup(name.id, name)
        return bound if isinstance(bound, ast.AST) else None

    # -- tree navigation -------------------------------------------------------------------
    def parent_of(self, node: ast.AST) -> ast.AST | None:
        parent = self.parents.get(node)
        if parent is not None or node is self.tree:
            return parent
        if not self.tree_index.built and self._current is not self.tree:
            self._index_parents(self._current, self.parents)  # the walk's node: its subtree
            if node in self.parents:
                return self.parents[node]
        return self.tree_index.parent_of(node)

    def nodes(self, *classes: type) -> list[ast.AST]:
        """The module's nodes of `classes`, in `ast.walk`'s order (`TreeIndex.of`)."""
        return self.tree_index.of(*classes)

    def met(self, node_class: type) -> list[ast.AST]:
        """The module's nodes of `node_class` (`ast.Attribute` or `ast.Call`): those the walk
        met, once it has walked (so that a question after the walk does not walk the tree
        again), in its order (as its visitors meet them: a rule's `check` may read them so),
        else the tree index's, in no set order."""
        if self._met is None:
            return self.nodes(node_class)
        return self._met[node_class]

    def ancestors(self, node: ast.AST) -> Iterable[ast.AST]:
        """The parents of `node`, innermost first."""
        parent = self.parent_of(node)
        while parent is not None:
            yield parent
            parent = self.parent_of(parent)

    def scope_of(self, node: ast.AST) -> ast.AST | None:
        """The innermost function, lambda or class enclosing `node` (None at module level).
        The scope of each ancestor passed on the way is remembered: the next question about a
        node of the same statement stops at the first ancestor asked of before."""
        passed = []
        scopes = self._scopes
        parent = self.parent_of(node)
        while parent is not None:
            if isinstance(parent, SCOPES):
                break
            if parent in scopes:
                parent = scopes[parent]
                break
            passed.append(parent)
            parent = self.parent_of(parent)
        for key in passed:
            scopes[key] = parent
        return parent

    @staticmethod
    def _index_parents(root: ast.AST, parents: dict[ast.AST, ast.AST]) -> None:
        pending = [root]
        while pending:
            node = pending.pop()
            for child in child_nodes(node):
                parents[child] = node
                pending.append(child)

    def span_of(self, node: Any) -> Span:
        return self.source.span_from_bytes(
            node.lineno, node.col_offset, node.end_lineno, node.end_col_offset
        )

    def text_of(self, node: Any) -> str:
        """The source text of `node`, as `ast.get_source_segment` gives it (which splits the
        whole file into lines, in Python, at every call)."""
        span = self.span_of(node)
        starts = self.source.line_starts
        begin = starts[span.line - 1] + span.column - 1
        return self.source.text[begin : starts[span.end_line - 1] + span.end_column - 1]

    # -- the walk --------------------------------------------------------------------------
    def walk(self, rules: list, on_error: Callable[[Any, BaseException], None]) -> None:
        """Visit every node once, calling each rule's visit_/leave_ methods for its class, and
        adding imports to the import table as they are met (so `def f(): import os as o` resolves
        inside f). A rule that raises is reported through `on_error` and dropped for the rest of
        the file."""
        visitors = _callbacks(rules, "visit_")
        leavers = _callbacks(rules, "leave_")
        for import_class in (ast.Import, ast.ImportFrom):  # function-level imports, in order
            visitors.setdefault(import_class, []).insert(0, (self.imports, self.imports.add))
        met: dict[type, list[ast.AST]] = {ast.Attribute: [], ast.Call: []}
        self._met = None
        parents = self.parents
        node_class = ast.AST
        call_class, name_class, attribute_class = ast.Call, ast.Name, ast.Attribute
        imported = self.imports.names  # (the table's own dict: the walk's imports join it)
        by_callee = _ByCallee(visitors.get(call_class))
        entered_for_nothing = _LEAF_CLASSES - visitors.keys() - leavers.keys() - met.keys()
        # class -> its child fields (last first), its visitors, whether a rule leaves it, the
        # list of `met` it joins: one look-up per node (made anew when a rule is dropped)
        plans: dict[type, tuple[tuple[str, ...], list | None, bool, list | None]] = {}
        stack: list[Any] = [self.tree]  # a node to visit, or (node,) to leave
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            kind = type(node)
            if kind is tuple:
                node = node[0]
                callbacks = leavers.get(type(node))
            else:
                plan = plans.get(kind)
                if plan is None:
                    plan = plans[kind] = (_REVERSED_CHILD_FIELDS.get(kind) or _reversed_fields(kind),
                                          by_callee if kind is call_class and by_callee
                                          else visitors.get(kind), kind in leavers, met.get(kind))
                fields, callbacks, leaves, found = plan
                if found is not None:
                    found.append(node)  # (`met`: in the order the visitors meet them)
                if leaves:
                    push((node,))
                # children pushed last field first, each list backwards: they pop in source
                # order; their parents are known before the node's visitors ask
                attributes = node.__dict__  # (a node's fields: read without `getattr`)
                for name in fields:
                    value = attributes.get(name)
                    if type(value) is list:  # (a parsed tree's lists are no subclasses)
                        for child in reversed(value):  # (nodes, or None in `Dict.keys` and
                            if child is not None:      # `kw_defaults`: no list left is scalar)
                                parents[child] = node
                                if type(child) not in entered_for_nothing:
                                    push(child)
                    elif isinstance(value, node_class):
                        parents[value] = node
                        if type(value) not in entered_for_nothing:
                            push(value)
            if callbacks:
                self._current = node
                if callbacks is by_callee:  # a call: the visitors of its callee's name
                    func = attributes["func"]
                    if type(func) is attribute_class:
                        callbacks = by_callee[func.attr]
                    else:
                        callbacks = by_callee[func.id if type(func) is name_class and
                                              func.id not in imported else None]
                for owner, callback in callbacks:
                    try:
                        callback(node)
                    except Exception as error:  # a broken rule must not stop the others
                        for rule in list(owner) if type(owner) is _Feeding else (owner,):
                            on_error(rule, error)  # (an analysis fed for rules: each of them)
                            _drop(rule, visitors, leavers)
                        plans.clear()
                        by_callee = _ByCallee(visitors.get(call_class))
        self._met = met


def _drop(rule: Any, *tables: dict[type, list[tuple[Any, Callable]]]) -> None:
    """Take a rule that raised out of the walk's callback tables (new lists: the one being
    run goes on with the other rules), and out of the rules an analysis is fed for (the
    analysis too once no rule is left)."""
    for table in tables:
        for node_class, callbacks in table.items():
            for owner, _ in callbacks:
                if type(owner) is _Feeding and any(one is rule for one in owner):
                    owner[:] = [one for one in owner if one is not rule]
            table[node_class] = [entry for entry in callbacks if entry[0] is not rule
                                 and not (type(entry[0]) is _Feeding and not entry[0])]


class _Feeding(list):
    """The rules an analysis is fed for (`walk_feeds`)."""


class _ByCallee(dict):
    """A callee's last name -> the call visitors to run for its calls, in the rules' order:
    those whose owner's `Rule.callee_names` hold it or are None (made when first asked).
    None -> every call visitor (a name an import binds, a callee of another kind). Empty,
    hence false, where no rule visits calls."""

    def __init__(self, callbacks: list[tuple[Any, Callable]] | None):
        super().__init__()
        self.named = [(entry, getattr(entry[1].__self__, "callee_names", None))
                      for entry in callbacks or ()]
        if callbacks:
            self[None] = list(callbacks)

    def __missing__(self, name: str) -> list[tuple[Any, Callable]]:
        found = self[name] = [entry for entry, names in self.named
                              if names is None or name in names]
        return found


_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})

# fields that hold identifiers, numbers or flags, never nodes (by class, Python 3.8 to 3.13)
_SCALAR_FIELDS = {
    "Name": {"id"}, "Constant": {"value", "kind"}, "Attribute": {"attr"},
    "alias": {"name", "asname"}, "arg": {"arg", "type_comment"}, "keyword": {"arg"},
    "ImportFrom": {"module", "level"}, "Global": {"names"}, "Nonlocal": {"names"},
    "FunctionDef": {"name", "type_comment"}, "AsyncFunctionDef": {"name", "type_comment"},
    "ClassDef": {"name"}, "Assign": {"type_comment"}, "For": {"type_comment"},
    "AsyncFor": {"type_comment"}, "With": {"type_comment"}, "AsyncWith": {"type_comment"},
    "AnnAssign": {"simple"}, "comprehension": {"is_async"}, "FormattedValue": {"conversion"},
    "ExceptHandler": {"name"}, "MatchAs": {"name"}, "MatchStar": {"name"},
    "MatchClass": {"kwd_attrs"}, "MatchMapping": {"rest"}, "TypeIgnore": {"lineno", "tag"},
}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_REVERSED_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _reversed_fields(node_class: type) -> tuple[str, ...]:
    """`_child_fields`, last first (remembered)."""
    fields = _REVERSED_CHILD_FIELDS[node_class] = _child_fields(node_class)[::-1]
    return fields


def source_within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether `node`'s source lies inside `outer`'s."""
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) and \
        (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The node's children in field order, as `ast.iter_child_nodes` gives them (about twice as
    fast), less the shared singletons of expression contexts and operators (`_child_fields`)."""
    found = []
    fields = _CHILD_FIELDS.get(type(node))
    for name in _child_fields(type(node)) if fields is None else fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(child for child in value if isinstance(child, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def child_fields(node_class: type) -> tuple[str, ...]:
    """The fields of an ast class that can hold child nodes (`_child_fields`, remembered)."""
    fields = _CHILD_FIELDS.get(node_class)
    return _child_fields(node_class) if fields is None else fields


def _child_fields(node_class: type) -> tuple[str, ...]:
    """The fields of an ast class that can hold child nodes: not its scalar fields, nor the
    expression contexts and operators (shared singleton leaves that no rule visits and no rule
    asks the parent of)."""
    fields = _CHILD_FIELDS.get(node_class)
    if fields is None:
        scalar = _LEAF_FIELDS | _SCALAR_FIELDS.get(node_class.__name__, set())
        fields = _CHILD_FIELDS[node_class] = tuple(
            name for name in node_class._fields if name not in scalar
        )
    return fields


def statements(root: ast.AST) -> Iterator[ast.AST]:
    """`root` (a module or statement) and the statements under it, with their except handlers
    and match cases, breadth first in `ast.walk`'s order: no expression holds a statement,
    so none is walked."""
    pending = collections.deque([root])
    while pending:
        node = pending.popleft()
        yield node
        for name in _block_fields(type(node)):
            pending.extend(getattr(node, name))


_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}


def _block_fields(node_class: type) -> tuple[str, ...]:
    """The fields of a statement's class that hold statements (`STATEMENT_BLOCKS`), in field
    order (`Try`: body, handlers, orelse, finalbody)."""
    fields = _BLOCK_FIELDS.get(node_class)
    if fields is None:
        fields = _BLOCK_FIELDS[node_class] = tuple(
            name for name in node_class._fields if name in STATEMENT_BLOCKS)
    return fields


_LEAF_CLASSES = frozenset(
    value for value in vars(ast).values()
    if isinstance(value, type) and issubclass(value, ast.AST) and not _child_fields(value)
)
"""The ast classes whose nodes hold no child node (a name, a constant): the walk enters one
only for a rule that visits it."""

_CALLBACK_CACHE: dict[tuple[type, str], list[tuple[type, str]]] = {}


def _callbacks(rules: list, prefix: str) -> dict[type, list[tuple[Any, Callable]]]:
    """ast class -> [(rule, bound method)] for the rules' methods named prefix + class name,
    and [(the rules, bound method)] for those of the analyses rules name in `walk_feeds`
    (attribute names): each analysis is fed once per node, however many rules share it, where
    the first of them is."""
    table: dict[type, list[tuple[Any, Callable]]] = {}
    fed: dict[int, _Feeding] = {}  # id(analysis) -> the rules it is fed for
    for rule in rules:
        for name in getattr(rule, "walk_feeds", ()):
            analysis = getattr(rule, name)
            if id(analysis) in fed:
                fed[id(analysis)].append(rule)
                continue
            owners = fed[id(analysis)] = _Feeding([rule])
            for node_class, attribute in _methods(type(analysis), prefix):
                table.setdefault(node_class, []).append((owners, getattr(analysis, attribute)))
        for node_class, attribute in _methods(type(rule), prefix):
            table.setdefault(node_class, []).append((rule, getattr(rule, attribute)))
    return table


def _methods(owner: type, prefix: str) -> list[tuple[type, str]]:
    """(ast class, method name) for the class's methods named prefix + an ast class name."""
    key = (owner, prefix)
    methods = _CALLBACK_CACHE.get(key)
    if methods is None:
        methods = _CALLBACK_CACHE[key] = [
            (getattr(ast, attribute[len(prefix):]), attribute)
            for attribute in dir(owner)
            if attribute.startswith(prefix)
            and isinstance(getattr(ast, attribute[len(prefix):], None), type)
        ]
    return methods

