"""Fatal handlers of a C/C++ file: the plain functions (`c_syntax.plain_function`) and
function-like macros whose body ends the process, always or under a condition on one of
their parameters, so that a call of one is an `abort()` (or an `exit()`) to whoever follows a
failure (CUR601: `c_failure_path`).

`fatal_handlers(context, known)` gives name -> `Fatal` for the file's handlers, given the
project's `known` ones (name -> `Fatal`), read again until no new one is found
(`reachable_handlers`: both, with their paths):
- a function: a statement of the body's own block (not under an `if`, a loop, a `switch` or an
  `#if`) calls `abort()`, `exit()` (or `_exit`, `_Exit`, `quick_exit`) or a known handler, and
  no `return`, `goto` or `longjmp` comes before it anywhere in the body;
- a macro: its body calls one of them, and holds no `if`, `?:`, `&&`, `||`, loop (but the
  `do { ... } while (0)` around it), `switch`, `return`, `goto` or `break` (macros are not
  expanded: the text of the body is read);
- conditionally, a function or macro (whose body, parsed alone, is read as statements) one of
  whose own statements, before anything that may return and with the parameter unchanged, is
  `if (condition on one parameter)` whose branch always ends the process (`if (rc) abort();`,
  `if (cond) { fprintf(...); abort(); }`), or a call of a conditional handler handing it a
  condition on one parameter (`FATAL_IF(rc < 0)`); `if (rc == 0) return;` before it adds
  "and not that" (`Fatal.argument`, `Fatal.when`: `c_conditions`). A condition that mentions
  anything but the parameter and constants (a verbosity level, a global) makes no handler.
- a function the file declares never to return (`[[noreturn]]`, `_Noreturn`,
  `__attribute__((noreturn))`, a project macro such as `CMK_NORETURN`: `c_noreturn`), its
  definition wherever it is (one per build, perhaps), unless a definition throws or jumps out
  (`c_noreturn.escaping`, over the project: `cma_facts.all_fatal`); one read from its body
  here is taken as read.
A handler that exits is as fatal as one that aborts (CUR601's doc says why); only a direct `exit()` ends a path silently.

`forwards(context, handlers)` gives the calls that the file's function-like macros starting
with a call make with conditions on their parameters (`#define CHECK(rc) check_rc((rc),
__func__)`), or make under a condition on one parameter (`#define assume(op) do { if
(unlikely(!(op))) assert_failed(#op); } while (0)`), and `resolved` makes handlers of them
over the whole project, where the called function is another file's handler.

`checked_calls(context)` gives, for the names of the functions whose result an `if` of the
file checks (`if (f(...) != 0)`, or `rc = f(...);` just before `if (rc)`), the function called
by the last statement of a branch of such an `if` that has no `return`, `goto`, `break` or
`continue` (`if (rc) die(...);`), or by the statement before the jump that ends the branch
(`{ die(...); return rc; }`), and the functions a statement hands that result to
(`g(f(...))`, `rc = f(...); g(rc);`): the names among which a handler of another file may be,
once it is known (from the project) that a failure comes out of that function. A checked
function the file defines counts as a check of what it calls, up to three calls within the
file: a code it hands on (`static int step() { return pull(); }`) comes out of it.
"""

from __future__ import annotations

import re
from typing import Iterator

from msgspec import Struct
from msgspec.structs import replace

from cursedlint.analysis.c_conditions import condition_over, literal, substituted
from cursedlint.analysis.c_noreturn import declared_in, escaping
from cursedlint.analysis.c_syntax import (
    arguments, callee, macro_parameters, mentions, parameter_names, plain_function, unwrapped,
    writes,
)
from cursedlint.patterns import LazyPattern

ABORTS = frozenset({"abort", "__builtin_trap"})
EXITS = frozenset({"exit", "_exit", "_Exit", "quick_exit"})
JUMPS = frozenset({"return_statement", "break_statement", "continue_statement",
                   "goto_statement", "throw_statement"})
"""The statements that leave a block for somewhere else than the next statement."""
_LEAVES = re.compile(rb"\b(?:return|goto|longjmp|siglongjmp)\b")
_JUMP_WORDS = re.compile(rb"\b(?:return|goto|break|continue|longjmp|siglongjmp)\b")
_CONDITIONAL = LazyPattern(rb"\b(?:if|for|switch|return|goto|break|longjmp)\b|\?|&&|\|\|"
                           rb"|\bwhile\b(?!\s*\(\s*0\s*\))")
_MACRO_CALL = LazyPattern(rb"\b([A-Za-z_]\w*)\s*\(")
_NESTED_CALL = LazyPattern(rb"\([ \t]*(?:![ \t]*)?(?:\([ \t]*)?([A-Za-z_][\w:]*)[ \t]*\(")
_ASSIGNED_CALL = LazyPattern(  # `= f(...);` then a call statement `g(...);`
    rb"=[ \t]*(?:\([^()\n]*\)[ \t]*)?([A-Za-z_][\w:]*)[ \t]*\([^;]*;\s*([A-Za-z_]\w*)[ \t]*"
    rb"\(([^;]*);")
_NAME_BACKWARDS = LazyPattern(rb"[ \t]*(\w*[A-Za-z_])(?!\w)")  # an identifier, read backwards
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_PREVIOUS = LazyPattern(rb"\s*(?:[;{}:)]|esle(?!\w))")  # a statement starts after it (backwards)
_NOT_CALLED = frozenset({b"if", b"while", b"for", b"switch", b"return", b"sizeof"})
_CALLING_MACRO = LazyPattern(
    rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)\([^()\n]*\)(?:[ \t]|\\\r?\n)*"
    rb"(?:do[ \t\\\r\n]*\{[ \t\\\r\n]*)?"
    rb"(?:\(void\)[ \t]*)?[A-Za-z_]\w*[ \t]*\(")  # a function-like macro whose body calls first
"""(The body may start on a continued line: `#define RAISE(...) \\` then `do { ... }`; one
that starts with `if (` matches too, for `forwards` made under a condition.)"""
_WRITTEN_AFTER = LazyPattern(rb"\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)")
_WRITTEN_BEFORE = LazyPattern(rb"\s*(?:&|\+\+|--)")  # read backwards
_FORWARDING = 4  # forwards followed in a chain
_CONDITIONS_READ = 8  # a handler's own statements read for a condition (a handler is short)
_STRINGIZING = LazyPattern(rb"#")  # `#cond`, `a ## b`: not C the body can be parsed with


class Fatal(Struct, frozen=True):
    """A handler: `line` of its definition (in its own file); `calls` the call of its body that ends the process (for one `declared` never to
    return, and not read from a body, the mark that says so: `c_noreturn`); for a handler that
    ends it only when its parameter number `argument` (from 0) meets the condition `when`
    (`c_conditions`), the two, and the parameter's name (`parameter`); `argument` is -1 for
    one that always does."""

    line: int
    calls: str
    argument: int = -1
    when: tuple = ()
    parameter: str = ""
    declared: bool = False

    @property
    def conditional(self) -> bool:
        return self.argument >= 0


def fatal_handlers(context, known: dict[str, Fatal], value=literal) -> dict[str, Fatal]:
    """The file's fatal handlers (see the module), besides `known`; `value(node)` the value
    of a constant a handler's condition compares with (an int, else unknown)."""
    declared = declared_handlers(context, known)
    found: dict[str, Fatal] = {}
    new = [*ABORTS, *EXITS, *known, *declared]
    while new:
        handlers = {**declared, **known, **found}
        enders = {*ABORTS, *EXITS, *(name for name, fatal in handlers.items()
                                     if not fatal.conditional)}
        testing = {name: fatal for name, fatal in handlers.items() if fatal.conditional}
        fresh = {}
        for definition in _defining(context, new):
            name, fatal = _handler(context, definition,
                                   _Enders(context, enders, testing, value, _changes(context)))
            if fatal is not None and name not in found and (
                    name not in known or known[name].declared):  # (a body says more)
                fresh[name] = fatal
        found.update(fresh)
        new = list(fresh)
    return {**declared, **found}


def declared_handlers(context, known=()) -> dict[str, Fatal]:
    """The handlers the file declares never to return (`c_noreturn`), but those `known` and
    those whose definition here throws or jumps out."""
    marked = declared_in(context)
    leaving = escaping(context) if marked else frozenset()
    return {name: Fatal(line, mark, declared=True)
            for name, (line, mark) in marked.items() if name not in known and name not in leaving}


def reachable_handlers(context, remote: dict[str, tuple[str, Fatal]], value=literal
                       ) -> dict[str, tuple[str, Fatal]]:
    """Name -> (path, handler) of the handlers a call of the file may reach: the project's
    (`remote`) and the file's own."""
    own = fatal_handlers(context, {name: fatal for name, (_, fatal) in remote.items()}, value)
    return {**remote, **{name: (context.source.path, fatal) for name, fatal in own.items()}}


_NOT_CODE = frozenset({"comment", "string_content", "string_literal", "raw_string_content",
                       "char_literal", "system_lib_string"})
"""Nodes whose bytes call nothing: a name spelled there (`/* exit on error */`) does not make
the definition around it one that calls it."""


def _defining(context, names) -> list:
    """The function definitions and function-like macro definitions of the file that spell one
    of `names` in their body, outside comments and strings (a definition calling one spells
    it there), once each."""
    found = {}
    for _, _, node in context.hits(names):
        if node.type in _NOT_CODE:
            continue
        for around in (node, *context.ancestors(node)):
            if around.type in ("function_definition", "preproc_function_def"):
                found.setdefault(around.id, around)
                break
    return list(found.values())


class _Enders(Struct, frozen=True):
    """What ends the process: the names of the calls that always do, the handlers that do
    under a condition on a parameter; how a handler's constants are valued, and whether a
    statement may change a parameter (`changes(statement, name)`)."""

    context: object
    always: frozenset | set
    testing: dict
    value: object
    changes: object = None


def _handler(context, definition, enders: _Enders) -> tuple[str, Fatal | None]:
    """The name a definition defines and the handler it makes of it, or None."""
    if definition.type == "preproc_function_def":
        return _macro(context, definition, enders)
    plain = plain_function(definition)
    if plain is None:
        return "", None
    name, declarator, body = plain
    return context.text(name), _ending(body.named_children, body, parameter_names(
        context, declarator), definition.start_point[0] + 1, enders, _LEAVES)


def _ending(statements, block, parameters: list[str], line: int, enders: _Enders,
            leaves: re.Pattern[bytes]) -> Fatal | None:
    """How a block of a handler's body ends the process: a statement of its own that calls
    one of `enders.always` (no `return`, `goto`, `longjmp` before it: `leaves`), else the first
    of its own statements (among the first `_CONDITIONS_READ`) that does so under a condition
    on a parameter that nothing before it changed (`if (rc) abort();`, `check_rc(rc);`), after
    any `if (...) return;` on that parameter (the condition is then also that none of these
    returned)."""
    data, offset = block.text, block.start_byte
    guards: list[tuple[int, tuple]] = []
    found = None
    changed = False  # a parameter may have a new value: no condition on it is read after
    since = 0  # where `leaves` are looked for from
    for index, statement in enumerate(statements):
        if leaves.search(data, since, statement.start_byte - offset):
            break  # it may return first (a `return` in a comment too: not followed)
        call = _statement_call(statement)
        called = callee(enders.context, call) if call is not None else ""
        if called in enders.always:
            return _guarded(Fatal(line, called), guards, parameters)
        if found is not None or changed or statement.has_error or index >= _CONDITIONS_READ:
            continue
        guard = _returning_unless(statement, parameters, enders)
        if guard is not None and (not guards or guard[0] == guards[0][0]):
            guards.append(guard)
            since = statement.end_byte - offset
            continue
        found = _conditional(statement, call, parameters, line, enders)
        changed = found is None and enders.changes is not None and any(
            enders.changes(statement, name) for name in parameters if name)
    return _guarded(found, guards, parameters) if found is not None else None


def _guarded(fatal: Fatal, guards: list[tuple[int, tuple]], parameters: list[str]
             ) -> Fatal | None:
    """The handler once the `if (condition) return;` guards before it did not return (None
    where they and its own condition are about different parameters)."""
    if not guards:
        return fatal
    argument = guards[0][0]
    if fatal.conditional and fatal.argument != argument:
        return None
    when = fatal.when if fatal.conditional else None
    for _, condition in reversed(guards):
        when = ("not", condition) if when is None else ("and", ("not", condition), when)
    return Fatal(fatal.line, fatal.calls, argument, when, parameters[argument])


def _returning_unless(statement, parameters: list[str], enders: _Enders
                      ) -> tuple[int, tuple] | None:
    """(parameter, condition) of `if (condition) return;` on one parameter, else None."""
    if statement.type != "if_statement" or statement.child_by_field_name("alternative"):
        return None
    branch = statement.child_by_field_name("consequence")
    while branch is not None and branch.type == "compound_statement" \
            and len(branch.named_children) == 1:
        branch = branch.named_children[0]
    if branch is None or branch.type != "return_statement":
        return None
    return _over(statement.child_by_field_name("condition"), parameters, enders)


def _conditional(statement, call, parameters: list[str], line: int, enders: _Enders
                 ) -> Fatal | None:
    """The handler a statement makes of its function: `if (condition on one parameter)`
    whose branch always ends the process, or a call of a handler that does under a condition,
    given a condition on one parameter."""
    if statement.type == "if_statement":
        tested = _over(statement.child_by_field_name("condition"), parameters, enders)
        branch = statement.child_by_field_name("consequence")
        statements = branch.named_children if branch.type == "compound_statement" \
            else [branch]
        ends = _ending(statements, branch, [], line,
                       _Enders(enders.context, enders.always, {}, enders.value), _JUMP_WORDS)
        if tested is None or ends is None:
            return None
        index, when = tested
        return Fatal(line, ends.calls, index, when, parameters[index])
    handler = enders.testing.get(callee(enders.context, call)) if call is not None else None
    given = arguments(call) if handler is not None else []
    if handler is None or handler.argument >= len(given):
        return None
    passed = _over(given[handler.argument], parameters, enders)
    when = substituted(handler.when, passed[1]) if passed is not None else None
    if when is None:
        return None
    return Fatal(line, callee(enders.context, call), passed[0], when,
                 parameters[passed[0]])


def _over(node, parameters: list[str], enders: _Enders) -> tuple[int, tuple] | None:
    """(index, condition) of the one parameter a condition is about, else None."""
    for index, name in enumerate(parameters):
        if name:
            condition = condition_over(node, name, enders.value)
            if condition is not None:
                return index, condition
    return None


def _statement_call(statement):
    """The call an expression statement makes, or None."""
    node = unwrapped(statement.named_children[0]) if statement.type == "expression_statement" \
        and statement.named_children else None
    return node if node is not None and node.type == "call_expression" else None


def _changes(context):
    """Whether a statement of the file may give the variable `name` a value (the tree is
    read only where its bytes spell the name and an assignment, `++`, `--` or `&`)."""
    data = context.source.data

    def changes(statement, name: str) -> bool:
        return _spelled_written(data, name.encode(), statement.start_byte, statement.end_byte) \
            and next(writes(context, statement, name), None) is not None
    return changes


def _spelled_written(data: bytes, name: bytes, start: int, end: int) -> bool:
    """Whether data[start:end] spells `name` before an assignment, `++` or `--`, or after
    `&`, `++` or `--` (the bytes alone: where the tree is worth asking)."""
    at = data.find(name, start, end)
    while at >= 0:
        if _WRITTEN_AFTER.match(data, at + len(name), end) \
                or _WRITTEN_BEFORE.match(data[max(start, at - 8):at][::-1]):
            return True
        at = data.find(name, at + len(name), end)
    return False


def _macro(context, definition, enders: _Enders) -> tuple[str, Fatal | None]:
    name = context.text(definition.child_by_field_name("name"))
    value = definition.child_by_field_name("value")
    text = context.source.data[value.start_byte:value.end_byte] if value is not None else b""
    line = definition.start_point[0] + 1
    if not _CONDITIONAL.search(text):
        for match in _MACRO_CALL.finditer(text):
            called = match.group(1).decode("utf-8", errors="replace")
            if called in enders.always:
                return name, Fatal(line, called)
    names, body = _macro_block(context, definition, text)
    return name, None if body is None else _ending(  # (a parameter is an expression here)
        body.named_children, body, names, line,
        _Enders(context, enders.always, enders.testing, literal), _JUMP_WORDS)


def _macro_block(context, definition, text: bytes) -> tuple[list[str], object]:
    """A function-like macro's parameters, and the block its body (`text`) makes (None where
    it has none, jumps, or does not read as statements)."""
    names = macro_parameters(context, definition)  # (none for `(...)`: its calls still count)
    return names, _macro_body(text, context.language) \
        if not _JUMP_WORDS.search(text) else None


class Forward(Struct, frozen=True):
    """A call that a function-like macro of a file makes of a function of unknown effect
    (another file's handler, perhaps) with conditions on its own parameters: `given[j]`
    (parameter index, condition) for argument j, or None; `line` of the definition;
    `parameters` its parameters' names; `tested`: (parameter index, condition) when the call
    is made only under that condition (`do { if (!(op)) die(#op); } while (0)`)."""

    calls: str
    line: int
    given: tuple
    parameters: tuple
    tested: tuple | None = None


def forwards(context, handlers: dict[str, Fatal]) -> dict[str, tuple[Forward, ...]]:
    """Name -> the forwards (`Forward`) of the file's function-like macros whose body starts
    with a call, or with `if (condition on one parameter)` whose branch makes calls, that are
    not handlers (`handlers`: the file's and the project's known).
    (Functions are not read for forwards: finding the small ones of every file cost 0.3 s
    over the C worst case; a function calling another file's handler is one only where
    its own file is linted.)"""
    found: dict[str, tuple[Forward, ...]] = {}
    data = context.source.data
    for match in _CALLING_MACRO.finditer(data):  # (`if (` reads as a call there too)
        definition = context.parent(next(context.at([match.span(1)]))[2])
        value = definition.child_by_field_name("value") \
            if definition is not None and definition.type == "preproc_function_def" else None
        name = match.group(1).decode("utf-8", errors="replace")
        if value is None or name in handlers:
            continue
        names, body = _macro_block(context, definition, data[value.start_byte:value.end_byte])
        made = _forwarding(context, body.named_children, names, definition.start_point[0] + 1,
                           handlers) if body is not None else ()
        if made:
            found[name] = made
    return found


def _forwarding(context, statements, parameters: list[str], line: int, handlers: dict
                ) -> tuple[Forward, ...]:
    """The forwards of a macro's block (its `statements`): its own call statements, up to the
    first that is not one, with the conditions their arguments state on the parameters
    (expressions: a macro's parameter is not changed by its body); a call stating none ends
    the process where its callee always does (`shmem_abort(1, "...")` in an error macro). A
    block of one `if (condition on one parameter)` gives the forwards of its branch, made
    under that condition (`tested`)."""
    made = []
    enders = _Enders(context, frozenset(), {}, literal)
    if len(statements) == 1 and statements[0].type == "if_statement" \
            and statements[0].child_by_field_name("alternative") is None:
        tested = _over(statements[0].child_by_field_name("condition"), parameters, enders)
        branch = statements[0].child_by_field_name("consequence")
        inner = branch.named_children if branch.type == "compound_statement" else [branch]
        return tuple(replace(forward, tested=tested) for forward in _forwarding(
            context, inner, parameters, line, handlers)) if tested is not None else ()
    for statement in statements:
        if statement.type != "expression_statement":
            break
        call = _statement_call(statement)
        called = callee(context, call) if call is not None else ""
        if not called or called in handlers or called in ABORTS | EXITS:
            continue
        made.append(Forward(called, line, tuple(_over(argument, parameters, enders)
                                                for argument in arguments(call)),
                            tuple(parameters)))
    return tuple(made)


def resolved(handlers: dict[str, tuple[str, Fatal]],
             forwarding: dict[str, tuple[str, tuple[Forward, ...]]]
             ) -> dict[str, tuple[str, Fatal]]:
    """`handlers` (name -> (path, handler)) with the definitions that forward to one of
    them (`forwarding`: name -> (path, forwards)), to a depth of `_FORWARDING` calls: one
    calling a handler that always ends the process does too; one handing a condition on its
    parameter to the argument a handler tests, ends it when that condition makes the
    handler's true (the first such call)."""
    handlers = dict(handlers)
    for _ in range(_FORWARDING):
        fresh = {}
        for name, (path, made) in forwarding.items():
            if name in handlers:
                continue
            ends = [_through(forward, handlers[forward.calls][1]) for forward in made
                    if forward.calls in handlers]
            ends = [fatal for fatal in ends if fatal is not None]
            always = [fatal for fatal in ends if not fatal.conditional]
            if ends:
                fresh[name] = (path, (always or ends)[0])
        if not fresh:
            break
        handlers.update(fresh)
    return handlers


def _through(forward: Forward, handler: Fatal) -> Fatal | None:
    """The handler a forward to `handler` makes of its definition, or None."""
    if forward.tested is not None:  # made under a condition: an unconditional handler only
        if handler.conditional:
            return None
        index, when = forward.tested
        return Fatal(forward.line, forward.calls, index, tuple(when),
                     forward.parameters[index])
    if not handler.conditional:
        return Fatal(forward.line, forward.calls)
    given = forward.given[handler.argument] if handler.argument < len(forward.given) else None
    when = substituted(handler.when, given[1]) if given is not None else None
    if when is None:
        return None
    return Fatal(forward.line, forward.calls, given[0], when,
                 forward.parameters[given[0]])


def _macro_body(text: bytes, language: str):
    """The block a function-like macro's body makes, parsed alone (`do { ... } while (0)`
    and braces opened), or None where it does not read as statements."""
    from cursedlint.c.context import parse  # (a run without C files loads no C front end)
    from cursedlint.c.parse_budget import NotParsed

    text = _STRINGIZING.sub(b" ", text.replace(b"\\\r\n", b"   ").replace(b"\\\n", b"  "))
    try:
        tree = parse(b"void __cursedlint_macro__(void) {\n" + text + b"\n;}", language)
    except NotParsed:
        return None
    function = tree.root_node.named_children[0] if tree.root_node.named_children else None
    body = function.child_by_field_name("body") if function is not None \
        and function.type == "function_definition" else None
    while body is not None:
        statements = [child for child in body.named_children
                      if child.type not in ("comment", "expression_statement")
                      or child.named_children]
        inner = statements[0] if len(statements) == 1 else None
        if inner is not None and inner.type == "do_statement" and literal(
                inner.child_by_field_name("condition")) == 0:
            body = inner.child_by_field_name("body")
        elif inner is not None and inner.type == "compound_statement":
            body = inner
        else:
            return body if not body.has_error else None
    return None


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
    for name, handler in _handed(context):
        found.setdefault(name, set()).add(handler)
    _through_own(context, found)
    return {name: tuple(sorted(names)) for name, names in found.items()}


def _through_own(context, found: dict[str, set[str]], depth: int = 3) -> None:
    """Adds to `found` the names whose result the file's own checked functions may hand on,
    with their handlers (`return f(...);`, `rc = f(...); ... return rc;`, read from the bytes:
    where a handler may be, never a finding), up to `depth` calls within the file."""
    from cursedlint.analysis.c_syntax import defined_functions

    data, pending = context.source.data, set(found)
    for _ in range(depth):
        own = {name: definition for name, definition in
               defined_functions(context, pending).items() if definition is not None}
        pending = set()
        for name, definition in own.items():
            text = data[definition.start_byte:definition.end_byte]
            handed = set(_RETURNED_CALL.findall(text))
            for variable in set(_RETURNED_NAME.findall(text)):
                handed.update(re.findall(rb"(?<![\w.>])" + re.escape(variable)
                                         + rb"\s*=(?!=)\s*(?:\([^()]*\)\s*)?(\w+)\s*\(", text))
            for called in (found_name.decode() for found_name in handed):
                if called != name and not found.get(called, set()) >= found[name]:
                    found.setdefault(called, set()).update(found[name])
                    pending.add(called)


_RETURNED_CALL = re.compile(
    rb"return(?<!\wreturn)\s*(?:\(\s*)?(?:\([^()]*\)\s*)?([A-Za-z_]\w*)\s*\(")
_RETURNED_NAME = re.compile(rb"return(?<!\wreturn)\s*(?:\(\s*)?([A-Za-z_]\w*)\s*(?:\)\s*)?;")
"""`return f(` and `return rc;` (`_through_own`)."""


def _handed(context) -> Iterator[tuple[str, str]]:
    """(f, g) for the statements that seem to hand the result of a call of `f` to a call of
    `g`: in its first argument (`g(f(...))`, `G(f(...) != 0)`, `G(!f(...))`), or by a
    variable that the statement before assigns (`rc = f(...); g(rc, ...);`). Read from the
    bytes alone (searches that start with a character: 0.08 s over the C worst case's 20 MB,
    where starting with the name took 0.8 s): they only say where a handler may be defined."""
    data = context.source.data
    for match in _NESTED_CALL.finditer(data):
        before = _name_before(data, match.start())
        if before is not None and data[before[0]:before[1]] not in _NOT_CALLED \
                and _PREVIOUS.match(data[max(0, before[0] - 64):before[0]][::-1]):
            yield _last_name(match.group(1)), data[before[0]:before[1]].decode()
    for match in _ASSIGNED_CALL.finditer(data):
        before = _name_before(data, match.start()) if match.group(2) not in _NOT_CALLED \
            else None
        if before is not None and _spells(match.group(3), data[before[0]:before[1]]):
            yield _last_name(match.group(1)), match.group(2).decode()


def _last_name(name: bytes) -> str:
    """`f` of `ns::f`."""
    return name.rpartition(b"::")[2].decode("utf-8", errors="replace")


def _name_before(data: bytes, at: int) -> tuple[int, int] | None:
    """(start, end) of the identifier just before `at` (blanks between), or None. (Read
    backwards: a search for a name ending at `at` tries every place before it.)"""
    found = _NAME_BACKWARDS.match(data[max(0, at - 64):at][::-1])
    return (at - found.end(1), at - found.start(1)) if found is not None else None


def _spells(text: bytes, name: bytes) -> bool:
    """Whether `text` holds the identifier `name`."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _WORD) and (end == len(text)
                                                       or text[end] not in _WORD):
            return True
        at = text.find(name, end)
    return False


def _last_call(context, branch) -> str:
    """The function the last statement of a branch that does not leave calls (or the
    statement before a jump that ends the branch: `{ die(...); return rc; }`, a handler
    perhaps, with a `return` the compiler asks for), or ""."""
    last = branch
    while last is not None and last.type == "compound_statement" and last.named_children:
        statements = last.named_children
        last = statements[-1]
        if last.type in JUMPS and len(statements) > 1:
            last = statements[-2]
    call = last.named_children[0] if last is not None and last.type == "expression_statement" \
        and last.named_children else None
    if call is None or call.type != "call_expression" or _JUMP_WORDS.search(
            context.source.data, branch.start_byte, last.end_byte):
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
