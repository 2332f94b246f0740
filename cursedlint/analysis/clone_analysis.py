"""What the cloning functions of a C++ file copy, shared by CUR501 and CUR502: each write into
a member of the object copied into (an initializer, an assignment, an insertion), whether the
value written is data of the source object, whether the cloner maps it afterwards, and which
members a cloning constructor is responsible for."""

from __future__ import annotations

import re
from bisect import bisect_left

from msgspec import Struct

from cursedlint.analysis.c_syntax import arguments, callee, called_member, declared_names
from cursedlint.analysis.cloning_candidates import INSERTERS, copy_call_like
from cursedlint.analysis.cloning_functions import (
    ClonerVariable,
    CloningFunction,
    CloningFunctions,
    unwrapped_value,
)
from cursedlint.c.classes import ClassFacts, Member

MAPPING_METHOD_PREFIXES = ("clone", "lookup", "remap", "map", "find", "get")
"""Names of the cloner methods a finding suggests, in this order of preference."""


class Write(Struct, frozen=True):
    """One copy into a destination member: `node` to report, the member and its object's
    class, the value copied and whether the member receives it as an element (push_back)."""

    node: object
    member: str
    owner: str
    value: object
    element: bool


class CloneAnalysis(CloningFunctions):
    """The cloning functions of one file (`CloningFunctions`) and what they write."""

    def __init__(self, context, facts: dict, endings: tuple[str, ...], copy_functions):
        super().__init__(context, facts, endings, copy_functions)
        self._locals: dict[int, set[str]] = {}
        self._remappings: dict[int, list[tuple[int, int]]] = {}
        self._words: dict[tuple, list[int]] = {}

    def writes(self, function: CloningFunction) -> list[Write]:
        """What the function writes into members of the objects it copies into, in order."""
        found = []
        if function.constructor:
            for initializer in self.initializers(function):
                member = initializer.named_children[0]
                values = [
                    value
                    for given in initializer.named_children[1:]
                    if given.type in ("argument_list", "initializer_list")
                    for value in given.named_children
                ]
                if len(values) == 1:
                    found.append(Write(initializer, self.context.text(member), function.owner,
                                       values[0], False))
        body = function.node.child_by_field_name("body")
        for assignment in self.context.captures(
            "(assignment_expression) @a", body
        ).get("a", ()):
            if self.context.text(assignment.child_by_field_name("operator")) != "=":
                continue
            target = self._destination_member(function, assignment.child_by_field_name("left"))
            if target:
                found.append(Write(assignment, *target, assignment.child_by_field_name("right"),
                                   False))
        for call in self.context.captures("(call_expression) @c", body).get("c", ()):
            member = called_member(call)
            if member is None or self.context.text(member.child_by_field_name("field")) \
                    not in INSERTERS:
                continue
            target = self._destination_member(function, member.child_by_field_name("argument"))
            given = call.child_by_field_name("arguments")
            if target and given is not None and not self.mentions_cloner(function, given):
                for argument in arguments(call):
                    found.append(Write(call, *target, argument, True))
        return sorted(found, key=lambda write: write.node.start_byte)

    def initializers(self, function: CloningFunction):
        """The entries of a constructor's initializer list."""
        for child in function.node.named_children:
            if child.type == "field_initializer_list":
                for item in child.named_children:
                    if item.type == "field_initializer" and item.named_children:
                        yield item

    def _destination_member(self, function: CloningFunction, target) -> tuple[str, str] | None:
        """(member, its object's class) for a target naming a destination's member: `m_` and
        `this->m_` when the function copies into its own object, `to->m_`, `copy.m_`."""
        if target is None:
            return None
        if target.type == "identifier" and function.into_this:
            name = self.context.text(target)
            return None if name in self.locals(function) else (name, function.owner)
        if target.type == "field_expression":
            argument = target.child_by_field_name("argument")
            field = target.child_by_field_name("field")
            if argument is None or field is None:
                return None
            if argument.type == "this":
                return (self.context.text(field), function.owner) if function.into_this else None
            if argument.type == "identifier":
                owner = self._declared_class(function, self.context.text(argument), target)
                if owner:
                    return self.context.text(field), owner
        return None

    @staticmethod
    def _declared_class(function: CloningFunction, name: str, use) -> str | None:
        """The class of the destination `name` means at `use`: the latest declaration before
        it whose block encloses it."""
        visible = [
            (start, named)
            for block_start, block_end, start, named in function.destinations.get(name, ())
            if block_start <= use.start_byte < block_end and start <= use.start_byte
        ]
        return max(visible)[1] if visible else None

    def locals(self, function: CloningFunction) -> set[str]:
        """Names declared in the function (parameters and locals), which hide members; read
        once per function."""
        if function.node.id not in self._locals:
            self._locals[function.node.id] = self._declared_in(function)
        return self._locals[function.node.id]

    def _declared_in(self, function: CloningFunction) -> set[str]:
        names = set()
        for node in self.context.captures(
            "[(parameter_declaration declarator: (_) @n) (declaration declarator: (_) @n)"
            " (for_range_loop declarator: (_) @n)]",
            function.node,
        ).get("n", ()):
            names.update(declared_names(self.context, node))
        return names

    def from_source(self, function: CloningFunction, value) -> bool:
        """Whether a value is data of a source object (`src->m`, `other.m()`, `from->v[0]`, an
        element of a loop over such data), not passed through anything else."""
        while True:
            value = unwrapped_value(value)
            if value is None:
                return False
            kind = value.type
            if kind == "field_expression":
                inner = unwrapped_value(value.child_by_field_name("argument"))
            elif kind == "subscript_expression":
                inner = unwrapped_value(value.child_by_field_name("argument"))
                if self._is_source(function, inner):
                    return False  # src[0]: the source object itself indexed
            elif kind == "call_expression":
                member = called_member(value)
                if len(arguments(value)) > 1 or self.mentions_cloner(function, value):
                    return False
                if member is None:  # lod(): a getter of `this`, when it is the source
                    name = callee(self.context, value)
                    return bool(name) and "this" in function.sources and any(
                        method.name == name for method in self.index.methods(function.owner)
                    )
                inner = unwrapped_value(member.child_by_field_name("argument"))
            elif kind == "identifier":
                loop = self.range_loop_of(value)
                if loop is not None:
                    value = loop.child_by_field_name("right")
                    continue
                name = self.context.text(value)  # a member of `this`, when `this` is the source
                return "this" in function.sources and name not in self.locals(function) and (
                    self.index.member(function.owner, name) is not None
                )
            else:
                return False
            if self._is_source(function, inner):
                return True
            value = inner

    def _is_source(self, function: CloningFunction, node) -> bool:
        if node is None:
            return False
        if node.type == "pointer_expression":  # (*src).m
            node = unwrapped_value(node.child_by_field_name("argument"))
        if node is not None and node.type == "this":
            return "this" in function.sources
        return node is not None and node.type == "identifier" and (
            self.context.text(node) in function.sources
        )

    def range_loop_of(self, identifier):
        """The range-for loop whose element an identifier names, if it is inside it: the loop
        variable, or the last name of a structured binding (`for (auto& [name, node] : map)`:
        the mapped value, where a map holds its nodes)."""
        name = self.context.text(identifier)
        for parent in self.context.ancestors(identifier):
            if parent.type == "function_definition":
                return None
            if parent.type == "for_range_loop":
                declarator = parent.child_by_field_name("declarator")
                names = declared_names(self.context, declarator) if declarator is not None else []
                if names[-1:] == [name]:
                    return parent
        return None

    def mentions_cloner(self, function: CloningFunction, node) -> bool:
        names = {cloner.name for cloner in function.cloners}
        return any(leaf.type == "identifier" for _, leaf in self.context.tokens(names, node))

    def remapped_later(self, function: CloningFunction, write: Write) -> bool:
        """Whether a statement after the copy touches the member together with a cloner (the
        copied pointers are mapped in place afterwards)."""
        member_at = self._words_in(function, (write.member,))
        for start, end in self._remappings_of(function):
            if start >= write.node.end_byte:
                first = bisect_left(member_at, start)
                if first < len(member_at) and member_at[first] < end:
                    return True
        return False

    def _remappings_of(self, function: CloningFunction) -> list[tuple[int, int]]:
        """(start, end) of the statements of the function that mention one of its cloners (a
        remapping, when they also touch the member), read once."""
        key = function.node.id
        if key not in self._remappings:
            body = function.node.child_by_field_name("body")
            cloner_at = self._words_in(function, tuple(c.name for c in function.cloners))
            found = []
            for statement in self.context.captures(
                "[(expression_statement) (for_range_loop) (for_statement) (while_statement)] @s",
                body
            ).get("s", ()):
                first = bisect_left(cloner_at, statement.start_byte)
                if first < len(cloner_at) and cloner_at[first] < statement.end_byte:
                    found.append((statement.start_byte, statement.end_byte))
            self._remappings[key] = sorted(found)
        return self._remappings[key]

    def _words_in(self, function: CloningFunction, words: tuple[str, ...]) -> list[int]:
        """Where any of `words` is written as a whole word in the function's body, in order;
        found once per function and words."""
        key = (function.node.id, words)
        if key not in self._words:
            body = function.node.child_by_field_name("body")
            pattern = re.compile(rb"(?<![\w\x80-\xff])(?:%s)(?![\w\x80-\xff])" % b"|".join(
                re.escape(word.encode()) for word in words))
            self._words[key] = [match.start() for match in pattern.finditer(
                self.context.source.data, body.start_byte, body.end_byte)] if words else []
        return self._words[key]

    # -- the destination's members ------------------------------------------------------------
    def cloneable_pointees(self, function: CloningFunction, found) -> list[str]:
        """The cloneable classes a member holds pointers to (resolved where it is declared)."""
        _, facts, member = found
        resolved = (self.index.resolve(name, facts.scope) for name in member.type.pointees)
        return sorted({name for name in resolved if name in function.cloneable})

    def cloner_call(self, function: CloningFunction, argument: str) -> str:
        """How the copy goes through the function's (first) cloner."""
        cloner = function.cloners[0]
        method = self._mapping_method(cloner)
        if method == "clone":  # a cloner known by use: the function's own copy call
            like = copy_call_like(self.context, cloner.qualified or cloner.type_name,
                                  cloner.name, argument, self.copy_functions)
            if like is not None:
                return like
        access = "->" if cloner.arrow else "."
        if method == "operator[]":
            return f"{cloner.name}[{argument}]"
        return f"{cloner.name}{access}{method}({argument})"

    def _mapping_method(self, cloner: ClonerVariable) -> str:
        if cloner.qualified in self.index.classes:
            names = [method.name for method in self.index.methods(cloner.qualified)]
            short = cloner.qualified.split("::")[-1]
            for prefix in MAPPING_METHOD_PREFIXES:
                for name in names:
                    if name != short and name.lower().startswith(prefix):
                        return name
            if "operator[]" in names:
                return "operator[]"
        if cloner.qualified in self.index.aliases:
            return "operator[]"
        return "clone"

    # -- what a cloning constructor must set --------------------------------------------------
    def initialized(self, function: CloningFunction) -> set[str]:
        """The names a constructor's initializer list gives values: members and bases."""
        return {self.context.text(item.named_children[0]) for item in self.initializers(function)}

    def members_to_set(self, function: CloningFunction, initialized: set[str]
                       ) -> list[tuple[str, ClassFacts, Member]]:
        """(path, class facts, member) for the members a cloning constructor is responsible for:
        its class's own, and those of bases that have no cloning constructor of their own (one
        reached through `using Base::Base` included) and are not given arguments to set them."""
        index = self.index
        path, facts = index.facts(function.owner)
        found = [(path, facts, member) for member in facts.members]
        pending, seen = index.bases(function.owner), {function.owner}
        while pending:
            base = pending.pop()
            if base in seen or index.facts(base) is None:
                continue
            seen.add(base)
            base_path, base_facts = index.facts(base)
            constructors = [m for m in base_facts.methods if m.name == base_facts.short_name]
            if any(self.is_cloner_type(parameter.named)
                   for constructor in constructors for parameter in constructor.parameters):
                continue  # its own cloning constructor sets its members (checked there)
            if base_facts.short_name in initialized and any(c.parameters for c in constructors):
                continue  # given arguments by a constructor of its own: cannot be told
            found.extend((base_path, base_facts, member) for member in base_facts.members)
            pending.extend(index.bases(base))
        return found

    def names_used(self, body) -> set[str]:
        """Names a body uses bare or through `this->`."""
        names = {
            self.context.text(node)
            for node in self.context.captures("(identifier) @i", body).get("i", ())
        }
        for field in self.context.captures(
            "(field_expression argument: (this) field: (field_identifier) @f)", body
        ).get("f", ()):
            names.add(self.context.text(field))
        return names

    def calls_own_methods(self, function: CloningFunction) -> bool:
        """Whether a constructor calls a method of its class, which could set members."""
        methods = {method.name for method in self.index.methods(function.owner)}
        body = function.node.child_by_field_name("body")
        for call in self.context.captures("(call_expression) @c", body).get("c", ()):
            if callee(self.context, call) in methods:
                return True
            member = called_member(call)
            if member is not None and self.context.text(
                    member.child_by_field_name("argument")) == "this":
                return True
        return False
