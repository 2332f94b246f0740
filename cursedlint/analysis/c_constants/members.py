"""`MemberRules`: the value of a member of a struct that a C source file defines for itself,
where every store into it in the file gives the same constant (`rs->size = def_size`, `.size
= 4096`), for an evaluation that takes values from stores (`evaluate(node, assignments=True)`):
no other file can name the struct, so the file's stores are all there are. Anything else that
may write it makes it unknown: a store of another value, a compound assignment, an increment,
its address taken, a mention in a macro body, a positional initializer of the struct, or the
struct held as a member of another (whose initializers are not read). A copy between members
of that name (`rs->size = parent->size`) adds no value. Not seen: bytes copied over a whole
struct (`memcpy(rs, saved, sizeof(*rs))`) and the zero a member holds before its first store."""

from __future__ import annotations

from typing import Any

from cursedlint.analysis.c_constants.syntax import _Env
from cursedlint.analysis.c_constants.types import _NOTHING, _Record, _Value, _converted, _target
from cursedlint.python.consteval import UNKNOWN

_SOURCE_SUFFIXES = (".c",)
_WRAPPERS = ("parenthesized_expression",)


class MemberRules:
    """The value a member of a file's own struct always holds (see the module)."""

    def _stored_member_value(self, node, env: _Env) -> _Value | None:
        """The one constant every store into the member `node` reads (`p->m`, `s.m`) gives,
        when its struct is defined by this C source file; None otherwise."""
        if self.cpp or not self.context.source.path.endswith(_SOURCE_SUFFIXES):
            return None
        name = self.context.text(node.child_by_field_name("field"))
        if not self._cached(("member declared", name), lambda: self._member_declared(name),
                            False):
            return None  # (most members read are of a header's structs: no type looked up)
        argument = node.child_by_field_name("argument")
        record = self._expression_type(argument, env) if argument is not None else None
        if record is not None and node.child_by_field_name("operator").type == "->":
            record = _target(record)
        if not isinstance(record, _Record) or record.owner() is not self \
                or record.node.type != "struct_specifier":
            return None
        if not self._declares(record, name):
            return None
        value = self._cached(("member stores", record.node.id, name),
                             lambda: self._member_stores_value(record, name), _NOTHING)
        if value.value is UNKNOWN:
            return None
        converted = _converted(self._field_type(node, env), value)
        return value if converted is _NOTHING else converted

    def _member_declared(self, name: str) -> bool:
        """Whether a struct body of the file declares a member `name`."""
        return any(leaf.type == "field_identifier"
                   and self.context.parent(leaf).type != "field_expression"
                   and any(node.type == "field_declaration_list"
                           for node in self.context.ancestors(leaf))
                   for _, leaf in self.context.tokens((name,)))

    def _declares(self, record: _Record, name: str) -> bool:
        """Whether the struct itself declares the member (not a union nested in it, whose
        other members share its bytes)."""
        for _, leaf in self.context.tokens((name,), record.node):
            if leaf.type == "field_identifier" and next(
                    (node for node in self.context.ancestors(leaf)
                     if node.type in ("struct_specifier", "union_specifier")), None) \
                    == record.node and self.context.parent(leaf).type != "field_expression":
                return True
        return False

    def _member_stores_value(self, record: _Record, name: str) -> _Value:
        if any(node.type == "preproc_arg" for _, _, node in self.context.hits((name,))) \
                or self._positionally_initialized(record):
            return _NOTHING
        values: set[Any] = set()
        kinds: set[Any] = set()
        for _, leaf in self.context.tokens((name,)):
            if leaf.type != "field_identifier":
                continue
            stored = self._store_of(leaf, name, record)
            if stored is False:
                return _NOTHING
            if stored is None:
                continue
            value = self._eval(stored, _Env(stored))
            if value.value is UNKNOWN:
                return _NOTHING
            values.add(value.value)
            kinds.add(value.type)
        if len(values) != 1:
            return _NOTHING
        return _Value(values.pop(), kinds.pop() if len(kinds) == 1 else None)

    def _of_another_record(self, access, record: _Record) -> bool:
        """Whether a member access is known to be of another struct or union."""
        argument = access.child_by_field_name("argument")
        other = self._expression_type(argument, _Env(access)) if argument is not None else None
        if other is not None and access.child_by_field_name("operator").type == "->":
            other = _target(other)
        return isinstance(other, _Record) and other.node != record.node

    def _store_of(self, leaf, name: str, record: _Record):
        """The value node a use of the member stores; None for a read, a declaration or a copy
        from a member of the same name; False for a write whose value is not a plain store."""
        parent = self.context.parent(leaf)
        if parent is None:
            return False
        if parent.type == "field_designator":
            pair = self.context.parent(parent)
            if pair is None or pair.type != "initializer_pair" \
                    or pair.children_by_field_name("designator")[-1] != parent:
                return False
            return self._unless_copy(pair.child_by_field_name("value"), name)
        if parent.type != "field_expression" or parent.child_by_field_name("field") != leaf:
            return None  # a member's declaration (other uses are no field_identifier in C)
        if self._of_another_record(parent, record):
            return None
        used, above = parent, self.context.parent(parent)
        while above is not None and above.type in _WRAPPERS:
            used, above = above, self.context.parent(above)
        if above is None:
            return None
        if above.type == "assignment_expression" and above.child_by_field_name("left") == used:
            if above.child_by_field_name("operator").type != "=":
                return False
            return self._unless_copy(above.child_by_field_name("right"), name)
        if above.type == "update_expression" or (
                above.type == "pointer_expression" and above.child(0).type == "&"):
            return False
        return None

    def _unless_copy(self, value, name: str):
        if value is None:
            return False
        inner = value
        while inner.type in _WRAPPERS and inner.named_child_count == 1:
            inner = inner.named_children[0]
        if inner.type == "field_expression" \
                and self.context.text(inner.child_by_field_name("field")) == name:
            return None
        return value

    def _positionally_initialized(self, record: _Record) -> bool:
        """Whether the file may give the struct's members by position: an initializer list or
        compound literal of the struct's tag or typedef holding a value without a designator,
        or a member of another struct or union of that type (whose initializers are not
        read)."""
        return self._cached(("positional", record.node.id),
                            lambda: self._positional(record), True)

    def _positional(self, record: _Record) -> bool:
        names = set()
        tag = record.node.child_by_field_name("name")
        if tag is not None:
            names.add(self.context.text(tag))
        definition = self.context.parent(record.node)
        if definition is not None and definition.type == "type_definition":
            names.update(self.context.text(declarator)
                         for declarator in definition.children_by_field_name("declarator")
                         if declarator.type == "type_identifier")
        places = [(None, record.node)]  # a declaration of the body itself: `struct {..} a = ..`
        places.extend(self.context.tokens(names) if names else ())
        for _, leaf in places:
            node = self.context.parent(leaf) if leaf is not record.node else leaf
            if node is not None and node.type == "struct_specifier":
                node = self.context.parent(node)
            if node is None:
                continue
            if node.type == "field_declaration" and node != record.node:
                return True  # held by another record, whose initializers are not read
            if node.type == "type_descriptor":
                node = self.context.parent(node)
            lists = []
            if node is not None and node.type == "compound_literal_expression":
                lists.append(node.child_by_field_name("value"))
            elif node is not None and node.type == "declaration":
                lists.extend(declarator.child_by_field_name("value")
                             for declarator in node.children_by_field_name("declarator")
                             if declarator.type == "init_declarator")
            if any(_positional_list(self.context, found) for found in lists):
                return True
        return False


def _positional_list(context, node) -> bool:
    """Whether an initializer list gives a value without a designator (`{0}` and `{}` give
    none that matters: zeros)."""
    if node is None or node.type != "initializer_list":
        return False
    values = [child for child in node.named_children if child.type != "comment"]
    if len(values) == 1 and context.text(values[0]) == "0":
        return False
    return any(child.type != "initializer_pair" for child in values)
