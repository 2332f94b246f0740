"""Functions of a C/C++ file that return the result of a call of given names (CUR601: the
result of `process_vm_readv`/`process_vm_writev`), found in one place for the rule and its
project index.

`result_wrappers(context, names, value)` extends `names` (called name -> the function whose
result it returns) with the file's plain functions (`c_syntax.plain_function`, the last
definition of a name) every `return` of which hands back the result of a call of one of
`names`, read again until no new one is found:
- unchanged: `return f(...);`, or a variable only ever assigned such a call;
- added up, with -1 still meaning failure: the one `total += n` of the body adds the results
  `n = f(...)` (the one `+=` into a variable; a field, `iov.iov_base += n`, may advance too),
  `total` is otherwise only set to 0, and each `return` gives `total` or -1
  under a check on `n` (a copy in a loop until all bytes are copied), or chooses on `n`
  between them: `return (n != -1) ? total : n;` (`c_failure_path` tells which side a failed
  `n` takes).
`value(node)` evaluates an integer expression (`CConstants.evaluate`).
"""

from __future__ import annotations

from typing import Callable

from msgspec import Struct

from cursedlint.analysis.c_expectations import Assertions
from cursedlint.analysis.c_failure_path import FailurePaths, Result
from cursedlint.analysis.c_memory import value_given
from cursedlint.analysis.c_system_calls import calls_made
from cursedlint.analysis.c_syntax import (
    callee, defined_functions, mentions, plain_function, unwrapped, within, writes,
)


def result_wrappers(context, names: dict[str, str], value: Callable) -> dict[str, str]:
    """`names` and the file's functions that return the result of a call of one of them."""
    names = dict(names)
    new = list(names)
    while new:  # the functions calling a name found last may return its result
        calls = (call for _, call in calls_made(context, new))
        callers = [(function, plain_function(function)) for function
                   in context.enclosing(calls, ("function_definition",))]
        callers = [(function, context.text(plain[0]), plain[2])
                   for function, plain in callers if plain is not None]
        last = defined_functions(context, {name for _, name, _ in callers} - set(names))
        new = []
        for function, name, body in callers:
            if name not in names and last.get(name) == function:
                underlying = _returned_call(context, body, names, value)
                if underlying:
                    names[name] = underlying
                    new.append(name)
    return names


def _returned_call(context, body, names: dict[str, str], value: Callable) -> str | None:
    """The function whose result every `return` of `body` hands back unchanged (a call of one
    of `names`, or a variable only ever assigned such a call), or added up (`_Accumulation`)."""
    returns = context.captures("(return_statement) @r", body).get("r", ())  # (c_error_codes' query)
    accumulation = _accumulation(context, body, names, value)
    found = set()
    for statement in returns:
        returned = unwrapped(statement.named_children[0]) if statement.named_children else None
        if accumulation is not None and accumulation.returns(context, statement, returned,
                                                             value):
            found.add(accumulation.function)
            continue
        if returned is not None and returned.type == "identifier":
            returned = _only_value(context, body, context.text(returned))
        name = callee(context, returned) \
            if returned is not None and returned.type == "call_expression" else ""
        found.add(names.get(name))
    if accumulation is not None and not accumulation.failure_returned:
        return None  # a total, but no -1 on failure: the failure value is not known
    return found.pop() if len(found) == 1 else None


def _only_value(context, body, variable: str):
    """The one value given `variable` in `body`, or None (several, or an increment)."""
    values, mutated = [], False
    for _, leaf in context.tokens((variable,), body):
        parent = context.parent(leaf)
        if leaf.type != "identifier" or not within(parent, body):
            continue
        given = value_given(context, leaf)
        if given is not None and given == parent:
            mutated = True  # `variable++`
        elif given is not None:
            values.append(unwrapped(given))
    return values[0] if len(values) == 1 and not mutated else None


class _Accumulation(Struct):
    """A function that adds the results `result` of calls (`call`, one of them) of `function`
    up in `total`, returns `total`, and returns -1 under a check on `result`, or chooses
    between them on `result` (its failure value is then -1, as the called function's)."""

    function: str
    total: str
    result: str
    call: object
    failure_returned: bool = False

    def returns(self, context, statement, returned, value: Callable) -> bool:
        """Whether a `return` hands back the total, or -1 under a check on the result, or
        one of them chosen on the result."""
        if returned is None:
            return False
        if returned.type == "identifier" and context.text(returned) == self.total:
            return True
        if returned.type == "conditional_expression":
            return self._chooses(context, returned, value)
        if value(returned) != -1:
            return False
        checked = any(found.type == "if_statement" and mentions(
            context, found.child_by_field_name("condition"), self.result)
            for found in context.ancestors(statement))
        self.failure_returned |= checked
        return checked


    def _chooses(self, context, choice, value: Callable) -> bool:
        """Whether `cond ? a : b` gives the total when the result is not a failure, and the
        result (or -1) when it is."""
        paths = FailurePaths(context, Assertions(()), value)
        fails = paths.fails_when(choice.child_by_field_name("condition"),
                                 Result(self.function, self.call, self.result))
        if fails is None:
            return False
        sides = [choice.child_by_field_name(side) for side in ("consequence", "alternative")]
        if None in sides:
            return False  # `n ?: total`
        failure, success = map(unwrapped, sides if fails else reversed(sides))
        chosen = (success.type == "identifier" and context.text(success) == self.total
                  and (value(failure) == -1 or failure.type == "identifier"
                       and context.text(failure) == self.result))
        self.failure_returned |= chosen
        return chosen


def _accumulation(context, body, names: dict[str, str], value: Callable):
    """The one `total += n` of `body` that adds up the results `n = f(...)` of calls of one of
    `names`, with `total` otherwise only set to 0; None if there is no such one."""
    results = {}
    for name, call in calls_made(context, names, body):
        target = _assignment_target(context, call)
        if target is not None:
            results[context.text(target)] = (names[name], call)
    if not results:
        return None
    sums = [node for node in context.descendants(body)  # (`iov.iov_base += n` advances)
            if node.type == "assignment_expression" and not node.has_error
            and context.text(node.child_by_field_name("operator")) == "+="
            and node.child_by_field_name("left").type == "identifier"]
    added = [(context.text(node.child_by_field_name("left")),
              context.text(unwrapped(node.child_by_field_name("right"))))
             for node in sums]
    pairs = {(total, result) for total, result in added if result in results}
    if len(pairs) != 1 or len(added) != 1:
        return None
    total, result = pairs.pop()
    if not _only_zeroed(context, body, total, sums[0], value):
        return None
    function, call = results[result]
    return _Accumulation(function, total, result, call)


def _assignment_target(context, call):
    """`n` in `n = f(...)` (an identifier), else None."""
    parent = context.parent(call)
    if (parent is not None and parent.type == "assignment_expression"
            and parent.child_by_field_name("right") == call
            and parent.child_by_field_name("left").type == "identifier"):
        return parent.child_by_field_name("left")
    return None


def _only_zeroed(context, body, total: str, summing, value: Callable) -> bool:
    """Whether every other write of `total` in `body` sets it to 0."""
    for write in writes(context, body, total):
        if write == summing:
            continue
        given = write.child_by_field_name("value" if write.type == "init_declarator"
                                          else "right")
        if given is None or value(given) != 0:
            return False
    return True

