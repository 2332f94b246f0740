"""Fatal handlers of a C/C++ file: the plain functions (`c_syntax.plain_function`) and
function-like macros whose body always ends the process, so that a call of one is an `abort()`
(or an `exit()`) to whoever follows a failure (CUR601: `c_failure_path`).

`fatal_handlers(context, known)` gives name -> `Fatal` for the file's handlers, given the
project's `known` ones (name -> `Fatal`), read again until no new one is found
(`reachable_handlers`: both, with their paths):
- a function: a statement of the body's own block (not under an `if`, a loop, a `switch` or an
  `#if`) calls `abort()`, `exit()` (or `_exit`, `_Exit`, `quick_exit`) or a known handler, and
  no `return`, `goto` or `longjmp` comes before it anywhere in the body;
- a macro: its body calls one of them, and holds no `if`, `?:`, `&&`, `||`, loop (but the
  `do { ... } while (0)` around it), `switch`, `return`, `goto` or `break` (macros are not
  expanded: the text of the body is read).
The kind is "abort" when the first such call aborts (or calls a handler that aborts), else
"exit".

`checked_calls(context)` gives, for the names of the functions whose result an `if` of the
file checks (`if (f(...) != 0)`, or `rc = f(...);` just before `if (rc)`), the function called
by the last statement of a branch of such an `if` that has no `return`, `goto`, `break` or
`continue` (`if (rc) die(...);`): the names among which a handler of another file may be, once
it is known (from the project) that a failure comes out of that function.
"""

from __future__ import annotations

import re

from msgspec import Struct

from cursedlint.analysis.c_syntax import callee, mentions, plain_function, unwrapped

ABORTS = frozenset({"abort", "__builtin_trap"})
EXITS = frozenset({"exit", "_exit", "_Exit", "quick_exit"})
_LEAVES = re.compile(rb"\b(?:return|goto|longjmp|siglongjmp)\b")
_JUMP_WORDS = re.compile(rb"\b(?:return|goto|break|continue)\b")
_CONDITIONAL = re.compile(rb"\b(?:if|for|switch|return|goto|break|longjmp)\b|\?|&&|\|\|"
                          rb"|\bwhile\b(?!\s*\(\s*0\s*\))")
_MACRO_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")


class Fatal(Struct, frozen=True):
    """A handler: `kind` "abort" or "exit"; `line` of its definition (in its own file);
    `calls` the call of its body that ends the process."""

    kind: str
    line: int
    calls: str


def fatal_handlers(context, known: dict[str, Fatal]) -> dict[str, Fatal]:
    """The file's fatal handlers (see the module), besides `known`."""
    found: dict[str, Fatal] = {}
    new = [*ABORTS, *EXITS, *known]
    while new:
        enders = {**{name: "abort" for name in ABORTS}, **{name: "exit" for name in EXITS},
                  **{name: fatal.kind for name, fatal in {**known, **found}.items()}}
        fresh = {}
        for definition in _defining(context, new):
            name, fatal = _handler(context, definition, enders)
            if fatal is not None and name not in known and name not in found:
                fresh[name] = fatal
        found.update(fresh)
        new = list(fresh)
    return found


def reachable_handlers(context, remote: dict[str, tuple[str, Fatal]]
                       ) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of the handlers a call of the file may reach: the project's
    (`remote`) and the file's own."""
    own = fatal_handlers(context, {name: fatal for name, (_, fatal) in remote.items()})
    return {**remote, **{name: (context.source.path, fatal) for name, fatal in own.items()}}


def _defining(context, names) -> list:
    """The function definitions and function-like macro definitions of the file that spell one
    of `names` in their body, once each."""
    found = {}
    for _, _, node in context.hits(names):
        for around in (node, *context.ancestors(node)):
            if around.type in ("function_definition", "preproc_function_def"):
                found.setdefault(around.id, around)
                break
    return list(found.values())


def _handler(context, definition, enders: dict[str, str]) -> tuple[str, Fatal | None]:
    if definition.type == "preproc_function_def":
        return _macro(context, definition, enders)
    plain = plain_function(definition)
    if plain is None:
        return "", None
    name, _, body = plain
    for statement in body.named_children:
        call = statement.named_children[0] if statement.type == "expression_statement" \
            and statement.named_children else None
        called = callee(context, call) if call is not None and call.type == "call_expression" \
            else ""
        if called in enders:
            if _LEAVES.search(context.source.data, body.start_byte, statement.start_byte):
                break  # it may return first (a `return` in a comment too: not followed)
            return context.text(name), Fatal(enders[called], definition.start_point[0] + 1,
                                             called)
    return context.text(name), None


def _macro(context, definition, enders: dict[str, str]) -> tuple[str, Fatal | None]:
    name = context.text(definition.child_by_field_name("name"))
    value = definition.child_by_field_name("value")
    text = context.source.data[value.start_byte:value.end_byte] if value is not None else b""
    if _CONDITIONAL.search(text):
        return name, None
    for match in _MACRO_CALL.finditer(text):
        called = match.group(1).decode("utf-8", errors="replace")
        if called in enders:
            return name, Fatal(enders[called], definition.start_point[0] + 1, called)
    return name, None


def checked_calls(context) -> dict[str, tuple[str, ...]]:
    """Checked name -> the names called in the branches of the `if`s checking it (see the
    module)."""
    found: dict[str, set[str]] = {}
    for _, keyword in context.tokens(("if",)):
        node = context.parent(keyword)
        if node is None or node.type != "if_statement":
            continue
        alternative = node.child_by_field_name("alternative")
        called = {_last_call(context, branch) for branch in (
            node.child_by_field_name("consequence"),
            alternative.named_children[-1] if alternative is not None else None)} - {""}
        if called:
            for name in _checked(context, node) - {""}:
                found.setdefault(name, set()).update(called)
    return {name: tuple(sorted(names)) for name, names in found.items()}


def _last_call(context, branch) -> str:
    """The function the last statement of a branch that does not leave calls, or ""."""
    last = branch
    while last is not None and last.type == "compound_statement" and last.named_children:
        last = last.named_children[-1]
    call = last.named_children[0] if last is not None and last.type == "expression_statement" \
        and last.named_children else None
    if call is None or call.type != "call_expression" or _JUMP_WORDS.search(
            context.source.data, branch.start_byte, branch.end_byte):
        return ""  # (a jump word in a comment or string too: not followed)
    return callee(context, call)


def _checked(context, statement) -> set[str]:
    """The functions whose result the `if` tests: called in its condition, or assigned by the
    statement before it to a variable its condition mentions (`rc = f(...); if (rc)`)."""
    condition = statement.child_by_field_name("condition")
    checked = {callee(context, node) for node in context.descendants(condition)
               if node.type == "call_expression"}
    before = statement.prev_named_sibling
    given = before.named_children if before is not None and before.type == "declaration" \
        else [before.named_children[0]] if before is not None \
        and before.type == "expression_statement" and before.named_children else []
    for write in given:
        if write.type not in ("init_declarator", "assignment_expression"):
            continue
        target = write.child_by_field_name("declarator" if write.type == "init_declarator"
                                           else "left")
        value = unwrapped(write.child_by_field_name("value" if write.type == "init_declarator"
                                                    else "right"))
        if target is not None and target.type == "identifier" and value is not None \
                and value.type == "call_expression" \
                and mentions(context, condition, context.text(target)):
            checked.add(callee(context, value))
    return checked
