"""Fallbacks keyed on errno after a CMA copy that leave out the values a restricted copy gives
(C/C++; CUR601).

`partial_fallback(context, call)` reads the first test of `errno` on the failure path of a
`process_vm_readv`/`process_vm_writev` call (or of a function returning its result): an `if`
chain whose conditions compare `errno` with `==` to `E...` constants (`!rv && (errno == EPERM
|| errno == EINVAL)`, `if (errno == ENOSYS) ... else if (errno == EFAULT) ... else return
false;`) or a `switch (errno)` whose cases end in `break` or leave, inside the branch a check
on the result sends the failure to or with such a check in its own condition. A branch recovers
when it copies by another path (`memcpy`, `memmove`, `bcopy`, `pread`/`pwrite` of
`/proc/PID/mem`, a call handed `PTRACE_PEEKDATA` and the like, or a function of the file that
makes one of the last two), or falls through to statements that do before anything leaves; the
value a branch gives a flag (`still_pending = FALSE;`), or that a variable declared with a
constant keeps where only the chain writes it (`bool fallback = false;`), decides the `if
(flag)`, `if (!flag)` and `if (flag && ...)` after it. The values no branch names take the `else` (`default`) or what follows the chain; when that leaves
(`return`, `goto`, `throw`, `abort()`, `exit()`) before any such copy, every value of
`RESTRICTED` the chain does not name gets the failure while others are recovered: a
`PartialFallback`. The inverse form, `if (errno != EFAULT && errno != ENOSYS) return false;`
before such a copy, recovers the values it names. A value a branch names on purpose and fails
(`if (errno == EPERM) return -EPERM;`) is a choice, not left out; a chain with no recovering
branch, a loop, a case falling into the next, a test of errno other than by `==` in the chain's
conditions, and a flag whose value at the test is not known (`static`, or written elsewhere
too) leave it unknown (None).

A function returning `-errno` when its copy fails (`c_error_codes`: `return -errno;`, of the
file or of another file of the project) is read the same way in its callers, with its result
in place of errno (`negated`): `if (ret == -ENOSYS) return peek_words(...); return ret;`, or
`switch (ret) { case -ENOSYS: ... }`.
"""

from __future__ import annotations

import itertools
import re
from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_expectations import stored_in
from cursedlint.analysis.c_fatal import ABORTS, EXITS, JUMPS
from cursedlint.analysis.c_syntax import (
    arguments, callee, defined_functions, mentions, scope_of, unwrapped, within, writes,
)
from cursedlint.c.context import descendants
from cursedlint.findings import Step

RESTRICTED = {
    "EPERM": "a failed ptrace access check (Yama ptrace_scope, no CAP_SYS_PTRACE, another user "
             "namespace) or a seccomp filter's default",
    "ENOSYS": "a kernel without the call (before 3.2, CONFIG_CROSS_MEMORY_ATTACH off) or a "
              "seccomp filter answering ENOSYS",
}
"""The errno values of a copy the system refuses, and what gives them (process_vm_readv(2):
EPERM; mm/process_vm_access.c maps the ptrace check's EACCES to EPERM; kernel/sys_ni.c:
ENOSYS where the kernel is built without it; seccomp(2): SECCOMP_RET_ERRNO returns the
filter's value)."""

COPIES = frozenset({"memcpy", "memmove", "bcopy", "pread", "pread64", "preadv", "pwrite",
                    "pwrite64", "pwritev"})
_FILE_COPIES = COPIES - {"memcpy", "memmove", "bcopy"}
_PTRACE_COPY = re.compile(r"PTRACE_(?:PEEK|POKE)(?:DATA|TEXT)\Z")
_ERRNO_VALUE = re.compile(r"E[A-Z0-9]+\Z")
_CONTAINERS = frozenset({"compound_statement", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef"})
_ALTERNATIVES = frozenset({"preproc_else", "preproc_elif", "preproc_elifdef", "else_clause"})
_LOGIC = frozenset({"||", "&&"})
_TRUTHS = {"0": False, "false": False, "FALSE": False, "1": True, "true": True, "TRUE": True}


class PartialFallback(Struct, frozen=True):
    """The errno test after a copy (`test`: its line), the values its recovering branches name
    (`recovered`), the copy that recovers (`recovery`, `how`: its name), the values of
    `RESTRICTED` left out (`missing`) and where they leave (`failure`, a line)."""

    test: int
    recovered: tuple[str, ...]
    recovery: int
    how: str
    missing: tuple[str, ...]
    failure: int

    def message(self, copy: str) -> str:
        verb = "still fails" if len(self.missing) == 1 else "still fail"
        return (f"{copy} falls back on line {self.test} for {', '.join(self.recovered)} only: "
                f"{' and '.join(self.missing)} (CMA refused or missing) {verb}")

    def steps(self, path: str) -> tuple[Step, ...]:
        return (Step(path, self.test, f"errno {' or '.join(self.recovered)} recovers: "
                                      f"{self.how}() on line {self.recovery} copies instead"),
                *(Step(path, self.failure, f"{value} ({RESTRICTED[value]}) leaves here")
                  for value in self.missing))


HELP = ("A copy between processes fails with EPERM where the ptrace access check refuses it "
        "(Yama ptrace_scope=1 between siblings, a container without CAP_SYS_PTRACE, peers in "
        "different user namespaces) or a seccomp filter does, and with ENOSYS where the kernel "
        "lacks the call or a seccomp profile answers so; the fallback the code has for other "
        "values is not taken then. Take the fallback for EPERM and ENOSYS too (or for every "
        "failure), and remember that CMA is unusable so later copies go to it directly.")


def partial_fallback(context, call, negated: bool = False) -> PartialFallback | None:
    """The fallback after `call` (a copy, or a call of a function returning a copy's result)
    that leaves restricted values out (see the module), or None. `negated`: the called
    function returns `-errno` when the copy fails, and its result is what is tested (`ret ==
    -EFAULT`), not `errno`."""
    body = scope_of(context, call)
    result = _result_name(context, call)
    if body is None or negated and result is None:
        return None
    test = _Test(result if negated else "errno", negated)
    head = _errno_test(context, call, body, test)
    if head is None:
        return None
    skipping = _values(context, head.child_by_field_name("condition"), "!=", test)
    if skipping:
        return _skipped(context, head, body, skipping)
    chain = _switch(context, head, test) if head.type == "switch_statement" \
        else _chain(context, head, test)
    if chain is None:
        return None
    branches, otherwise = chain
    named = {value for values, _ in branches for value in values}
    missing = tuple(value for value in RESTRICTED if value not in named)
    recovered, recovery = [], None
    start = _initial(context, body, head)
    for values, statements in branches:
        copy = _recovers(context, statements, head, body, start)
        if copy is not None:
            recovered.extend(values)
            recovery = recovery or copy
    if recovery is None or not missing:
        return None
    if otherwise:
        if _recovers(context, otherwise, head, body, start) is not None:
            return None
        breaks = head.type == "switch_statement" and otherwise[-1].type == "break_statement"
        end = _decisive(context, otherwise[:-1] if breaks else otherwise)
        if end is None and (breaks or not _leaving(context, otherwise[-1])):
            end = _decisive(context, _following(context, head, body),
                            _flags(context, otherwise, start))
    else:
        end = _decisive(context, _following(context, head, body), start)
    if end is None or end[0] != "leaves":
        return None
    return _found(context, head, tuple(recovered), recovery, missing, end[1])


def errno_condition(context, condition) -> tuple[frozenset[str], bool] | None:
    """(values, True) of a condition that is an `||` of `e == E...` (errno, or a local given
    errno: `int err = errno;`), (values, False) of an `&&` of `e != E...`; None otherwise."""
    node = unwrapped(condition)
    for operator, joining in (("==", "||"), ("!=", "&&")):
        values = _joined(context, node, operator, joining)
        if values:
            return frozenset(values), operator == "=="
    return None


def _joined(context, node, operator: str, joining: str) -> list[str]:
    """The E... values of `node`, comparisons of one errno name by `operator` joined by
    `joining`; [] where it is anything else."""
    node = unwrapped(node)
    if node is None or node.type != "binary_expression":
        return []
    between = context.text(node.child_by_field_name("operator"))
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if between == joining:
        first, second = _joined(context, left, operator, joining), \
            _joined(context, right, operator, joining)
        return first + second if first and second else []
    if between != operator:
        return []
    for tested, other in ((unwrapped(left), right), (unwrapped(right), left)):
        value = _constant(context, other, _Test("errno"))
        if value and tested is not None and tested.type == "identifier" \
                and _holds_errno(context, tested):
            return [value]
    return []


def _holds_errno(context, name) -> bool:
    """Whether the identifier is `errno` or a local of its function given `errno`."""
    text = context.text(name)
    if text == "errno":
        return True
    body = scope_of(context, name)
    for _, leaf in context.tokens(("errno",), body) if body is not None else ():
        given = context.parent(leaf)
        target = given.child_by_field_name("declarator") if given is not None \
            and given.type == "init_declarator" else given.child_by_field_name("left") \
            if given is not None and given.type == "assignment_expression" else None
        if target is not None and context.text(target) == text \
                and given.child_by_field_name("value" if given.type == "init_declarator"
                                              else "right") == leaf:
            return True
    return False


def _skipped(context, head, body, values) -> PartialFallback | None:
    """`if (errno != EFAULT && errno != ENOSYS) return false;` followed by a copy: the values
    named go on to it, the others leave."""
    missing = tuple(value for value in RESTRICTED if value not in values)
    others = head.child_by_field_name("consequence")
    if not missing or head.child_by_field_name("alternative") is not None \
            or _copy_in(context, others) is not None:
        return None
    end = _decisive(context, _statements(others))
    after = _decisive(context, _following(context, head, body))
    if end is None or end[0] != "leaves" or after is None or after[0] != "copies":
        return None
    return _found(context, head, values, after[1], missing, end[1])


def _found(context, head, recovered, recovery, missing, leaving) -> PartialFallback:
    return PartialFallback(head.start_point[0] + 1, recovered, recovery.start_point[0] + 1,
                           callee(context, recovery) or "the copy", missing,
                           leaving.start_point[0] + 1)


class _Test(Struct, frozen=True):
    """What an errno chain tests: `errno`, or (`negated`) the variable holding a `-errno`
    result, compared with `-E...` constants."""

    name: str
    negated: bool = False


def _errno_test(context, call, body, tested: _Test):
    """The head of the first `if` chain after `call` comparing errno (the result, where it is
    `-errno`, with a `-E...` constant), when it is on the copy's failure path and no other call
    of the same function (nor, for the result, another value of it) comes between; None
    otherwise."""
    result = _result_name(context, call)
    for _, leaf in context.tokens((tested.name,), body):
        if leaf.start_byte < call.end_byte or leaf.type != "identifier":
            continue
        test = _comparing_if(context, leaf) or _switching(context, leaf)
        if test is None or tested.negated and not _against_constant(context, leaf, tested):
            continue
        head = test
        while (parent := context.parent(head)) is not None and parent.type == "else_clause":
            head = context.parent(parent)
        again = any(call.end_byte < other.start_byte < head.start_byte
                    for _, other in context.calls((callee(context, call),), body)) \
            or tested.negated and any(call.end_byte < node.start_byte < head.start_byte
                                      for node in writes(context, body, tested.name))
        return head if not again and _on_failure_path(context, head, call, result, body) \
            else None
    return None


def _against_constant(context, leaf, tested: _Test) -> bool:
    """Whether `leaf` is compared with an errno constant (`switch (leaf)`: its first case)."""
    comparison = context.parent(leaf)
    if comparison is not None and comparison.type == "binary_expression":
        return any(side is not None and side != leaf and _constant(context, side, tested)
                   for side in (comparison.child_by_field_name("left"),
                                comparison.child_by_field_name("right")))
    switch = context.parent(comparison) if comparison is not None else None
    block = switch.child_by_field_name("body") if switch is not None else None
    case = next((child for child in block.named_children if child.type == "case_statement"),
                None) if block is not None else None
    value = case.child_by_field_name("value") if case is not None else None
    return value is not None and bool(_constant(context, value, tested))


def _constant(context, node, tested: _Test) -> str:
    """The `E...` name `node` spells (`-E...` where the result is `-errno`), else ""."""
    node = unwrapped(node)
    if tested.negated:
        if node is None or node.type != "unary_expression" or node.child(0).type != "-":
            return ""
        node = unwrapped(node.child_by_field_name("argument"))
    text = context.text(node) if node is not None else ""
    return text if _ERRNO_VALUE.match(text) else ""


def _comparing_if(context, leaf):
    """The `if` whose condition compares `leaf` (errno) with `==` or `!=`, through `||`, `&&`
    and parentheses; None otherwise."""
    node = context.parent(leaf)
    if node is None or node.type != "binary_expression" or \
            context.text(node.child_by_field_name("operator")) not in ("==", "!="):
        return None
    while (parent := context.parent(node)) is not None and (
            parent.type == "parenthesized_expression"
            or parent.type == "binary_expression"
            and context.text(parent.child_by_field_name("operator")) in _LOGIC):
        node = parent
    if parent is not None and parent.type == "condition_clause":
        parent = context.parent(parent)
    return parent if parent is not None and parent.type == "if_statement" \
        and parent.child_by_field_name("condition") in (node, context.parent(node)) else None


def _switching(context, leaf):
    """The `switch (errno)` whose condition `leaf` is, or None."""
    clause = context.parent(leaf)
    switch = context.parent(clause) if clause is not None else None
    return switch if switch is not None and switch.type == "switch_statement" \
        and switch.child_by_field_name("condition") == clause \
        and clause.type in ("parenthesized_expression", "condition_clause") else None


def _result_name(context, call) -> str | None:
    _, _, target = stored_in(context, call)
    while target is not None and target.type not in ("identifier", "field_expression"):
        target = target.child_by_field_name("declarator")
    return context.text(target) if target is not None and target.type == "identifier" else None


def _on_failure_path(context, head, call, result, body) -> bool:
    """Whether the chain tests the copy's outcome itself or sits in a branch that does: a
    condition holding the call, its result or a local made from the result."""
    names = {result} | _made_from(context, result, body) if result else set()
    node = head
    while node is not None and node != body:
        if node.type in ("if_statement", "switch_statement"):  # (`switch (ret)` of -errno)
            condition = node.child_by_field_name("condition")
            if within(call, condition) or any(mentions(context, condition, name)
                                              for name in names):
                return True
        node = context.parent(node)
    return False


def _made_from(context, result: str, body) -> set[str]:
    """The locals of `body` initialized from an expression naming `result` (`bool rv = n ==
    size;`)."""
    made = set()
    for _, leaf in context.tokens((result,), body):
        node = context.parent(leaf)
        while node is not None and node.type not in ("init_declarator", "expression_statement",
                                                      "compound_statement"):
            node = context.parent(node)
        if node is not None and node.type == "init_declarator":
            declared = node.child_by_field_name("declarator")
            if declared is not None and declared.type == "identifier":
                made.add(context.text(declared))
    return made


def _chain(context, head, tested: _Test):
    """([(errno values, the branch's statements)], the final `else`'s or None) of an `if` chain
    every condition of which compares errno; None where one does not."""
    branches = []
    node = head
    while True:
        values = _values(context, node.child_by_field_name("condition"), "==", tested)
        if not values:
            return None
        branches.append((values, _statements(node.child_by_field_name("consequence"))))
        alternative = node.child_by_field_name("alternative")
        if alternative is None:
            return branches, None
        statement = alternative.named_children[-1] if alternative.named_children else None
        if statement is None:
            return None
        if statement.type != "if_statement":
            return branches, _statements(statement)
        node = statement


def _switch(context, head, tested: _Test):
    """([(case values, their statements)], the `default`'s statements or None) of a `switch
    (errno)` whose labels are E... constants and whose cases end in `break` or leave; None
    otherwise (a case falling into the next, another label)."""
    block = head.child_by_field_name("body")
    cases = [case for case in block.named_children if case.type != "comment"] \
        if block is not None else []
    branches, pending, otherwise = [], [], None
    for index, case in enumerate(cases):
        if case.type != "case_statement":
            return None
        value = case.child_by_field_name("value")
        statements = [child for child in case.named_children
                      if child != value and child.type != "comment"]
        if value is not None:
            text = _constant(context, value, tested)
            if not text:
                return None
            pending.append(text)
        if not statements:
            continue
        if index < len(cases) - 1 and statements[-1].type != "break_statement" \
                and not _leaving(context, statements[-1]):
            return None
        if value is None:
            if pending:
                return None
            otherwise = statements
        else:
            branches.append((tuple(pending), statements))
            pending = []
    return (branches, otherwise) if branches and not pending else None


def _values(context, condition, operator: str, tested: _Test) -> tuple[str, ...]:
    """The E... constants errno (`tested`) is compared with by `operator` in `condition`; ()
    when it is also tested otherwise."""
    found = []
    for _, leaf in context.tokens((tested.name,), condition):
        comparison = context.parent(leaf)
        if comparison is None or comparison.type != "binary_expression" or \
                context.text(comparison.child_by_field_name("operator")) != operator:
            return ()
        other = next((side for side in (comparison.child_by_field_name("left"),
                                         comparison.child_by_field_name("right"))
                      if side is not None and side != leaf), None)
        text = _constant(context, other, tested) if other is not None else ""
        if not text:
            return ()
        found.append(text)
    return tuple(dict.fromkeys(found))


def _recovers(context, statements, head, body, start=None):
    """The copy by another path a branch's statements make, or that follows them when they
    fall through (or, in a `switch`, break) to the statements after the chain; None."""
    for statement in statements:
        copy = _copy_in(context, statement)
        if copy is not None:
            return copy
    last = statements[-1] if statements else None
    if last is not None and _leaving(context, last) and not (
            head.type == "switch_statement" and last.type == "break_statement"):
        return None
    end = _decisive(context, _following(context, head, body), _flags(context, statements, start))
    return end[1] if end is not None and end[0] == "copies" else None


def _statements(node) -> list:
    children = node.named_children if node.type == "compound_statement" else [node]
    return [child for child in children if child.type != "comment"]


def _leaving(context, statement) -> bool:
    if statement.type in JUMPS:
        return True
    if statement.type != "expression_statement" or not statement.named_children:
        return False
    call = unwrapped(statement.named_children[0])
    return call is not None and call.type == "call_expression" and \
        callee(context, call) in ABORTS | EXITS


def _decisive(context, statements, flags=None) -> tuple[str, object] | None:
    """("copies", call) when a statement copies before any leaves; ("leaves", statement) when one
    leaves first; None when neither is seen (the end, a loop, a `switch`). `flags`: name ->
    truth the branch before set (`_flags`); an `if` testing one runs only its taken branch."""
    flags = dict(flags or {})
    for statement in statements:
        if statement is None:
            return None
        taken = _taken(context, statement, flags) if flags else None
        if taken is not None:
            end = _decisive(context, taken, flags)
            if end is not None:
                return end
            continue
        copy = _copy_in(context, statement)
        if copy is not None:
            return "copies", copy
        if _leaving(context, statement):
            return "leaves", statement
        _forget_written(context, statement, flags)
    return None


def _flags(context, statements, start=None) -> dict[str, bool]:
    """Name -> truth of the variables `statements` (a branch's own) last set to a constant
    (`still_pending = FALSE;`, `use_cma = 0;`), besides those of `start` (`_initial`) they do
    not write; a variable given anything else, or written inside a statement, is left out."""
    flags = dict(start or {})
    for statement in statements:
        assignment = unwrapped(statement.named_children[0]) \
            if statement.type == "expression_statement" and statement.named_children else None
        target = assignment.child_by_field_name("left") if assignment is not None \
            and assignment.type == "assignment_expression" \
            and context.text(assignment.child_by_field_name("operator")) == "=" else None
        if target is None or target.type != "identifier":
            _forget_written(context, statement, flags)
            continue
        truth = _TRUTHS.get(context.text(unwrapped(assignment.child_by_field_name("right"))))
        if truth is None:
            flags.pop(context.text(target), None)
        else:
            flags[context.text(target)] = truth
    return flags


def _forget_written(context, statement, flags: dict[str, bool]) -> None:
    """Leave out of `flags` the variables `statement` may write."""
    for name in [name for name in flags if next(writes(context, statement, name), None)]:
        del flags[name]


def _initial(context, body, head) -> dict[str, bool]:
    """Name -> truth of the variables `body` declares with a constant (`bool pending = true;`,
    not `static`) that nothing writes again but the statements of the chain at `head`."""
    found = {}
    for declaration in descendants(body):
        if declaration.start_byte >= head.start_byte:
            break
        if declaration.type != "declaration" or any(
                child.type == "storage_class_specifier" for child in declaration.children):
            continue
        for declared in declaration.named_children:
            name = declared.child_by_field_name("declarator") \
                if declared.type == "init_declarator" else None
            truth = _TRUTHS.get(context.text(unwrapped(declared.child_by_field_name("value")))) \
                if name is not None and name.type == "identifier" else None
            if truth is not None and all(
                    node == declared or within(node, head)
                    for node in writes(context, body, context.text(name))):
                found[context.text(name)] = truth
    return found


def _taken(context, statement, flags: dict[str, bool]):
    """The statements an `if (flag)`, `if (!flag)` or `if (flag && ...)` runs given `flags`
    ([] for none), or None where `statement` tests no flag of them or it cannot be told."""
    if statement.type != "if_statement":
        return None
    condition = unwrapped(statement.child_by_field_name("condition"))
    both = condition is not None and condition.type == "binary_expression" \
        and context.text(condition.child_by_field_name("operator")) == "&&"
    truth = _truth(context, condition.child_by_field_name("left") if both else condition, flags)
    if truth is None or both and truth:
        return None  # (`flag && x` with the flag set: x decides)
    if truth:
        return _statements(statement.child_by_field_name("consequence"))
    alternative = statement.child_by_field_name("alternative")
    return _statements(alternative.named_children[-1]) \
        if alternative is not None and alternative.named_children else []


def _truth(context, condition, flags: dict[str, bool]) -> bool | None:
    """The truth of `flag` or `!flag` given `flags`, else None."""
    condition, truth = unwrapped(condition), True
    while condition is not None and condition.type == "unary_expression" \
            and condition.child(0).type == "!":
        truth = not truth
        condition = unwrapped(condition.child_by_field_name("argument"))
    if condition is None or condition.type != "identifier" \
            or context.text(condition) not in flags:
        return None
    return flags[context.text(condition)] == truth


def _following(context, node, body) -> Iterator:
    """The statements that run after `node` falls through, up to the end of `body`: those
    after it in its block, then after the blocks around it; None (and the end) at a loop or
    a `switch`, whose next statement is not the one after."""
    while node != body:
        parent = context.parent(node)
        if parent is None:
            return
        if parent.type in _CONTAINERS:
            after = False
            for child in parent.named_children:
                if after and child.type not in _ALTERNATIVES and child.type != "comment":
                    yield child
                after = after or child == node
        elif parent.type not in ("if_statement", "else_clause", "condition_clause"):
            yield None
            return
        node = parent


def _copy_in(context, node):
    """The first call in `node` copying memory by another path than CMA (see the module)."""
    for call in _calls(node):
        if _copying(context, call) or _copies_locally(context, callee(context, call)):
            return call
    return None


def _copying(context, call, copies=COPIES) -> bool:
    return callee(context, call) in copies or any(
        _PTRACE_COPY.match(context.text(argument)) for argument in arguments(call))


def _calls(node) -> Iterator:
    """The calls in `node` (itself included), in source order."""
    return (found for found in itertools.chain((node,), descendants(node))
            if found.type == "call_expression")


def _copies_locally(context, name: str) -> bool:
    """Whether `name` is a function of the file whose body copies through ptrace or a file
    (`/proc/PID/mem`): a `memcpy` alone may be anything (a logging helper's)."""
    if not name:
        return False
    known = context.shared("c-errno-fallback-copiers", dict)
    if name not in known:
        definition = defined_functions(context, (name,)).get(name)
        body = definition.child_by_field_name("body") if definition is not None else None
        known[name] = body is not None and any(_copying(context, call, _FILE_COPIES)
                                               for call in _calls(body))
    return known[name]
