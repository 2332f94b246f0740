"""`FlowRules`: the value a local, a parameter or a member path on one has where it is used:
the last plain assignment before the use in a block around it, unless something between may
change it; what one function does to its variables is read by one walk of it."""

from __future__ import annotations

import re
import sys
from bisect import bisect_left
from collections import defaultdict
from functools import lru_cache
from typing import NamedTuple

from cursedlint.analysis.c_constants.syntax import (
    _IDENTIFIERS, _Def, _Env, _declarator_chain, _only_child,
)
from cursedlint.analysis.c_constants.types import _NOTHING, _Value, _converted
from cursedlint.analysis.c_macros import function_scope
from cursedlint.analysis.c_syntax import callee, function_declarator
from cursedlint.c.context import children, descendants


_JUMP_TARGETS = frozenset({"labeled_statement", "case_statement"})
_CALLS = frozenset({"call_expression", "argument_list"})  # argument_list: C++ constructors, new
_MODIFYING = frozenset({"assignment_expression", "update_expression", "pointer_expression",
                        "gnu_asm_output_operand", "init_declarator"})
_READ_BY_WRITES = _MODIFYING | _JUMP_TARGETS | _CALLS | {"compound_statement", "lambda_expression"}
_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_WALKED = _READ_BY_WRITES | {"function_definition"}
_OWN_OBJECT = frozenset({
    f"pthread_{kind}_{verb}" for kind in ("mutex", "cond", "rwlock", "spin", "barrier",
                                          "mutexattr", "condattr")
    for verb in ("init", "destroy", "lock", "unlock", "trylock")} | {
    "sem_init", "sem_destroy", "sem_post", "sem_wait", "sem_trywait"})
"""C library functions that write only the object whose address is their first argument."""
_READS_ONLY = frozenset({"malloc", "calloc", "aligned_alloc", "valloc", "pvalloc", "memalign",
                         "strlen", "strnlen", "strerror", "strcmp", "strncmp", "memcmp"})
"""C library functions that write nothing their arguments point to."""
_JUMPS = re.compile(rb"\b(?:goto|break|continue|longjmp|siglongjmp)\b")
_NESTED = 32
"""Functions nested in functions whose `_Writes` are taken from the nested one's (deeper:
walked again, with the same result), a bound on the recursion."""


class _Target(NamedTuple):
    """An lvalue written or whose address is taken, as `_may_alias` and `_escapes` read it (see
    `_access`), with its last member when it is a member access (`s.a.b`: "b")."""

    root: str | None
    members: tuple[str, ...]
    exact: bool
    field: str | None


class _Writes(NamedTuple):
    """What one function does to its variables, read by one walk of it and kept as offsets and
    names, not nodes (a function may hold millions of writes). `assignments`: field path ->
    (target start, statement end, block start, block end, assignment) of the statements
    `path = value;` of its blocks, in order; `labels`: where labels and `case`s start, in order;
    `taken`: `_Target`s whose address is taken (`&x`, `int& r = x`); `written`: (start,
    `_Target`) of the other writes, in order, and `in_lambdas` those of them inside a lambda;
    `calls`: (start, end) of calls and argument lists, in order."""

    assignments: dict
    labels: list
    taken: list
    written: list
    in_lambdas: list
    calls: list


def _field_path(node) -> tuple[str, ...] | None:
    """(root, member, ...) of a name or a member access chain on one (`s->a.b`), else None."""
    root, members, exact = _access(node)
    return (root, *members) if root is not None and exact else None


def _access(node) -> tuple[str | None, tuple[str, ...], bool]:
    """(root name or None, members, exact) of an lvalue: `exact` is False where the access goes
    through a subscript, a dereference or a cast, which may reach any member."""
    members: list[str] = []  # last first
    exact = True
    while True:
        if node.type == "field_expression":
            members.append(node.child_by_field_name("field").text.decode())
        elif node.type in ("subscript_expression", "pointer_expression", "cast_expression"):
            exact = False
        elif node.type != "parenthesized_expression" or _only_child(node) is None:
            break
        node = (node.child_by_field_name("argument") or node.child_by_field_name("value")
                or _only_child(node))
    root = node.text.decode() if node.type == "identifier" else None
    return root, tuple(reversed(members)), exact


def _target_of(node) -> _Target:
    root, members, exact = _access(node)
    field = node.child_by_field_name("field") if node.type == "field_expression" else None
    return _Target(root and sys.intern(root), tuple(map(sys.intern, members)), exact,
                   field.text.decode() if field is not None else None)


def _may_alias(target: _Target, path: tuple) -> bool:
    """Whether writing to (or through the address of) `target` may change `path`: the same
    root and not a different member, or a member of the same name of another object."""
    if target.root == path[0]:
        return not target.exact or all(a == b for a, b in zip(target.members, path[1:]))
    return len(path) > 1 and target.field == path[-1]


def _escapes(target: _Target, path: tuple, escaped: set) -> bool:
    """Whether a write to `target`, not on the path's root, may reach memory other names see:
    it goes through a pointer or subscript, or its variable's address is taken (`escaped`)."""
    return target.root != path[0] and (not target.exact or target.root in escaped)


SPELLED_BYTES = 64 << 10
"""Functions up to this size are searched for an assignment's spelling before being walked
(`FlowRules._last_assignment`); a larger one is walked once for all its questions."""


@lru_cache(maxsize=1024)
def _assigning(name: str) -> re.Pattern[bytes]:
    """`name` spelled whole and perhaps assigned (`FlowRules._assigned_before`)."""
    return re.compile(rb"(?<![\w$])" + re.escape(name.encode())
                      + rb"(?![\w$])[\s)]*(?:=(?!=)|[/\\#])")


def _parameter_list(function):
    """The parameter list of a function definition, or None."""
    declarator = function_declarator(function.child_by_field_name("declarator"))
    return declarator.child_by_field_name("parameters") if declarator is not None else None


def _plain_assignments(statement) -> list:
    """The assignment of a statement `target = value;`: [assignment], else []."""
    if statement.type != "expression_statement":
        return []
    return [expression for expression in children(statement)
            if expression.type == "assignment_expression"
            and expression.child_by_field_name("operator").type == "="]


class FlowRules:
    """The value a local, a parameter or a member path on one has at a use: the last plain
    assignment before it in a block around it, unless something between may change it."""

    def _assigned_value(self, node, env: _Env) -> _Value | None:
        """The value of a local, parameter or field path of one (`s->a.b`) at `env.anchor`, as
        the last statement `path = value;` before it sets it: a statement of a block that
        encloses the anchor, in the same function. None without such a statement; UNKNOWN when
        something may change the path in between (see `_disturbed`). Not seen: changes through
        a pointer stored before the assignment by a call that did not receive the root."""
        found = self._assignment(node, env.anchor)
        if found is None:
            return None
        assignment, path, root = found
        if assignment is None:
            return _NOTHING
        right = assignment.child_by_field_name("right")
        value = self._eval(right, _Env(assignment, assignments=True))
        kind = self._def_type(root) if len(path) == 1 else self._field_type(node, env)
        return _converted(kind, value)

    def _given_value(self, node, env: _Env) -> _Value | None:
        """The value `given` gives a parameter, or a member path on one, that its function
        assigns nothing before the use and changes nowhere before it (`_disturbed` from the
        parameters on), converted to its type; None otherwise."""
        path = _field_path(node)
        function = self._enclosing_function(env.anchor)
        if path is None or function is None:
            return None
        root = self._local_root(path[0], env.anchor, function)
        parameters = _parameter_list(function)
        if root is None or root.kind != "param" or parameters is None or \
                self._disturbed(path, parameters, env.anchor, function):
            return None
        value = self.given(path, function, self)
        if value is None:
            return None
        kind = self._def_type(root) if len(path) == 1 else self._field_type(node, env)
        return _converted(kind, value)

    def _path_value(self, path: tuple, anchor) -> _Value:
        """`path_value` within an evaluation: the last assignment's value, else `given`'s for
        a parameter of the function (no conversion: the type is the asker's)."""
        function = self._enclosing_function(anchor)
        if function is None:
            return _NOTHING
        found = self._assignment_of(path, anchor, function)
        if found is not None:
            assignment = found[0]
            if assignment is None:
                return _NOTHING
            return self._eval(assignment.child_by_field_name("right"),
                              _Env(assignment, assignments=True))
        root = self._local_root(path[0], anchor, function)
        if self.given is None or root is None or root.kind != "param":
            return _NOTHING
        parameters = _parameter_list(function)
        if parameters is None or self._disturbed(path, parameters, anchor, function):
            return _NOTHING
        return self.given(path, function, self) or _NOTHING

    def _assignment(self, node, anchor, file_scope: bool = False) -> tuple | None:
        """(assignment or None where something may change the path after it, path, root) of
        the last `path = value;` statement that gives `node` its value at `anchor`; None
        without one. `file_scope`: a name declared at file scope counts too
        (`FileScopeRules`)."""
        path = _field_path(node)
        function = self._enclosing_function(anchor)
        return self._assignment_of(path, anchor, function, file_scope)

    def _assignment_of(self, path: tuple | None, anchor, function,
                       file_scope: bool = False) -> tuple | None:
        """`_assignment` of a path."""
        if path is None or function is None or any(
                self._is_macro(part, anchor) for part in path):
            return None
        root = self._local_root(path[0], anchor, function)
        shared = root is None and file_scope and len(path) == 1
        assignment = self._last_assignment(path, anchor, function) if root or shared else None
        if assignment is None or shared and (root := self._file_root(path[0], anchor)) is None:
            return None
        at_assignment = self._file_root(path[0], assignment) if shared \
            else self._local_root(path[0], assignment, function)
        if (at_assignment is not root or self._disturbed(path, assignment, anchor, function)
                or shared and self._file_scope_disturbed(root, assignment, anchor, function)):
            return None, path, root
        return assignment, path, root

    def _local_root(self, name: str, anchor, function) -> _Def | None:
        """The variable or parameter `name` names at `anchor` if it belongs to `function`."""
        key, defs = self._lookup(name, (), anchor, "names")
        if not isinstance(key, _Def) or defs != [key] or key.kind not in ("var", "param"):
            return None
        block = self._scope(key)[0]
        inside = function.start_byte <= block.start_byte and block.end_byte <= function.end_byte
        volatile = any(self.context.text(child) == "volatile" for child in key.owner.children)
        reference = any(node.type == "reference_declarator"
                        for node in _declarator_chain(key.node))
        return key if inside and not volatile and not reference else None

    def _last_assignment(self, path: tuple, anchor, function):
        """The last statement `path = value;` before `anchor` in a block enclosing it. A
        function of at most SPELLED_BYTES whose text spells no such assignment of the path's
        last name before `anchor` is not walked (a pointer member handed to each of 12,000 calls
        walked every function of a 10 MB file)."""
        if function.end_byte - function.start_byte <= SPELLED_BYTES and ("writes", function.id) \
                not in self._memo and not self._assigned_before(path[-1], anchor, function):
            return None
        assignments = self._writes(function).assignments.get(path, [])
        at = anchor.start_byte
        for index in range(bisect_left(assignments, (at,)) - 1, -1, -1):
            _, statement_end, block_start, block_end, assignment = assignments[index]
            if block_start <= at < block_end and statement_end <= at:
                return assignment
        return None

    def _assigned_before(self, name: str, anchor, function) -> bool:
        """Whether `function`'s text may assign `name` before `anchor`: the name spelled whole,
        then blanks or `)`, then `=` (not `==`), or a comment, a line's continuation or a
        preprocessor line before anything else (more, never fewer than its assignments)."""
        key = ("assigned-at", function.id, name)
        places = self._memo.get(key)
        if places is None:
            places = self._memo[key] = [match.start() for match in _assigning(name).finditer(
                self.context.source.data, function.start_byte, function.end_byte)]
        return bool(places) and places[0] < anchor.start_byte

    def _disturbed(self, path: tuple, assignment, anchor, function) -> bool:
        """Whether the path may change between the assignment and its use at `anchor`: a label
        or `case` in between (a jump past the assignment); its or a prefix's address taken
        anywhere in the function; in between, a write to it, to a prefix of it, to a member of
        the same name (an alias), through a pointer or subscript, or to a variable whose address
        is taken, or a call mentioning the root or such a variable. "In between" extends to the
        end of loops around the use that do not hold the assignment, and takes in the bodies
        of lambdas."""
        start, end = assignment.end_byte, self._region_end(assignment, anchor, function)
        writes = self._writes(function)
        label = bisect_left(writes.labels, start)
        if label < len(writes.labels) and writes.labels[label] < anchor.start_byte:
            return True
        escaped = {target.root for target in writes.taken
                   if not target.members or not target.exact} - {None}
        if any(_may_alias(target, path) for target in writes.taken):
            return True
        first, last = (bisect_left(writes.written, position, key=lambda item: item[0])
                       for position in (start, end))
        for at, target in writes.written[first:last]:
            if (_may_alias(target, path) or _escapes(target, path, escaped)) \
                    and not self._returns_before(at, anchor, function):
                return True
        for target in writes.in_lambdas:
            if _may_alias(target, path) or _escapes(target, path, escaped):
                return True
        names = {name.encode() for name in escaped | {path[0]}}
        by_value = {path[0].encode()} if len(path) == 1 and path[0] not in escaped else set()
        member = path if len(path) > 1 else ()
        return self._calls_mention(writes.calls, start, end, anchor, names, by_value, member)

    def _calls_mention(self, calls: list, start: int, end: int, anchor, names: set,
                       by_value: set, member: tuple = ()) -> bool:
        """Whether a call starting in [start, end) and not holding `anchor` mentions one of
        `names`, other than a variable of `by_value` named in a call of C functions that are no
        macros (`malloc(size)` cannot change `size`; `LOG(size)`, or `init(c)` for `c->n`,
        may), or, for a member path (`member`), a call of the C library that only writes the
        object it is given, another member, or writes nothing its arguments point to
        (`_own_object_only`). A call inside one already read is not read again."""
        read_until = start
        for call_start, call_end in calls[bisect_left(calls, (start,)):]:
            if call_start >= end:
                return False
            if call_start < read_until or call_start <= anchor.start_byte < call_end:
                continue
            text = self.context.source.data[call_start:call_end]
            mentioned = names.intersection(_IDENTIFIERS.findall(text))
            if mentioned and not (mentioned <= by_value
                                  and self._copies_only(call_start, call_end, anchor)) \
                    and not (member and self._own_object_only(call_start, call_end, member)) \
                    and not self._returns_before(call_start, anchor, self._enclosing_function(
                        anchor)):
                return True
            read_until = call_end
        return False

    def _copies_only(self, start: int, end: int, anchor) -> bool:
        """Whether the call spanning [start, end), and each call inside it, is of a C function
        that no definition in view makes a macro (all-caps names are taken for macros of no
        definition in view): such calls get copies of the variables they name. (In C++ a
        parameter may be a reference: no call is read so.)"""
        if self.cpp:
            return False
        call = self.context.node_at(start, end)
        if call is None or call.type != "call_expression" or call.start_byte != start:
            return False
        for node in (call, *descendants(call)):
            if node.type != "call_expression":
                continue
            name = callee(self.context, node, scoped=False, system_calls=False)
            if not name:
                return False
            if name.isupper() or self._is_macro(name, anchor):
                return False
        return True

    def _returns_before(self, at: int, anchor, function) -> bool:
        """Whether the write or call starting at `at` lies in a block that ends in `return`
        (the branch of an `if`, no `goto`, `break` or `continue` in it) and does not hold
        `anchor`: what it does cannot reach the use (`if (!n) { LOG(c); return -1; }`)."""
        node = self.context.node_at(at, at)
        while node is not None and node != function:
            if node.type == "compound_statement" and node.named_child_count and \
                    node.named_children[-1].type == "return_statement" and \
                    self.context.parent(node).type in ("if_statement", "else_clause"):
                inside = node.start_byte <= anchor.start_byte < node.end_byte
                return not inside and not _JUMPS.search(node.text)
            node = self.context.parent(node)
        return False

    def _own_object_only(self, start: int, end: int, path: tuple) -> bool:
        """Whether the call spanning [start, end) is of a C library function that writes only
        the object whose address it is given (`_OWN_OBJECT`; `free` ends the object) and no
        macro, and every mention of the path's root in it is that argument, the address of
        another member (`&s->lock`) or, for `free`, the root itself: `pthread_mutex_init(
        &s->lock, NULL)` cannot change `s->size`. (A function of the project given `&s->lock`
        may reach `s` from it, `container_of`: not read so.)"""
        call = self.context.node_at(start, end)
        if call is None or call.type != "call_expression" or call.start_byte != start:
            return False
        name = callee(self.context, call, scoped=False, system_calls=False)
        if name in _READS_ONLY and not self._is_macro(name, call):
            return all(self._own_object_only(inner.start_byte, inner.end_byte, path)
                       for inner in descendants(call) if inner.type == "call_expression")
        if name not in _OWN_OBJECT and name != "free" or self._is_macro(name, call):
            return False
        given = call.child_by_field_name("arguments").named_children
        root = path[0].encode()
        if any(root in _IDENTIFIERS.findall(argument.text) for argument in given[1:]):
            return False  # (the root also given as another argument: `init(&s->a, s)`)
        first = given[0] if given else None
        while first is not None and first.type in ("parenthesized_expression", "cast_expression"):
            first = first.child_by_field_name("value") or _only_child(first)
        if first is None:
            return False
        if name == "free":
            return first.type == "identifier" and first.text.decode() == path[0]
        if first.type != "pointer_expression" or first.child_by_field_name("operator").type != "&":
            return root not in _IDENTIFIERS.findall(first.text)
        root, members, exact = _access(first.child_by_field_name("argument"))
        return root == path[0] and exact and bool(members) and members[0] != path[1]

    def _writes(self, function) -> _Writes:
        """What `function` does to its variables (see `_Writes`), read once for every
        evaluator of the file (the file's provenance and its registrations' each have one)."""
        return self._nested_writes(function, 0)

    def _read_writes(self, function, depth: int = 0) -> _Writes:
        """`_Writes` of one walk of `function`; a function nested in it (tree-sitter misreads
        a macro's body so, holding functions of megabytes nested 5 deep) outside its lambdas
        taken from that function's own `_Writes`, made or shared once (its walk is the same
        part of this one: 19 MB walked for a 10 MB file)."""
        assignments: dict[tuple, list] = defaultdict(list)
        labels, taken, written, in_lambdas, calls = [], [], [], [], []
        lambda_ends: list[int] = []  # of the lambdas around the node
        skip = [False]
        for node in descendants(function, skip):
            kind = node.type
            if kind not in _WALKED:
                continue
            if kind == "function_definition":
                while lambda_ends and node.start_byte >= lambda_ends[-1]:
                    lambda_ends.pop()
                if not lambda_ends and depth < _NESTED:
                    skip[0] = True
                    nested = self._nested_writes(node, depth + 1)
                    for path, found in nested.assignments.items():
                        assignments[path].extend(found)
                    for kept, given in zip((labels, taken, written, in_lambdas, calls),
                                           nested[1:]):
                        kept.extend(given)
                continue
            while lambda_ends and node.start_byte >= lambda_ends[-1]:
                lambda_ends.pop()
            if kind == "compound_statement":
                for statement in children(node):
                    for assignment in _plain_assignments(statement):
                        target = assignment.child_by_field_name("left")
                        path = _field_path(target)
                        if path is not None:
                            assignments[path].append((target.start_byte, statement.end_byte,
                                                      node.start_byte, node.end_byte, assignment))
            elif kind in _JUMP_TARGETS:
                labels.append(node.start_byte)
            elif kind in _CALLS:
                calls.append((node.start_byte, node.end_byte))
            elif kind == "lambda_expression":
                lambda_ends.append(node.end_byte)
            node = self._modified_target(node)
            if node is None:
                continue
            target = _target_of(node)
            if kind in ("pointer_expression", "init_declarator"):
                taken.append(target)
            else:
                written.append((node.start_byte, target))
                if lambda_ends:
                    in_lambdas.append(target)
        for found in assignments.values():
            found.sort(key=lambda item: item[0])  # a nested block's come after its own
        written.sort(key=lambda item: item[0])
        return _Writes(dict(assignments), labels, taken, written, in_lambdas, calls)

    def _nested_writes(self, function, depth: int) -> _Writes:
        """`_writes` of a function nested in one being walked (its lists sorted already:
        spliced whole where the walk met it, the sorts of the walk around it keep the order
        one walk gives)."""
        key = ("writes", function.id)
        if key not in self._memo:
            self._memo[key] = self.context.shared(("c-consteval-writes", function.id),
                                                  lambda: self._read_writes(function, depth))
        return self._memo[key]

    def _modified_target(self, node):
        """What `node` writes or takes the address of: the left of an assignment, the operand of
        `++`/`--` or of `&`, an asm output, what a C++ reference is bound to; else None."""
        kind = node.type
        if kind == "assignment_expression":
            target = node.child_by_field_name("left")
        elif kind in ("update_expression", "pointer_expression"):
            if kind == "pointer_expression" and node.child_by_field_name("operator").type != "&":
                return None
            target = node.child_by_field_name("argument")
        elif kind == "gnu_asm_output_operand":
            target = node.child_by_field_name("value")
        elif kind == "init_declarator" and self.cpp:
            declarator = node.child_by_field_name("declarator")
            if declarator is None or declarator.type != "reference_declarator":
                return None
            target = node.child_by_field_name("value")
        else:
            return None
        return target if target is not None and target.is_named else None

    def _enclosing_function(self, node):
        """The function, lambda or macro-defined function body that is or holds `node`, or
        None."""
        return function_scope(self.context, node)

    def _region_end(self, assignment, anchor, function) -> int:
        """Where changes that may reach the use end: the use, or the end of the outermost loop
        around it that does not hold the assignment (the next iteration sees them)."""
        end = anchor.start_byte
        for node in self.context.ancestors(anchor):
            if node == function:
                break
            if node.type in _LOOPS and not node.start_byte <= assignment.start_byte < node.end_byte:
                end = node.end_byte
        return end
