"""`BoundRules`: the lowest and highest value an expression may have where it is used, for a
count a function only ever lowers (`n = want; if (left < n) n = left;`), where no one value is
known."""

from __future__ import annotations

import re
from operator import add, mul

from cursedlint.analysis.c_constants.flow import _JUMPS
from cursedlint.analysis.c_constants.syntax import _Env, _only_child
from cursedlint.c.context import children
from cursedlint.python.consteval import UNKNOWN

_UNSIGNED = re.compile(r"\b(?:unsigned|size_t|uint\w*_t|uintptr_t)\b")
_LARGEST = 1 << 62  # (bounds past it are not kept: no wrap-around to think about)


class BoundRules:
    """`bounds(node)`: (lowest, highest) or None, with `evaluate(.., assignments=True)`'s
    values; a sum or a product of bounded operands that are not negative, and a local that is
    initialised once and then only lowered: each other write of it is the branch of an `if`
    testing that the value written is below it (`if (max - used < n) n = max - used;`, a
    conjunct of the condition), its address never taken. Its highest value is its
    initializer's; its lowest 1 where a branch ending in `return` after every write tests it
    for zero (`if (n <= 0) return -1;`), else 0 for an unsigned type, else not known."""

    def bounds(self, node) -> tuple[int, int] | None:
        found = self._answer(lambda: self._bounds(node))
        return None if found is UNKNOWN else found  # (UNKNOWN: past the evaluation's bounds)

    def _bounds(self, node) -> tuple[int, int] | None:
        self._enter()
        try:
            value = self._eval(node, _Env(node, assignments=True)).value
            if value is not UNKNOWN:
                return (value, value)
            while node.type == "parenthesized_expression" and _only_child(node) is not None:
                node = _only_child(node)
            if node.type == "binary_expression":
                combine = {"+": add, "*": mul}.get(node.child_by_field_name("operator").type)
                parts = [self._bounds(node.child_by_field_name(side))
                         for side in ("left", "right")] if combine else [None]
                if None in parts or min(parts[0][0], parts[1][0]) < 0:
                    return None
                found = (combine(parts[0][0], parts[1][0]), combine(parts[0][1], parts[1][1]))
                return found if found[1] < _LARGEST else None
            return self._lowered(node) if node.type == "identifier" else None
        finally:
            self._depth -= 1

    def _lowered(self, node) -> tuple[int, int] | None:
        """The bounds of a local only ever lowered (see the class)."""
        name = self.context.text(node)
        function = self._enclosing_function(node)
        root = self._local_root(name, node, function) if function is not None else None
        if root is None or root.kind != "var":
            return None
        declaration = root.node
        if declaration.type != "init_declarator" or \
                declaration.child_by_field_name("declarator").type != "identifier":
            return None
        writes = self._writes(function)
        if any(target.root == name for target in writes.taken):
            return None
        last = declaration.end_byte
        for at, target in writes.written:
            if target.root != name:
                continue
            if not target.exact or target.members or not self._lowers(at, name):
                return None
            last = max(last, at)
        initial = self._bounds(declaration.child_by_field_name("value"))
        if initial is None:
            return None
        if self._tested_for_zero(name, last, node, function):
            return (1, initial[1]) if initial[1] >= 1 else None
        unsigned = _UNSIGNED.search(self.context.text(root.owner.child_by_field_name("type")))
        return (0, initial[1]) if unsigned else None

    def _lowers(self, at: int, name: str) -> bool:
        """Whether the write at `at` is `name = value;`, the branch of an `if` one of whose
        conjuncts tests `value < name` (or `name > value`)."""
        node = self.context.node_at(at, at)
        while node is not None and node.type != "assignment_expression":
            node = self.context.parent(node)
        if node is None or node.child_by_field_name("operator").type != "=":
            return False
        written = self.context.text(node.child_by_field_name("right")).replace(" ", "")
        statement = self.context.parent(node)
        branch = self.context.parent(statement) if statement is not None else None
        if branch is not None and branch.type == "compound_statement" and \
                branch.named_child_count == 1:
            branch = self.context.parent(branch)
        if statement is None or statement.type != "expression_statement" or branch is None \
                or branch.type != "if_statement":
            return False
        condition = branch.child_by_field_name("condition")
        return any(self._below(test, written, name) for test in _conjuncts(condition))

    def _below(self, test, written: str, name: str) -> bool:
        if test.type != "binary_expression":
            return False
        operator = test.child_by_field_name("operator").type
        left, right = (self.context.text(test.child_by_field_name(side)).replace(" ", "")
                       for side in ("left", "right"))
        return (operator == "<" and (left, right) == (written, name)
                or operator == ">" and (left, right) == (name, written))

    def _tested_for_zero(self, name: str, after: int, anchor, function) -> bool:
        """Whether an `if` after byte `after`, before `anchor`, in a block holding it, tests
        `name` for zero (`n <= 0`, `n == 0`, `!n`, `n < 1`) and its branch ends in
        `return` with no jump in it."""
        block = self.context.parent(anchor)
        while block is not None and block != function:
            if block.type == "compound_statement":
                for statement in children(block):
                    if statement.start_byte >= anchor.start_byte:
                        break
                    if statement.type == "if_statement" and statement.start_byte > after and \
                            _zero_test(self.context, statement, name):
                        return True
            block = self.context.parent(block)
        return False


def _conjuncts(condition) -> list:
    """The operands of a chain of `&&` (parentheses and the condition's own taken off)."""
    while condition is not None and condition.type in (
            "parenthesized_expression", "condition_clause") and _only_child(condition):
        condition = _only_child(condition)
    if condition is None:
        return []
    if condition.type == "binary_expression" and \
            condition.child_by_field_name("operator").type == "&&":
        return _conjuncts(condition.child_by_field_name("left")) + \
            _conjuncts(condition.child_by_field_name("right"))
    return [condition]


def _zero_test(context, statement, name: str) -> bool:
    tests = _conjuncts(statement.child_by_field_name("condition"))
    if len(tests) != 1 or statement.child_by_field_name("alternative") is not None:
        return False
    text = context.text(tests[0]).replace(" ", "")
    if text not in (f"{name}<=0", f"{name}==0", f"!{name}", f"{name}<1", f"0=={name}",
                    f"0>={name}"):
        return False
    branch = statement.child_by_field_name("consequence")
    last = branch.named_children[-1] if branch.type == "compound_statement" and \
        branch.named_child_count else branch
    return last.type == "return_statement" and not _JUMPS.search(branch.text)
