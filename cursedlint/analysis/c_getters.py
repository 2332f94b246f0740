"""What a C/C++ getter's call gives, for `c_memory`'s provenance: a call of a C++ member
function (its class from `c_receivers`, never by its name alone) or of a free function, defined
in the texts in view (the file and its project headers, whose summaries keep a body that is one
`return`), whose every return gives a member of its class (`return m_;`, `return this->m_;`),
an expression naming none of its parameters or locals, or another getter's call. Null returns
aside, the returns must agree; a virtual member function's overrides in the classes in view
deriving from the receiver's are returns too. Anything else (a definition not in view, a
return naming a parameter, returns that disagree) is not known.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from msgspec.structs import replace

from cursedlint.analysis.c_receivers import Receivers
from cursedlint.analysis.c_syntax import (
    arguments, callee, function_declarator, method_class, unqualified, unwrapped,
)
from cursedlint.analysis.includes import getter_body

LIBRARY_ACCESSORS = frozenset({"data", "get", "c_str", "begin", "end", "front", "back",
                               "release", "value", "operator->"})
"""The standard library's accessors (of containers, strings, smart pointers): no getter of
the project, never looked for."""
MAX_DEPTH = 4
"""Getters followed through getters."""
_FUNCTIONS = frozenset({"function_definition", "lambda_expression", "class_specifier",
                        "struct_specifier"})
"""Where a `return` belongs to another function than the one searched."""


class Getters:
    """The getters of one file's calls. `provenance(context)`: the `MemoryProvenance` an
    expression of a header's text is read with (the file's own is handed to `returned`);
    `member(context, name)`: what a member of that name read in that text holds (a
    `c_memory.Provenance`), or None; `asked`: filled by `member`."""

    def __init__(self, receivers: Receivers, provenance: Callable, member: Callable,
                 asked: dict[str, object]):
        self.receivers = receivers
        self.header_provenance = provenance
        self.member = member
        self._receivers = {id(receivers.context): receivers}
        self._made: dict[int, object] = {}
        self.unseen: set[str] = set()
        """The names of the functions called with no arguments whose definitions are not in
        view (a getter's in a header a run has not read yet: the index may read it)."""
        self.asked = asked
        """The members getters return, by name, with the text of (one of) their getters: their
        stores are worth reading (`analysis.c_parameter_index.MemberStoreIndex`)."""
        self._depth = 0

    def returned(self, call, provenance, context=None):
        """What `call` (a call expression of `context`, None: of the file `provenance` reads)
        gives where it is a getter's: a `c_memory.Provenance`, or None (not a getter, or not
        known). A getter's text other than the file is read with a `MemoryProvenance` of its
        own (which follows no getter further)."""
        context = context or provenance.context
        from cursedlint.analysis.c_memory import null_pointer

        if self._depth >= MAX_DEPTH:
            return None
        found, definitions = [], self.definitions(context, call)
        if definitions is None and not arguments(call):
            name = callee(context, call, scoped=False, members=True, system_calls=False)
            if not name.isupper() and name not in LIBRARY_ACCESSORS:
                self.unseen.add(name)
        self._depth += 1
        try:
            for text, definition, owner in definitions or ():
                body = definition.child_by_field_name("body")
                if text is not self.receivers.context and (body is None or not getter_body(body)):
                    return None  # (a header's summary keeps only a body of one `return`)
                for value in _returns(text, definition):
                    if value is None:
                        return None
                    if null_pointer(value):
                        continue
                    given = self._value(text, definition, owner, unwrapped(value), provenance)
                    if given is None or given.kind == "unknown":
                        return None
                    found.append(given)
        finally:
            self._depth -= 1
        if not found or len({(given.kind, given.whole, given.offset) for given in found}) != 1:
            return None
        text = " ".join(context.text(call).split())
        return replace(found[0], what=f"`{text}`, which returns {found[0].what}")

    def _value(self, context, definition, owner: str, value, provenance):
        """What one returned expression gives."""
        from cursedlint.analysis.c_memory import declarations_in

        if value is None:
            return None
        member = _member_named(context, value, owner)
        if member and not declarations_in(context, definition, member):
            found = self.member(context, member)
            return found and replace(found, what=f"`{member}` ({found.what})")
        if any(declarations_in(context, definition, context.text(leaf))
               for leaf in _identifiers(value)):
            return None  # (a parameter's or a local's)
        if value.type == "call_expression":
            return self.returned(value, provenance, context)
        if context is not provenance.context:
            if id(context) not in self._made:
                self._made[id(context)] = self.header_provenance(context)
            provenance = self._made[id(context)]
        return provenance.of(value)

    def definitions(self, context, call) -> list[tuple] | None:
        """(text, definition, class) for each definition the call may run: the member
        function's (and its overrides in view, where it is virtual), or the free function's;
        None where one is not in view."""
        name = callee(context, call, scoped=False, members=True, system_calls=False)
        if not name:
            return None
        function = call.child_by_field_name("function")
        receivers = self._receivers_of(context)
        owner = receivers.receiver_class(call)
        owner = owner and receivers.declaring(owner, name)
        if function.type == "field_expression" or owner and any(
                function_declarator(declarator) is not None
                for _, declarator in receivers.own_members(owner, name)):
            return self._methods(receivers, owner, name) if owner else None
        found = [(text, definition, "") for text in receivers.texts
                 for definition in _defined(text, name, "")]
        return found or None

    def _methods(self, receivers: Receivers, owner: str, name: str) -> list[tuple] | None:
        classes = [owner]
        if any(_virtual(receivers, member) for member, _ in receivers.own_members(owner, name)):
            classes += [derived for derived in _derived(receivers, owner)
                        if next(receivers.own_members(derived, name), None)]
        found = []
        for holder in classes:
            own = [(text, definition, holder) for text in receivers.texts
                   for definition in _defined(text, name, holder)]
            if not own:
                return None  # (declared, defined where no text in view shows)
            found += own
        return found

    def _receivers_of(self, context) -> Receivers:
        if id(context) not in self._receivers:
            self._receivers[id(context)] = Receivers(context, [
                text for text in self.receivers.texts if text is not context])
        return self._receivers[id(context)]


def _returns(context, definition) -> Iterator:
    """The values of the returns of a function definition (None for a `return;` or a body
    with none), those of lambdas and local classes in it aside."""
    body = definition.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        yield None
        return
    found, stack = False, list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type in _FUNCTIONS:
            continue
        if node.type == "return_statement":
            found = True
            yield node.named_children[0] if node.named_child_count else None
            continue
        stack.extend(node.named_children)
    if not found:
        yield None


def _member_named(context, value, owner: str) -> str:
    """The member a returned expression reads: `m` or `this->m` in a member function."""
    if not owner:
        return ""
    if value.type == "identifier":
        return context.text(value)
    if value.type == "field_expression" and unwrapped(
            value.child_by_field_name("argument")).type == "this":
        return context.text(value.child_by_field_name("field"))
    return ""


def _identifiers(node) -> Iterator:
    stack = [node]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            yield node
        stack.extend(node.named_children)


def _defined(context, name: str, holder: str) -> Iterator:
    """The definitions of the text of a function `name` of the class `holder` ("": a free
    function): in a class body or out of line (`holder::name`)."""
    for _, leaf in context.tokens((name,)):
        definition = context.parent(leaf)
        while definition is not None and (definition.type.endswith("declarator") or
                                          definition.type == "qualified_identifier"):
            definition = context.parent(definition)
        if definition is None or definition.type != "function_definition":
            continue
        declarator = function_declarator(definition.child_by_field_name("declarator"))
        written = declarator.child_by_field_name("declarator") if declarator else None
        written = unqualified(written)
        if written is not None and written.start_byte == leaf.start_byte and \
                method_class(context, definition) == holder:
            yield definition


def _virtual(receivers: Receivers, member) -> bool:
    """Whether a member function's declaration in its class body says it is virtual."""
    text = member.text or b""
    return re.search(rb"\b(?:virtual|override|final)\b", text[:text.find(b"{")
                                                              if b"{" in text else None]) \
        is not None


def _derived(receivers: Receivers, owner: str) -> list[str]:
    """The classes in view deriving from `owner`, through others in view."""
    found, frontier = [], [owner]
    pattern = rb"(?:class|struct)\s+(?:\w+\s+)*?(\w+)\s*(?:final\s*)?:[^{;]*\b"
    while frontier and len(found) < 64:
        base = frontier.pop()
        for text in receivers.texts:
            for match in re.finditer(pattern + re.escape(base.encode()) + rb"\b",
                                     text.source.data):
                name = match.group(1).decode(errors="replace")
                if name not in found and name != owner and base in receivers.bases(name):
                    found.append(name)
                    frontier.append(name)
    return found
