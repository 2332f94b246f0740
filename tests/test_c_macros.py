"""Declarations written with macros (cursedlint/analysis/c_macros.py): class heads with export macros
keep their members and bases, macro-defined function bodies are function scopes; end to end
through a project lint with CUR501 (the class index) and CUR302 (where a name is declared)."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.analysis.c_macros import function_scope, misread_blocks, misread_heads
from cursedlint.c.context import CContext, _parser, parse
from cursedlint.c.classes import file_classes
from cursedlint.registry import all_rules
from cursedlint.settings import Settings
from cursedlint.source import Source

from harness import lint_project


def context_of(code: str, language: str = "cpp", path: str = "a.cpp") -> CContext:
    data = textwrap.dedent(code).encode()
    return CContext(Source.from_bytes(path, data, language), Settings(enabled=frozenset()),
                    parse(data, language))


def classes(code: str) -> dict:
    """Qualified name -> (bases, member names) of the classes the file declares."""
    return {"::".join(facts.scope): (facts.bases, sorted(member.name for member in facts.members))
            for facts in file_classes(context_of(code)).classes}


@pytest.mark.parametrize("head", [
    "class NVF_API Expr : public Val",
    "class TORCH_API Expr : public Val",
    "struct C10_API Expr : Val",
    "class LLVM_LIBRARY_VISIBILITY Expr final : public Val",
    "class DLL_EXPORT(core) Expr : public Val",
    "class __declspec(dllexport) Expr : public Val",
    "class alignas(16) Expr : public Val",
    "class [[nodiscard]] Expr final : public Val",
    "class __attribute__((visibility(\"default\"))) Expr : public Val",
])
def test_class_heads_with_export_or_attribute_macros_keep_members_and_bases(head):
    found = classes(f"""\
        namespace ir {{
        class Val {{}};
        {head} {{
         public:
          Expr(const Expr* src, IrCloner* ir_cloner);
         private:
          std::vector<Val*> outputs_;
        }};
        }}
    """)
    assert found["ir::Expr"] == (("Val",), ["outputs_"])


@pytest.mark.parametrize("head, name", [
    ("struct C10_EXPORT ivalue::Future final : c10::target", "ivalue::Future"),
    ("class PROTOBUF_EXPORT Method PROTOBUF_FINAL : public Message", "Method"),
    ("template <> struct TORCH_API Factory<c10::Dynamic> : Base", "Factory"),
])
def test_qualified_specialized_and_doubly_marked_heads(head, name):
    context = context_of(f"{head} {{\n  int x;\n}};\n")
    (facts,) = file_classes(context).classes
    assert (facts.name, [member.name for member in facts.members]) == (name, ["x"])


@pytest.mark.parametrize("code", [
    "struct STAT st;\n",  # a variable of type `struct STAT`
    "struct HDR header = {0};\n",
    "struct PAGE *page_of(void *p) { return 0; }\n",
    "class Plain : public Base { int x; };\n",
    "class ABI;\nclass ABI : public Base { int x; };\n",  # an all-caps class name
    "const char *s = \"class NVF_API Expr : public Val {\";\n",
])
def test_look_alikes_are_left_as_they_are(code):
    for language in ("c", "cpp"):
        data = code.encode()
        tree = parse(data, language)
        assert misread_heads(tree, data) == []


def test_c_struct_heads_with_a_packing_macro():
    context = context_of("struct PACKED wire_hdr { unsigned len; char tag; };\n", "c", "a.c")
    (specifier,) = [node for node in context.tree.root_node.named_children]
    assert specifier.type == "struct_specifier"
    assert context.text(specifier.child_by_field_name("name")) == "wire_hdr"


def test_macro_defined_bodies_are_function_scopes():
    context = context_of("""\
        static char buf[16];
        Test(mr, small) {
            char buf[64];
            use(buf);
        }
        Test(mr, other, .init = setup) { use(buf); }
        void plain(void) { use(buf); }
    """, "c", "t.c")
    uses = [node for _, node in context.tokens(("use",))]
    scopes = [function_scope(context, node) for node in uses]
    assert [scope.type for scope in scopes] == ["compound_statement"] * 2 + ["function_definition"]
    assert scopes[0] != scopes[1]
    (declaration,) = [node for _, node in context.tokens(("buf",))][:1]
    assert function_scope(context, declaration) is None  # the file's own array


@pytest.mark.parametrize("language, code", [
    ("c", "TestSuite(mr, .timeout = 10);\nTest(mr, small) {\n    char buf[64];\n    use(buf);\n}\n"),
    ("c", "VERBS_INI\n{\n    char buf[64];\n    use(buf);\n}\n"),
    ("c", "static int expect(int err)\n{\n\treturn err;\n}\n\nParameterizedTest(struct parms *p, mr, "
          "sizes)\n{\n\tstruct region mr;\n\tchar buf[64];\n\tuse(buf);\n}\n"),
    ("cpp", "TEST_F(RegistrationTest, 1) {\n  char buf[64];\n  use(buf);\n}\n"),
    ("cpp", "inline EXPORT_CONSTEXPR Ring::Ring(int n)\n    : size_(n) {\n  char buf[64];\n  use(buf);\n}\n"),
])
def test_macro_heads_of_each_shape_make_function_scopes(language, code):
    context = context_of(code, language, f"t.{'c' if language == 'c' else 'cpp'}")
    (use,) = [node for _, node in context.tokens(("use",))]
    scope = function_scope(context, use)
    assert scope is not None and "char buf[64];" in context.text(scope)


def test_a_block_at_file_scope_after_a_complete_statement_is_not_a_function():
    context = context_of("int table[2] = {1, 2};\n{ use(table); }\n", "c", "t.c")
    (use,) = [node for _, node in context.tokens(("use",))]
    assert function_scope(context, use) is None


IR = {
    "include/ir/base.h": """\
        #pragma once
        #include <vector>
        #include <ir/visibility.h>
        namespace ir {
        class IrCloner;
        class NVF_API Statement {
         public:
          Statement(const Statement* src, IrCloner* ir_cloner);
        };
        class NVF_API Val : public Statement {
         public:
          Val(const Val* src, IrCloner* ir_cloner);
        };
        class NVF_API Expr : public Statement {
         public:
          Expr(const Expr* src, IrCloner* ir_cloner);
         private:
          std::vector<Val*> inputs_;
          std::vector<Val*> outputs_;
        };
        class NVF_API IrCloner {
         public:
          Statement* clone(const Statement* statement);
          template <class T> std::vector<T> clone(const std::vector<T>& nodes);
        };
        }  // namespace ir
    """,
    "include/ir/visibility.h": '#define NVF_API __attribute__((visibility("default")))\n',
}


def findings(root, files: dict[str, str]) -> list[str]:
    """`path:line:column: code` of each finding of every rule in the project."""
    return [f"{f.path}:{f.line}:{f.column}: {f.code}"
            for f in lint_project(root, files, all_rules())]


@pytest.mark.parametrize("outputs, expected", [
    ("outputs_(src->outputs_)", ["src/expr.cpp:7:7: CUR501"]),
    ("outputs_(ir_cloner->clone(src->outputs_))", []),
])
def test_cloner_rules_see_classes_declared_with_export_macros(tmp_path, outputs, expected):
    assert findings(tmp_path, {**IR, "src/expr.cpp": f"""\
        #include <ir/base.h>
        namespace ir {{
        Expr::Expr(const Expr* src, IrCloner* ir_cloner)
            : Statement(src, ir_cloner),
              inputs_(ir_cloner->clone(src->inputs_)),
              // the outputs
              {outputs} {{}}
        }}  // namespace ir
    """}) == expected


def test_a_name_in_a_macro_body_is_not_an_earlier_bodys_local(tmp_path):
    assert findings(tmp_path, {"test/mr.c": """\
        #include <stdlib.h>
        #include <criterion/criterion.h>
        #include <infiniband/verbs.h>

        static struct ibv_pd *pd;

        Test(mr, stack_array) {
            char buf[8192];
            cr_assert(ibv_reg_mr(pd, buf, sizeof(buf), 0) != NULL);
        }

        Test(mr, page_aligned_heap) {
            void *buf = NULL;
            cr_assert(posix_memalign(&buf, 4096, 8192) == 0);
            cr_assert(ibv_reg_mr(pd, buf, 8192, 0) != NULL);
        }
    """}) == ["test/mr.c:9:30: CUR302"]  # the stack array only


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_block_headed_by_a_macro_inside_a_function_is_read_as_an_if(language):
    """`IF_FAILED(ibv_fork_init()) { ... }` is a nested function definition to tree-sitter,
    whose declarator swallows the call; read again with `if` over the macro's name, the call
    is a call. A real nested function, a lowercase call and a file-scope macro body stay."""
    code = """\
        int setup(void)
        {
            IF_FAILED(ibv_fork_init()) {
                return -1;
            }
            return 0;
        }
        TEST_F(Verbs, Forks) { ibv_fork_init(); }
        """
    context = context_of(code, language, "a.cpp" if language == "cpp" else "a.c")
    calls = [context.text(node) for node in context.descendants(context.root)
             if node.type == "call_expression"]
    assert "ibv_fork_init()" in calls and calls.count("ibv_fork_init()") == 2
    data = textwrap.dedent(code).encode()
    assert [data[start:end] for start, end in misread_blocks(
        _parser(language).parse(data), data)] == [b"IF_FAILED"]
    nested = b"int outer(void) { int helper(int x) { return x; } return helper(1); }"
    assert misread_blocks(_parser("c").parse(nested), nested) == []


def test_macro_block_heads_are_found_in_linear_time():
    import time

    from cursedlint.analysis.c_macros import _BLOCK_MACRO

    def cost(n: int) -> float:
        start = time.process_time()
        for data in (b"A" * n + b" " * n + b"x", b"_" + b"A" * n + b" " * 16 + b"(",
                     b"(" * n + b"A" * n, b"A_" * n + b"("):
            list(_BLOCK_MACRO.finditer(data[::-1]))  # as misread_blocks searches
        return time.process_time() - start

    cost(1000)
    assert cost(400_000) < 0.5


@pytest.mark.parametrize("head, found", [
    ("IF_FAILED(x)", True), ("IF_FAILED \t  (x)", True), ("A1(x)", True), ("AB_(x)", True),
    ("A(x)", False), ("_IF_FAILED(x)", False), ("xIF_FAILED(x)", False), ("$IF_FAILED(x)", False),
    ("IF_FAILEDx(x)", False), ("IF_FAILED" + " " * 17 + "(x)", False), ("1IF(x)", False),
])
def test_macro_block_heads_are_all_caps_names_called(head, found):
    """The names `misread_blocks` looks at: two characters or more, the first a capital, the
    others capitals, digits or `_`, not within a longer identifier or after `$`, and up to 16
    blanks before the `(`."""
    data = f"int f(void)\n{{\n    {head} {{\n        g();\n    }}\n}}\n".encode()
    blocks = misread_blocks(_parser("c").parse(data), data)
    assert bool(blocks) == found


@pytest.mark.parametrize("code", [
    b"class NVF_API Expr : public Val {};\nstruct C10_API S {};\nunion U_API U {};\n",
    b"struct A_API B { class C_API D : E {}; };\n",
    b"class FOO(struct BAR x {) Name {\n",  # a head inside another's macro arguments
    b"class FOO(union BAR Y {) Z {\nstruct Q_API R {};\n",
    b"int structure; class X {};\n",
])
def test_class_heads_are_found_as_one_search_finds_them(code):
    """One search per keyword finds the heads one search of all three finds, in order."""
    from cursedlint.analysis.c_macros import _HEAD_MACRO, _head_macros

    assert [match.span(0) for match in _head_macros(code)] == [
        match.span(0) for match in _HEAD_MACRO.finditer(code)]
