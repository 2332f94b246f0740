"""`SymbolRules`: what a name denotes where it is used, as the compiler resolves it within the
file and the headers before it: object-like macros defined before the use, then the innermost
block, parameters, enclosing classes and namespaces; found from the tokens spelling the name."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from functools import cached_property
from typing import Any

from cursedlint.analysis.c_constants.syntax import (
    _BLOCKS, _CONTINUATION, _DECLARATOR_OWNERS, _DECLARING, _MACRO_DIRECTIVES, _MACRO_NAME,
    _PRAGMA, _RECORDS, _TAG_OWNERS, _TYPE_PARAMETERS, _UNIT_BODIES, _UNRESOLVED, _Def, _Env,
    _Named, _declarator_like, _declared_names, _definition, _is_plain, _is_whole_expression,
    _items, _leads_to, _only_child, _parsed_alone, _single, _split_name, _tests_own_name,
)
from cursedlint.analysis.c_constants.types import (
    _INT, _NOTHING, _Int, _Value, _adds_nothing, _beyond_steps, _converted, _promoted_enum_type,
)
from cursedlint.python.consteval import UNKNOWN


class SymbolRules:
    """What a name denotes at a use: macros defined before it, then the innermost block,
    parameters, enclosing classes and namespaces; declarations found from the tokens that
    spell the name."""

    def _name(self, name: str) -> _Named:
        """What the file does with `name` (see `_Named`), found from the places spelling it
        (one byte search per name) and a short climb from each."""
        if name not in self._named:
            named, macros = _Named([], [], [], []), {}
            held = self.names is None or name.encode() in self.names
            for start, end, node in self.context.hits((name,)) if held else ():
                owner = self.context.parent(node)
                if owner is None:
                    continue
                if (node.type == "preproc_arg" and owner.type == "preproc_call"
                        and self.context.text(owner.child_by_field_name("directive"))
                        in _MACRO_DIRECTIVES):  # an #undef, a #define read as a directive
                    defined = _MACRO_NAME.match(self.context.text(node))
                    if defined and defined[1] == name:
                        macros[owner.id] = owner
                elif (node.start_byte, node.end_byte) == (start, end):
                    if (owner.type in ("preproc_def", "preproc_function_def")
                            and owner.child_by_field_name("name") == node):
                        macros[owner.id] = owner
                    self._token_named(node, owner, named)
            named.macros = sorted(macros.values(), key=lambda node: node.start_byte)
            self._named[name] = named
        return self._named[name]

    def _token_named(self, leaf, owner, named: _Named) -> None:
        """Add what the token `leaf` (its parent `owner`) declares or modifies."""
        if leaf.type == "identifier":
            node, parent = leaf, owner
            while parent is not None:
                if self._modified_target(parent) == node:
                    named.modified.append(leaf.start_byte)  # `x = 1`, `(x)++`, `&x`
                if parent.type != "parenthesized_expression" or _only_child(parent) != node:
                    break
                node, parent = parent, self.context.parent(parent)
        node = leaf
        while owner.type == "qualified_identifier" and owner.child_by_field_name("name") == node:
            node, owner = owner, self.context.parent(owner)  # `ns::name` is declared whole
            if owner is None:
                return
        if owner.type in _DECLARING or _declarator_like(owner.type):
            split = _split_name(node)
            if split is not None:
                self._declarations_named(node, owner, split, named.declared, named.tags)

    def _declarations_named(self, node, owner, split: tuple, names: list, tags: list) -> None:
        """Append what declares the name node `node` (its parent `owner`; name and qualifier
        `split`), if anything: a declarator of a declaration, parameter, typedef or member; an
        enumerator; a tag with a body; a C++ alias or template type parameter."""
        kind = owner.type
        if kind in _TAG_OWNERS[self.context.language]:
            if (owner.child_by_field_name("name") == node
                    and owner.child_by_field_name("body") is not None):
                tags.append(_Def("tag", node, owner, *split))
            return
        if kind == "enumerator" and owner.child_by_field_name("name") == node:
            names.append(_Def("enumerator", node, owner, *split))
            return
        if self.cpp and (kind in _TYPE_PARAMETERS and node.type == "type_identifier" or kind in (
                "optional_type_parameter_declaration", "alias_declaration")
                and owner.child_by_field_name("name") == node):
            names.append(_Def("typedef" if kind == "alias_declaration" else "typeparam", node,
                              owner, *split))
            return
        owners = _DECLARATOR_OWNERS[self.context.language]
        for declarator in self.context.wrapped_by(node, _leads_to):
            owner = self.context.parent(declarator)
            if (owner is not None and owner.type in owners
                    and self.context.field_of(declarator) == "declarator"
                    and any(found == node for found in _declared_names(declarator))):
                kind = owners[owner.type]
                if self.context.parent(node).type == "structured_binding_declarator":
                    kind = "param"  # bound to parts of an unknown value
                names.append(_Def(kind, declarator, owner, *split))

    @cached_property
    def _pragma_pack(self) -> bool:
        """Whether the file has a `#pragma pack`, which makes every layout unknown."""
        for _, directive in self.context.tokens(_PRAGMA):
            call = self.context.parent(directive)
            argument = call.child_by_field_name("argument") if call is not None else None
            if (directive.type == "preproc_directive" and call.type == "preproc_call"
                    and argument is not None
                    and self.context.text(argument).lstrip().startswith("pack")):
                return True
        return False

    def macro_writes(self, name: str, anchor, position: int) -> bool | None:
        """Whether a call of the function-like macro `name` at `anchor` may write its
        argument at `position` (`macro_writes_parameter`), by any definition in view there
        (the headers', this file's before it); None where none is, or one is no
        function-like macro (an `#undef`, an object-like macro)."""
        events = [(header.context, event) for header in self._extra_holding(name)
                  if name in header._macro_names for event in header._name(name).macros]
        events += [(self.context, event) for event in self._name(name).macros
                   if event.start_byte < anchor.start_byte]
        found = [macro_writes_parameter(context, event, position) for context, event in events]
        return None if not found or None in found else any(found)

    def _header_macro(self, name: str) -> bool:
        return any(header._name(name).macros for header in self._extra_holding(name)
                   if name in header._macro_names)

    def _is_macro(self, name: str, anchor) -> bool:
        """(The file's own definitions are looked up only for a name its text `#define`s or
        `#undef`s, as a header's are: each member of a path asks, and looking a common
        member's every spelling up in the tree of a 10 MB file cost more than its parse.)"""
        return self._header_macro(name) or name in self._macro_names and any(
            event.start_byte < anchor.start_byte for event in self._name(name).macros)

    def _expansions(self, node, name: str, qualifier: tuple, env: _Env) -> list | None:
        """The bodies of the macro `name` as used at `node`: None when it is not a macro
        there, [] when it cannot be expanded exactly (function-like, #undef, empty, a body
        whose meaning depends on the text around its use)."""
        if name in env.expanding:
            return None  # a macro is not expanded inside its own expansion
        bodies = [header._macro_body(event) for header in self._extra_holding(name)
                  if name in header._macro_names for event in header._name(name).macros]
        bodies += [self._macro_body(event) for event in self._name(name).macros
                   if event.start_byte < env.anchor.start_byte]
        if not bodies:
            return None
        if qualifier or None in bodies:
            return []
        if all(body.type in _UNIT_BODIES for body in bodies) or _is_whole_expression(node):
            return bodies
        return []

    def _macro_body(self, define):
        """The expression an object-like macro expands to, parsed alone, or None."""
        if define.id not in self._macro_bodies:
            self._macro_bodies[define.id] = self._parse_body(define)
        return self._macro_bodies[define.id][1]

    def _parse_body(self, define) -> tuple:
        """(tree, expression): the tree is kept so that the expression's nodes stay valid."""
        name, text = _definition(define)
        if text is None or _tests_own_name(self.context, define, name):
            return None, None  # `#ifndef N / #define N 4`: N may come from elsewhere
        text = _CONTINUATION.sub(b" ", text)
        if _beyond_steps(text):
            return None, None  # parsing it would cost far more than evaluating may
        return _parsed_alone(text, self.context.language)

    def _lookup(self, name: str, qualifier: tuple, anchor, tables: str) -> tuple[Any, list]:
        """(key, declarations) that `name` refers to at `anchor`: the innermost visible
        block-scoped one, else those of the innermost enclosing namespace or class declaring
        it. Equal keys mean equal declarations. `tables`: "names", "tags" or "types"."""
        paths = self._declarations(tables, name)[1]
        if not qualifier:
            visible = self._visible(tables, name, anchor.start_byte)
            if visible:
                best = max(visible, key=lambda item: item[:2])[2]
                return best, [best]
        return self._in_paths(tables, name, self._targets(qualifier, anchor) if paths else ())

    def _visible(self, tables: str, name: str, at: int) -> list[tuple]:
        """[(block start, declaration start, declaration)] of the block-scoped declarations of
        `name` whose block holds byte `at` and which come before it, in the order of
        `_declarations`: found from the blocks sorted by start, stepping back only while an
        earlier block may still reach `at` (a name declared in each of a file's functions is
        not read once per use)."""
        key = ("blocks by start", tables, name)
        if key not in self._declared:
            blocks = self._declarations(tables, name)[0]
            order = sorted(range(len(blocks)), key=lambda i: blocks[i][0].start_byte)
            reach, furthest = [], -1
            for i in order:
                furthest = max(furthest, blocks[i][0].end_byte)
                reach.append(furthest)
            self._declared[key] = (blocks, order, [blocks[i][0].start_byte for i in order], reach)
        blocks, order, starts, reach = self._declared[key]
        found = []
        index = bisect.bisect_right(starts, at) - 1
        while index >= 0 and reach[index] > at:
            block, definition = blocks[order[index]]
            if at < block.end_byte and definition.owner.start_byte <= at:
                found.append(order[index])
            index -= 1
        return [(blocks[i][0].start_byte, blocks[i][1].owner.start_byte, blocks[i][1])
                for i in sorted(found)]

    def _targets(self, qualifier: tuple, anchor) -> list[tuple]:
        """The namespace/class paths a (qualified) name used at `anchor` may live in, innermost
        first."""
        if qualifier[:1] == ("",):
            return [qualifier[1:]]
        usage = self._scope_path(anchor)
        return [usage[:depth] + qualifier for depth in range(len(usage), -1, -1)]

    def _in_paths(self, tables: str, name: str, targets) -> tuple[Any, list]:
        """(key, declarations) of `name` in the first of `targets` declaring it."""
        paths = self._declarations(tables, name)[1]
        for target in targets:
            if target in paths:
                return (tables, name, target), paths[target]
        return None, []

    def _found(self, name: str, qualifier: tuple, anchor, tables: str) -> list[tuple]:
        """[(evaluator, key, declarations)] `name` refers to at `anchor`: the file's, or where
        the file has none, those of each header declaring it (at the header's end)."""
        key, defs = self._lookup(name, qualifier, anchor, tables)
        if defs or not self.extra:
            return [(self, key, defs)]
        targets = self._targets(qualifier, anchor)
        found = [(header, *header._in_paths(tables, name, targets))
                 for header in self._extra_holding(name)]
        return [item for item in found if item[2]]

    def _derived(self, name: str, qualifier: tuple, anchor, tables: str, purpose: str,
                 default: Any) -> Any:
        """The value ("value"), type ("type") or sizeof type ("sizeof") of what `name` names
        at `anchor`, agreed by all its declarations, else `default`."""
        answers = {self._ask(owner, lambda: owner._agreed(
            (purpose, key), defs, getattr(owner, _DERIVE[purpose]), default))
            for owner, key, defs in self._found(name, qualifier, anchor, tables)}
        return _single(answers, default)

    def _declarations(self, tables: str, name: str) -> tuple[list, dict]:
        """The declarations of a name sorted out once: [(block, declaration)] of block-scoped
        ones and {namespace/class path: [declaration]} of the others."""
        key = ("declarations", tables, name)
        if key not in self._declared:
            named = self._name(name)
            names, tags = named.declared, named.tags
            sources = {"names": (names,), "tags": (tags,),
                       "types": (names, tags) if self.cpp else (names,)}
            blocks, paths = [], defaultdict(list)
            for table in sources[tables]:
                for definition in table:
                    scope = self._scope(definition)
                    if scope is not None and scope[0] is not None:
                        blocks.append((scope[0], definition))
                    elif scope is not None:
                        for path in scope[1]:
                            paths[path].append(definition)
            self._declared[key] = blocks, dict(paths)
        return self._declared[key]

    def _agreed(self, key: tuple, defs: list, derive, default: Any) -> Any:
        """What derive(declaration) gives for all of `defs` if they agree, else `default`.
        Memoised by the lookup key, unless another definition is being worked out meanwhile
        (an enumerator used inside its own enum has a value but not its final type yet)."""
        if key in self._memo:
            return self._memo[key]
        result = _single({derive(d) for d in defs}, default) if defs else default
        if not self._busy:
            self._memo[key] = result
        return result

    def _scope(self, definition: _Def) -> Any:
        if definition.scope is _UNRESOLVED:
            definition.scope = self._compute_scope(definition)
        return definition.scope

    def _compute_scope(self, definition: _Def) -> Any:
        owner = definition.owner
        if definition.kind == "param":
            block = self._parameter_block(owner)
            return (block, frozenset()) if block is not None else None
        block = next((found for found in self.context.ancestors(owner)
                      if found.type in _BLOCKS), None)
        if block is not None:
            return block, frozenset()
        path = self._scope_path(owner)
        if definition.kind != "enumerator" or not self.cpp:
            return None, frozenset({path + definition.qualifier})
        enum = owner.parent.parent
        enum_name = enum.child_by_field_name("name")
        if enum_name is None:
            return None, frozenset({path})
        scoped = any(child.type in ("class", "struct") for child in enum.children)
        named = path + (self.context.text(enum_name),)
        return None, frozenset({named} if scoped else {path, named})

    def _parameter_block(self, owner):
        """The function, lambda, catch clause, loop or template a parameter belongs to; None for
        a prototype's parameter."""
        if owner.type == "for_range_loop":
            return owner
        holder = owner.parent
        if holder.type == "template_parameter_list":
            return holder.parent
        if holder.type != "parameter_list":
            return None
        holder = holder.parent
        if holder.type == "catch_clause":
            return holder
        while holder is not None and holder.type.endswith("declarator"):
            holder = holder.parent
        if holder is not None and holder.type in ("function_definition", "lambda_expression"):
            return holder
        return None

    def _scope_path(self, node) -> tuple[str, ...]:
        """The C++ namespaces and classes `node` is in, outermost first (always () in C)."""
        if not self.cpp:
            return ()
        parts: list[str] = []  # innermost first
        child = node
        for ancestor in self.context.ancestors(node):
            kind = ancestor.type
            if kind == "namespace_definition":
                name = ancestor.child_by_field_name("name")
                if name is not None:
                    parts.extend(reversed(self.context.text(name).replace(" ", "").split("::")))
            elif kind in _RECORDS and child.type == "field_declaration_list":
                name = ancestor.child_by_field_name("name")
                if name is not None:
                    parts.append(self.context.text(name))
            elif kind == "function_definition":  # `void C::f() {...}` is in C's scope
                names = _declared_names(ancestor.child_by_field_name("declarator"))
                split = _split_name(names[0]) if names else None
                if split and split[1][:1] != ("",):
                    parts.extend(reversed(split[1]))
            child = ancestor
        return tuple(reversed(parts))

    def _def_value(self, definition: _Def) -> _Value:
        if definition.kind == "enumerator":
            return self._enumerator_value(definition.owner)
        if definition.kind in ("var", "member"):
            return self._cached(("variable", definition.node.id),
                                lambda: self._variable_value(definition), _NOTHING)
        if definition.kind == "param":
            kind = self._def_type(definition)
            return _Value(UNKNOWN, kind if isinstance(kind, _Int) else None)
        return _NOTHING

    def _variable_value(self, definition: _Def) -> _Value:
        owner = definition.owner
        declared = self._def_type(definition)
        unknown = _Value(UNKNOWN, declared if isinstance(declared, _Int) else None)
        specifiers = {self.context.text(child) for child in owner.children
                      if child.type in ("type_qualifier", "storage_class_specifier")}
        constant = bool(specifiers & {"const", "constexpr"})
        initializer = self._initializer(definition)
        if initializer is not None and initializer.type in ("initializer_list", "argument_list"):
            initializer = _only_child(initializer)  # int n{4}, int n(4)
        if (initializer is None or "volatile" in specifiers or not _is_plain(definition.node)
                or (definition.kind == "member" and not (constant and "static" in specifiers))):
            return unknown
        if not constant and (self._is_modified(definition) if self._scope(definition)[0]
                             is not None else not self._unwritten_static(definition, specifiers)):
            return unknown
        value = self._eval(initializer, _Env(owner))
        if owner.child_by_field_name("type").type == "placeholder_type_specifier":
            return value  # auto: the initializer's type
        return _converted(declared, value)

    def _initializer(self, definition: _Def):
        node, owner = definition.node, definition.owner
        if node.type == "init_declarator":
            return node.child_by_field_name("value")
        if definition.kind == "member" and len(owner.children_by_field_name("declarator")) == 1:
            return owner.child_by_field_name("default_value")
        return None

    def _unwritten_static(self, definition: _Def, specifiers: set) -> bool:
        """Whether a file-scope variable of C is `static` (no other file can write it) and
        nothing in the file may change it: no assignment, increment or `&name` (by name, a
        shadowing local's too), no mention in a macro body (a write the tree does not show).
        Not in C++, where a call may change it through a non-const reference it binds."""
        return not self.cpp and "static" in specifiers and not self._name(
            definition.name).modified and not any(
            node.type == "preproc_arg" for _, _, node in self.context.hits((definition.name,)))

    def _is_modified(self, definition: _Def) -> bool:
        """Whether a local may change after its declaration (by name: a shadowing local's
        changes count too)."""
        block = self._scope(definition)[0]
        return any(definition.node.start_byte <= position < block.end_byte
                   for position in self._name(definition.name).modified)

    def _enumerator_value(self, enumerator) -> _Value:
        enumerators = enumerator.parent
        values = self._cached(("enumerators", enumerators.id),
                              lambda: self._enumerator_values(enumerators), None)
        if values is None:  # used inside its own enum: the value so far, with its type then
            return self._memo.get(("enumerator", enumerator.id), _NOTHING)
        value = values.get(enumerator.id, _NOTHING)
        if not self.cpp:
            return value
        enum = enumerators.parent
        scoped = any(child.type in ("class", "struct") for child in enum.children)
        kind = self._fixed_type(enum) or self._cached(
            ("promoted", enumerators.id), lambda: _promoted_enum_type(values.values()), None)
        return _Value(value.value, kind and kind._replace(enum="scoped" if scoped else "unscoped"))

    def _enumerator_values(self, enumerators) -> dict[int, _Value]:
        """Enumerator id -> value, in order; each is also memoised as it is computed, for the
        enumerators after it that refer to it."""
        fixed = self._fixed_type(enumerators.parent)
        values, previous = {}, _Value(-1, _INT)
        for enumerator in _items(enumerators):
            if enumerator.type != "enumerator":
                if not _adds_nothing(enumerator):
                    previous = _NOTHING  # an #if, #include or unreadable text may add enumerators
                continue
            explicit = enumerator.child_by_field_name("value")
            if explicit is not None:
                value = self._eval(explicit, _Env(enumerator))
            elif previous.value is UNKNOWN:
                value = _NOTHING
            else:
                value = _Value(previous.value + 1, previous.type)
            if fixed is not None:
                value = _converted(fixed, value)
            elif value.value is UNKNOWN:
                value = _NOTHING
            elif not self.cpp or value.type is None or not value.type.holds(value.value):
                value = _Value(value.value, _INT if _INT.holds(value.value) else None)
            values[enumerator.id] = self._memo[("enumerator", enumerator.id)] = value
            previous = value
        return values


_DERIVE = {"value": "_def_value", "type": "_def_as_type", "sizeof": "_def_type"}


def macro_writes_parameter(context, definition, position: int) -> bool | None:
    """Whether a `#define NAME(a, b) body` may write its parameter at `position` through its
    body: assigned or incremented (`a = ...`, `a++`), its address taken (`&a`), handed to a
    call or another macro (`f(a)`, which may write it), or pasted or stringized (`a##_x`);
    a position past the named ones is `...`'s, as `__VA_ARGS__`. None for anything else (an
    object-like macro, an `#undef`)."""
    if definition.type != "preproc_function_def":
        return None
    listed = definition.child_by_field_name("parameters")
    names = [context.text(node) if node.is_named else "__VA_ARGS__"
             for node in (listed.children if listed is not None else ())
             if node.is_named or node.type == "..."]
    if position >= len(names):
        if not names or names[-1] != "__VA_ARGS__":
            return True  # (more arguments than it takes: not this macro's call)
        position = len(names) - 1
    body = definition.child_by_field_name("value")
    text = _CONTINUATION.sub(b" ", context.source.data[body.start_byte:body.end_byte]).decode(
        "utf-8", "surrogateescape") if body is not None else ""
    return _written_in(text, names[position])


_NOT_CALLS = frozenset({"if", "while", "switch", "return", "sizeof", "for", "defined", "do"})


def _written_in(text: str, name: str) -> bool:
    """Whether a macro body may write the parameter `name` (`macro_writes_parameter`), in
    time linear in the body (an argument's callee is looked for in the 256 characters before
    it, not by a pattern tried at every position)."""
    word = re.escape(name)
    alone = rf"(?:\(\s*{word}\s*\)|(?<![\w.>]){word}(?!\w))"  # (`a` or `(a)`)
    if re.search(rf"{alone}\s*(?:\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=|##)"
                 rf"|(?:\+\+|--|(?<!&)&(?!&)|##|(?<!#)#)\s*{alone}", text):
        return True
    for match in re.finditer(rf"{alone}\s*[,)]", text):  # an argument: of a call?
        before = text[max(0, match.start() - _CALLEE_SPAN):match.start()].rstrip()
        if before.endswith(","):
            return True
        called = _CALLEE.search(before) if before.endswith("(") else None
        if called is not None and called[1] not in _NOT_CALLS:
            return True
    return False


_CALLEE_SPAN = 256  # (characters looked back for the callee of a call an argument is of)
_CALLEE = re.compile(r"(\w+)\s*\($")
