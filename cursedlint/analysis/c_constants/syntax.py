"""The tree-sitter node kinds and small tree helpers the constant evaluator reads
declarations, macros and names with, and its records of what a name denotes."""

from __future__ import annotations

import re
from itertools import islice
from typing import Any, Iterator, NamedTuple

from cursedlint.c.context import children, parse
from cursedlint.c.parse_budget import NotParsed


# Declarations a name is found in, from the token spelling it: the owner of a declarator -> kind.
_DECLARATOR_OWNERS = {
    "c": {"declaration": "var", "parameter_declaration": "param", "type_definition": "typedef"},
    "cpp": {"declaration": "var", "parameter_declaration": "param", "type_definition": "typedef",
            "field_declaration": "member", "optional_parameter_declaration": "param",
            "variadic_parameter_declaration": "param", "for_range_loop": "param"},
}


_TAG_OWNERS = {
    "c": frozenset({"struct_specifier", "union_specifier", "enum_specifier"}),
    "cpp": frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}),
}


_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "variadic_type_parameter_declaration"})


_DECLARING = frozenset({  # what a declared name's parent may be, besides declarators
    *_DECLARATOR_OWNERS["cpp"], *_TAG_OWNERS["cpp"], *_TYPE_PARAMETERS, "enumerator",
    "optional_type_parameter_declaration", "alias_declaration", "structured_binding_declarator",
})


_ATTRIBUTES = ("(attribute_specifier) (attribute_declaration) (alignas_qualifier)"
               " (ms_declspec_modifier)")


_ATTRIBUTE_QUERY = f"[{_ATTRIBUTES}] @found"


_LAYOUT_BREAKERS = {  # anything inside a struct body that makes its layout unknown
    "c": f"[{_ATTRIBUTES} (preproc_if) (preproc_ifdef) (preproc_call)] @found",
    "cpp": f'[{_ATTRIBUTES} (preproc_if) (preproc_ifdef) (preproc_call) (base_class_clause)'
           f' "virtual"] @found',
}


_BLOCKS = frozenset({
    "compound_statement", "for_statement", "for_range_loop", "if_statement", "while_statement",
    "switch_statement", "catch_clause", "lambda_expression", "function_definition",
    "template_declaration",
})


_RECORDS = frozenset({"struct_specifier", "union_specifier", "class_specifier"})


_NAMES = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type",
                    "qualified_identifier", "destructor_name", "operator_name"})


_POINTERS = frozenset({"pointer_declarator", "abstract_pointer_declarator"})


_ARRAYS = frozenset({"array_declarator", "abstract_array_declarator"})


_FUNCTIONS = frozenset({"function_declarator", "abstract_function_declarator"})


_NOT_DATA_MEMBERS = frozenset({
    "comment", "access_specifier", "function_definition", "type_definition",
    "alias_declaration", "using_declaration", "friend_declaration", "template_declaration",
    "static_assert_declaration",
})


# A macro body of these kinds means the same whether or not it is parenthesised at its use.
_UNIT_BODIES = frozenset({
    "number_literal", "char_literal", "string_literal", "identifier", "qualified_identifier",
    "true", "false", "parenthesized_expression", "call_expression", "sizeof_expression",
    "alignof_expression", "unary_expression", "cast_expression", "compound_literal_expression",
})


_PREPROC_TESTS_NAME = frozenset({"preproc_ifdef", "preproc_elifdef"})


_PREPROC_TESTS_CONDITION = frozenset({"preproc_if", "preproc_elif"})


_CONTINUATION = re.compile(rb"\\\r?\n")


_IDENTIFIERS = re.compile(rb"[A-Za-z_]\w*")


_WORDS = re.compile(rb"\w+")


_MACRO_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


_MACRO_DIRECTIVES = ("#define", "#undef")


_PRAGMA = re.compile(rb"#pragma(?![\w$])")


_DEFINITION = re.compile(rb"\s*([A-Za-z_]\w*)(\(?)(.*)", re.DOTALL)


def _items(node) -> Iterator:
    """The named children of `node` that are not comments (no list of a wide node is made)."""
    return (child for child in children(node) if child.type != "comment")


def _named_children(node) -> list:
    return list(_items(node))


def _only_child(node):
    first = list(islice(_items(node), 2))
    return first[0] if len(first) == 1 else None


def _inner_declarator(node):
    inner = node.child_by_field_name("declarator")
    if inner is not None or node.type in _POINTERS or node.type in _ARRAYS:
        return inner
    return next((child for child in _named_children(node)
                 if child.type not in ("attribute_declaration", "attribute_specifier",
                                       "type_qualifier")), None)


def _declared_names(declarator) -> list:
    """The name nodes a declarator declares: one, or several for a structured binding."""
    node = declarator
    while node is not None and node.type not in _NAMES:
        if node.type == "structured_binding_declarator":
            return [child for child in node.named_children if child.type == "identifier"]
        node = _inner_declarator(node)
    return [node] if node is not None else []


def _split_name(node) -> tuple[str, tuple[str, ...]] | None:
    """(name, qualifier) of an identifier or `a::b::name`; qualifier ("", ...) for `::name`;
    None for names with template arguments or other forms."""
    parts: list[str] = []
    while node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is None:
            parts.append("")
        elif scope.type in ("namespace_identifier", "type_identifier"):
            parts.append(scope.text.decode())
        else:
            return None
        node = node.child_by_field_name("name")
        if node is None:
            return None
    if node.type not in _NAMES:
        return None
    return node.text.decode(), tuple(parts)


def _is_plain(declarator) -> bool:
    """Whether a declarator declares a plain object: no pointer, array, function, reference."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator")
    return declarator.type in _NAMES


def _definition(define) -> tuple[bytes, bytes | None]:
    """(name, body) of an object-like macro definition; body None for an #undef, a
    function-like or an empty macro. tree-sitter reads some #defines as preproc_call."""
    if define.type == "preproc_def":
        value = define.child_by_field_name("value")
        return define.child_by_field_name("name").text, value.text if value else None
    argument = define.child_by_field_name("argument")
    if define.type != "preproc_call" or argument is None:
        return b"", None  # #undef, function-like
    match = _DEFINITION.match(argument.text)
    if (define.child_by_field_name("directive").text != b"#define" or match is None
            or match[2] or not match[3].strip()):
        return b"", None
    return match[1], match[3]


def _tests_own_name(context, define, name: bytes) -> bool:
    """Whether a definition sits in an #if/#ifdef/#ifndef branch that tests its own name."""
    for ancestor in context.ancestors(define):
        test = (ancestor.child_by_field_name("name") if ancestor.type in _PREPROC_TESTS_NAME
                else ancestor.child_by_field_name("condition")
                if ancestor.type in _PREPROC_TESTS_CONDITION else None)
        if test is not None and name in _IDENTIFIERS.findall(test.text):
            return True
    return False


class _Env(NamedTuple):
    """Where an expression is evaluated: `anchor`, a node of the file's tree, places it for
    name lookup and macro visibility; `expanding` holds the macros being expanded there;
    `assignments`: locals and field paths take the value set earlier in the function."""

    anchor: Any
    expanding: frozenset = frozenset()
    assignments: bool = False


class _Def:
    """One declaration of a name. `kind`: var, param, member, typedef, typeparam, enumerator,
    tag; `node` is its declarator (or name), `owner` the declaration holding it. `scope` is
    computed on first lookup: (innermost block or None, the namespace/class paths it lives in),
    or None when the declaration is a prototype's parameter, visible nowhere."""

    __slots__ = ("kind", "node", "owner", "name", "qualifier", "scope")

    def __init__(self, kind: str, node, owner, name: str, qualifier: tuple[str, ...]):
        self.kind, self.node, self.owner = kind, node, owner
        self.name, self.qualifier = name, qualifier
        self.scope: Any = _UNRESOLVED


_UNRESOLVED = object()


class _Named:
    """What a file does with one name: its ordinary declarations and its struct/union/class/enum
    tags (`_Def`s, in order), its #define and #undef lines (in order), and where it is
    assigned, incremented or has its address taken."""

    __slots__ = ("declared", "tags", "macros", "modified")

    def __init__(self, declared: list, tags: list, macros: list, modified: list):
        self.declared, self.tags, self.macros, self.modified = declared, tags, macros, modified


def _declarator_chain(declarator) -> list:
    """The declarator and those inside it, down to the name."""
    chain = []
    while declarator is not None and declarator.type not in _NAMES:
        chain.append(declarator)
        declarator = _inner_declarator(declarator)
    return chain


def _declarator_like(kind: str) -> bool:
    """Whether a node of this kind may stand between a declaration and the name it declares."""
    return kind.endswith("declarator") or kind in ("template_function", "operator_cast")


def _looks_like_macro(name: str) -> bool:
    """A reserved (`__x`, `_X`) or all-capitals identifier: not a program's variable."""
    return name.startswith("__") or (name[:1] == "_" and name[1:2].isupper()) or name.isupper()


def _leads_to(parent, child) -> bool:
    """Whether the names the declarator `parent` declares are found through `child` (see
    _declared_names)."""
    if parent.type == "structured_binding_declarator":
        return child.type == "identifier"
    return _declarator_like(parent.type) and _inner_declarator(parent) == child




def _is_whole_expression(node) -> bool:
    """Whether an expression stands where any expression text would be read as a whole."""
    parent = node.parent
    if parent is None or parent.type in _WHOLE_EXPRESSION_PARENTS:
        return True
    return parent.type == "subscript_expression" and parent.child_by_field_name("index") == node


# Where any macro body is a whole expression, as if parenthesised.
_WHOLE_EXPRESSION_PARENTS = frozenset({
    "argument_list", "parenthesized_expression", "init_declarator", "enumerator",
    "return_statement", "expression_statement", "initializer_list", "initializer_pair",
    "condition_clause", "template_argument_list", "case_statement", "array_declarator",
    "abstract_array_declarator", "subscript_argument_list", "bitfield_clause",
})


def _single(found: set, default: Any) -> Any:
    """The one answer all definitions agree on, else `default`."""
    return next(iter(found)) if len(found) == 1 else default


def _parsed_alone(text: bytes, language) -> tuple:
    """(tree, expression) of a macro body's text parsed as one expression on its own, or
    (None, None) where it does not stand alone (`1) + (2`); the tree is returned so that the
    expression's nodes stay valid."""
    source = b"int __cursedlint_macro__ = (" + text + b"\n);"
    try:
        tree = parse(source, language)
    except NotParsed:
        return None, None
    declaration = _only_child(tree.root_node)
    if tree.root_node.has_error or declaration is None or declaration.type != "declaration":
        return None, None
    initializer = declaration.child_by_field_name("declarator").child_by_field_name("value")
    if (initializer is None or initializer.type != "parenthesized_expression"
            or initializer.end_byte != len(source) - 1):
        return None, None
    return tree, _only_child(initializer)
