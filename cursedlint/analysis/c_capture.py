"""CUDA graph capture in C, C++ and CUDA: the begin- and end-capture calls, a capture's mode,
the body it runs in and the statements it captures, the calls prohibited while a stream
captures, and the threads a function starts (`std::thread`/`std::jthread`, `pthread_create`),
their joins, those alive when a capture begins and the CUDA calls their code makes through the
file's own functions. CUR401 and CUR402 read them."""

from __future__ import annotations

from typing import Iterator

from msgspec import Struct

from cursedlint.analysis.c_syntax import arguments, block_statement, callee, scope_of
from cursedlint.analysis.capture_regions import GLOBAL, LOCAL_DEPTH, RELAXED, THREAD_LOCAL
from cursedlint.analysis.cuda_use import C_DEVICE_SYNCS, C_PROHIBITED
from cursedlint.rule import LazyPattern

C_BEGINS = frozenset({"cudaStreamBeginCapture", "cuStreamBeginCapture",
                      "cuStreamBeginCapture_v2"})
C_ENDS = frozenset({"cudaStreamEndCapture", "cuStreamEndCapture"})
C_SYNC_NAMES = C_PROHIBITED | {f"{name}_v2" for name in C_PROHIBITED if name.startswith("cu")
                               and not name.startswith("cuda")}
"""C/C++ calls prohibited in a capture region, with the driver's `_v2` spellings."""


C_MODE_EXCHANGES = frozenset({"cudaThreadExchangeStreamCaptureMode",
                              "cuThreadExchangeStreamCaptureMode"})
"""Calls by which a thread sets its own capture mode (a communication library's proxy thread
turning relaxed): a global-mode capture elsewhere may not forbid its calls, so only its
device-wide synchronizations count."""
C_THREAD_TYPES = frozenset({"std::thread", "std::jthread", "thread", "jthread"})
C_CUDA_CALL = LazyPattern(r"cu(da)?[A-Z]\w*")
"""A CUDA runtime or driver API call's name."""
_C_NAME = LazyPattern(r"[\w$]+")


def first_argument(context, call) -> str | None:
    """The text of a call's first argument (a capture's stream, a join's thread)."""
    given = arguments(call)
    return context.text(given[0]) if given else None


def capture_body(context, begin):
    """The body whose statements run before a begin-capture call and after it: that of the
    innermost function, lambda or macro-defined function (`TEST_F(S, t) {...}`) holding it;
    None at file scope."""
    scope = scope_of(context, begin)
    if scope is None or scope.type not in ("function_definition", "lambda_expression"):
        return scope
    return scope.child_by_field_name("body")


def captured_statements(context, begin) -> list | None:
    """The statements of a begin-capture call's block between it and the end capture of the
    same stream; None when the block holds no such end (not a region the rules can see)."""
    statement = block_statement(context, begin)
    stream = first_argument(context, begin)
    sibling = statement.next_named_sibling if statement else None
    inside = []
    while sibling is not None and not any(
            first_argument(context, end) == stream for _, end in context.calls(C_ENDS, sibling)):
        inside.append(sibling)
        sibling = sibling.next_named_sibling
    return None if sibling is None else inside


def capture_mode(context, begin) -> str | None:
    """The mode argument of a begin-capture call: named by its constant, else unknown."""
    given = arguments(begin)
    word = context.text(given[1]).lower().replace("_", "") if len(given) > 1 else ""
    for suffix, mode in (("threadlocal", THREAD_LOCAL), ("relaxed", RELAXED),
                         ("global", GLOBAL)):
        if word.endswith(suffix):
            return mode
    return None


class CThreadStart(Struct, frozen=True):
    """A C/C++ thread started at `node` (handle: its variable) running `code` (a body)."""

    node: object
    handle: str | None
    code: object
    label: str


class CThreads:
    """Threads of a C/C++ file (`std::thread`/`std::jthread` declarations, `pthread_create`)
    and the CUDA calls their code makes, through the file's own functions."""

    def __init__(self, context):
        self.context = context
        self._functions: dict[str, object] = {}
        self._starts: dict[int, list[CThreadStart]] = {}
        self._joins: dict[int, list[tuple[int, str]]] = {}
        self._cuda: dict[tuple, tuple | None] = {}

    def function(self, name: str):
        """The file's last definition of a function (or method) `name`, or None."""
        self._look_up({name})
        return self._functions[name]

    def _look_up(self, names: set[str]) -> None:
        """Find the last definitions of `names` (one search for all of them)."""
        names = {name for name in names if name not in self._functions}
        self._functions.update(dict.fromkeys(names))
        searched = {name for name in names if _C_NAME.fullmatch(name)}
        for name, leaf in self.context.tokens(searched) if searched else ():
            if leaf.type in ("identifier", "field_identifier"):
                self._functions[name] = self._defined_by(leaf) or self._functions[name]

    def _defined_by(self, name):
        """The function definition whose declarator, followed down its `declarator` fields,
        ends at the name node `name`, or None."""
        node = self.context.parent(name)
        while node is not None and node.child_by_field_name("declarator") == name:
            if node.type == "function_definition":
                return node
            name, node = node, self.context.parent(node)
        return None

    def alive_at(self, begin) -> Iterator[CThreadStart]:
        """The threads started earlier in the function of a begin-capture call and not joined
        before it (none at file scope)."""
        body = capture_body(self.context, begin)
        for start in self.starts(body) if body is not None else ():
            if start.node.start_byte < begin.start_byte and not self.joined(
                    body, start.handle, start.node.end_byte, begin.start_byte):
                yield start

    def starts(self, body) -> list[CThreadStart]:
        """The threads started in `body`, read once."""
        if body.id not in self._starts:
            self._starts[body.id] = list(self._read_starts(body))
        return self._starts[body.id]

    def _read_starts(self, body) -> Iterator[CThreadStart]:
        for node in self.context.descendants(body):
            if node.type == "init_declarator":
                start = self._declared_thread(node)
            elif node.type == "function_declarator" and node.parent.type == "declaration":
                start = self._vexing_thread(node)
            elif node.type == "call_expression" and callee(self.context, node) == \
                    "pthread_create":
                start = self._pthread(node)
            else:
                continue
            if start is not None:
                yield start

    def _declared_thread(self, node) -> CThreadStart | None:
        """`std::thread t(f, ...)`, `std::jthread t{[&] {...}}`, `auto t = std::thread(f)`."""
        declaration, value = node.parent, node.child_by_field_name("value")
        type_node = declaration.child_by_field_name("type") if declaration else None
        if value is not None and value.type == "call_expression":
            type_text, value = self.context.text(value.child_by_field_name("function")), \
                value.child_by_field_name("arguments")
            if type_text not in C_THREAD_TYPES:
                type_text, value = self._returned_thread(type_text)
        else:
            type_text = self.context.text(type_node) if type_node is not None else ""
        if type_text not in C_THREAD_TYPES or value is None or not value.named_children:
            return None
        handle = self.context.text(node.child_by_field_name("declarator"))
        return self._start(node, handle, value.named_children[0])

    def _returned_thread(self, name: str) -> tuple[str, object]:
        """The type and arguments of the thread a function of the file declared to return one
        constructs in its return statement (`std::thread start(...) { return std::thread(f); }`),
        or ("", None)."""
        function = self.function(name) if _C_NAME.fullmatch(name) else None
        declared = function.child_by_field_name("type") if function is not None else None
        if declared is None or self.context.text(declared) not in C_THREAD_TYPES:
            return "", None
        for node in self.context.descendants(function.child_by_field_name("body")):
            returned = node.named_children[0] if node.type == "return_statement" and \
                node.named_children else None
            if returned is not None and returned.type == "call_expression" and \
                    self.context.text(returned.child_by_field_name("function")) in C_THREAD_TYPES:
                return self.context.text(declared), returned.child_by_field_name("arguments")
        return "", None

    def _vexing_thread(self, node) -> CThreadStart | None:
        """`std::thread t(worker);`, which parses as a declaration of a function `t` taking a
        `worker`."""
        type_node = node.parent.child_by_field_name("type")
        parameters = node.child_by_field_name("parameters")
        first = parameters.named_children[0] if parameters and parameters.named_children \
            else None
        if (type_node is None or self.context.text(type_node) not in C_THREAD_TYPES
                or first is None or first.type != "parameter_declaration"):
            return None
        return self._start(node, self.context.text(node.child_by_field_name("declarator")),
                           first.child_by_field_name("type"))

    def _pthread(self, call) -> CThreadStart | None:
        given = arguments(call)
        if len(given) < 3:
            return None
        return self._start(call, self.context.text(given[0]).lstrip("&"), given[2])

    def _start(self, node, handle: str, callable_node) -> CThreadStart | None:
        if callable_node.type == "pointer_expression":
            callable_node = callable_node.child_by_field_name("argument")
        if callable_node.type == "lambda_expression":
            return CThreadStart(node, handle, callable_node.child_by_field_name("body"),
                                f"thread `{handle}` (a lambda)")
        function = self.function(self.context.text(callable_node))
        if function is None:
            return None
        return CThreadStart(node, handle, function.child_by_field_name("body"),
                            f"thread `{handle}` running {self.context.text(callable_node)}()")

    def joined(self, body, handle: str, after: int, before: int) -> bool:
        """`handle.join()` or `pthread_join(handle, ...)` between the two byte offsets."""
        return any(after < start < before and joined == handle
                   for start, joined in self._joined_in(body))

    def _joined_in(self, body) -> list[tuple[int, str]]:
        """(start, handle) of the joins in `body`, read once."""
        if body.id not in self._joins:
            found = []
            for node in self.context.descendants(body):
                if node.type != "call_expression":
                    continue
                function = node.child_by_field_name("function")
                if function.type == "field_expression" and self.context.text(
                        function.child_by_field_name("field")) == "join":
                    found.append((node.start_byte,
                                  self.context.text(function.child_by_field_name("argument"))))
                elif callee(self.context, node) == "pthread_join":
                    found.append((node.start_byte, first_argument(self.context, node)))
            self._joins[body.id] = found
        return self._joins[body.id]

    def cuda_call(self, code, device_wide: bool, seen: frozenset = frozenset()):
        """(call, name, [callees]) of the first CUDA call under `code` (only device-wide
        synchronizations with `device_wide`), following the file's own functions; a function
        called many times is read once for each path to it."""
        key = (code.id, device_wide, seen)
        if key not in self._cuda:
            self._cuda[key] = self._first_cuda_call(code, device_wide, seen)
        return self._cuda[key]

    def _first_cuda_call(self, code, device_wide: bool, seen: frozenset):
        calls = [(node, callee(self.context, node))
                 for node in self.context.descendants(code) if node.type == "call_expression"]
        if not device_wide and not seen and any(name in C_MODE_EXCHANGES for _, name in calls):
            return None
        self._look_up({name for _, name in calls})
        for node, name in calls:
            if C_CUDA_CALL.fullmatch(name) and (not device_wide or name in C_DEVICE_SYNCS):
                return node, name, []
            function = self.function(name) if name not in seen and len(seen) < LOCAL_DEPTH \
                else None
            if function is not None:
                inner = self.cuda_call(function.child_by_field_name("body"), device_wide,
                                       seen | {name})
                if inner:
                    return inner[0], inner[1], [name, *inner[2]]
        return None
