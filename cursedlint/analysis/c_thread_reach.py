"""Project-wide reach for C, C++ and CUDA: the threads the project starts and the functions
they run, and the functions that make a call a capture prohibits, through a call graph by name
over every file of the project (`CThreadReachIndex`). CUR401 and CUR402 read it.

Per file (`CThreadFacts`, plain data): each function definition (plain, `C::f`, a method in a
class body, of a header too) with the calls its body makes (lambdas inside it left out: they
run when called, not when the function does), its first prohibited call that runs whenever the
function does (not under an `if`, `switch` or `?:`), and the line of a global-mode begin
capture; the threads it starts (`std::thread`/`std::jthread` objects and temporaries, a
vector's `emplace_back`/`push_back`, `pthread_create`, `std::async(std::launch::async, ...)`)
with the functions they run (a named function, `&C::f`, or the calls a lambda's body makes)
and whether they outlive their starter (`CStart.left`); the functions called inside a loop;
and the names it declares vectors of threads or of anything else.

Across files (`ThreadReach`), a call resolves to a function only where the project defines
exactly one function of that name (a member call `obj.f()` included: with several, which one
runs is a type question, left unanswered); going up from a function to its callers, a
caller whose name the project defines several times is known by its class (`C::f`) where that
class defines it once; unknown callees, calls through pointers and threads
a library starts give nothing. Threads are several (`Start.several`) when started in a loop,
into a vector of threads, more than once on the same function in one function, or by a
function the project calls in a loop (`makeThread` returning a `std::thread`). The threads
running when a capture begins (`ThreadReach.running_at`) are those started earlier by a
function called before it, or before the call leading to it in a caller, and not joined since."""

from __future__ import annotations

import os
import re
from functools import cached_property
from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_syntax import (
    arguments, callee, called_member, declared_name, function_name, method_class, unqualified,
)
from cursedlint.analysis.capture_regions import GLOBAL
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer
from cursedlint.patterns import LazyPattern

MAX_DEPTH = 6
"""Calls followed from a thread's entry to a capture, or from a region's call to a
prohibited call (cycles cut)."""

_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_CONDITIONS = frozenset({"if_statement", "switch_statement", "conditional_expression",
                         "case_statement", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef"})
"""Nodes under which a call may not run when its function does (`#ifdef DEBUG` too; and the
operands of `&&`/`||`, `_conditional`)."""
_DEFINITIONS = frozenset({"function_definition", "lambda_expression"})
JOINS = frozenset({"join", "pthread_join"})
"""Calls that wait for a thread: `t.join()`, `pthread_join(t, ...)`."""
STARTS_AND_JOINS = frozenset({"thread", "jthread", "pthread_create", "async", *JOINS})
"""The words every file starting or joining a thread holds, but one putting a thread into a
container it does not declare (`CStart.holder`)."""
_VECTOR = LazyPattern(r"vector(?<!\wvector)\s*<([^;{}()]{1,256}?)>\s*(?:&\s*)?(\w+)\s*[;{=(]")
_THREAD_ELEMENT = LazyPattern(r"\s*(?:std::)?j?thread\s*")
_THREAD_OBJECT = LazyPattern(
    r"thread(?:(?<![\w:<]thread)|(?<=(?<![\w:<])jthread)|(?<=(?<![\w:<])std::thread)"
    r"|(?<=(?<![\w:<])std::jthread))\s+(\w+)\s*[;{=]")
"""A thread object's declaration (`std::thread worker_;`, `std::jthread`, `jthread`): its name.
(These patterns lead with their word, the boundary checked behind it: led by `\\b` or a
lookbehind, `re` tried them at every character, 18 s of the 8,577 C/C++ files of 27 trees;
led by the word, 0.3 s.)"""
_READ = frozenset({"call_expression", "new_expression", "declaration"})
"""The nodes of a function's body its facts come from: calls, and declarations of threads."""


class CFunction(Struct, frozen=True, array_like=True):
    """A function definition: its calls (callee, line), the names of those that run whenever
    it does (`sure`: not under a condition), its first unconditional prohibited call (name,
    line), its CUDA calls (name, first line; a project function named like one is told apart
    across files), the line of a global-mode begin capture in it, and its class."""

    name: str
    line: int
    calls: tuple[tuple[str, int], ...]
    prohibited: tuple[str, int] | None
    cuda: tuple[tuple[str, int], ...]
    capture: int | None
    sure: tuple[str, ...] = ()
    owner: str = ""
    """The class it is a member of (`method_class`): its constructor's threads run by the
    time any other member function runs."""


class CStart(Struct, frozen=True, array_like=True):
    """A thread start: the functions the thread runs, the function starting it ("" at file
    scope), its line, and why several run at once ("" for one)."""

    entries: tuple[str, ...]
    starter: str
    line: int
    several: str
    left: bool = False
    """Whether the thread still runs when its starter returns: kept in a vector, a member or
    a global, detached, moved away, or a `pthread_create` handle, with no join after it in
    the starter (a thread the starter returns, a `std::async` task: not)."""
    holder: str = ""
    """Where the thread is put into a container the file does not declare (`threads_` of
    `threads_.emplace_back(f)`, declared in a header): the start counts only where the
    project declares that name a vector of threads, and no other vector; or the member a
    constructor's initializer makes (`worker_(&C::run, this)`): where it declares it a
    thread object."""
    team: str = ""
    """How an OpenMP parallel region is written (`omp parallel for`) where the start is one:
    its threads run the calls of its block at once and are joined at its end."""


class CThreadFacts(Struct, frozen=True):
    """What one C/C++ file gives the project's reach."""

    functions: tuple[CFunction, ...]
    starts: tuple[CStart, ...]
    looped: tuple[str, ...]
    regions: tuple[str, ...]
    """The names called between a begin and an end capture of one stream."""
    vectors: tuple[str, ...] = ()
    """The names the file declares vectors of threads (`std::vector<std::thread> threads_`)."""
    other_vectors: tuple[str, ...] = ()
    """The names it declares vectors of anything else."""
    threads: tuple[str, ...] = ()
    """The names it declares thread objects (`std::thread worker_;`)."""


def _own_nodes(node) -> Iterator:
    """The named nodes under `node`, lambdas' bodies left out."""
    return (found for found, _, _ in _placed_nodes(node))


def _called_or_made(context, call) -> str:
    """The name a call resolves by: the function's (`f`, `ns::f`), the member's (`obj.f`,
    `p->f`), the constructor's of `new T(...)`; "" for anything else."""
    if call.type == "new_expression":
        written = call.child_by_field_name("type")
        written = unqualified(written)
        return context.text(written) if written is not None and written.type == \
            "type_identifier" else ""
    return callee(context, call, members=True)


def _placed_nodes(body, stop: frozenset = frozenset({"lambda_expression"}),
                  kinds: frozenset | None = None) -> Iterator[tuple]:
    """(node, innermost loop around it in `body` or None, whether it runs only under a
    condition in `body`) for the named nodes under `body` (those of `kinds` when given), not
    under a node of a `stop` type (by default lambdas' bodies). One cursor walk: no list of a
    node's children is held (an initializer of 200,000 values), nor a climb to the body from
    each node; each node's type is read once."""
    cursor = body.walk()
    down, along, up = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
    if not down():
        return
    above: list[tuple] = []
    loop, conditional = None, False
    while True:
        node = cursor.node
        kind = node.type
        if node.is_named if kinds is None else kind in kinds:
            yield node, loop, conditional
        if kind not in stop and down():
            above.append((loop, conditional))
            if kind in _LOOPS:
                loop = node
            conditional = conditional or _conditional(node, kind)
            continue
        while not along():
            if not above:
                return
            up()
            loop, conditional = above.pop()


def _conditional(node, kind: str) -> bool:
    """Whether what is under `node` (of type `kind`) may not run when `node` does."""
    if kind in _CONDITIONS:
        return True
    return kind == "binary_expression" and node.child_by_field_name(
        "operator").type in ("&&", "||")


def _line(node) -> int:
    return node.start_point[0] + 1


class _FileReader:
    """Reads `CThreadFacts` off one parsed file."""

    def __init__(self, context):
        self.context = context
        self.text = context.source.data.decode("utf-8", "surrogateescape")

    def facts(self) -> CThreadFacts | None:
        from cursedlint.analysis.c_capture import C_BEGINS, captured_statements

        functions, starts, looped = [], [], set()
        for node, _, _ in _placed_nodes(self.context.root, _DEFINITIONS):
            if node.type != "function_definition":
                continue
            name, body = function_name(self.context, node), node.child_by_field_name("body")
            if name and body is not None:
                begun: list[tuple] = []
                functions.append(self._function(name, node, body, looped, begun))
                starts.extend(self._starts(name, body, begun))
                starts.extend(self._team_starts(name, body))
                if name == functions[-1].owner:
                    starts.extend(self._member_starts(name, node))
        regions = sorted({name for _, begin in self.context.calls(C_BEGINS)
                          for statement in captured_statements(self.context, begin) or ()
                          for node in (statement, *_own_nodes(statement))
                          if node.type in ("call_expression", "new_expression")
                          for name in (_called_or_made(self.context, node),) if name})
        declared = _VECTOR.findall(self.text)
        vectors = {kind: sorted({name for element, name in declared
                                 if (_THREAD_ELEMENT.fullmatch(element) is not None) == kind})
                   for kind in (True, False)}
        threads = sorted(set(_THREAD_OBJECT.findall(self.text)))
        if not functions and not starts and not vectors[True] and not vectors[False] \
                and not threads:
            return None
        return CThreadFacts(tuple(functions), tuple(starts), tuple(sorted(looped)),
                            tuple(regions), tuple(vectors[True]), tuple(vectors[False]),
                            tuple(threads))

    def _function(self, name: str, definition, body, looped: set, begun: list) -> CFunction:
        """The function's facts; the thread starts in it go to `begun` (entries, node,
        innermost loop), from the same walk (no list of its nodes is held)."""
        from cursedlint.analysis.c_capture import C_BEGINS, C_CUDA_CALL, C_SYNC_NAMES, capture_mode

        calls, prohibited, cuda, capture, sure = [], None, {}, None, set()
        for node, loop, conditional in _placed_nodes(body, kinds=_READ):
            if node.type != "new_expression":
                entries = self._started(node)
                if entries:
                    begun.append((entries, node, loop))
                if node.type == "declaration":
                    continue
            called = _called_or_made(self.context, node)
            if not called:
                continue
            calls.append((called, _line(node)))
            if not conditional:
                sure.add(called)
            if loop is not None:
                looped.add(called)
            if C_CUDA_CALL.fullmatch(called):
                cuda.setdefault(called, _line(node))
            if prohibited is None and called in C_SYNC_NAMES and not conditional:
                prohibited = (called, _line(node))
            if capture is None and called in C_BEGINS and \
                    capture_mode(self.context, node) == GLOBAL:
                capture = _line(node)
        return CFunction(name, _line(definition), tuple(calls), prohibited,
                         tuple(cuda.items()), capture, tuple(sorted(sure)),
                         method_class(self.context, definition))

    def _starts(self, starter: str, body, begun: list) -> list[CStart]:
        found, joins = [], []
        for entries, node, loop in begun:
            if loop is not None and self._joined(node, loop, loop.end_byte):
                loop = None  # (one at a time: each is joined before the next starts)
            found.append((entries, node, "started in a loop" if loop else
                          "put in a vector of threads" if node.type == "call_expression"
                          and self._holder(node) else ""))
        if found:
            joins = [node.start_byte for node in _own_nodes(body) if node.type ==
                     "call_expression" and _called_or_made(self.context, node) in JOINS]
        return [CStart(entries, starter, _line(node), several or (
            "another thread runs it alongside" if self._overlapping(entries, node, body, found)
            else ""), self._left(node, body, joins), self._holder(node)
            if node.type == "call_expression" and not self._into_vector(node) else "")
            for entries, node, several in found]

    def _team_starts(self, starter: str, body) -> Iterator[CStart]:
        """The OpenMP parallel regions of `body` whose threads all run the same code (not
        `parallel sections`): the calls every thread of the team makes."""
        from cursedlint.analysis.c_openmp import everyone_runs, regions_in  # (C/C++ only)

        for region in regions_in(self.context, body):
            entries = sorted({name for code in everyone_runs(self.context, region.block)
                              for node in (code, *_own_nodes(code))
                              if node.type in ("call_expression", "new_expression")
                              for name in (_called_or_made(self.context, node),) if name})
            if entries and not region.sections:
                yield CStart(tuple(entries), starter, _line(region.pragma),
                             f"an OpenMP parallel region (`{region.written}`)",
                             team=region.written)

    def _member_starts(self, constructor: str, definition) -> list[CStart]:
        """The threads a constructor starts in its member initializers (`worker_(&C::run,
        this)`, `worker_{[this] { run(); }}`), left running: each counts where the project
        declares the member a thread (`CStart.holder`)."""
        found = []
        for listed in definition.named_children:
            for initializer in listed.named_children if \
                    listed.type == "field_initializer_list" else ():
                field, given = (initializer.named_children + [None, None])[:2]
                if field is None or field.type != "field_identifier" or given is None \
                        or given.type not in ("argument_list", "initializer_list") \
                        or not given.named_children:
                    continue
                entries = self._runs(given.named_children[0])
                if entries:
                    found.append(CStart(entries, constructor, _line(initializer), "", True,
                                        self.context.text(field)))
        return found

    def _left(self, start, body, joins: list[int]) -> bool:
        """Whether the thread started at `start` still runs when `body`'s function returns:
        no join in `body` after it, and neither returned nor a `std::async` task; a declared
        `std::thread` only when detached or moved away (a `std::jthread` joins itself)."""
        if any(at > start.end_byte for at in joins):
            return False
        if start.type == "declaration":
            written = self.context.text(start.child_by_field_name("type"))
            handles = "|".join(re.escape(name) for declarator in start.children_by_field_name(
                "declarator") if (name := declared_name(self.context, declarator)))
            after = self.context.source.data[start.end_byte:body.end_byte].decode(
                "utf-8", "surrogateescape")
            return written.endswith("thread") and not written.endswith("jthread") and bool(
                handles) and re.search(rf"\b(?:(?:{handles})\s*\.\s*detach\s*\(|move\s*\(\s*"
                                       rf"(?:{handles})\s*\))", after) is not None
        function = start.child_by_field_name("function")
        if "async" in self.context.text(function):
            return False
        for node in self.context.ancestors(start):
            if node.type == "return_statement":
                return False
            if node == body:
                return True
        return True

    def _overlapping(self, entries, node, body, found) -> bool:
        """Whether another start of the same function in `body` runs alongside `node`'s
        (the earlier of the two not joined before the later starts)."""
        for other, other_node, _ in found:
            if other != entries or other_node == node:
                continue
            first, second = sorted((node, other_node), key=lambda start: start.start_byte)
            if not self._joined(first, body, second.start_byte):
                return True
        return False

    def _started(self, node) -> tuple[str, ...]:
        """The functions a thread started at `node` runs (empty: no thread start)."""
        from cursedlint.analysis.c_capture import C_THREAD_TYPES

        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            named = self.context.source.data[function.start_byte:function.end_byte] \
                if function else b""
            text = re.sub(r"\s+", "", self.context.text(function)) \
                if b"thread" in named or b"async" in named else ""  # (no thread start else)
            given = arguments(node)
            if text in C_THREAD_TYPES or self._holder(node):
                return self._runs(given[0]) if given else ()
            if text in ("pthread_create",) and len(given) >= 3:
                return self._runs(given[2])
            if text in ("std::async", "async") and len(given) >= 2 and \
                    self.context.text(given[0]).endswith("launch::async"):
                return self._runs(given[1])
            return ()
        if node.type == "declaration":
            type_node = node.child_by_field_name("type")
            if type_node is None or self.context.text(type_node) not in C_THREAD_TYPES:
                return ()
            for declarator in node.children_by_field_name("declarator"):
                listed = declarator.child_by_field_name("value") \
                    if declarator.type == "init_declarator" else \
                    declarator.child_by_field_name("parameters") \
                    if declarator.type == "function_declarator" else None
                if listed is not None and listed.type in (
                        "argument_list", "initializer_list", "parameter_list") \
                        and listed.named_children:
                    first = listed.named_children[0]
                    if first.type == "parameter_declaration":
                        first = first.child_by_field_name("type")
                    return self._runs(first)
        return ()

    def _joined(self, start, scope, before: int) -> bool:
        """Whether the thread declared at `start` is joined in `scope` after it and before
        the byte offset `before` (a thread that is no declared object: never)."""
        if start.type != "declaration":
            return False
        handles = {declared_name(self.context, declarator)
                   for declarator in start.children_by_field_name("declarator")}
        for node in _own_nodes(scope):
            member = called_member(node) if node.type == "call_expression" else None
            if member is not None and start.end_byte < node.start_byte < before and \
                    self.context.text(member.child_by_field_name("field")) == "join" and \
                    self.context.text(member.child_by_field_name("argument")) in handles:
                return True
        return False

    def _holder(self, call) -> str:
        """`v` of `v.emplace_back(...)`/`v.push_back(...)` (`this->v` too), or ""."""
        member = called_member(call)
        if member is None or self.context.text(member.child_by_field_name("field")) not in (
                "emplace_back", "push_back"):
            return ""
        holder = self.context.text(member.child_by_field_name("argument"))
        holder = holder.removeprefix("this->")
        return holder if re.fullmatch(r"\w+", holder) else ""

    def _into_vector(self, call) -> bool:
        """`v.emplace_back(f, ...)`/`v.push_back(std::thread(f))` where the file declares `v` a
        vector of threads."""
        holder = self._holder(call)
        return bool(holder) and re.search(
            rf"vector\s*<\s*(?:std::)?j?thread\s*>\s*(?:&\s*)?{re.escape(holder)}\b",
            self.text) is not None

    def _runs(self, callable_node) -> tuple[str, ...]:
        """The functions a thread runs given `callable_node`: a function's name (`f`, `&f`,
        `&C::f`), or those a lambda's body calls."""
        from cursedlint.analysis.c_capture import C_THREAD_TYPES

        node = callable_node
        if node.type == "pointer_expression":
            node = node.child_by_field_name("argument")
        if node.type == "lambda_expression":
            body = node.child_by_field_name("body")
            return tuple(sorted({
                name for call in _own_nodes(body) if call.type == "call_expression"
                for name in (_called_or_made(self.context, call),) if name})) \
                if body is not None else ()
        node = unqualified(node)
        if node is not None and node.type in ("identifier", "type_identifier"):
            name = self.context.text(node)
            return () if name in C_THREAD_TYPES else (name,)
        return ()


def thread_facts(context) -> CThreadFacts | None:
    """One file's `CThreadFacts` (None: it defines no function and starts no thread)."""
    return _FileReader(context).facts()


class CallStep(Struct, frozen=True, array_like=True):
    """A function on a path: its name, file and line."""

    name: str
    path: str
    line: int


class Running(Struct, frozen=True):
    """A thread running when a capture begins (`ThreadReach.running_at`): the calls from the
    function it was started before down to the capturing function (empty: started there),
    the calls down to the function starting it (empty: started in the first), that
    function's file, the start, and its CUDA call (the project functions to it, their file,
    the API's name, its line)."""

    to_capture: list[CallStep]
    to_start: list[CallStep]
    started_in: str
    start: CStart
    cuda: tuple
    instance: str = ""
    """The class whose constructor started it, where the function it was started before is
    one of its member functions (`ThreadReach.constructed`)."""


class ThreadReach:
    """The project's functions by name, the threads it starts and what they reach."""

    def __init__(self, facts: dict[str, CThreadFacts]):
        self.facts = facts
        self._joins: dict[str, bool] = {}
        self._leaves: dict[tuple[str, int], tuple | None] = {}

    @cached_property
    def _definitions(self) -> dict[str, list[tuple[str, CFunction]]]:
        found: dict[str, list] = {}
        for path, facts in self.facts.items():
            for function in facts.functions:
                found.setdefault(function.name, []).append((path, function))
        return found

    @cached_property
    def _by_class(self) -> dict[str, list[tuple[str, CFunction]]]:
        """`C::f` -> its definitions, for the names the project defines several times (a
        `Create` of two classes): a function calling others is known by its class where its
        name alone does not say which it is."""
        found: dict[str, list] = {}
        for name, defined in self._definitions.items():
            for path, function in defined if len(defined) > 1 else ():
                if function.owner:
                    found.setdefault(f"{function.owner}::{name}", []).append((path, function))
        return found

    def defined(self, name: str) -> tuple[str, CFunction] | None:
        """The project's one definition of `name` (a name, or `C::f` from `_callers`), or
        None (none, or several)."""
        found = self._definitions.get(name, ()) if "::" not in name else \
            self._by_class.get(name, ())
        return found[0] if len(found) == 1 else None

    @cached_property
    def _looped(self) -> set[str]:
        return {name for facts in self.facts.values() for name in facts.looped}

    @cached_property
    def _vectors(self) -> set[str]:
        """The names the project declares vectors of threads, and no other vector."""
        threads = {name for facts in self.facts.values() for name in facts.vectors}
        return threads - {name for facts in self.facts.values() for name in facts.other_vectors}

    @cached_property
    def _threads(self) -> set[str]:
        """The names the project declares thread objects, and no vector."""
        threads = {name for facts in self.facts.values() for name in facts.threads}
        return threads - {name for facts in self.facts.values()
                          for name in (*facts.vectors, *facts.other_vectors)}

    def _known(self, start: CStart) -> bool:
        """Whether a start is one: its file shows it, or its container is a vector of threads,
        or the member it initializes a thread object."""
        return not start.holder or start.holder in self._vectors or (
            start.several == "" and start.left and start.holder in self._threads)

    def starts(self) -> Iterator[tuple[str, CStart, str]]:
        """(path, start, why several) of the project's thread starts of several threads."""
        for path, facts in self.facts.items():
            for start in filter(self._known, facts.starts):
                several = start.several or (
                    f"{start.starter}() is called in a loop" if start.starter in self._looped
                    and self.defined(start.starter) else "")
                if several:
                    yield path, start, several

    def path_to(self, entry: str, goal, depth: int = MAX_DEPTH,
                sure: bool = False) -> list[CallStep] | None:
        """From the function `entry` to the first function for which `goal(path, function)`
        holds, breadth first, cycles cut: each step is a function with the line of its call
        of the next (the last: the function's own line); None: none reached. With `sure`,
        only through calls that run whenever their function does."""
        if self.defined(entry) is None:
            return None
        came: dict[str, tuple[str, int] | None] = {entry: None}
        frontier = [entry]
        for _ in range(depth + 1):
            following = []
            for name in frontier:
                path, function = self.defined(name)
                if goal(path, function):
                    return self._steps(came, name)
                for called, line in function.calls:
                    if called not in came and self.defined(called) is not None and (
                            not sure or called in function.sure):
                        came[called] = (name, line)
                        following.append(called)
            frontier = following
        return None

    def _steps(self, came: dict, last: str) -> list[CallStep]:
        path, function = self.defined(last)
        steps = [CallStep(last, path, function.line)]
        while came[steps[0].name] is not None:
            caller, line = came[steps[0].name]
            steps.insert(0, CallStep(caller, self.defined(caller)[0], line))
        return steps

    def reached(self, names, depth: int = MAX_DEPTH) -> set[str]:
        """The project functions `names` reach (themselves included), to `depth` calls."""
        found = {name for name in names if self.defined(name) is not None}
        frontier = set(found)
        for _ in range(depth):
            frontier = {called for name in frontier for called, _ in self.defined(name)[1].calls
                        if called not in found and self.defined(called) is not None}
            found |= frontier
        return found

    def cuda_call(self, function: CFunction) -> tuple[str, int] | None:
        """The first call of a CUDA API (no function of the project) a function makes."""
        return next(((name, line) for name, line in function.cuda
                     if name not in self._definitions), None)

    @cached_property
    def _callers(self) -> dict[str, list[tuple[str, int]]]:
        """Name -> (caller, index of the call in the caller's calls), callers defined once,
        then those whose name the project defines several times but once in their class
        (known as `C::f`)."""
        found: dict[str, list] = {}
        for name, defined in self._definitions.items():
            if len(defined) == 1:
                for index, (called, _) in enumerate(defined[0][1].calls):
                    found.setdefault(called, []).append((name, index))
        for name, defined in self._by_class.items():
            for index, (called, _) in enumerate(defined[0][1].calls if len(defined) == 1
                                                else ()):
                found.setdefault(called, []).append((name, index))
        return found

    @cached_property
    def _started_by(self) -> dict[str, list[tuple[str, CStart]]]:
        found: dict[str, list] = {}
        for path, facts in self.facts.items():
            for start in filter(self._known, facts.starts):
                found.setdefault(start.starter, []).append((path, start))
        return found

    def starts_in(self, name: str) -> list[CStart]:
        """The thread starts in the project's one function `name` (`C::f` too)."""
        defined = self.defined(name)
        plain = name.rpartition("::")[2]
        return [start for path, start in self._started_by.get(plain, ())
                if defined is not None and path == defined[0] and (
                    plain == name or self._starter(path, start) is defined[1])]

    def _starter(self, path: str, start: CStart) -> CFunction | None:
        """The definition holding `start` among its file's functions of its starter's name:
        the last to begin before it."""
        return max((function for function in self.facts[path].functions
                    if function.name == start.starter and function.line <= start.line),
                   key=lambda function: function.line, default=None)

    def joins(self, name: str) -> bool:
        """Whether a call of `name` may wait for threads: a join, or a project function whose
        calls, or those of the functions it calls to 2 calls, join."""
        if name not in self._joins:
            self._joins[name] = name in JOINS or any(
                called in JOINS for reached in self.reached({name}, 2)
                for called, _ in self.defined(reached)[1].calls)
        return self._joins[name]

    def leaves(self, name: str, depth: int = 2) -> tuple[list[CallStep], CStart] | None:
        """A thread that a call of the project's function `name` starts and leaves running
        (`CStart.left`), itself or through the functions it calls to `depth` (none of whose
        later calls joins): the calls down to the starter, and the start."""
        if (name, depth) not in self._leaves:
            self._leaves[name, depth] = self._leaving(name, depth)
        return self._leaves[name, depth]

    def _leaving(self, name: str, depth: int) -> tuple[list[CallStep], CStart] | None:
        defined = self.defined(name)
        if defined is None:
            return None
        for start in self.starts_in(name):
            if start.left:
                return [CallStep(name, defined[0], start.line)], start
        calls = defined[1].calls
        for index, (called, line) in enumerate(calls if depth else ()):
            found = self.leaves(called, depth - 1) if called != name else None
            if found and not any(self.joins(later) for later, _ in calls[index + 1:]):
                return [CallStep(name, defined[0], line), *found[0]], found[1]
        return None

    def thread_cuda(self, path: str, start: CStart) -> tuple[list[CallStep], str, str, int] | None:
        """The first CUDA API call the code of a thread started in the file at `path` reaches:
        (the project functions to it, its file, the API's name, its line); a lambda's own call
        of one is given at the start's line. None where the thread's code sets its own capture
        mode (`C_MODE_EXCHANGES`)."""
        from cursedlint.analysis.c_capture import C_CUDA_CALL, C_MODE_EXCHANGES

        if any(entry in C_MODE_EXCHANGES or any(
                called in C_MODE_EXCHANGES for called, _ in self.defined(entry)[1].calls)
               for entry in start.entries if entry in C_MODE_EXCHANGES or self.defined(entry)):
            return None  # (the thread sets its own capture mode)
        for entry in start.entries:
            if entry not in self._definitions and C_CUDA_CALL.fullmatch(entry):
                return [], path, entry, start.line
        for entry in start.entries:
            steps = self.path_to(entry, lambda at, function: self.cuda_call(function) is not None)
            if steps:
                name, line = self.cuda_call(self.defined(steps[-1].name)[1])
                return steps, steps[-1].path, name, line
        return None

    def running_at(self, capturing: str, line: int) -> Iterator[Running]:
        """Threads doing CUDA work that run when the begin capture at `line` of the project's
        one function `capturing` begins, started earlier through calls: by a function called
        before it in `capturing`, or, in a function calling `capturing` (to `MAX_DEPTH`
        calls), by one called before that call or in that function itself, and still running
        (no call between that may join, down the path to the capture as well)."""
        from cursedlint.analysis.c_capture import C_BEGINS

        defined = self.defined(capturing)
        calls = defined[1].calls if defined else ()
        at = next((index for index, (name, called_at) in enumerate(calls)
                   if called_at == line and name in C_BEGINS), None)
        if at is None:
            return
        frontier, seen = [(capturing, at, [])], {capturing}
        for _ in range(MAX_DEPTH + 1):
            following = []
            for function, index, below in frontier:
                path, facts = self.defined(function)
                found = self._started_before(function, index, bool(below))
                if found is not None:
                    yield Running(below, *found)
                else:
                    found = self.constructed(function, index)
                    if found is not None:
                        yield Running(below, *found, instance=facts.owner)
                if any(self.joins(called) for called, _ in facts.calls[:index]):
                    continue  # (threads started above may be joined here)
                for caller, position in self._callers.get(function, ()):
                    if caller not in seen:
                        seen.add(caller)
                        step = CallStep(caller, self.defined(caller)[0],
                                        self.defined(caller)[1].calls[position][1])
                        following.append((caller, position, [step, *below]))
            frontier = following

    def _started_before(self, function: str, index: int, direct: bool):
        """(calls down to the starter, its file, the start, its CUDA call) of a
        thread doing CUDA work started before the call at `index` of `function` and not
        joined since: by a function called there, or (with `direct`) by `function` itself."""
        path, facts = self.defined(function)
        since = 0
        for called, line in reversed(facts.calls[:index]):
            if self.joins(called):
                since = line
                break
            left = self.leaves(called)
            cuda = self.thread_cuda(left[0][-1].path, left[1]) if left else None
            if cuda:
                return [CallStep(function, path, line), *left[0]], left[0][-1].path, left[1], \
                    cuda
        for start in self.starts_in(function) if direct else ():
            cuda = not start.team and since < start.line < facts.calls[index][1] and \
                self.thread_cuda(path, start)
            if cuda:
                return [], path, start, cuda
        return None

    def constructor_starts(self, owner: str) -> list[tuple[str, CStart]]:
        """(file, start) of the threads a constructor of the class `owner` starts and leaves
        running (in its body: kept in a member, a vector of threads, or detached)."""
        return [(path, start) for path, start in self._started_by.get(owner, ())
                if start.left and any(function.name == owner == function.owner
                                      for function in self.facts[path].functions)]

    def constructed(self, function: str, index: int):
        """(calls down to the starter: none, its file, the start, its CUDA call) of a thread
        doing CUDA work that a constructor of the class of the project's one function
        `function` starts and leaves running: it runs by the time any other member function
        of an object of the class does. None where `function` is no member function, is a
        constructor or called by one, runs on that thread, or may join threads before its
        call at `index`."""
        path, facts = self.defined(function)
        owner = facts.owner
        if not owner or function == owner or any(
                self.joins(called) for called, _ in facts.calls[:index]):
            return None
        for started_in, start in self.constructor_starts(owner):
            constructor = next(found for found in self.facts[started_in].functions
                               if found.name == owner == found.owner)
            if any(called == function for called, _ in constructor.calls):
                return None  # (it may run before the threads start)
            if function in self.reached(start.entries):
                continue  # (the capture runs on that thread: its siblings are another rule's)
            cuda = self.thread_cuda(started_in, start)
            if cuda:
                return [], started_in, start, cuda
        return None

    @cached_property
    def prohibiting(self) -> set[str]:
        """The functions that reach an unconditional prohibited call within `MAX_DEPTH`,
        through calls that run whenever their function does."""
        found = {name for name, defined in self._definitions.items()
                 if len(defined) == 1 and defined[0][1].prohibited is not None}
        for _ in range(MAX_DEPTH):
            more = {name for name, defined in self._definitions.items() if len(defined) == 1
                    and name not in found and any(called in found and self.defined(called)
                                                  for called in defined[0][1].sure)}
            if not more:
                break
            found |= more
        return found


def own_facts(context, facts: dict | None) -> dict[str, CThreadFacts]:
    """The project's facts with the linted file's own read from its tree: `facts` itself
    where the index summarized the file (from this content: the same facts) or the file has
    none, so that every file linted with them shares one `ThreadReach` (`project_reach`)."""
    path = os.path.abspath(context.source.path)
    if facts is not None and path in facts:
        return facts
    own = thread_facts(context)
    if own is None:
        return facts if facts is not None else {}
    return {**(facts or {}), path: own}


def project_reach(context, facts: dict | None) -> "ThreadReach":
    """The `ThreadReach` of the project's facts with the linted file's own (`own_facts`),
    built once for every file whose own facts the project's already hold."""
    from cursedlint.analysis.c_function_pointers import built_for  # (C/C++ only)

    merged = own_facts(context, facts)
    return built_for(merged, "c thread reach", ThreadReach) if merged is facts \
        else ThreadReach(merged)


class CThreadReachIndex(Indexer):
    """Per C/C++ file of the project (`CThreadFacts`), searched outward from the linted
    files' captures (`seed_words`): up from each function holding a global-mode begin
    capture to its callers (the files naming it), round by round, with the functions that
    start a thread on one of them (their callers may loop); down from the calls in capture
    regions to the functions they call; across to the threads started before a capture: up
    from the files holding a thread start's or a join's words to the functions that may start
    or join one through calls (`_thread_cone`), not down from every function called before it,
    and to what those threads run; up to `MAX_DEPTH` rounds. A name searched is found in every
    file holding it, so each of its definitions is known."""

    name = "c-thread-reach"
    languages = (C, CPP)
    summary_type = CThreadFacts
    max_rounds = MAX_DEPTH
    max_files, max_bytes = 2000, 64 << 20

    def words(self, settings):
        return ()

    def needed_by(self, context) -> bool:
        """Only a file that begins a capture reads these facts."""
        from cursedlint.analysis.c_capture import C_BEGINS

        return bool(context.calls(C_BEGINS))

    def seed_words(self, context):
        """The capturing functions and the names called in regions; with a global-mode
        capture, the words of thread starts and joins (`STARTS_AND_JOINS`), from which the
        threads running when it begins are found (`_thread_cone`)."""
        facts = thread_facts(context)
        if facts is None:
            return ()
        words = _outward(facts.functions, facts.regions)
        return words | STARTS_AND_JOINS if any(
            function.capture is not None for function in facts.functions) else words

    def summarize(self, context):
        return thread_facts(context)

    def more_words(self, facts, settings):
        """Up: the callers of the capturing functions and those of the functions reaching
        them, and the functions starting a thread on one; down: what the functions the
        regions call call, to `MAX_DEPTH`; the containers threads are put into (their
        declarations); and what `ThreadReach.running_at` reads (`_started_earlier`)."""
        functions = [function for found in facts.values() for function in found.functions]
        regions = {name for found in facts.values() for name in found.regions}
        words = _outward(functions, regions)
        reach = ThreadReach(facts)
        for _ in range(MAX_DEPTH):
            callers = {function.name for function in functions if function.name not in words
                       and any(called in words for called, _ in function.calls)
                       and reach.defined(function.name)}
            if not callers:
                break
            words |= callers
        words |= {start.starter for found in facts.values() for start in found.starts
                  if start.starter and set(start.entries) & words}
        for name in reach.reached(regions):
            words.update(called for called, _ in reach.defined(name)[1].calls)
        holders = {name for found in facts.values() for name in (*found.vectors, *found.threads)}
        # (every start into a container of threads, and every declaration of its name)
        return words | holders | _started_earlier(reach, functions, words)


def _started_earlier(reach: ThreadReach, functions, up: set[str]) -> set[str]:
    """What `ThreadReach.running_at` reads beyond the capturing functions and their callers
    (`up`): the functions that may start or join a thread through calls (`_thread_cone`:
    those called before the call of one of them, or before the capture, answer `leaves` and
    `joins` from them alone); the constructors of the classes of those that are member
    functions (`ThreadReach.constructed`); the functions the threads that the functions
    called before may start run, and what those call, for their CUDA calls."""
    from cursedlint.analysis.c_capture import C_BEGINS, C_CUDA_CALL

    before: set[str] = set()
    for function in functions:
        if function.name in up and reach.defined(function.name):
            last = max((index for index, (called, _) in enumerate(function.calls)
                        if called in up or called in C_BEGINS), default=0)
            before.update(called for called, _ in function.calls[:last])
    cone = _thread_cone(reach)
    starters = reach.reached(before & cone, 2)
    owners = {function.owner for function in functions if function.name in up
              and function.owner and function.owner != function.name}
    entries = {entry for name in starters for start in reach.starts_in(name) if start.left
               for entry in start.entries}
    entries.update(entry for name in up for start in reach.starts_in(name)
                   for entry in start.entries)
    entries.update(entry for owner in owners for _, start in reach.constructor_starts(owner)
                   for entry in start.entries)
    found = cone | entries | owners
    for name in reach.reached(entries):
        found.update(called for called, _ in reach.defined(name)[1].calls)
    return {name for name in found if not C_CUDA_CALL.fullmatch(name) and name not in JOINS}


def _thread_cone(reach: ThreadReach) -> set[str]:
    """The project functions that may start a thread left running (`ThreadReach.leaves`, which
    reads no other start) or join one (`ThreadReach.joins`) through calls: those doing it, and
    their callers to 2 calls, each defined once in the facts so far. Every file starting or
    joining one holds a word of `STARTS_AND_JOINS`, or names a container its start puts the
    thread into (declared with one), so searched from there, name by name, the cone is whole:
    a function outside it starts and joins none, whether or not its files were read."""
    doing = {name for name, found in reach._started_by.items()
             if any(start.left for _, start in found) and reach.defined(name)}
    doing.update(name for name, defined in reach._definitions.items() if len(defined) == 1
                 and any(called in JOINS for called, _ in defined[0][1].calls))
    cone, level = set(doing), doing
    for _ in range(2):
        level = {caller for name in level for caller, _ in reach._callers.get(name, ())
                 if caller not in cone}
        cone |= level
    return cone


def _outward(functions, regions) -> set[str]:
    """The functions holding a global-mode begin capture, and the names called in regions."""
    return {*(function.name for function in functions if function.capture is not None),
            *regions}


C_THREAD_REACH = CThreadReachIndex()
