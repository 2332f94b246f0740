"""The class a C++ member function call is made on, from declared types: `obj.m(...)`,
`p->m(...)`, `this->m(...)`, `getPd().m(...)`, `C::get()->m(...)`, and an unqualified
`m(...)` inside another member of the class. None where the declarations in view do not say
(a global, an `auto` initialized by what no declaration types, a type alias that several
declarations in view give different types, as under `#if`): a method is never resolved by its
name alone (a struct's field of the same name may hold another function).

Declarations are read from the calling function (its parameters and the locals declared
before the call in a block holding it), the members of the calling member's class, and the
class bodies of the texts given (the file, then the project headers it includes), their bases'
where they declare none of that name: a member's declared type and a getter's (or a static
member function's) return type. `->` on a pointer,
or on `unique_ptr`, `shared_ptr`, `optional` or `Expected` (their first template argument);
`[]` (or `at()`, `front()`, `back()`) on a pointer, an array or a `vector`, `array`, `deque`
or `span`. A type alias of no class body in view (`typedef struct ep ep_t;`, `typedef Pd
*PdRef;`, `using PdPtr = std::shared_ptr<Pd>;`) is the type every alias declaration of that
name in view gives.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

from cursedlint.analysis.c_syntax import (
    declared_name, function_declarator, inner_declarator, method_class, unqualified, unwrapped,
)

POINTER_LIKE = frozenset({"unique_ptr", "shared_ptr", "optional", "Expected", "expected"})
"""Class templates whose `->` reaches an object of their first template argument."""
SEQUENCES = frozenset({"vector", "array", "deque", "span"})
"""Class templates whose `[]` gives an object of their first template argument."""
MAKERS = {"make_unique": "unique_ptr", "make_shared": "shared_ptr"}
ELEMENT_GETTERS = frozenset({"at", "front", "back"})
"""The member functions of `SEQUENCES` that give an element."""
MAX_DEPTH = 16  # expressions and declarations a receiver's type is followed through
_CLASSES = ("class_specifier", "struct_specifier")
_DECLARATIONS = frozenset({"declaration", "parameter_declaration",
                           "optional_parameter_declaration", "for_range_loop"})
_FUNCTIONS = frozenset({"function_definition", "lambda_expression"})


class Type(NamedTuple):
    """A declared type as far as a call's receiver needs it: the class (or class template)
    named, the type node of its first template argument, and whether the declarator made it
    a pointer or an array (`[]`/`->` reach the named class)."""

    name: str
    argument: object = None
    pointer: bool = False


def member_calls(context, names) -> Iterator[tuple[str, object]]:
    """(name, call) for the calls of a member function named in `names`: through an object
    (`x.m(...)`, `x->m(...)`) or unqualified."""
    for name, leaf in context.tokens(names):
        parent = context.parent(leaf)
        if leaf.type == "field_identifier" and parent is not None \
                and parent.type == "field_expression":
            call = context.parent(parent)
            if call is not None and call.type == "call_expression" \
                    and call.child_by_field_name("function") == parent:
                yield name, call
        elif leaf.type == "identifier" and parent is not None and parent.type == "call_expression" \
                and parent.child_by_field_name("function") == leaf:
            yield name, parent


class Receivers:
    """Receiver classes of one file's calls; `texts`: the contexts whose class bodies count
    (the file's first, then its project headers')."""

    def __init__(self, context, texts=()):
        self.context = context
        self.texts = (context, *texts)
        self._bodies: dict[str, list] = {}
        self._aliases: dict[str, Type | None | bool] = {}
        self._depth = 0

    def receiver_class(self, call) -> str | None:
        """The class of the object `call` (a member call) is made on, or None."""
        definition = next((node for node in self.context.ancestors(call)
                           if node.type == "function_definition"), None)
        owner = method_class(self.context, definition) if definition is not None else ""
        function = call.child_by_field_name("function")
        if function.type == "identifier":
            return owner or None
        through = self.context.text(function.child_by_field_name("operator")) == "->"
        found = self._type(unwrapped(function.child_by_field_name("argument")), call,
                           definition, owner)
        reached = _reached(found, through)
        found = self._expanded(Type(reached)) if reached else None
        return found.name if found is not None and not found.pointer else None

    def _type(self, node, at, definition, owner: str) -> Type | None:
        """The declared type of an expression (see the module's docstring), or None."""
        if node is None or self._depth > MAX_DEPTH:
            return None
        self._depth += 1
        try:
            return self._expanded(self._type_of(node, at, definition, owner))
        finally:
            self._depth -= 1

    def _expanded(self, found: Type | None, depth: int = 0) -> Type | None:
        """`found` with a type alias replaced by the type it stands for (`alias`); None where
        the alias is not known (declarations that disagree, or a pointer to a pointer)."""
        while found is not None and depth <= MAX_DEPTH:
            aliased = self.alias(found.name)
            if aliased is None:
                return found
            if aliased is False or aliased.pointer and found.pointer:
                return None
            found = aliased._replace(pointer=aliased.pointer or found.pointer)
            depth += 1
        return found

    def alias(self, name: str) -> Type | None | bool:
        """The type the alias `name` stands for, where it has no class body in view: None
        where no alias declaration of it is in view, False where those in view disagree."""
        if name not in self._aliases:
            found = set()
            if name and not self._class_bodies(name):
                for context in self.texts:
                    for _, leaf in context.tokens((name,)):
                        aliased = _aliased(context, leaf, name)
                        if aliased is None or aliased.name:
                            found.add(_key(aliased))
            self._aliases[name] = (False if None in found else _unique(found) or False) \
                if found else None
        return self._aliases[name]

    def _type_of(self, node, at, definition, owner: str) -> Type | None:
        kind = node.type
        if kind == "this":
            return Type(owner, pointer=True) if owner else None
        if kind == "identifier":
            return self._named(self.context.text(node), at, definition, owner)
        if kind == "field_expression":
            through = self.context.text(node.child_by_field_name("operator")) == "->"
            holder = _reached(self._type(unwrapped(node.child_by_field_name("argument")), at,
                                         definition, owner), through)
            field = node.child_by_field_name("field")
            return self.member(holder, self.context.text(field)) if holder and field else None
        if kind in ("subscript_expression", "pointer_expression"):
            found = self._type(unwrapped(node.child_by_field_name("argument")), at,
                               definition, owner)
            if kind == "pointer_expression" and self.context.text(
                    node.child_by_field_name("operator")) == "&":
                return found._replace(pointer=True) if found and not found.pointer else None
            return _element(found, SEQUENCES if kind == "subscript_expression" else POINTER_LIKE)
        if kind == "call_expression":
            return self._returned(node, at, definition, owner)
        return None

    def _returned(self, call, at, definition, owner: str) -> Type | None:
        """The return type of a getter called on a known class (or, unqualified, on the
        caller's own class)."""
        function = call.child_by_field_name("function")
        if function.type == "identifier":
            return self.method(owner, self.context.text(function)) if owner else None
        if function.type == "qualified_identifier":  # a static member function: `C::get()`
            scope, name = None, function
            while name is not None and name.type == "qualified_identifier":
                scope, name = name.child_by_field_name("scope"), name.child_by_field_name("name")
            holder = _last(scope) if scope is not None and scope.type in (
                "namespace_identifier", "type_identifier") else ""
            return self.method(holder, name.text.decode(errors="replace")) \
                if holder and name is not None and name.type == "identifier" else None
        field = function.child_by_field_name("field") \
            if function.type == "field_expression" else None
        if field is None:
            return None
        base = self._type(unwrapped(function.child_by_field_name("argument")), at, definition,
                          owner)
        if self.context.text(function.child_by_field_name("operator")) == "->":
            base = _element(base, POINTER_LIKE)
        if base is None or base.pointer:
            return None
        if base.name in SEQUENCES and self.context.text(field) in ELEMENT_GETTERS:
            return _of_argument(base)
        return self.method(base.name, self.context.text(field))

    def _named(self, name: str, at, definition, owner: str) -> Type | None:
        """The type of the variable `name` where `at` is: the last declaration of it before
        `at` in a scope holding `at` (parameters included), else a member of `owner`."""
        declared = None
        if definition is not None:
            for _, leaf in self.context.tokens((name,), definition):
                if leaf.start_byte >= at.start_byte:
                    break
                found = self._declaration(leaf, at)
                if found is not None:
                    declared = found
        if declared is not None:
            declaration, declarator = declared
            return self._declared(declaration, declarator, at, definition, owner)
        return self.member(owner, name) if owner else None

    def _declaration(self, leaf, at):
        """(declaration, declarator) where `leaf` is the name a declaration holding `at` in
        its scope declares, else None."""
        declarator = leaf
        for parent in self.context.ancestors(leaf):
            if parent.type in _DECLARATIONS:
                if declarator not in parent.children_by_field_name("declarator") or \
                        declared_name(self.context, declarator) != self.context.text(leaf):
                    return None
                scope = parent if parent.type == "for_range_loop" else self.context.parent(parent)
                if parent.type.endswith("parameter_declaration"):
                    scope = next((node for node in self.context.ancestors(parent)
                                  if node.type in _FUNCTIONS), None)
                holds = scope is not None and scope.start_byte <= at.start_byte \
                    and at.end_byte <= scope.end_byte
                return (parent, declarator) if holds else None
            if not (parent.type.endswith("declarator") or parent.type == "init_declarator"):
                return None
            declarator = parent
        return None

    def _declared(self, declaration, declarator, at, definition, owner: str) -> Type | None:
        """The type a declaration gives the name `declarator` declares; an `auto` one's from
        its initializer."""
        type_node = declaration.child_by_field_name("type")
        if type_node is not None and type_node.type == "placeholder_type_specifier":
            if declaration.type == "for_range_loop":
                found = _element(self._type(unwrapped(declaration.child_by_field_name("right")),
                                            at, definition, owner), SEQUENCES)
            else:
                value = declarator.child_by_field_name("value") \
                    if declarator.type == "init_declarator" else None
                found = self._initialized(unwrapped(value), at, definition, owner)
            return found and found._replace(pointer=found.pointer or _pointer(declarator))
        return _written(type_node, declarator)

    def _initialized(self, value, at, definition, owner: str) -> Type | None:
        """The type of an `auto` variable's initializer: `new C(...)`, `C(...)`, `C{...}` of
        a class with a body in view, `std::make_unique<C>(...)`, or an expression's."""
        if value is None:
            return None
        if value.type == "new_expression":
            found = _written(value.child_by_field_name("type"), None)
            return found and found._replace(pointer=True)
        if value.type == "compound_literal_expression":
            return _written(value.child_by_field_name("type"), None)
        if value.type == "call_expression":
            function = value.child_by_field_name("function")
            if function is not None and function.type == "qualified_identifier":
                function = function.child_by_field_name("name")
            if function is not None and function.type == "template_function":
                name = _last(function.child_by_field_name("name"))
                arguments = function.child_by_field_name("arguments")
                if name in MAKERS and arguments is not None and arguments.named_children:
                    return Type(MAKERS[name], arguments.named_children[0])
                return None
            if function is not None and function.type in ("identifier", "type_identifier") \
                    and self.bodies(self.context.text(function)):
                return Type(self.context.text(function))
        return self._type(value, at, definition, owner)

    def member(self, holder: str | None, name: str) -> Type | None:
        """The declared type of the data member `name` of the class `holder`, where every
        body of it in view declares it alike."""
        return _unique({_key(_written(member.child_by_field_name("type"), declarator))
                        for member, declarator in self._members(holder, name)
                        if function_declarator(declarator) is None})

    def method(self, holder: str | None, name: str) -> Type | None:
        """The return type of the member function `name` of the class `holder`, where every
        declaration of it in view returns the same type."""
        found = {_key(_written(member.child_by_field_name("type"), declarator))
                 for member, declarator in self._members(holder, name)
                 if function_declarator(declarator) is not None}
        return _unique(found)

    def declares(self, holder: str, name: str) -> bool:
        """Whether the class `holder` may declare a member function `name`: no body of it in
        view declares a data member of that name."""
        return all(function_declarator(declarator) is not None
                   for _, declarator in self._members(holder, name))

    def declaring(self, holder: str, name: str, seen: tuple = ()) -> str | None:
        """The class whose member `name` a call on an object of class `holder` reaches:
        `holder` where a body of it in view declares it or none is in view, else the one
        class it derives from (through its bases, nearest first) that does; None where
        several bases do."""
        if not self.bodies(holder) or next(self.own_members(holder, name), None):
            return holder
        found = {self.declaring(base, name, (*seen, holder)) for base in self.bases(holder)
                 if base not in seen and len(seen) < MAX_DEPTH}
        return found.pop() if len(found) == 1 else None

    def bases(self, holder: str) -> list[str]:
        """The names of the classes the bodies of `holder` in view derive from."""
        found = []
        for body in self.bodies(holder):
            clause = next((child for child in body.parent.named_children
                           if child.type == "base_class_clause"), None)
            for base in clause.named_children if clause is not None else ():
                written = _written(base, None)
                if written is not None:
                    found.append(written.name)
        return found

    def _members(self, holder: str | None, name: str) -> Iterator[tuple]:
        """(declaration, declarator) of each member named `name` in the bodies of `holder`,
        or of the class it derives it from (`declaring`)."""
        declaring = self.declaring(holder, name) if holder else None
        return self.own_members(declaring, name) if declaring else iter(())

    def own_members(self, holder: str, name: str) -> Iterator[tuple]:
        for body in self.bodies(holder):
            for member in body.named_children:
                if member.type == "template_declaration":
                    member = next((child for child in member.named_children if child.type in (
                        "field_declaration", "function_definition", "declaration")), None)
                if member is None or member.type not in (
                        "field_declaration", "function_definition", "declaration"):
                    continue
                for declarator in member.children_by_field_name("declarator"):
                    if _name_of(declarator) == name:
                        yield member, declarator

    def bodies(self, name: str) -> list:
        """The bodies of the classes named `name` in the texts in view (or, for an alias of a
        class, `alias`, of that class)."""
        found = self._class_bodies(name)
        if not found:
            aliased = self._expanded(Type(name))
            if aliased is not None and aliased.name != name and not aliased.pointer \
                    and aliased.argument is None:
                return self._class_bodies(aliased.name)
        return found

    def _class_bodies(self, name: str) -> list:
        if name not in self._bodies:
            found = []
            for context in self.texts:
                for _, leaf in context.tokens((name,)):
                    parent = context.parent(leaf)
                    if leaf.type == "type_identifier" and parent is not None \
                            and parent.type in _CLASSES \
                            and parent.child_by_field_name("name") == leaf:
                        body = parent.child_by_field_name("body")
                        if body is not None:
                            found.append(body)
            self._bodies[name] = found
        return self._bodies[name]


def _aliased(context, leaf, name: str) -> Type | None:
    """The type an alias declaration whose name is `leaf` gives it (`typedef T *name;`,
    `typedef struct t name;`, `using name = T;`); ("", ...) where `leaf` declares no alias, None
    where it gives one no `Type` can say."""
    holder = context.parent(leaf)
    if leaf.type != "type_identifier" or holder is None:
        return Type("")
    if holder.type == "alias_declaration" and holder.child_by_field_name("name") == leaf:
        written = holder.child_by_field_name("type")
        return _written(written.child_by_field_name("type"),
                        written.child_by_field_name("declarator")) if written is not None \
            else None
    declarator = leaf
    while holder is not None and holder.type in ("pointer_declarator", "array_declarator"):
        declarator, holder = holder, context.parent(holder)
    if holder is None or holder.type != "type_definition" or \
            declarator not in holder.children_by_field_name("declarator"):
        return Type("")
    written = holder.child_by_field_name("type")
    if written is not None and written.type in _CLASSES:
        written = written.child_by_field_name("name")
    found = _written(written, declarator)
    return None if found is None else Type("") if found.name == name else found


def _reached(found: Type | None, through: bool) -> str | None:
    """The class `.` (or `->`, `through`) reaches on an object of type `found`."""
    if through:
        found = _element(found, POINTER_LIKE)
    return None if found is None or found.pointer else found.name


def _element(found: Type | None, templates: frozenset) -> Type | None:
    """The type of what `*` (or `[]`) reaches on an object of type `found`: the pointed-to
    type, or that of the first template argument of one of `templates`."""
    if found is None:
        return None
    if found.pointer:
        return found._replace(pointer=False)
    return _of_argument(found) if found.name in templates else None


def _of_argument(found: Type) -> Type | None:
    """The type of a class template's first template argument."""
    argument = found.argument
    if argument is None or argument.type != "type_descriptor":
        return None
    return _written(argument.child_by_field_name("type"), argument.child_by_field_name(
        "declarator"))


def _written(type_node, declarator) -> Type | None:
    """The `Type` a type node and a declarator (None: none) write."""
    if type_node is None:
        return None
    argument = None
    type_node = unqualified(type_node)
    if type_node is None:
        return None
    if type_node.type == "template_type":
        arguments = type_node.child_by_field_name("arguments")
        argument = arguments.named_children[0] if arguments is not None \
            and arguments.named_children else None
        type_node = type_node.child_by_field_name("name")
    if type_node is None or type_node.type != "type_identifier":
        return None
    return Type(type_node.text.decode(errors="replace"), argument, _pointer(declarator))


def _pointer(declarator) -> bool:
    """Whether a declarator makes a pointer or an array of its type (a function's: of its
    return type)."""
    pointer = False
    while declarator is not None and declarator.type not in ("identifier", "field_identifier"):
        if declarator.type in ("pointer_declarator", "array_declarator",
                               "abstract_pointer_declarator", "abstract_array_declarator"):
            pointer = True
        elif declarator.type == "function_declarator":
            break
        declarator = inner_declarator(declarator)
    return pointer


def _name_of(declarator) -> str:
    """The name a member declarator declares (a method's through its function declarator)."""
    while declarator is not None and declarator.type not in (
            "identifier", "field_identifier", "qualified_identifier"):
        declarator = inner_declarator(declarator)
    return "" if declarator is None else declarator.text.decode(errors="replace")


def _last(node) -> str:
    node = unqualified(node)
    return "" if node is None else node.text.decode(errors="replace")


def _key(found: Type | None):
    """A type as a comparable value (its template argument by its text)."""
    if found is None:
        return None
    return (found.name, found.argument and found.argument.text, found.pointer, found)


def _unique(found: set) -> Type | None:
    """The one type of `found` (`_key`s), or None where none or several."""
    if None in found or len({key[:3] for key in found}) != 1:
        return None
    return next(iter(found))[3]
