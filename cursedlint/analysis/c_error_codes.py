"""Functions of a C/C++ file that turn a failed copy into an error code (CUR601: the failure
of `process_vm_readv`/`process_vm_writev`, -1): the failure path of their call
(`c_failure_path`) ends only in `return v` of one constant `v` (or of the result itself, when
it already is an error code), and another `return` of theirs gives something else, so that
their callers can tell the failure from success. A caller that asserts on that value, or
aborts when it sees it, aborts on the failed copy one call or more away from it.

`error_codes(context, names, known, paths, value)` extends `known` (called name -> `ErrorCode`)
with the file's plain functions (`c_syntax.plain_function`, the last definition of a name)
that return an error code for a call of one of `names` (name -> the CMA function whose result
it returns, -1 on failure) or of `known`, read again until no new one is found, at most
`MAX_DEPTH` calls away from the copy. `through`: the file's calls through function pointers
that return such a result ((label, call), `c_function_pointers`), whose labels `names` maps.
"""

from __future__ import annotations

import bisect
from typing import Callable

from msgspec import Struct

from cursedlint.analysis.c_expectations import stored_in
from cursedlint.analysis.c_failure_path import MAX_ERRNO, FailurePaths, Outcome, Result
from cursedlint.analysis.c_syntax import defined_functions, plain_function, unwrapped

MAX_DEPTH = 3
"""Calls between a copy and the function that returns its failure as an error code."""


class ErrorCode(Struct, frozen=True):
    """A function's result when a copy by `underlying` failed: `failure` (its error code, or
    the highest of a range from `lowest`: -1 of `-errno`); `calls` the name it called on `line`
    (of its own file) for that copy."""

    underlying: str
    failure: int
    calls: str
    line: int
    depth: int = 1
    lowest: int | None = None

    @property
    def described(self) -> str:
        return "-errno" if self.lowest == -MAX_ERRNO else str(self.failure)

    def gives(self, value) -> bool:
        """Whether `value` (an integer, or not one) may be this failure."""
        lowest = self.failure if self.lowest is None else self.lowest
        return isinstance(value, int) and lowest <= value <= self.failure


def result_of(context, name: str, call, code: ErrorCode | None = None) -> Result | None:
    """The `Result` of a call whose value is checked in an `if` or kept in a variable
    (`n = f(...)`, `T n = f(...)`); None when its value goes elsewhere. `code`: what the
    called function returns when the copy failed (None: -1)."""
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
        calls = sorted([*context.calls(new), *extra], key=lambda found: found[1].start_byte)
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
    failure_returns = set()
    for name, call in calls:
        source = known.get(name)
        if source is not None and source.depth >= MAX_DEPTH:
            continue
        result = result_of(context, name, call, source)
        path = paths.path(result) if result is not None else None
        if path is None or path.outcome is not Outcome.END or not path.returns \
                or None in path.returns:
            return None  # a failure that may go elsewhere: not one error code
        codes = {_returned_value(paths, statement, result, value) for statement in path.returns}
        if len(codes) != 1 or None in codes:
            return None
        failure, lowest = codes.pop()
        underlying = source.underlying if source else names[name]
        depth = source.depth + 1 if source else 1
        candidate = ErrorCode(underlying, failure, name, call.start_point[0] + 1, depth, lowest)
        if found is not None and (found.failure, found.lowest, found.underlying) \
                != (failure, lowest, underlying):
            return None
        found = found or candidate
        failure_returns.update(statement.id for statement in path.returns)
    if found is None:
        return None
    others = [statement for statement in context.captures("(return_statement) @r", body)
              .get("r", ()) if statement.id not in failure_returns]
    if not any(returned is not None and not _is_errno(returned)
               and not found.gives(value(returned))
               for returned in map(_returned, others)):
        return None  # no return tells success apart from the failure
    return found


def _returned(statement):
    return unwrapped(statement.named_children[0]) if statement.named_children else None


def _returned_value(paths: FailurePaths, statement, result: Result, value: Callable):
    """(failure, lowest) of what a `return` on the failure path gives: the result's own
    failure value when it returns the result, `-errno` (-1 down to -4095), or the constant it
    returns (lowest None); None when not known."""
    returned = _returned(statement)
    if returned is None:
        return None
    if paths.is_result(returned, result):
        return result.failure, result.lowest
    if _is_errno(returned):
        return -1, -MAX_ERRNO
    found = value(returned)
    return (found, None) if isinstance(found, int) else None


def _is_errno(node) -> bool:
    """`-errno`."""
    if node.type != "unary_expression" or node.child(0).type != "-":
        return False
    argument = unwrapped(node.child_by_field_name("argument"))
    return argument.type == "identifier" and argument.text == b"errno"
