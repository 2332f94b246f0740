"""Copies between processes chosen by the kernel's version (CUR601): a function that makes a
copy and returns an error code when it fails, called where a test of the kernel's release
(`uname`) picks it over another function given the same arguments (`rc = new_kernel ?
copy_cma(pid, f, n) : copy_proc_mem(pid, f, n);`), that other function not called again. A
kernel past 3.2 may still lack the call (`CONFIG_CROSS_MEMORY_ATTACH=n`: ENOSYS), and a
seccomp filter or the ptrace access check refuses it whatever the version (process_vm_readv(2),
VERSIONS and ERRORS): the failure then ends the operation that the other copy would have done.

`version_gates` reads one file (the project index `c-cma-gates` keeps it per file, searched
for the names of the linted file's copying functions); `gated_copies` gives the linted file's
copies whose functions some file chooses that way. A choice by anything else (an option, a
probe that tries the call, Yama's `ptrace_scope`) is not one: only the version is known to
leave the call's failure out."""

from __future__ import annotations

import os

from msgspec import Struct

from cursedlint.analysis.c_nodes import arguments, unwrapped
from cursedlint.analysis.c_syntax import callee, function_name, plain_function, writes
from cursedlint.analysis.c_system_calls import calls_made
from cursedlint.analysis.cma_facts import CMA_FUNCTIONS
from cursedlint.findings import Step
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer

INDEX = "c-cma-gates"
_COPIES = "cma copies"  # `FileContext.shared`
_VERSION = "uname"
_RELEASE = "release"
_CONSTANTS = frozenset({"number_literal", "true", "false"})
HELP = ("A kernel's version does not say whether process_vm_readv/writev works: a kernel past "
        "3.2 built without CONFIG_CROSS_MEMORY_ATTACH gives ENOSYS, a seccomp filter ENOSYS or "
        "EPERM, the ptrace access check (Yama ptrace_scope) EPERM. Try the copy and fall back "
        "to the other path when it fails with one of these, instead of choosing by the version.")


class VersionGate(Struct, frozen=True):
    """A call choosing `first` or `second` (given the same arguments) by a test of the
    kernel's version, in `caller`, on `line`; the test on `test_line`."""

    first: str
    second: str
    caller: str
    line: int
    test_line: int


def version_gates(context) -> tuple[VersionGate, ...]:
    """The file's calls choosing between two functions by the kernel's version, in the
    functions that read it (call `uname` or a function of the file that does)."""
    if _VERSION.encode() not in context.source.data:
        return ()
    readers = _readers(context)
    found = []
    for function in context.enclosing((call for _, call in context.calls(readers)),
                                      ("function_definition",)):
        body = function.child_by_field_name("body")
        if body is None:
            continue
        versions = _version_names(context, body, readers)
        for choice in context.descendants(body):
            gate = _choice(context, choice, body, versions)
            if gate is not None:
                first, second, test_line = gate
                found.append(VersionGate(first, second, function_name(context, function),
                                         choice.start_point[0] + 1, test_line))
    return tuple(found)


def _readers(context) -> set[str]:
    """`uname` and the file's functions that call it and read its `release` (not one
    giving the machine's architecture or name)."""
    found = {_VERSION}
    for function in context.enclosing((call for _, call in context.calls((_VERSION,))),
                                      ("function_definition",)):
        plain = plain_function(function)
        if plain is not None and _reads(context, function, {_RELEASE: False}):
            found.add(context.text(plain[0]))
    return found


def _version_names(context, body, readers) -> dict[str, bool]:
    """The variables a version reader fills (`&major`) or whose value it gives, each with
    whether it is `uname`'s own `struct utsname` (only its `release` is the version)."""
    names = {}
    for called, call in context.calls(readers, body):
        for argument in arguments(call):
            if argument.type == "pointer_expression" and argument.child(0).type == "&":
                target = unwrapped(argument.child_by_field_name("argument"))
                if target.type == "identifier":
                    names[context.text(target)] = called == _VERSION
        parent = context.parent(call)
        target = parent.child_by_field_name("left") if parent.type == "assignment_expression" \
            else parent.child_by_field_name("declarator") if parent.type == "init_declarator" \
            else None
        if target is not None and target.type == "identifier":
            names[context.text(target)] = False
    return names


def _choice(context, node, body, versions):
    """(first, second, test line) where `node` calls one of two functions by a version test:
    `c ? f(a) : g(a)`, or `if (c) x = f(a); else x = g(a);` (`return f(a);`); None otherwise."""
    if node.type == "conditional_expression":
        branches = (node.child_by_field_name("consequence"),
                    node.child_by_field_name("alternative"))
    elif node.type == "if_statement" and node.child_by_field_name("alternative") is not None:
        alternative = node.child_by_field_name("alternative")
        branches = (_sole(node.child_by_field_name("consequence")),
                    _sole(alternative.named_children[-1] if alternative.named_children else None))
    else:
        return None
    calls = [_branch_call(context, branch) for branch in branches]
    if None in calls or calls[0][0] == calls[1][0] or calls[0][1:] != calls[1][1:]:
        return None
    test = _version_test(context, node.child_by_field_name("condition"), body, versions)
    if test is None or any(_calls_of(context, body, name) != 1 for name, *_ in calls):
        return None  # (the other function called again: maybe a retry)
    return calls[0][0], calls[1][0], test.start_point[0] + 1


def _sole(statement):
    """The one statement a branch is (a block of one), or None."""
    while statement is not None and statement.type == "compound_statement":
        named = [child for child in statement.named_children if child.type != "comment"]
        statement = named[0] if len(named) == 1 else None
    if statement is None or statement.type not in ("expression_statement", "return_statement") \
            or not statement.named_children:
        return None
    return statement.named_children[0] if statement.type == "expression_statement" \
        else statement


def _branch_call(context, node):
    """(function name, what receives the result, the arguments' text) of `f(a)`, `x = f(a)` or
    `return f(a);`."""
    node = unwrapped(node) if node is not None else None
    target = ""
    if node is not None and node.type == "return_statement":
        target, node = "return", unwrapped(node.named_children[0])
    elif node is not None and node.type == "assignment_expression":
        target, node = context.text(node.child_by_field_name("left")), \
            unwrapped(node.child_by_field_name("right"))
    name = callee(context, node, scoped=False, system_calls=False) if node is not None \
        and node.type == "call_expression" else ""
    if not name:
        return None
    given = tuple("".join(context.text(argument).split()) for argument in arguments(node))
    return name, target, given


def _calls_of(context, body, name: str) -> int:
    return len(context.calls((name,), body))


def _version_test(context, condition, body, versions):
    """The version test deciding `condition`: the condition itself where it reads a variable a
    version reader gave, or, for a local flag (`use_cma`, `!use_cma`) given only constants,
    the `if` around one of its writes that does; None otherwise."""
    condition = unwrapped(condition) if condition is not None else None
    if condition is None:
        return None
    if _reads(context, condition, versions):
        return condition
    while condition.type == "unary_expression" and context.text(condition.child(0)) == "!":
        condition = unwrapped(condition.child_by_field_name("argument"))
    if condition.type != "identifier":
        return None
    tests = []
    for write in writes(context, body, context.text(condition)):
        value = write.child_by_field_name("right" if write.type == "assignment_expression"
                                          else "value")
        if value is None or unwrapped(value).type not in _CONSTANTS:
            return None  # given another value than a constant: not the test's alone
        tests.extend(_around(context, write, body, versions))
    return tests[0] if tests else None


def _around(context, node, body, versions) -> list:
    """The version tests of the `if`s around `node` inside `body`."""
    found = []
    for above in context.ancestors(node):
        if above == body:
            break
        test = above.child_by_field_name("condition") if above.type == "if_statement" else None
        if test is not None and _reads(context, test, versions):
            found.append(test)
    return found


def _reads(context, node, names: dict[str, bool]) -> bool:
    """Whether `node` reads one of `names` (a `struct utsname`: with its `release`)."""
    read = {name for name, _ in context.tokens(names, node)} if names else set()
    return any(not names[name] for name in read) or bool(read) and any(
        True for _ in context.tokens((_RELEASE,), node))


def _copies(context) -> list[tuple[str, object]]:
    """The file's calls of process_vm_readv/writev, the calling process's own too, read once
    for the rule's check and the index's look at the file."""
    return context.shared(_COPIES, lambda: calls_made(context, CMA_FUNCTIONS, own=True))


def gated_copies(context, codes) -> list[tuple[object, str, tuple]]:
    """(copy, message, chain) for each of the file's copies inside a function that some file
    of the project (the `c-cma-gates` index; this file alone where it is absent) chooses by
    the kernel's version over a function that makes no copy (`codes`: the project's functions
    returning an error code when theirs fails, and the file's holding one), and that tests no
    `errno` and calls not the other itself."""
    copies = _copies(context)
    if not copies:
        return []
    facts = context.project.get(INDEX, {})
    own = os.path.abspath(context.source.path)
    gates = {path: found for path, found in facts.items() if found}
    if own not in facts:
        gates[own] = version_gates(context)
    found = []
    holders = context.enclosing((call for _, call in copies), ("function_definition",))
    copying = {*codes, *(function_name(context, function) for function in holders)}
    for function in holders:
        name = function_name(context, function)
        code = codes.get(name)
        chosen = next(((path, gate) for path, held in gates.items() for gate in held
                       if name in (gate.first, gate.second)), None)
        if chosen is None:
            continue
        path, gate = chosen
        other = gate.second if name == gate.first else gate.first
        if other in copying or context.calls((other,), function) or any(
                True for _ in context.tokens(("errno",), function)):
            continue  # another copy, or a fallback of its own (a test of errno: see its rule)
        steps = (Step(path, gate.test_line, "the kernel's version is tested"),
                 Step(path, gate.line, f"{gate.caller}() calls {name}() or {other}() by that "
                                       "test, and not the other when the first fails"),
                 Step(context.source.path, code.line,
                      f"{name}() returns {code.described} when {code.calls}() fails")
                 if code is not None else Step(context.source.path, function.start_point[0] + 1,
                                               f"{name}() tries no other copy"))
        found.extend((call, f"{copy_name}() is chosen by the kernel's version over {other}(), "
                            "which is not tried when the copy fails (ENOSYS, EPERM)", steps)
                     for copy_name, call in copies
                     if function.start_byte <= call.start_byte < function.end_byte)
    return found


class CmaGates(Indexer):
    """Per C/C++ file: its `VersionGate`s, for the files holding the name of a function of the
    linted file that makes a copy between processes."""

    name = INDEX
    languages = (C, CPP)
    summary_type = tuple[VersionGate, ...]
    max_rounds = 0

    def words(self, settings):
        """None: the files are searched only from a linted file that needs the facts."""
        return ()

    def seed_words(self, context):
        """The names of the functions holding the file's copies."""
        return {function_name(context, function) for function in context.enclosing(
            (call for _, call in _copies(context)), ("function_definition",))} - {""}

    def needed_by(self, context) -> bool:
        return bool(self.seed_words(context))

    def summarize(self, context):
        return version_gates(context) or None


CMA_GATES = CmaGates()
