"""Function-like macros that call the function one of their arguments names, and their calls
read as calls of that function: `UCS_PROFILE_CALL(ibv_reg_mr, pd, addr, len, access)`, where
`#define UCS_PROFILE_CALL(_func, ...) NAMED_CALL(#_func, _func, ##__VA_ARGS__)` and, a macro
or two deeper, a body does `_func(__VA_ARGS__)`.

A macro's shape (`MacroShape`, `macro_shapes`) is read from its definition's bytes alone: each
call in its body of a parameter or of another name, with which parameter (or the variadic
arguments) each argument is. `calling_macros` resolves shapes, through macros calling others
(`MACRO_DEPTH` levels), to `CallingMacro`s: the argument naming the function and the arguments
the call gets; a name whose definitions disagree, or whose body calls its parameter with
anything but parameters, is none. `macro_calls` finds a file's calls of such a macro given a
function's name and stands a `MacroCall` for each: a call of that function, at the macro's
call, with the mapped arguments (`c_syntax.arguments` and `callee` read it as any call).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from msgspec import Struct

from cursedlint.analysis.c_function_pointers import built_for
from cursedlint.analysis.c_syntax import arguments, callee, line_macros
from cursedlint.patterns import LazyPattern

OTHER, REST = -1, -2
"""A macro argument that is no parameter (`#_func`, `ctx`, `a + 1`); the variadic ones."""
MACRO_DEPTH = 4  # macros calling macros followed
_CALLED = re.compile(rb"(?<!\w)\d*([A-Za-z_]\w*)\s*\(")  # (from a word's start: from each
# of its letters, the rest of a long word was read again)
_NOT_CALLS = frozenset({b"if", b"while", b"for", b"switch", b"return", b"sizeof", b"defined"})
_WORD_BEFORE = LazyPattern(rb"([A-Za-z_]\w*)$")
_NOISE = LazyPattern(rb"/\*.*?\*/|//[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'", re.S)
"""Comments, string and character literals: no calls, no argument lists."""


class MacroShape(Struct, frozen=True, array_like=True):
    """A function-like macro's definition as its calls need it: `parameters` named, whether it
    is `variadic`, and each call in its body that is given a parameter or calls one: (the
    parameter's position, or the called name; each argument's parameter position, `OTHER` or
    `REST`)."""

    parameters: int
    variadic: bool
    calls: tuple[tuple[int | str, tuple[int, ...]], ...]


class CallingMacro(Struct, frozen=True, array_like=True):
    """A macro that calls the function its argument number `function` names, with its
    arguments `arguments` (positions) and, from `rest` on (-1: none), the rest of them."""

    function: int
    arguments: tuple[int, ...]
    rest: int = -1

    def mapped(self, given: list) -> list | None:
        """The call's arguments, of the macro's `given` ones; None where some are missing."""
        if any(position >= len(given) for position in self.arguments) or \
                self.rest > len(given):
            return None
        return [given[position] for position in self.arguments] + (
            given[self.rest:] if self.rest >= 0 else [])


def macro_shapes(data: bytes) -> dict[str, tuple[MacroShape, ...]]:
    """Name -> the shapes of the function-like macros `data` defines (several where `#if`
    branches define one name) whose body calls a parameter or hands one to a call."""
    found: dict[str, tuple[MacroShape, ...]] = {}
    for name, parameters, body in line_macros(data):
        if b"(" not in body:
            continue
        shape = _shape(parameters, body)
        if shape is not None:
            key = name.decode("latin-1")
            found[key] = (*found.get(key, ()), shape)
    return found


def _shape(parameters: bytes, body: bytes) -> MacroShape | None:
    names = [parameter.strip() for parameter in parameters.split(b",")]
    variadic = bool(names) and names[-1] == b"..."
    named = {name: position for position, name in enumerate(names[:-1] if variadic else names)
             if re.fullmatch(rb"[A-Za-z_]\w*", name)}
    if not named:
        return None
    text = _NOISE.sub(_blanked, re.sub(rb"\\\r?\n", b" ", body))
    calls = []
    for match in _CALLED.finditer(text):
        called = match.group(1)
        given = _split(text, match.end())
        if called in _NOT_CALLS or given is None or _declared(text, match.start(1)):
            continue
        tokens = tuple(_token(argument, named, variadic) for argument in given)
        if called in named:
            calls.append((named[called], tokens))
        elif any(token != OTHER for token in tokens):
            calls.append((called.decode("latin-1"), tokens))
    return MacroShape(len(named), variadic, tuple(calls)) if calls else None


def _blanked(match) -> bytes:
    """A comment as a blank, a literal as an empty one."""
    return b" " if match.group().startswith(b"/") else b'""'


def _declared(text: bytes, start: int) -> bool:
    """Whether the name at `start` is no call's: it follows a type's (`void _name(...)`: a
    function the macro declares), not `return` or an operator, or `#` (`prefix_##_name(...)`
    calls a name pasted together)."""
    before = text[max(0, start - 64):start].rstrip()
    if before.endswith(b"#"):
        return True
    word = _WORD_BEFORE.search(before)
    return word is not None and word.group(1) not in (b"return", b"else", b"do")


def _token(argument: bytes, named: dict, variadic: bool) -> int:
    argument = argument.strip()
    if argument.startswith(b"##"):
        argument = argument[2:].strip()
    if variadic and argument == b"__VA_ARGS__":
        return REST
    return named.get(argument, OTHER)


def _split(text: bytes, start: int) -> list[bytes] | None:
    """The arguments of the call whose `(` ends before `start`, split at its own commas; None
    where its `)` is not in `text`."""
    depth, pieces, at = 0, [], start
    for position in range(start, len(text)):
        char = text[position]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            if depth == 0:
                pieces.append(text[at:position])
                return [] if len(pieces) == 1 and not pieces[0].strip() else pieces
            depth -= 1
        elif char == 44 and depth == 0:  # ","
            pieces.append(text[at:position])
            at = position + 1
    return None


def calling_macros(shapes: dict[str, Iterable[MacroShape]],
                   known: dict[str, CallingMacro] | None = None) -> dict[str, CallingMacro]:
    """The calling macros among `shapes` (name -> its definitions' shapes), besides `known`
    ones: those whose every definition calls a parameter, directly or through calling
    macros, in one way."""
    found: dict[str, CallingMacro] = dict(known or {})
    for _ in range(MACRO_DEPTH):
        added = {}
        for name, definitions in shapes.items():
            if name not in found:
                made = {_resolved(shape, found) for shape in definitions}
                if len(made) == 1 and None not in made:
                    added[name] = made.pop()
        if not added:
            break
        found.update(added)
    return found


def _resolved(shape: MacroShape, known: dict[str, CallingMacro]) -> CallingMacro | None:
    """The one way the body's calls of a parameter (or of a calling macro given one) call it,
    else None."""
    made = set()
    for called, tokens in shape.calls:
        if isinstance(called, int):
            made.add(_direct(shape, called, tokens))
        elif called in known:
            made.add(_through(shape, known[called], tokens))
    made.discard(None)
    return made.pop() if len(made) == 1 else None


def _direct(shape: MacroShape, function: int, tokens: tuple) -> CallingMacro | None:
    if OTHER in tokens or REST in tokens[:-1]:
        return None
    if tokens and tokens[-1] == REST:
        return CallingMacro(function, tokens[:-1], shape.parameters)
    return CallingMacro(function, tokens)


def _through(shape: MacroShape, inner: CallingMacro, tokens: tuple) -> CallingMacro | None:
    """The outer macro's `CallingMacro`, where its body gives `tokens` to the macro `inner`."""
    rest = tokens.index(REST) if REST in tokens else None

    def outer(position: int) -> int | None:
        if rest is not None and position >= rest:
            return shape.parameters + position - rest
        return tokens[position] if position < len(tokens) and tokens[position] >= 0 else None

    function = outer(inner.function)
    given = [outer(position) for position in inner.arguments]
    rest_from = -1
    if inner.rest >= 0:
        end = rest if rest is not None else len(tokens)
        given.extend(outer(position) for position in range(inner.rest, end))
        if rest is not None:
            rest_from = shape.parameters + max(0, inner.rest - rest)
    if function is None or None in given:
        return None
    return CallingMacro(function, tuple(given), rest_from)


def macros_reached(shapes: dict[str, Iterable[MacroShape]],
                   given: set[tuple[str, int]]) -> set[str]:
    """The macros of `given` ((name, position of the argument naming a function)) and those
    their definitions among `shapes` hand that argument on to, as far as they go: where the
    definitions that make a macro a calling one may be."""
    reached, pending = set(given), list(given)
    while pending:
        name, position = pending.pop()
        for shape in shapes.get(name, ()):
            for called, tokens in shape.calls:
                if not isinstance(called, str):
                    continue
                for inner, token in enumerate(tokens):
                    if token == position or token == REST and position >= shape.parameters:
                        step = (called, inner + (position - shape.parameters
                                                 if token == REST else 0))
                        if step not in reached:
                            reached.add(step)
                            pending.append(step)
    return {name for name, _ in reached}


def project_shapes(facts: dict) -> dict[str, tuple[MacroShape, ...]]:
    """Name -> the shapes of its definitions in a project index's facts (path -> a summary
    whose `macros` are its file's `macro_shapes`), worked out once per run."""
    def build(found: dict) -> dict:
        shapes: dict[str, tuple] = {}
        for summary in found.values():
            for name, defined in summary.macros.items():
                shapes[name] = (*shapes.get(name, ()), *defined)
        return shapes
    return built_for(facts, "macro shapes", build)


def project_calling_macros(facts: dict) -> dict[str, CallingMacro]:
    """The calling macros the project's files define (`project_shapes`), worked out once per
    run."""
    return built_for(facts, "calling macros", lambda found: calling_macros(project_shapes(found)))


def named_arguments(context, names, node=None) -> Iterator[tuple]:
    """(name, call, position) for each of `names` written alone as an argument of a call of a
    plain name (`M(ibv_reg_mr, ...)`), within `node`."""
    for name, leaf in context.tokens(names, node):
        listed = context.parent(leaf) if leaf.type == "identifier" else None
        call = context.parent(listed) if listed is not None and \
            listed.type == "argument_list" else None
        if call is None or call.type != "call_expression" or not callee(context, call):
            continue
        given = arguments(call)
        position = next((index for index, argument in enumerate(given) if argument == leaf),
                        None)
        if position is not None:
            yield name, call, position


def macro_calls(context, names, macros: dict[str, CallingMacro], node=None) -> list[tuple]:
    """(name, `MacroCall`) for each call of one of `macros` that calls a function of `names`,
    within `node`, in the order the calls start."""
    found = []
    for name, call, position in named_arguments(context, names, node) if macros else ():
        macro = macros.get(callee(context, call))
        if macro is None or macro.function != position:
            continue
        given = arguments(call)
        mapped = macro.mapped(given)
        if mapped is not None:
            found.append((name, MacroCall(call, given[position], mapped)))
    return found


class MacroCall:
    """A call of a function made by a calling macro: the macro's call (`node`, whose bytes and
    place it has), the function's name there (`function`) and the arguments it gets."""

    type = "call_expression"

    def __init__(self, node, function, mapped: list):
        self.node, self.function, self.mapped = node, function, mapped

    def child_by_field_name(self, field: str):
        if field == "function":
            return self.function
        if field == "arguments":
            return _MappedArguments(self.node.child_by_field_name("arguments"), self.mapped)
        return self.node.child_by_field_name(field)

    def __getattr__(self, attribute: str):
        return getattr(self.node, attribute)


class _MappedArguments:
    """A macro call's argument list as the called function gets it."""

    type = "argument_list"

    def __init__(self, node, mapped: list):
        self.node, self.named_children, self.children = node, mapped, mapped

    def __getattr__(self, attribute: str):
        return getattr(self.node, attribute)
