"""Cloning functions of a C++ file: the cloning candidates (`cloning_candidates`) that, looked
up in the class index, copy through a cloner; for each, the cloners it can use, the objects it
copies from, and the objects it copies into (its own, or locals and parameters of the copied
class)."""

from __future__ import annotations

import os
from functools import cached_property

from msgspec import Struct

from cursedlint.analysis.c_syntax import declared_name, unwrapped
from cursedlint.analysis.cloner_index import index_for
from cursedlint.analysis.cloner_types import cached_cloneable_for, is_cloner_name
from cursedlint.analysis.cloning_candidates import (
    Candidate,
    cloners_returned,
    cloning_candidates,
    mapped_after_cloning,
    mapped_if_cloner,
    setter_subject,
)
from cursedlint.analysis.cpp_returns import Returning, returned_by
from cursedlint.c.classes import ClassIndex, TypeFacts

_PASSED_ON = frozenset({"std::move", "move", "std::as_const", "as_const"})


def unwrapped_value(node):
    """An expression without the parentheses, casts, `std::move` and `std::as_const` around the
    value it passes on; None for None."""
    return unwrapped(node, _PASSED_ON)


class ClonerVariable(Struct, frozen=True):
    name: str
    arrow: bool  # a pointer: reached with ->
    type_name: str  # as written
    qualified: str | None  # its class or alias in the index


class CloningFunction(Struct):
    """A function that copies through a cloner: the cloners it can use, the objects it copies
    from (`this` included), the variables it copies into (parameter or local -> class), and
    whether writes to its own object count too (`into_this`: constructors, `copyFrom`)."""

    node: object
    declarator: object  # its function_declarator
    name: str
    owner: str | None
    constructor: bool
    cloners: list[ClonerVariable]
    cloner_parameter: bool
    sources: dict[str, str]  # name -> how its members are reached ("->" or ".")
    destinations: dict[str, list[tuple[int, int, int, str]]]  # see `_local_copies`
    into_this: bool
    cloneable: frozenset[str]


class CloningFunctions:
    """The cloning functions of one file (`functions`), looked up in the class index the file
    is analyzed with (`cloner_index.index_for`)."""

    def __init__(self, context, facts: dict, endings: tuple[str, ...], copy_functions):
        self.context = context
        self.endings = tuple(endings)
        self.copy_functions = tuple(copy_functions)
        self.facts = facts

    @cached_property
    def index(self) -> ClassIndex:
        return index_for(self.context, self.facts)

    @cached_property
    def mapped_after_cloning(self) -> set[str]:
        """The subjects (`setter_subject`) of what the project's copy routines, this file's
        included, set through the cloner on the objects it made."""
        names = {name for found in self.facts.values() for name in found.mapped}
        names.update(mapped_after_cloning(self.context, self._candidates))
        conditional = [entry for found in self.facts.values() for entry in found.mapped_if]
        conditional += mapped_if_cloner(self.context, self._candidates)
        for entry in conditional:
            if self.called_cloner(entry.callee, entry.own_class, ()) is not None:
                names.update(entry.names)
        return {setter_subject(name) for name in names}

    @cached_property
    def _returning(self) -> list[Returning]:
        """The functions of the project, this file's included, that return a cloner."""
        path = os.path.abspath(self.context.source.path)
        found = cloners_returned(self.context, self.endings)
        found += [function for where, facts in self.facts.items() if where != path
                  for function in facts.returning]
        return found

    def called_cloner(self, callee: str, own_class: str, scope) -> TypeFacts | None:
        """The cloner type a call of `callee` (from an `auto` local's initializer) gives: what
        a function of the project declared to return a cloner returns, or the cloner class or
        alias it names (`IrCloner(to)`)."""
        returned = returned_by(self._returning, callee, own_class)
        if returned is None and self.is_cloner_type(callee) and (
                self.index.resolve(callee, scope) or self.index.resolve_alias(callee, scope)):
            returned = TypeFacts(callee, callee, (), False, False)
        return returned

    @cached_property
    def functions(self) -> list[CloningFunction]:
        """The file's cloning functions (the class index is built only when the file has a
        candidate)."""
        return [function for function in map(self._cloning_function, self._candidates)
                if function]

    @cached_property
    def _candidates(self) -> list[Candidate]:
        return cloning_candidates(self.context, self.endings, self.copy_functions)

    def _cloning_function(self, candidate: Candidate) -> CloningFunction | None:
        node, name, parameters = candidate.node, candidate.name, list(candidate.parameters)
        scope, owner = self._scope_and_owner(node, name)
        short = name.split("::")[-1]
        cloners = [
            self._cloner(parameters[index][0], parameters[index][1], scope)
            for index in sorted(candidate.cloner_parameters)
        ]
        cloner_parameter = bool(cloners)
        cloners += [self._cloner(cname, facts, scope) for cname, facts in candidate.local_cloners]
        for cname, facts, callee, used, own in candidate.called_cloners:
            returned = self.called_cloner(callee, own, scope)
            if returned is not None:  # `auto c = Container::copy(from, to)`: its return type
                pointer = returned.pointer or facts.pointer
                facts = TypeFacts(returned.text, returned.named, (), pointer, facts.reference)
            elif used is not None:  # used as a cloner: of a type not known
                facts = TypeFacts(facts.text, "", (), used, facts.reference)
            else:
                continue
            cloners.append(self._cloner(cname, facts, scope))
        classes = {
            pname: self.index.resolve(facts.named, scope)
            for index, (pname, facts, _) in enumerate(parameters)
            if pname and index not in candidate.cloner_parameters
            and (facts.pointer or facts.reference)
        }
        classes = {pname: qualified for pname, qualified in classes.items() if qualified}
        constructor = owner is not None and short == owner.split("::")[-1]
        sources, destinations, into_this = self._roles(
            node, scope, owner, constructor, parameters, classes,
            {cloner.name for cloner in cloners}, cloner_parameter,
        )
        if not sources or not (destinations or into_this):
            return None
        cloneable = cached_cloneable_for(
            self.index, tuple(sorted({(c.qualified or "", c.type_name.split("::")[-1])
                                      for c in cloners}))
        )
        if not cloneable:
            return None
        return CloningFunction(node, candidate.declarator, name, owner, constructor, cloners,
                               cloner_parameter, sources, destinations, into_this, cloneable)

    def _roles(self, node, scope, owner, constructor, parameters, classes, cloner_names,
               cloner_parameter):
        """(sources, destinations, into_this) of a cloning function:
        - `copy(const X* from, X* to)`: the writable parameter of the source's class;
        - a constructor, or a method taking the cloner and a parameter of its own kind
          (`copyFrom(const X& other, Cloner&)`): its own object, from that parameter (a
          constructor without one copies nothing: `Solver(const Grid&, const DistributionMapping&)`
          takes a type named like a cloner, not a source);
        - otherwise (`X* X::clone(Cloner&) const`, `cloneFunction(const F& f)`): the locals
          holding new objects of the copied class, from the parameters of its own kind or,
          when it has none, from `this` and the locals that alias it."""
        access = {pname: "->" if facts.pointer else "." for pname, facts, _ in parameters}
        body = node.child_by_field_name("body")
        destination = self._destination(parameters, classes)
        sources = {pname: access[pname] for pname in classes if pname != destination}
        if destination:
            whole = (node.start_byte, node.end_byte, node.start_byte)
            return sources, {destination: [(*whole, classes[destination])]}, False
        if owner is not None:  # a member function: sources are of its own kind
            sources = {pname: kind for pname, kind in sources.items()
                       if self._related(classes[pname], owner)}
        if constructor:
            return sources, {}, True
        into_this = owner is not None and cloner_parameter and bool(sources)
        if not sources and owner is not None:
            sources = {"this": "->", **self._aliases_of_this(body)}
        copied = {classes[name] for name in sources if name in classes}
        if "this" in sources:
            copied.add(owner)
        destinations = self._local_copies(body, scope, copied, cloner_names | set(sources))
        return sources, destinations, into_this

    def _related(self, one: str, other: str) -> bool:
        """Whether two classes are the same or one derives from the other."""
        return one == other or one in self.index.ancestors(other) or (
            other in self.index.ancestors(one)
        )

    def _aliases_of_this(self, body) -> dict[str, str]:
        """Locals initialized with `this` or `*this`, possibly cast: `auto* sort =
        static_cast<const SortOp*>(this)`."""
        aliases = {}
        for declarator in self.context.captures(
            "(declaration declarator: (init_declarator) @d)", body
        ).get("d", ()):
            value = unwrapped_value(declarator.child_by_field_name("value"))
            if value is not None and value.type == "pointer_expression":
                value = unwrapped_value(value.child_by_field_name("argument"))
            name = declared_name(self.context, declarator)
            if value is not None and value.type == "this" and name:
                aliases[name] = "->"
        return aliases

    def _local_copies(self, body, scope, copied: set[str], excluded: set[str]) -> dict:
        """Locals that hold a new object of a copied class or of a class derived from one
        (`auto copy = std::make_unique<Graph>()`, `auto* load = new LoadInst(...)`): name ->
        [(block start, block end, declaration start, class)], one entry per declaration (the
        same name may hold another class in another block)."""
        found: dict[str, list] = {}
        for declaration in self.context.captures("(declaration) @d", body).get("d", ()):
            named = None
            types = self.context.captures("(type_identifier) @t", declaration).get("t", ())
            for identifier in types:
                qualified = self.index.resolve(self.context.text(identifier), scope)
                if qualified and (qualified in copied or self.index.ancestors(qualified) & copied):
                    named = qualified
                    break
            if named is None:
                continue
            block = self.context.parent(declaration)
            for declarator in declaration.children_by_field_name("declarator"):
                name = declared_name(self.context, declarator)
                if name and name not in excluded:
                    found.setdefault(name, []).append(
                        (block.start_byte, block.end_byte, declaration.start_byte, named)
                    )
        return found

    def _scope_and_owner(self, node, name: str) -> tuple[tuple[str, ...], str | None]:
        """The scope a function's names are looked up from, and the class it is a member of
        (written `Class::f` outside it, or defined inside its body)."""
        enclosing: list[str] = []  # innermost first
        innermost = None  # the kind of scope the definition sits in directly
        for parent in self.context.ancestors(node):
            label = parent.child_by_field_name("name")
            if parent.type == "namespace_definition" and label is not None:
                enclosing.extend(reversed(self.context.text(label).split("::")))
                innermost = innermost or "namespace"
            elif parent.type in ("class_specifier", "struct_specifier") and label is not None:
                if label.type == "template_type":
                    label = label.child_by_field_name("name")
                enclosing.append(self.context.text(label))
                innermost = innermost or "class"
        scope = tuple(part.strip() for part in reversed(enclosing) if part.strip())
        qualifier = name.rpartition("::")[0]  # template arguments dropped: Scalar<T>::Scalar
        if qualifier:
            owner = self.index.resolve(qualifier, scope)
            return (self.index.classes[owner][1].scope, owner) if owner else (scope, None)
        if innermost == "class":
            return scope, self.index.resolve("::" + "::".join(scope), ())
        return scope, None

    def is_cloner_type(self, named: str) -> bool:
        return is_cloner_name(named, self.endings)

    def _cloner(self, name, facts: TypeFacts, scope) -> ClonerVariable:
        qualified = self.index.resolve(facts.named, scope) or self.index.resolve_alias(
            facts.named, scope
        )
        return ClonerVariable(name or "", facts.pointer, facts.named, qualified)

    @staticmethod
    def _destination(parameters, classes) -> str | None:
        """In copy(from, to): the parameter copied into — the one not const among parameters
        of one class, else the one named like a destination, else the second."""
        by_class: dict[str, list[tuple[str, bool]]] = {}
        for pname, _, const in parameters:
            if pname in classes:
                by_class.setdefault(classes[pname], []).append((pname, const))
        for group in by_class.values():
            if len(group) < 2:
                continue
            writable = [pname for pname, const in group if not const]
            if len(writable) == 1:
                return writable[0]
            named = [pname for pname, _ in group
                     if pname.lower() in ("to", "dst", "dest", "destination", "target", "into")]
            if len(named) == 1:
                return named[0]
            return group[1][0]
        return None
