"""`MacroCallRules`: the value of a call of a function-like macro (`ROUND_UP(n, 8)`,
`MAX(a, sizeof(T))`), from the file's own definitions before the call and those of the
headers in view: each definition's body with its parameters replaced by the arguments' text,
as the preprocessor does, parsed alone and evaluated where the call stands."""

from __future__ import annotations

import re

from cursedlint.analysis.c_constants.syntax import (
    _CONTINUATION, _Env, _UNIT_BODIES, _is_whole_expression, _named_children, _parsed_alone,
    _single, _tests_own_name,
)
from cursedlint.analysis.c_constants.types import _NOTHING, _Value, _beyond_steps


_TOKENS = re.compile(rb"\.?\d(?:[eEpP][-+]|[\w.])*|[A-Za-z_]\w*|\s+|.", re.DOTALL)
"""The preprocessor's tokens, as far as a parameter's replacement needs them: numbers
(`0x1Fu`, `1e-3`: no parameter inside), names, and the rest one byte at a time."""

_MAX_ARGUMENTS = 8  # (more arguments than a size's macro takes: not worth the parse)


def _arguments_text(text: bytes) -> tuple[bytes, ...] | None:
    """The arguments of a macro call, `(a, f(b, c), struct t)`, as the preprocessor splits
    them: at the commas outside parentheses and brackets (a type is an argument as any text
    is; tree-sitter reads `M(struct t)` as an error). None for a comment or a string in them,
    or more than `_MAX_ARGUMENTS`."""
    inner = text[1:-1]
    if any(mark in inner for mark in (b"/*", b"//", b'"', b"'")):
        return None
    given, depth, start = [], 0, 0
    for at, byte in enumerate(inner):
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
        elif byte == ord(",") and depth == 0:
            given.append(inner[start:at].strip())
            start = at + 1
    given.append(inner[start:].strip())
    if given == [b""]:
        given = []
    return tuple(given) if len(given) <= _MAX_ARGUMENTS else None


class MacroCallRules:
    """Calls of function-like macros evaluated through their definitions."""

    def _macro_call(self, node, name: str, env: _Env) -> _Value | None:
        """The value of `node`, a call of `name`, where `name` is a function-like macro there
        (every definition in view must give one value); None where it is no macro."""
        definitions = [(header, event) for header in self._extra_holding(name)
                       if name in header._macro_names for event in header._name(name).macros]
        if name in self._macro_names:  # (a name the file never defines is not searched for)
            definitions += [(self, event) for event in self._name(name).macros
                            if event.start_byte < env.anchor.start_byte]
        if not definitions:
            return None
        given = _arguments_text(node.child_by_field_name("arguments").text)
        if name in env.expanding or given is None:
            return _NOTHING
        inner = env._replace(expanding=env.expanding | {name})
        values = set()
        for owner, definition in definitions:
            body = owner._expanded_body(definition, given)
            if body is None or not (body.type in _UNIT_BODIES or _is_whole_expression(node)):
                return _NOTHING
            values.add(self._eval(body, inner))
        return _single(values, _NOTHING)

    def _expanded_body(self, definition, given: tuple):
        """The expression a `#define NAME(a, b) body` of this evaluator's file expands to with
        the arguments' text `given`, parsed alone, or None (not a function-like definition, a
        different number of arguments, `...`, `#` or `##`, a string in the body, a definition
        inside a test of its own name)."""
        key = ("macro-call", definition.id, given)
        if key not in self._memo:
            self._memo[key] = self._parse_expansion(definition, given)
        return self._memo[key][1]

    def _parse_expansion(self, definition, given: tuple) -> tuple:
        """(tree, expression) of `_expanded_body`: the tree keeps the expression's nodes valid."""
        if definition.type != "preproc_function_def":
            return None, None
        listed = definition.child_by_field_name("parameters")
        parameters = [self.context.text(item) for item in _named_children(listed)] \
            if listed is not None else []
        body = definition.child_by_field_name("value")
        variadic = listed is not None and any(item.type == "..." for item in listed.children)
        if (body is None or variadic or len(parameters) != len(given)
                or _tests_own_name(self.context, definition,
                                   definition.child_by_field_name("name").text)):
            return None, None
        text = _CONTINUATION.sub(b" ", body.text)
        if any(mark in text for mark in (b"#", b'"', b"'")):
            return None, None
        replacing = {parameter.encode(): argument for parameter, argument
                     in zip(parameters, given)}
        text = b"".join(replacing.get(token, token) for token in _TOKENS.findall(text))
        if _beyond_steps(text):
            return None, None
        return _parsed_alone(text, self.context.language)
