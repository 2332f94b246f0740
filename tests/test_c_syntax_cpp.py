"""The C++ side of the shared syntax helpers (cursedlint/analysis/c_syntax.py) that the class
facts (cursedlint/c/classes.py) and CUR5xx read: which declarators declare functions, the
names declarators declare, callee names with their qualifiers, and what unwrapping passes."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_syntax import (
    callee_text,
    called_member,
    declared_name,
    declared_names,
    function_declarator,
    unwrapped,
    without_template_arguments,
    written_name,
)
from cursedlint.c.context import CContext, parse
from cursedlint.c.classes import file_classes, parameters_of
from cursedlint.settings import Settings
from cursedlint.source import Source


def context_of(code: str) -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes("a.cpp", data, "cpp"), Settings(enabled=frozenset()),
                    parse(data, "cpp"))


def first(context: CContext, kind: str):
    return context.captures(f"({kind}) @n", context.root)["n"][0]


def declarator_of(code: str):
    """The context and the first declarator of the file's first declaration or definition."""
    context = context_of(code)
    node = context.root.named_children[0]
    return context, node.child_by_field_name("declarator")


@pytest.mark.parametrize("code, name", [
    ("Val* clone(IrCloner* c) const;", "clone"),
    ("const Val& front(int q);", "front"),  # a reference's declarator has no field name
    ("void (*signal(int s))(int) {}", "signal"),  # returns a pointer to a function
    ("int (isspace)(int c) { return c == ' '; }", "isspace"),  # a name kept from macros
    ("[[nodiscard]] Graph copy(const Graph& g);", "copy"),
    ("Expr::Expr(const Expr* src, IrCloner* c) {}", "Expr::Expr"),
    ("Scalar<T>::~Scalar() {}", "Scalar<T>::~Scalar"),
    ("Val*& Table::operator[](int i) { return v_[i]; }", "Table::operator[]"),
])
def test_the_function_a_declarator_declares(code, name):
    context, declarator = declarator_of(code)
    function = function_declarator(declarator)
    assert function is not None and written_name(context, function) == name


def test_the_function_a_definition_defines():
    context = context_of("const Val& Graph::entry() const { return *entry_; }")
    definition = context.root.named_children[0]
    assert written_name(context, function_declarator(definition)) == "Graph::entry"


@pytest.mark.parametrize("code", [
    "int (*handler)(int) = nullptr;",
    "Val* (*make)(Graph*);",
    "Val* val = nullptr;",
    "IrCloner cloner{to};",
])
def test_pointers_to_functions_and_objects_declare_no_function(code):
    assert function_declarator(declarator_of(code)[1]) is None


def test_the_parameters_of_a_function_returning_a_pointer_to_a_function_are_its_own():
    context, declarator = declarator_of("void (*signal(int sig, Handler* h))(int) {}")
    found = list(parameters_of(context, function_declarator(declarator)))
    assert [(parameter.name, parameter.type.text) for parameter in found] == [
        ("sig", "int"), ("h", "Handler*")]


@pytest.mark.parametrize("code, name, names", [
    ("Val* val [[maybe_unused]] = nullptr;", "val", ["val"]),
    ("const auto& [name, node] = *entries.begin();", "", ["name", "node"]),
    ("Val* const held = nullptr;", "held", ["held"]),
    ("int values[4];", "values", ["values"]),
])
def test_the_names_a_variable_declarator_declares(code, name, names):
    context, declarator = declarator_of(code)
    assert declared_name(context, declarator) == name
    assert declared_names(context, declarator) == names


def test_a_typedef_declares_its_type_name_as_written():
    context, declarator = declarator_of("typedef std::unordered_map<const Node*, Node*>& MapRef;")
    assert written_name(context, declarator) == "MapRef"
    assert declared_name(context, declarator) == ""


def test_class_facts_read_members_behind_attributes_and_methods_returning_references():
    classes = file_classes(context_of("""\
        class Node {};
        typedef Node& NodeRef;
        class Graph {
         public:
          const Node& entry() const;
          Node* (*factory_)(int);
          Node* spare_ [[maybe_unused]] = nullptr;
        };
        """))
    graph = classes.classes[-1]
    assert [method.name for method in graph.methods] == ["entry"]
    members = {member.name: member.type.pointees for member in graph.members}
    assert sorted(members) == ["factory_", "spare_"] and members["spare_"] == ("Node",)
    assert [alias.name for alias in classes.aliases] == ["NodeRef"]


@pytest.mark.parametrize("call, name", [
    ("Container::copy(from, to)", "Container::copy"),
    ("ir::make<Val, std::vector<int>>(x)", "ir::make"),
    ("std::move<Val*&>(x)", "std::move"),
    ("clone(x)", "clone"),
    ("cloner.clone(x)", ""),
    ("(*make)(x)", ""),
])
def test_callee_text_keeps_qualifiers_and_drops_template_arguments(call, name):
    context = context_of(f"void f() {{ {call}; }}")
    assert callee_text(first(context, "call_expression")) == name


def test_called_member_is_the_object_and_field_a_call_goes_through():
    context = context_of("void f() { to->inputs_.push_back(v); g(v); }")
    calls = context.captures("(call_expression) @c", context.root)["c"]
    member = {context.text(call): called_member(call) for call in calls}
    assert context.text(member["to->inputs_.push_back(v)"]) == "to->inputs_.push_back"
    assert member["g(v)"] is None


def test_template_arguments_are_dropped_when_nested():
    assert without_template_arguments("Scalar<T>::Scalar") == "Scalar::Scalar"
    assert without_template_arguments("Table<Key<A, B>, V>::find") == "Table::find"


MOVES = frozenset({"std::move", "std::as_const"})


@pytest.mark.parametrize("expression, passing, inner", [
    ("(src->held_ /* shared */)", frozenset(), "src->held_"),
    ("(/* shared */ src->held_)", frozenset(), "src->held_"),
    ("static_cast<Val*>((Val*)src)", frozenset(), "src"),
    ("dyn_cast<Val>(src)", frozenset(), "src"),
    ("std::move(src)", frozenset(), "std::move(src)"),
    ("std::move(/* taken */ src)", MOVES, "src"),
    ("std::move<Val*&>(src)", MOVES, "src"),
    ("std::as_const(*src)", MOVES, "*src"),
    ("std::move(a, b)", MOVES, "std::move(a, b)"),
    ("take(src)", MOVES, "take(src)"),
])
def test_unwrapped_passes_parentheses_casts_and_the_calls_it_is_given(expression, passing, inner):
    context = context_of(f"void f() {{ use({expression}); }}")
    argument = first(context, "argument_list").named_children[0]
    assert context.text(unwrapped(argument, passing)) == inner


def test_unwrapped_of_nothing_is_nothing():
    assert unwrapped(None) is None


def test_template_arguments_go_in_one_pass_whatever_their_nesting():
    """A name's template arguments, as a hostile header may nest them: the repeated search
    of the innermost pair took time quadratic in the depth."""
    import time

    from cursedlint.analysis.c_syntax import without_template_arguments

    assert without_template_arguments("Foo<int>::bar<T<U>>") == "Foo::bar"
    assert without_template_arguments("operator<") == "operator<"
    assert without_template_arguments("a<b<c>::d") == "a<b::d"
    deep = "f" + "<" * 200_000 + "T" + ">" * 200_000 + "::g"
    started = time.perf_counter()
    assert without_template_arguments(deep) == "f::g"
    assert time.perf_counter() - started < 5  # 0.05 s in one pass; the old way took minutes
