"""`c10d::Work::wait` overrides in C++ that wait on the host. PyTorch's collectives call the
work's `wait()` themselves on the thread that issued them (`dist.all_reduce(t)`,
`dist.barrier()`: `work = group.barrier(opts=opts)`, then `work.wait()` with no timeout unless
`async_op`), so where the application captures the collective in a CUDA graph, `wait()` runs on
the capturing thread, where synchronizing with the host is invalid. ProcessGroupNCCL's `wait`
only makes the current stream wait on the work's event there. `host_waits` gives the host
synchronizations such a `wait` makes on its default path (no condition but `timeout ==
kNoTimeout`, the value PyTorch passes), unless it asks about captures at all. CUR402 reads
them."""

from __future__ import annotations

from typing import Iterator, NamedTuple

from cursedlint.analysis.c_syntax import (
    callee, callee_text, called_member, conditions_of, function_name, method_class, unwrapped,
)

HOST_WAITS = frozenset({"cudaEventSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize",
                        "cuEventSynchronize", "cuStreamSynchronize", "cuCtxSynchronize"})
_WAITING_TYPES = ("Event", "Stream")
"""Types whose `synchronize()` waits on the host (`torch::Event`, `at::cuda::CUDAEvent`,
`c10::cuda::CUDAStream`), as their names say."""
_TIMEOUT = "kNoTimeout"
_CONDITIONAL = frozenset({"conditional_expression", "switch_statement", "case_statement",
                          "while_statement", "for_statement", "for_range_loop", "catch_clause",
                          "lambda_expression", "preproc_if", "preproc_ifdef", "preproc_else",
                          "preproc_elif"})
_EXITS = frozenset({"return_statement", "throw_statement"})


class HostWait(NamedTuple):
    """A host synchronization (`call`, written `label`) in `owner`'s `wait` override."""

    call: object
    label: str
    owner: str


def host_waits(context) -> Iterator[HostWait]:
    """The host synchronizations the file's `c10d::Work` subclasses' `wait` overrides make
    on their default path (`HostWait`)."""
    works = _work_classes(context)
    for _, leaf in context.tokens(("wait",)) if works else ():
        definition = _defined_by(context, leaf)
        owner = method_class(context, definition) if definition is not None else ""
        if owner not in works or function_name(context, definition) != "wait":
            continue
        body = definition.child_by_field_name("body")
        if body is None or "captur" in context.text(body).lower():
            continue  # (it asks about captures: it may wait otherwise there)
        timeout = _first_parameter(context, definition)
        for node in context.descendants(body):
            label = _host_wait(context, node) if node.type == "call_expression" else None
            if label and _on_default_path(context, node, body, timeout):
                yield HostWait(node, label, owner)


def _work_classes(context) -> set[str]:
    """The names of the file's classes deriving from `c10d::Work`, directly or through
    another of them."""
    found: set[str] = set()
    data = context.source.data
    bases = {"Work"} if b"c10d" in data and b"Work" in data else set()
    while bases:
        derived = set()
        for name, leaf in context.tokens(bases):
            named = _derived_through(context, leaf, name)
            if named and named not in found:
                derived.add(named)
        found |= derived
        bases = derived
    return found


def _derived_through(context, leaf, name: str) -> str:
    """The class whose base clause names `leaf` (`c10d::Work` where `name` is `Work`; any
    qualification for one of the file's Work classes), or ""."""
    node = context.parent(leaf)
    written = leaf
    while node is not None and node.type == "qualified_identifier":
        written, node = node, context.parent(node)
    if node is None or node.type != "base_class_clause":
        return ""
    if name == "Work" and not context.text(written).replace(" ", "").endswith("c10d::Work"):
        return ""
    holder = context.parent(node)
    named = holder.child_by_field_name("name") if holder is not None else None
    return context.text(named) if named is not None else ""


def _defined_by(context, leaf):
    """The function definition whose declarator names `leaf`, or None."""
    node = context.parent(leaf)
    while node is not None and (node.type.endswith("declarator") or
                                node.type == "qualified_identifier"):
        node = context.parent(node)
    return node if node is not None and node.type == "function_definition" else None


def _first_parameter(context, definition) -> str:
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    listed = declarator.child_by_field_name("parameters") if declarator is not None else None
    first = listed.named_children[0] if listed is not None and listed.named_children else None
    name = first.child_by_field_name("declarator") if first is not None else None
    return context.text(name) if name is not None else ""


def _host_wait(context, call) -> str | None:
    """How `call` waits on the host: a CUDA synchronization API, or `synchronize()` of an
    object declared as an event or stream (or a call returning a stream), else None."""
    name = callee(context, call)
    if name in HOST_WAITS:
        return f"{name}()"
    member = called_member(call)
    if member is None or context.text(member.child_by_field_name("field")) != "synchronize":
        return None
    receiver = unwrapped(member.child_by_field_name("argument"))
    if receiver is not None and receiver.type == "call_expression":
        return f"{context.text(member)}()" if any(
            word in callee_text(receiver) for word in _WAITING_TYPES) else None
    if receiver is None or receiver.type not in ("identifier", "field_identifier"):
        return None
    types = _declared_types(context, context.text(receiver))
    if types and all(any(word in kind for word in _WAITING_TYPES) for kind in types):
        return f"{context.text(member)}()"
    return None


def _declared_types(context, name: str) -> set[str]:
    """The named types (template arguments of smart pointers read through) of the file's
    declarations of `name`: `std::shared_ptr<torch::Event> event_;` gives `torch::Event`."""
    found = set()
    for _, leaf in context.tokens((name,)):
        node, declarator = context.parent(leaf), leaf
        while node is not None and node.type.endswith("declarator") and \
                node.type != "function_declarator":
            declarator, node = node, context.parent(node)
        if node is None or node.type not in ("field_declaration", "declaration",
                                             "parameter_declaration") or \
                declarator not in node.children_by_field_name("declarator"):
            continue
        written = node.child_by_field_name("type")
        text = context.text(written).replace(" ", "") if written is not None else ""
        for pointer in ("shared_ptr<", "unique_ptr<", "intrusive_ptr<"):
            if pointer in text:
                text = text.split(pointer, 1)[1].rstrip(">")
        found.add(text.rstrip("&*"))
    return found


def _on_default_path(context, call, body, timeout: str) -> bool:
    """Whether `call` runs whenever the `wait` runs with no timeout: every `if` around it (and
    every earlier `if` of its blocks that returns) tests only the timeout against
    `kNoTimeout`, the way to the call; nothing else conditional holds it."""
    found, scope = conditions_of(context, call, lambda statement: any(
        node.type in _EXITS for node in context.descendants(statement)), top=body)
    return scope is not None and all(
        _no_timeout(context, condition.condition, timeout, condition.taken)
        if condition.exits or condition.node.type == "if_statement" else
        condition.node.type not in _CONDITIONAL and not (
            condition.node.type == "binary_expression" and
            condition.node.child_by_field_name("operator").type in ("&&", "||"))
        for condition in found)


def _no_timeout(context, condition, timeout: str, taken: bool) -> bool:
    """Whether the condition tests `timeout == kNoTimeout` (`taken`: where it holds) or
    `timeout != kNoTimeout` (where it fails)."""
    if not timeout or condition is None or condition.type != "binary_expression":
        return False
    operator = condition.child_by_field_name("operator").type
    if operator not in ("==", "!=") or (operator == "==") != taken:
        return False
    sides = {context.text(unwrapped(condition.child_by_field_name(side))).split("::")[-1]
             for side in ("left", "right")}
    return sides == {timeout, _TIMEOUT}
