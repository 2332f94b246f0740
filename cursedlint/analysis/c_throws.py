"""Where a C++ `throw` goes (CUR601): out of its function, or into a handler of a `try` around
it that may catch it and recovers; and up the project's callers, by name, to `main` or to a
binding to another language (a Cython file calling it or declaring it `except +`, a pybind11
or nanobind `.def(..., &C::f)`): no recovery there. A chain that ends in a function nothing in
the project calls ends with the API's user, who decides (as with an error code returned to
them): not followed.

A handler recovers unless it throws again (`throw;`) or ends in `abort()`, `exit()` or
`std::terminate()`. It may catch a throw unless the thrown type is a standard exception
(`std::system_error(...)`) and the caught one is none of its bases in the standard's hierarchy
(`catch (InvalidAddress &)` does not catch it; an unqualified `runtime_error(...)` is taken
for the standard's only against a standard handler); a thrown or caught type of the project,
or a thrown value (`throw e;`), may be caught by any handler. A throw inside a lambda, or leaving a
constructor, destructor or operator (called otherwise than by name), is not followed.

The callers of other files come from the `c-throw-callers` index (`ThrowCalls` per file: each
function's calls, with the recovering handlers around each, and the names bound), searched
from the linted file's functions holding a throw that leaves them and a copy (`seed_words`) up
through the callers that call them outside a `catch (...)`, `MAX_DEPTH` rounds; a longer chain
is taken as recovered (unknown: silent).
"""

from __future__ import annotations

import os
import re
from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_fatal import ABORTS, EXITS
from cursedlint.analysis.c_syntax import callee, function_name, unqualified
from cursedlint.findings import Step
from cursedlint.languages import C, CPP, CYTHON
from cursedlint.project.index import Indexer

INDEX = "c-throw-callers"
MAX_DEPTH = 4
ANY = "..."
"""A handler's caught type for `catch (...)`."""

_STANDARD = {
    "exception": None, "logic_error": "exception", "runtime_error": "exception",
    "invalid_argument": "logic_error", "domain_error": "logic_error",
    "length_error": "logic_error", "out_of_range": "logic_error", "future_error": "logic_error",
    "range_error": "runtime_error", "overflow_error": "runtime_error",
    "underflow_error": "runtime_error", "regex_error": "runtime_error",
    "format_error": "runtime_error", "system_error": "runtime_error",
    "filesystem_error": "system_error", "failure": "system_error",
    "bad_alloc": "exception", "bad_array_new_length": "bad_alloc", "bad_cast": "exception",
    "bad_typeid": "exception", "bad_function_call": "exception",
    "bad_optional_access": "exception", "bad_variant_access": "exception",
    "bad_exception": "exception", "bad_weak_ptr": "exception",
}
"""Standard exception -> its base (`<stdexcept>`, `<system_error>`, `<new>`, ...)."""
_ENDS = ABORTS | EXITS | {"terminate"}
_THROW = b"throw"
_PYTHON_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")
_LAST_WORD = re.compile(rb"[A-Za-z_0-9]+\Z")
_TRANSLATED = re.compile(rb"[^\n#]*\bexcept\s*\+")
_CALLING_WORDS = frozenset({b"return", b"if", b"elif", b"while", b"not", b"and", b"or", b"in",
                            b"await", b"yield", b"else", b"assert", b"with", b"is", b"lambda"})


def type_name(context, node) -> str:
    """A type's name as handlers and throws are compared: `std::system_error`, `Error`
    (qualifiers, references and namespaces other than `std` dropped)."""
    text = context.text(node).replace("const", " ").replace("&", " ").replace("*", " ")
    parts = [part.strip() for part in text.split("::") if part.strip()]
    if not parts:
        return ""
    return f"std::{parts[-1]}" if parts[0] == "std" and len(parts) > 1 else parts[-1]


def thrown_type(context, throw) -> str | None:
    """The type `throw T(...)` or `throw T{...}` makes; None for a value or a rethrow."""
    value = throw.named_children[0] if throw.named_children else None
    if value is None:
        return None
    if value.type == "call_expression":
        function = value.child_by_field_name("function")
        return type_name(context, function) if function is not None and function.type in (
            "identifier", "qualified_identifier") else None
    if value.type == "compound_literal_expression":
        return type_name(context, value.child_by_field_name("type"))
    return None


def catches(caught: str, thrown: str | None) -> bool:
    """Whether a handler of `caught` may catch a throw of `thrown` (see the module)."""
    if caught == ANY or thrown is None:
        return True
    name, caught = thrown.removeprefix("std::"), caught.removeprefix("std::")
    if name not in _STANDARD or "::" not in thrown and caught not in _STANDARD:
        return True  # (a type of the project, or perhaps one named as the standard's)
    bases = set()
    while name is not None:
        bases.add(name)
        name = _STANDARD[name]
    return caught in bases


def _recovering(context, clause) -> str | None:
    """The type a `catch` clause catches (`ANY` for `...`) when its handler recovers, else
    None."""
    body = clause.child_by_field_name("body")
    statements = [child for child in body.named_children if child.type != "comment"] \
        if body is not None else []
    if any(statement.type == "throw_statement" for statement in statements):
        return None
    last = statements[-1] if statements else None
    called = last.named_children[0] if last is not None and last.type == \
        "expression_statement" and last.named_children else None
    if called is not None and called.type == "call_expression":
        function = called.child_by_field_name("function")
        if function is not None and type_name(context, function).removeprefix("std::") \
                in _ENDS:
            return None
    parameters = clause.child_by_field_name("parameters")
    declared = next((child for child in parameters.named_children
                     if child.type == "parameter_declaration"), None) \
        if parameters is not None else None
    kind = declared.child_by_field_name("type") if declared is not None else None
    return type_name(context, kind) if kind is not None else ANY


def handlers_around(context, node) -> tuple[str, ...] | None:
    """The types the recovering handlers of the `try`s around `node` in its function catch
    (innermost first); None where a lambda holds it or no function does."""
    found = []
    inner = node
    for around in context.ancestors(node):
        if around.type == "lambda_expression":
            return None
        if around.type == "function_definition":
            return tuple(found)
        if around.type == "try_statement" and inner == around.child_by_field_name("body"):
            for clause in around.named_children:
                if clause.type == "catch_clause":
                    caught = _recovering(context, clause)
                    if caught is not None:
                        found.append(caught)
        inner = around
    return None


def leaves(context, throw) -> bool:
    """Whether the throw leaves its function (no handler around it there may catch it and
    recover), a function that callers call by name."""
    handlers = handlers_around(context, throw)
    if handlers is None or any(catches(caught, thrown_type(context, throw))
                               for caught in handlers):
        return False
    function = next(around for around in context.ancestors(throw)
                    if around.type == "function_definition")
    name = function_name(context, function)
    return bool(name) and not _constructor(context, function, name)


def _constructor(context, function, name: str) -> bool:
    """Whether the function is a constructor (`C::C`, or `C` in the body of class `C`)."""
    declarator = function.child_by_field_name("declarator")
    text = context.text(declarator.child_by_field_name("declarator")) \
        if declarator is not None and declarator.type == "function_declarator" else ""
    if text.endswith(f"{name}::{name}"):
        return True
    owner = next((around for around in context.ancestors(function)
                  if around.type in ("class_specifier", "struct_specifier")), None)
    named = owner.child_by_field_name("name") if owner is not None else None
    return named is not None and context.text(named) == name


def throw_escape(context, throw) -> tuple[Step, ...] | None:
    """The chain by which a throw leaves its function and every caller the project shows
    (`escape`), or None."""
    if not leaves(context, throw):
        return None
    function = next(around for around in context.ancestors(throw)
                    if around.type == "function_definition")
    return escape(context, function_name(context, function), thrown_type(context, throw),
                  throw.start_point[0] + 1)


class ThrowCalls(Struct, frozen=True):
    """A file's functions (by name) -> the calls each makes: (called name, the types the
    recovering handlers around the call catch, line); and the names another language calls
    through a binding (`bound`, name -> line): called in a Cython file or declared there with
    `except +`, or handed to a binding's `.def(...)` (`&Reader::read`, pybind11, nanobind) in
    C++."""

    functions: dict[str, tuple[tuple[str, tuple[str, ...], int], ...]] = {}
    bound: dict[str, int] = {}


def throw_calls(context) -> ThrowCalls:
    """The file's `ThrowCalls`, read once per file."""
    return context.shared("c throw calls", lambda: _throw_calls(context))


def _throw_calls(context) -> ThrowCalls:
    from cursedlint.c.context import descendants

    if context.source.language == CYTHON:
        return ThrowCalls(bound=_cython_calls(context.source.data))
    found: dict[str, dict[tuple[str, tuple[str, ...]], int]] = {}
    bound = {}
    for definition in _definitions(context):
        caller = function_name(context, definition)
        body = definition.child_by_field_name("body")
        if not caller or body is None:
            continue
        calls = found.setdefault(caller, {})
        for node in descendants(body):
            if node.type != "call_expression":
                continue
            name = callee(context, node, templates=True, members=True, system_calls=False)
            if name.startswith("def"):  # (pybind11, nanobind: `.def("read", &Reader::read)`)
                bound.update((given, node.start_point[0] + 1)
                             for given in _addresses(context, node))
            handlers = handlers_around(context, node) if name else None
            if handlers is not None:
                calls.setdefault((name, handlers), node.start_point[0] + 1)
    return ThrowCalls({caller: tuple((name, handlers, line)
                                     for (name, handlers), line in calls.items())
                       for caller, calls in found.items() if calls}, bound)


def _cython_calls(data: bytes) -> dict[str, int]:
    """Name -> first line of the names a Cython file calls (`f(`, `obj.f(`, after an operator
    or a keyword) or declares with `except +` (`ssize_t f(...) except +`, C++ exceptions
    turned into Python ones); not another declaration (`def f(`, `cdef int f(`)."""
    found: dict[str, int] = {}
    for match in _PYTHON_CALL.finditer(data):
        before = data[:match.start()].rstrip(b" \t")[-24:]
        word = _LAST_WORD.search(before)
        if word is not None and word.group(0) not in _CALLING_WORDS:
            closing = data.find(b")", match.end())
            line_end = data.find(b"\n", closing)
            if closing < 0 or not _TRANSLATED.match(data, closing + 1,
                                                     len(data) if line_end < 0 else line_end):
                continue
        found.setdefault(match.group(1).decode(), data.count(b"\n", 0, match.start()) + 1)
    return found


def _addresses(context, call) -> list[str]:
    """The functions whose address a call is given (`&Reader::read`, `&read`)."""
    found = []
    listed = call.child_by_field_name("arguments")
    for argument in listed.named_children if listed is not None else ():
        target = argument.child_by_field_name("argument") \
            if argument.type == "pointer_expression" else None
        target = unqualified(target)
        if target is not None and target.type == "identifier":
            found.append(context.text(target))
    return found


HELP = ("An exception no caller catches ends the program as an abort would. Read another way "
        "for those values (/proc/PID/mem, ptrace, a copy through shared memory) and throw only "
        "where there is none, or catch the exception where such a fallback exists; or let the "
        "peer in with prctl(PR_SET_PTRACER, pid or PR_SET_PTRACER_ANY) in the target process")


def thrown_copies(context, paths, results, reported, described) -> Iterator[tuple]:
    """(result, message, steps) for each copy's `Result` (`c_failure_path`) whose failure path
    reaches a throw that EPERM or ENOSYS reach untested by name (`FailurePaths.thrown`) and
    that leaves to a binding or `main` (`throw_escape`); not for the calls in `reported` (ids:
    a partial fallback's), `described(name)`: how the message names the called function."""
    from cursedlint.analysis.c_errno_fallbacks import RESTRICTED

    if context.source.language != CPP or _THROW not in context.source.data:
        return
    for result in results:
        if result.call.id in reported:
            continue
        chains = {}

        def leaving(throw) -> bool:
            chains[throw.id] = throw_escape(context, throw)
            return chains[throw.id] is not None

        path = paths.thrown(result, leaving)
        if path is None:
            continue
        values = [value for value in RESTRICTED if value in path.unnamed]
        line = path.hit.start_point[0] + 1
        message = (f"{described(result.function)} throws on line {line} for "
                   f"{' and '.join(values)}, which no caller in the project catches")
        yield result, f"{message}: the failure ends the program" if len(message) < 120 \
            else message, (*(Step(context.source.path, line,
                                  f"{value} ({RESTRICTED[value]}) reaches this throw")
                             for value in values), *chains[path.hit.id])


def _definitions(context) -> list:
    """The file's function definitions (a walk of the whole tree: once per file, for the
    callers' summary and the index's seeds alike)."""
    from cursedlint.c.context import descendants

    return context.shared("c function definitions", lambda: [
        node for node in descendants(context.root) if node.type == "function_definition"])


def escape(context, function: str, thrown: str | None, line: int) -> tuple[Step, ...] | None:
    """How a throw of `thrown` leaving `function` (on `line` of the linted file) reaches a
    binding to another language or `main`: the chain of callers calling it outside a handler
    that may catch it; None where every caller the project shows recovers, where the chain
    ends in a function nothing in the project calls (the user of the API decides, as with an
    error code returned to it), or is longer than `MAX_DEPTH`."""
    own = os.path.abspath(context.source.path)
    facts = {path: found for path, found in context.project.get(INDEX, {}).items()
             if path != own}
    facts[own] = throw_calls(context)
    chain = _escape(facts, function, thrown, MAX_DEPTH, {function})
    if chain is None:
        return None
    return (Step(context.source.path, line, f"the throw leaves {function}()"), *chain)


def _escape(facts: dict, function: str, thrown, depth: int, seen: set) -> list[Step] | None:
    """The steps up from `function` to a binding or `main`, or None (see `escape`)."""
    if function == "main":
        return []
    binding = next(((path, found.bound[function]) for path, found in facts.items()
                    if function in found.bound), None)
    if binding is not None:
        return [Step(binding[0], binding[1], f"{function}() is bound to another language "
                                             "here: no recovery in C/C++")]
    callers = [(path, caller, line) for path, found in facts.items()
               for caller, calls in found.functions.items()
               for name, handlers, line in calls
               if name == function and not any(catches(caught, thrown) for caught in handlers)]
    if depth == 0:
        return None
    for path, caller, line in callers:
        if caller in seen:
            continue
        rest = _escape(facts, caller, thrown, depth - 1, seen | {caller})
        if rest is not None:
            ending = ": main() ends" if caller == "main" else ""
            return [Step(path, line, f"{caller}() calls {function}() outside any try that "
                                     f"catches it{ending}"), *rest]
    return None


class ThrowCallers(Indexer):
    """Per C/C++ file: its `ThrowCalls`, for the files naming a function of the linted file
    from which a copy's failure may be thrown out, then their callers (see the module)."""

    name = INDEX
    languages = (C, CPP, CYTHON)
    summary_type = ThrowCalls
    max_rounds = MAX_DEPTH
    max_files, max_bytes = 2000, 64 << 20

    def words(self, settings):
        """None: the files are searched only from a linted file that needs the facts."""
        return ()

    def seed_words(self, context):
        """The names of the file's functions holding a throw that leaves them and a call of a
        CMA function or of a function of the file or the project naming one."""
        return context.shared("c throw seeds", lambda: _seeds(context))

    def needed_by(self, context) -> bool:
        return context.source.language == CPP and bool(self.seed_words(context))

    def summarize(self, context):
        found = throw_calls(context)
        return found if found.functions or found.bound else None

    def more_words_after(self, facts, settings, searched):
        """The functions calling a searched name outside a `catch (...)`, and theirs, as far as
        the facts go (one more round each, to `MAX_DEPTH`)."""
        wanted = set(searched)
        while True:
            callers = {caller for found in facts.values()
                       for caller, calls in found.functions.items() if caller not in wanted
                       and any(name in wanted and ANY not in handlers
                               for name, handlers, _ in calls)}
            if not callers:
                return wanted - set(searched)
            wanted |= callers


def _seeds(context) -> set[str]:
    from cursedlint.c.context import descendants
    from cursedlint.analysis.cma_facts import CMA_WORDS, all_codes, all_wrappers
    from cursedlint.analysis.c_function_pointers import built_for

    if context.source.language != CPP or _THROW not in context.source.data:
        return set()
    facts = context.project.get("cma-wrappers", {})
    copiers = {*CMA_WORDS, *built_for(facts, "cma wrappers", all_wrappers),
               *built_for(facts, "cma codes", all_codes)}
    definitions = _definitions(context)
    copiers.update(function_name(context, definition) for definition in definitions
                   if any(True for _ in context.tokens(CMA_WORDS, definition)))
    copiers.discard("")
    seeds = set()
    for definition in definitions:
        name = function_name(context, definition)
        if not name or _THROW not in definition.text:
            continue
        throws = [node for node in descendants(definition) if node.type == "throw_statement"]
        if any(leaves(context, throw) for throw in throws) and any(
                True for _ in context.tokens(copiers, definition)):
            seeds.add(name)
    return seeds


THROW_CALLERS = ThrowCallers()
