"""Functions of a C/C++ file that turn a failed copy into an error code (CUR601: the failure
of `process_vm_readv`/`process_vm_writev`, -1): the failure path of their call
(`c_failure_path`) ends only in `return v` of one constant `v`, or only in `return -errno`
(any of -4095..-1), or of the result itself, when it already is an error code, and another
`return` of theirs gives something else, so that their callers can tell the failure from
success. A caller that asserts on that value, or aborts when it sees it, aborts on the
failed copy one call or more away from it.

`error_codes(context, names, known, paths, value)` extends `known` (called name -> `ErrorCode`)
with the file's plain functions (`c_syntax.plain_function`, the last definition of a name)
that return an error code for a call of one of `names` (name -> the CMA function whose result
it returns, -1 on failure) or of `known`, read again until no new one is found, at most
`MAX_DEPTH` calls away from the copy. `through`: the file's calls through function pointers
that return such a result ((label, call), `c_function_pointers`), whose labels `names` maps.

Across files: `passing_on` summarizes, per file and without the project, the functions that
return a variable one call of another file's function gives (`PassingOn`: the code they
return for each failure value they can tell apart); `composed_codes` composes those with the codes of
the project (`MAX_DEPTH` bounds the chain).
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Callable, Iterator

from msgspec import Struct
from msgspec.structs import replace

from cursedlint.analysis.c_fatal import JUMPS
from cursedlint.analysis.c_system_calls import calls_made
from cursedlint.analysis.c_syntax import (
    callee, defined_functions, function_declarator, parameter_names, plain_function, unwrapped,
)
from cursedlint.analysis.includes import HEADER_SUFFIXES

if TYPE_CHECKING:
    from cursedlint.analysis.c_failure_path import FailurePaths, Result

MAX_DEPTH = 3
"""Calls between a copy and the function that returns its failure as an error code."""
_RETURNS_NAME = re.compile(rb"return(?<!\wreturn)\s*(?:\(\s*)?[A-Za-z_]\w*\s*(?:\)\s*)?;")
"""`return rc;` (and `return (rc);`): a function that may hand on a call's result. (The
word's start is checked behind it: a pattern that begins with its literal is searched for
that literal; one that begins with `\b` or a look-behind is tried at every byte.)"""
_RETURNS_CALL = re.compile(rb"return(?<!\wreturn)\s*(?:\(\s*)?[A-Za-z_]\w*\s*\(")
"""`return f(`: a function that may hand on a call's result whole."""


class ErrorCode(Struct, frozen=True):
    """A function's result when a copy by `underlying` failed: `failure` (its error code, or
    the highest of a range from `lowest`: -1 of `-errno`); `calls` the name it called on `line`
    (of its own file) for that copy; `recorded`: each of its failure paths also writes
    through a pointer parameter (`st->state = FAILED`) before it returns, so a caller that
    ignores the code may still read the failure there."""

    underlying: str
    failure: int
    calls: str
    line: int
    depth: int = 1
    lowest: int | None = None
    recorded: bool = False

    @property
    def described(self) -> str:
        from cursedlint.analysis.c_failure_path import MAX_ERRNO

        return "-errno" if self.lowest == -MAX_ERRNO else str(self.failure)

    def gives(self, value) -> bool:
        """Whether `value` (an integer, or not one) may be this failure."""
        lowest = self.failure if self.lowest is None else self.lowest
        return isinstance(value, int) and lowest <= value <= self.failure


def result_of(context, name: str, call, code: ErrorCode | None = None) -> Result | None:
    """The `Result` of a call whose value is checked in an `if` or kept in a variable
    (`n = f(...)`, `T n = f(...)`); None when its value goes elsewhere. `code`: what the
    called function returns when the copy failed (None: -1)."""
    from cursedlint.analysis.c_expectations import stored_in
    from cursedlint.analysis.c_failure_path import Result

    _, _, target = stored_in(context, call)
    if target is not None and target.type != "identifier":
        return None
    variable = context.text(target) if target is not None else None
    if code is None:
        return Result(name, call, variable)
    return Result(name, call, variable, code.failure, code.lowest)


def error_codes(context, names: dict[str, str], known: dict[str, ErrorCode],
                paths: FailurePaths, value: Callable, through=()) -> dict[str, ErrorCode]:
    """`known` and the file's functions that return an error code for a failed copy."""
    known = dict(known)
    labels = {label for label, _ in through}
    new = [name for name in (*names, *known) if name not in labels]
    extra = list(through)
    while new or extra:
        calls = sorted([*calls_made(context, new), *extra], key=lambda found: found[1].start_byte)
        extra = []
        starts = [call.start_byte for _, call in calls]
        found = {}
        for function in context.enclosing((call for _, call in calls), ("function_definition",)):
            plain = plain_function(function)
            if plain is not None:
                found[context.text(plain[0])] = (function, plain[2])
        last = defined_functions(context, set(found) - set(names) - set(known))
        new = []
        for caller, (function, body) in found.items():
            if caller in names or caller in known or last.get(caller) != function:
                continue
            inside = calls[bisect.bisect_left(starts, body.start_byte):
                           bisect.bisect_left(starts, body.end_byte)]
            code = _error_code(context, body, inside, names, known, paths, value)
            if code is not None:
                known[caller] = code
                new.append(caller)
    return known


def _error_code(context, body, calls, names, known, paths: FailurePaths,
                value: Callable) -> ErrorCode | None:
    """The error code `body` returns when one of its copies (`calls`, the calls in it) fails,
    if every such failure path ends in returning it and another `return` of the body returns
    something else."""
    found = None
    failure_returns, handed_on, told_apart = {}, True, False
    for name, call in calls:
        source = known.get(name)
        if source is not None and source.depth >= MAX_DEPTH:
            continue
        result = result_of(context, name, call, source)
        ended = _one_code(paths, result, value) if result is not None else None
        if ended is None:
            return None  # a failure that may go elsewhere: not one error code
        (failure, lowest), returns, passed, carried = ended
        handed_on &= passed and source is not None
        told_apart |= carried
        underlying = source.underlying if source else names[name]
        depth = source.depth + 1 if source else 1
        candidate = ErrorCode(underlying, failure, name, call.start_point[0] + 1, depth, lowest)
        if found is not None and (found.failure, found.lowest, found.underlying) \
                != (failure, lowest, underlying):
            return None
        found = found or candidate
        failure_returns.update((statement.id, statement) for statement in returns)
    if found is None:
        return None
    if not handed_on and not told_apart and not any(other is None or not found.gives(other)
                                 for other in _other_values(context, body, failure_returns,
                                                            value)):
        return None  # no return tells success apart from the failure (a code handed on
        # whole, `return f(...);`, is told apart as the function giving it tells it)
    if all(_records(context, body, statement) for statement in failure_returns.values()):
        return replace(found, recorded=True)
    return found


def _records(context, body, statement) -> bool:
    """Whether the statements that run just before the `return` `statement` (back through
    its block to a jump, or to a label, which it includes) write through a pointer parameter
    of the function `body` belongs to: `st->state = v`, `*out = v`, `st[i] = v`, `this->m`."""
    declarator = function_declarator(body.parent.child_by_field_name("declarator"))
    parameters = set(parameter_names(context, declarator)) - {""} if declarator else set()
    parameters.add("this")
    before = statement.prev_named_sibling
    while before is not None and before.type not in JUMPS:
        if any(_through(context, target, parameters)
               for target in _assigned(before)):
            return True
        if before.type == "labeled_statement":
            return False
        before = before.prev_named_sibling
    return False


def _assigned(node) -> Iterator:
    """The targets of the assignments and increments in `node`."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.type == "assignment_expression":
            yield node.child_by_field_name("left")
        elif node.type == "update_expression":
            yield node.child_by_field_name("argument")
        stack.extend(node.named_children)


def _through(context, target, parameters: set[str]) -> bool:
    """Whether `target` is memory a pointer parameter in `parameters` points at."""
    target = unwrapped(target) if target is not None else None
    while target is not None and target.type in ("field_expression", "subscript_expression",
                                                 "pointer_expression"):
        if target.type == "field_expression" and target.child(1).type != "->":
            target = unwrapped(target.child_by_field_name("argument"))
            continue
        inner = unwrapped(target.child_by_field_name("argument"))
        if inner is not None and inner.type in ("identifier", "this") \
                and context.text(inner) in parameters:
            return True
        target = inner
    return False


def _one_code(paths: FailurePaths, result: Result, value: Callable):
    """((failure, lowest), the `return`s it ends in, whether each returns the result itself,
    whether a variable the path stored the code into is returned: `err = 99; goto fn_fail;`
    ... `fn_exit: return err;`, a `return` success reaches with another value) when every
    failure path of `result` ends in returning one error code, else None."""
    from cursedlint.analysis.c_failure_path import Outcome

    path = paths.path(result)
    if path is None or path.outcome is not Outcome.END or not path.returns \
            or None in path.returns:
        return None
    codes = {_returned_value(paths, statement, result, value, dict(stored))
             for statement in path.returns for stored in path.stored_at(statement)}
    if len(codes) != 1 or None in codes:
        return None
    passed = all(paths.is_result(_returned(statement), result) for statement in path.returns)
    carried = any(_returned(statement).type == "identifier" and paths.context.text(
        _returned(statement)) in dict(stored) for statement, stored in path.returned)
    return codes.pop(), path.returns, passed, carried


def _other_values(context, body, failure_returns, value: Callable) -> list:
    """The values the `return`s of `body` not in `failure_returns` give (None: not a
    constant); `return -errno` and a bare `return` give none."""
    return [given for key, given in _return_values(context, body, value)
            if key not in failure_returns]


def _return_values(context, body, value: Callable, variable: bytes | None = None
                   ) -> list[tuple[int, int | None]]:
    """(id, value) of the `return`s of `body` that give a value other than `-errno` (None:
    not a constant, as `variable`, a local one, is not)."""
    found = []
    for statement in context.captures("(return_statement) @r", body).get("r", ()):
        returned = _returned(statement)
        if returned is not None and not _is_errno(returned):
            given = None if returned.type == "identifier" and returned.text == variable \
                else value(returned)
            found.append((statement.id, given if isinstance(given, int) else None))
    return found


def _returned(statement):
    return unwrapped(statement.named_children[0]) if statement.named_children else None


def _returned_value(paths: FailurePaths, statement, result: Result, value: Callable,
                    stored: dict[str, int]):
    """(failure, lowest) of what a `return` on the failure path gives: the result's own
    failure value when it returns the result, `-errno` (-1 down to -4095), or the constant it
    returns, or the path `stored` into the variable it returns (lowest None); None when not
    known."""
    from cursedlint.analysis.c_failure_path import MAX_ERRNO

    returned = _returned(statement)
    if returned is None:
        return None
    if paths.is_result(returned, result):
        return result.failure, result.lowest
    if _is_errno(returned):
        return -1, -MAX_ERRNO
    found = stored.get(paths.context.text(returned)) if returned.type == "identifier" \
        and paths.context.text(returned) in stored else value(returned)
    return (found, None) if isinstance(found, int) else None


def _is_errno(node) -> bool:
    """`-errno`."""
    if node.type != "unary_expression" or node.child(0).type != "-":
        return False
    argument = unwrapped(node.child_by_field_name("argument"))
    return argument.type == "identifier" and argument.text == b"errno"


class PassingOn(Struct, frozen=True):
    """A function that may hand on the failure of the one call of `calls` (on `line`) it keeps
    in a variable it returns: for each failure tried (`tried`, (failure, lowest)), the error
    code it then returns (`codes`, None: not one; `passed`: the failure itself) and the values
    of its other `return`s (`others`, None where not a constant). Composed with the callee's
    code once the project is known (`composed_codes`)."""

    calls: str
    line: int
    tried: tuple[tuple[int, int | None], ...]
    codes: tuple[tuple[int, int | None] | None, ...]
    passed: tuple[bool, ...]
    others: tuple[tuple[int | None, ...], ...]


def passing_on(context, paths: FailurePaths, value: Callable, skip) -> dict[str, PassingOn]:
    """The file's plain functions (the last definition of a name) that other files may call
    (not `static` in a source file) and that return a variable given the result of one call of
    a function not in `skip` and not defined in the file (its code comes from another file),
    with what they return for the failures that call may give: every constant the function
    compares the variable with, one above and one below it, and `-errno`; or that return such
    a call's value itself (`return f(...);`: each failure handed on as it is)."""
    from cursedlint.analysis.c_failure_path import MAX_ERRNO, Result

    found = {}
    kept = list(_kept_results(context, skip))
    here = defined_functions(context, {callee(context, site[3]) for site in kept})
    for function, name, body, call, variable in kept:
        called = callee(context, call)
        if called in here:
            continue
        if variable is None:  # `return f(...);`: every failure handed on as it is
            whole = ((0, None), (-1, -MAX_ERRNO))
            found[name] = PassingOn(called, call.start_point[0] + 1, whole, whole,
                                    (True, True), ((), ()))
            continue
        tried = [(failure, None) for failure in _tried(context, body, variable, value)]
        tried.append((-1, -MAX_ERRNO))
        codes, passed, others = [], [], []
        values = None
        for failure, lowest in tried:
            ended = _one_code(paths, Result(called, call, variable, failure, lowest), value)
            codes.append(ended[0] if ended else None)
            passed.append(bool(ended and ended[2]))
            if ended and values is None:
                values = _return_values(context, body, value, variable.encode())
            ends = {statement.id for statement in ended[1]} if ended else set()
            others.append((*(given for key, given in values if key not in ends),
                           *((None,) if ended[3] else ())) if ended else ())
        if any(codes):
            found[name] = PassingOn(called, call.start_point[0] + 1, tuple(tried), tuple(codes),
                                    tuple(passed), tuple(others))
    last = defined_functions(context, set(found))
    return {name: passing for name, passing in found.items() if name in last}


def _kept_results(context, skip):
    """(function, name, body, call, variable) for each plain function other files may call
    (`_exported`) returning a variable
    (`return rc;`) that one call of a function not in `skip` gives its value (`rc = f(...)`),
    or returning such a call's value itself (`return f(...);`, variable None)."""
    returned = []
    for _, _, statement in context.hits(_RETURNS_NAME):
        value = _returned(statement) if statement.type == "return_statement" else None
        if value is not None and value.type == "identifier":
            returned.append((statement, context.text(value)))
    for _, _, leaf in context.hits(_RETURNS_CALL):
        statement = leaf if leaf.type == "return_statement" else context.parent(leaf)
        value = _returned(statement) if statement is not None \
            and statement.type == "return_statement" else None
        if value is not None and value.type == "call_expression" \
                and callee(context, value) not in skip:
            returned.append((statement, value))
    returned.sort(key=lambda found: found[0].start_byte)
    functions = context.enclosing((statement for statement, _ in returned),
                                  ("function_definition",))
    starts = [function.start_byte for function in functions]
    variables: dict[int, set[str]] = {}
    handed: dict[int, list] = {}
    for statement, variable in returned:  # the innermost function holding it
        index = bisect.bisect_right(starts, statement.start_byte) - 1
        while index >= 0 and functions[index].end_byte < statement.end_byte:
            index -= 1
        if isinstance(variable, str):
            variables.setdefault(index, set()).add(variable)
        else:
            handed.setdefault(index, []).append(variable)
    for key, function in enumerate(functions):
        if key not in variables and key not in handed or not _exported(context, function):
            continue
        plain = plain_function(function)
        if plain is None:
            continue
        body = plain[2]
        calls = handed.get(key, ())
        if len(calls) == 1 and key not in variables and result_of(
                context, callee(context, calls[0]), calls[0]) is not None:
            yield function, context.text(plain[0]), body, calls[0], None
            continue
        for variable in sorted(variables.get(key, ())):
            name = re.escape(variable.encode())  # (its start checked behind it)
            assigned = re.compile(name + rb"(?<![\w.>]" + name + rb")\s*=(?!=)")
            calls = [write for _, _, write in context.hits(assigned, body)
                     if write.type in ("assignment_expression", "init_declarator")
                     and _given_call(write) is not None]
            call = _given_call(calls[0]) if len(calls) == 1 else None
            if call is not None and callee(context, call) not in skip \
                    and result_of(context, callee(context, call), call) is not None:
                yield function, context.text(plain[0]), body, call, variable
                break


def _exported(context, function) -> bool:
    """Whether another file may call the function: a header's, or not `static`."""
    return context.source.path.endswith(HEADER_SUFFIXES) or not any(
        child.type == "storage_class_specifier" and child.text == b"static"
        for child in function.children)


def _given_call(write):
    """The call whose value a write gives (`v = f(...)`, `T v = f(...)`), else None."""
    given = write.child_by_field_name("value" if write.type == "init_declarator" else "right")
    given = unwrapped(given) if given is not None else None
    return given if given is not None and given.type == "call_expression" else None


def _tried(context, body, variable: str, value: Callable) -> list[int]:
    """-1, 0 and every constant `variable` is compared with in `body`, each with the integers
    next to it: the function's answer is the same between two of them."""
    bounds = {-1, 0}
    for _, leaf in context.tokens((variable,), body):
        parent = context.parent(leaf)
        if parent is not None and parent.type == "binary_expression":
            other = parent.child_by_field_name("right") \
                if parent.child_by_field_name("left") == leaf \
                else parent.child_by_field_name("left")
            given = value(other)
            if isinstance(given, int):
                bounds.add(given)
    return sorted({near for bound in bounds for near in (bound - 1, bound, bound + 1)})


def composed_codes(direct: dict[str, tuple[str, ErrorCode]],
                   passing: dict[str, tuple[str, PassingOn]]) -> dict[str, tuple[str, ErrorCode]]:
    """Name -> (path, code) of the project's functions returning an error code for a failed
    copy: `direct` (each file's, from its own code) and the functions of `passing` (path,
    `PassingOn`) that hand on the code of a function of another file, up to `MAX_DEPTH`
    calls from the copy."""
    found = dict(direct)
    new = set(found)
    while new:
        fresh = {}
        for name, (path, handing) in passing.items():
            source = found.get(handing.calls)
            if name in found or handing.calls not in new or source is None \
                    or source[1].depth >= MAX_DEPTH:
                continue
            code = _composed(handing, source[1])
            if code is not None:
                fresh[name] = (path, code)
        found.update(fresh)
        new = set(fresh)
    return found


def _composed(passing: PassingOn, source: ErrorCode) -> ErrorCode | None:
    """The code a `PassingOn` returns when its callee returns `source`'s failure, if known."""
    wanted = (source.failure, source.lowest)
    if source.lowest is None:  # the value tried nearest at or below it: the same answer
        exact = [tried for tried in passing.tried if tried[1] is None]
        below = [tried for tried in exact if tried[0] <= source.failure]
        wanted = max(below) if below else min(exact)
    index = passing.tried.index(wanted)
    code = passing.codes[index]
    if code is None:
        return None
    failure, lowest = (source.failure, source.lowest) if passing.passed[index] else code
    returned = ErrorCode(source.underlying, failure, passing.calls, passing.line,
                         source.depth + 1, lowest)
    if not passing.passed[index] and not any(
            other is None or not returned.gives(other) for other in passing.others[index]):
        return None  # no return tells success apart from the failure (a code handed on whole
        # is told apart as its callee tells it)
    return returned
