"""CUR501/CUR502: two small IR libraries (rule cases: tests/rules/CUR501) linted file by file
(as pre-commit hands them over, headers found only through the project index), and the shapes
the rules must tell apart."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from cursedlint.cli import main
from cursedlint.project.discovery import discover
from cursedlint.config import load_config
from cursedlint.engine import Project
from cursedlint.registry import all_rules
from cursedlint.rule import markers
from cursedlint.rules.cloners import MemberMissedByCloner, PointerCopiedAroundCloner
from cursedlint.settings import Settings

from harness import lint, lint_project, make_linter

CASES = os.path.join(os.path.dirname(__file__), "rules", "CUR501")  # tinyir, graphkit
CODES = (PointerCopiedAroundCloner.code, MemberMissedByCloner.code)
RULES = {rule.code: rule for rule in (PointerCopiedAroundCloner, MemberMissedByCloner)}


def sources(project: str) -> list[str]:
    return sorted(
        os.path.join(directory, name)
        for directory, _, names in os.walk(project)
        for name in names
        if name.endswith(".cpp")
    )


@pytest.fixture(params=["tinyir", "graphkit"])
def project(request, tmp_path):
    copy = tmp_path / request.param
    shutil.copytree(os.path.join(CASES, request.param), copy)
    return str(copy)


def test_a_source_file_without_markers_alone_finds_nothing():
    """Each file linted alone, facts from the whole project (the pre-commit case): the marked
    ones are checked as rule cases (test_rule_cases.py); the others find nothing."""
    project = os.path.join(CASES, "tinyir")
    unmarked = [path for path in sources(project)
                if not markers(Path(path).read_text(encoding="utf-8"))]
    assert unmarked
    for path in unmarked:
        assert lint_project(project, None, RULES, paths=[os.path.relpath(path, project)]) == []


def test_without_the_index_declarations_in_headers_are_unknown_and_nothing_is_guessed(project):
    for path in sources(project):
        with open(path, "rb") as handle:
            findings = lint(handle.read(), RULES, path=path)
        declared_elsewhere = [f for f in findings if os.path.basename(path) not in f.message]
        assert declared_elsewhere == []


def test_cli_on_one_file_names_the_header_and_follows_header_changes(
    tmp_path, monkeypatch, capsys
):
    shutil.copytree(os.path.join(CASES, "tinyir"), tmp_path / "tinyir")
    monkeypatch.chdir(tmp_path / "tinyir")
    with open("cursedlint.toml", "w") as handle:
        handle.write('select = ["CUR5"]\n')
    assert main(["check", "--output-format", "json", "src/container.cpp"]) == 1
    found = json.loads(capsys.readouterr().out)
    related = {item["line"]: item["related"] for item in found}
    assert [(step["path"], step["line"]) for step in related[21]] == [
        ("include/tinyir/container.h", 28)]
    assert any(name.startswith("index-") for name in os.listdir(".cursedlint_cache"))

    header = os.path.join("include", "tinyir", "container.h")
    with open(header) as handle:
        text = handle.read()
    with open(header, "w") as handle:  # one_val_ now points at the shared table: not cloneable
        handle.write(text.replace("Val* one_val_ = nullptr;",
                                  "const meta::DataTypeTable* one_val_ = nullptr;"))
    assert main(["check", "--output-format", "json", "src/container.cpp"]) == 1
    rows = {item["line"] for item in json.loads(capsys.readouterr().out)}
    assert 21 not in rows and 22 in rows, "a cached result must follow the header it relied on"


# -- shapes ------------------------------------------------------------------------------------
HEADER = """\
#include <memory>
#include <vector>
namespace ir {
class Statement {};
class Val : public Statement {};
class Expr : public Statement {};
class IrCloner {
 public:
  Statement* clone(const Statement* statement);
  template <class T> std::vector<T> clone(const std::vector<T>& nodes);
};
}  // namespace ir
"""


def findings(code: str, **options) -> list[tuple[int, str]]:
    found = lint(HEADER + textwrap.dedent(code), RULES, path="shape.cpp", options=options)
    offset = HEADER.count("\n")
    return [(f.line - offset, f.code) for f in found]


def test_this_arrow_and_bare_member_are_the_same_member_but_a_local_is_not():
    assert findings("""\
        namespace ir {
        class Use : public Expr {
          Use(const Use* src, IrCloner* c) {
            Val* first_ = src->first_;   // a local that hides the member
            this->second_ = src->second_;
            first_ = nullptr;
            third_ = src->third_;
          }
          Val* first_;
          Val* second_;
          Val* third_;
        };
        }
        """) == [(5, "CUR501"), (7, "CUR501")]


def test_namespaces_decide_which_class_a_name_means():
    assert findings("""\
        namespace other { class Val {}; }
        namespace ir {
        class Pair : public Expr {
          Pair(const Pair* src, IrCloner* c) : mine_(src->mine_), theirs_(src->theirs_) {}
          Val* mine_;
          other::Val* theirs_;  // not a class the cloner clones
        };
        }
        """) == [(4, "CUR501")]


def test_an_ambiguous_unqualified_name_is_not_guessed():
    assert findings("""\
        namespace other { class Val {}; }
        using namespace ir;
        using namespace other;
        class Holder : public ir::Expr {
          Holder(const Holder* src, ir::IrCloner* c) : held_(src->held_) {}
          Val* held_;
        };
        """) == []


@pytest.mark.parametrize("declaration", [
    "std::unique_ptr<Val> held_;",
    "std::shared_ptr<Val> held_;",
    "Val** held_;",
    "SmallVector<Val*> held_;",
    "std::vector<int> held_;",
    "const std::vector<Val*>* held_;",
])
def test_owning_indirect_and_unknown_types_are_not_reported(declaration):
    assert findings(f"""\
        template <class T> class SmallVector {{}};
        namespace ir {{
        class Holder : public Expr {{
          Holder(const Holder* src, IrCloner* c) : held_(src->held_) {{}}
          {declaration}
        }};
        }}
        """) == []


HOLDER = """\
    namespace ir {{
    Val* makeFresh();
    class Holder : public Expr {{
      Holder(const Holder* src, IrCloner* ir_cloner) : held_({value}) {{}}
      Val* heldValue() const;
      Val* held_;
      Val* other_;
      std::vector<Val*> inputs_;
      Holder* def_;
    }};
    }}
    """


@pytest.mark.parametrize("value", [
    "src->held_", "(src->held_)", "std::move(src->held_)", "static_cast<Val*>(src->held_)",
    "(Val*)src->held_", "(*src).held_", "src->heldValue()", "src->inputs_[0]",
    "src->inputs_.front()", "src->def_->held_", "dyn_cast<Val>(src->held_)",
    "std::move(/* taken */ src->held_)", "std::move<Val*&>(src->held_)",
])
def test_forms_of_a_value_taken_from_the_source(value):
    found = findings(HOLDER.format(value=value))
    assert [item for item in found if item[1] == "CUR501"] == [(4, "CUR501")]


@pytest.mark.parametrize("value", [
    "ir_cloner->clone(src->held_)", "src->held_->cloneInto(ir_cloner)", "makeFresh()",
    "nullptr", "src", "other_", "src->lookup(ir_cloner, 1)",
])
def test_values_through_the_cloner_or_not_from_the_source_are_clean(value):
    found = findings(HOLDER.format(value=value))
    assert [item for item in found if item[1] == "CUR501"] == []


def test_pointers_mapped_in_place_after_the_copy_are_clean():
    assert findings("""\
        namespace ir {
        class Block : public Expr {
          Block(const Block* src, IrCloner* ir_cloner) : body_(src->body_), tail_(src->tail_) {
            for (Expr*& statement : body_) statement = ir_cloner->clone(statement);
            tail_ = ir_cloner->clone(tail_);
          }
          std::vector<Expr*> body_;
          Expr* tail_;
        };
        }
        """) == []


def test_cur502_leaves_caches_statics_delegation_and_helpers_alone():
    assert findings("""\
        namespace ir {
        class Cached : public Expr {
          Cached(const Cached* src, IrCloner* c) {}
          mutable Val* simplified_ = nullptr;
          static Val* registry_;
        };
        class Delegating : public Expr {
          Delegating(Val* v);
          Delegating(const Delegating* src, IrCloner* c) : Delegating(c->clone(src->v_)) {}
          Val* v_;
        };
        class Helped : public Expr {
          Helped(const Helped* src, IrCloner* c) { copyOperands(src, c); }
          void copyOperands(const Helped* src, IrCloner* c);
          Val* lhs_;
        };
        }
        """) == []


def test_cur502_leaves_a_constructor_calling_a_base_method_by_its_qualified_name_alone():
    assert findings("""\
        namespace ir {
        class Binary : public Expr {
         protected:
          void copyOperands(const Binary* src, IrCloner* c);
        };
        class Add : public Binary {
          Add(const Add* src, IrCloner* c) { Binary::copyOperands(src, c); }
          Val* lhs_;
        };
        }
        """) == []


def test_copy_function_with_a_local_cloner_copies_into_the_writable_parameter():
    assert findings("""\
        namespace ir {
        class Graph {
         public:
          static void copy(const Graph* from, Graph* to);
          void deepCopy(Graph* scratch, const Graph* source) const;
          Val* zero_;
          std::vector<Val*> outputs_;
        };
        void Graph::copy(const Graph* from, Graph* to) {
          IrCloner cloner;
          to->outputs_ = cloner.clone(from->outputs_);
          to->zero_ = from->zero_;
        }
        void Graph::deepCopy(Graph* scratch, const Graph* source) const {
          IrCloner cloner;
          scratch->zero_ = source->zero_;
        }
        void unrelated(const Graph* from, Graph* to) {
          to->zero_ = from->zero_;  // no cloner in sight: a deliberate share, not judged
        }
        }
        """) == [(12, "CUR501"), (16, "CUR501")]


def test_configured_cloner_types_learn_what_the_cloner_maps():
    code = """\
        namespace ir {
        class Graph {};
        class Duplicator {
         public:
          explicit Duplicator(Graph* into);
          void retarget(Graph* into);
          template <class T> T* duplicate(const T* node);
          static void registerKind(const Statement* prototype);
        };
        class Holder : public Expr {
          Holder(const Holder* src, Duplicator* d) : held_(src->held_), graph_(src->graph_) {}
          Val* held_;
          Graph* graph_;
        };
        }
        """
    assert findings(code) == [], "not a cloner type by default"
    options = {"cloner-types": ["Duplicator"]}
    # only a template and a static method: the classes with cloning constructors are cloneable
    assert findings(code, **options) == []
    # a method mapping nodes: Statement and its subclasses are cloneable; what the
    # constructor takes (the destination graph) is not, though retarget() takes it too
    mapping = code.replace("static void registerKind(", "void record(")
    assert findings(mapping, **options) == [(11, "CUR501")]


def test_copy_function_names_match_by_beginning():
    code = """\
        namespace ir {
        class Module {
         public:
          static void cloneInto(const Module& source, Module& dest);
          Val* entry_;
        };
        void Module::cloneInto(const Module& source, Module& dest) {
          IrCloner cloner;
          dest.entry_ = source.entry_;
        }
        }
        """
    assert findings(code) == [(9, "CUR501")]
    assert findings(code, **{"copy-functions": ["duplicate"]}) == []


def test_clone_method_copying_this_into_a_local_copy():
    assert findings("""\
        namespace ir {
        class Graph {
         public:
          Graph* clone() const;
          Graph* snapshot() const;
          Val* entryValue() const;
         private:
          std::vector<Val*> outputs_;
          Val* entry_;
          Val* scratch_;
        };
        Graph* Graph::clone() const {
          IrCloner cloner;
          auto* copy = new Graph();
          copy->outputs_ = cloner.clone(outputs_);
          copy->entry_ = this->entry_;
          copy->scratch_ = entry_;
          copy->entry_ = entryValue();
          return copy;
        }
        Graph* Graph::snapshot() const {
          auto* copy = new Graph();
          copy->entry_ = entry_;  // not a clone function and no cloner: a deliberate view
          return copy;
        }
        }
        """) == [(16, "CUR501"), (17, "CUR501"), (18, "CUR501")]


def test_clone_method_filling_new_objects_of_derived_classes_from_aliases_of_this():
    assert findings("""\
        namespace ir {
        class Inst : public Statement {
         public:
          Inst* cloneWith(IrCloner& cloner) const;
          std::vector<Val*> operands_;
        };
        class Load : public Inst {
         public:
          Val* dominating_store_;
          int align_;
        };
        Inst* Inst::cloneWith(IrCloner& cloner) const {
          const auto* load = static_cast<const Load*>(this);
          auto* copy = new Load();
          copy->align_ = load->align_;
          copy->dominating_store_ = load->dominating_store_;
          copy->operands_ = cloner.clone(operands_);
          Inst* unrelated = makeInst();
          unrelated->operands_ = operands_;
          return copy;
        }
        }
        """) == [(16, "CUR501"), (19, "CUR501")]


def test_multi_argument_inserts_through_the_cloner_are_clean():
    assert findings("""\
        #include <map>
        namespace ir {
        class Table : public Expr {
          Table(const Table* src, IrCloner* cloner) {
            for (const auto& entry : src->rows_) {
              rows_.emplace(entry.first, cloner->clone(entry.second));
            }
          }
          std::map<int, Val*> rows_;
        };
        }
        """) == []


def test_deep_hierarchies_templates_and_chains_do_not_exhaust_the_stack():
    depth = 1200  # beyond Python's default recursion limit
    classes = "\n".join(
        f"class C{i} : public {'Val' if i == 0 else f'C{i - 1}'} {{}};" for i in range(depth)
    )
    nested = "std::vector<" * 300 + "C3*" + ">" * 300
    chain = "src" + "->next_" * depth + "->first_"
    code = f"""\
        namespace ir {{
        {classes}
        class Holder : public C{depth - 1} {{
          Holder(const Holder* src, IrCloner* c)
              : first_({chain}), nested_(src->nested_), next_(c->clone(src->next_)) {{}}
          C1* first_;
          {nested} nested_;
          Holder* next_;
        }};
        }}
        """
    assert findings(code) == [(depth + 4, "CUR501"), (depth + 4, "CUR501")]


def test_the_class_index_is_built_only_when_a_linted_file_could_use_it(tmp_path):
    shutil.copytree(os.path.join(CASES, "tinyir"), tmp_path / "tinyir")
    project = str(tmp_path / "tinyir")
    files = discover([project], load_config(None, all_rules())).files
    clean = [(str(tmp_path / "tinyir" / "src" / "graph.cpp"), "cpp")]  # no cloner type named

    def run(linted):
        linter = make_linter(RULES)
        linter.run(linted, 1, Project(lambda: files, linted_all=False))
        return linter.project

    assert "cpp-classes" not in run(clean)
    assert len(run(clean + [(os.path.join(project, "src", "nodes.cpp"), "cpp")])["cpp-classes"]) >= 4


def test_cur502_covers_members_of_bases_without_a_cloning_constructor_of_their_own():
    assert findings("""\
        namespace ir {
        class Unary : public Expr {
         protected:
          using Expr::Expr;
          Val* operand_ = nullptr;     // Unary has no cloning constructor: subclasses copy it
        };
        class Cloned : public Expr {
         public:
          Cloned(const Cloned* src, IrCloner* c);
         protected:
          Val* anchor_ = nullptr;      // set by Cloned's own cloning constructor
        };
        class Negate : public Unary {
         public:
          Negate(const Negate* src, IrCloner* c) : Unary() {}
        };
        class Abs : public Cloned {
         public:
          Abs(const Abs* src, IrCloner* c) : Cloned(src, c) {}
        };
        }
        """) == [(15, "CUR502")]


def test_a_name_declared_in_two_blocks_means_the_declaration_in_scope():
    assert findings("""\
        namespace ir {
        class Node : public Statement {
         public:
          Node* cloneAs(int kind, IrCloner& cloner) const;
        };
        class Sum : public Node { public: Val* total_; };
        class Max : public Node { public: int arity_; Val* best_; };
        Node* Node::cloneAs(int kind, IrCloner& cloner) const {
          switch (kind) {
            case 0: {
              auto* copy = new Sum();
              copy->total_ = static_cast<const Sum*>(this)->total_;
              return copy;
            }
            default: {
              auto* copy = new Max();
              copy->arity_ = static_cast<const Max*>(this)->arity_;
              copy->best_ = cloner.clone(static_cast<const Max*>(this)->best_);
              return copy;
            }
          }
        }
        }
        """) == [(12, "CUR501")]


def test_a_clone_method_with_unrelated_class_parameters_still_copies_this():
    assert findings("""\
        namespace ir {
        struct Shape {};
        class Node : public Statement {
         public:
          Node* cloneWithShape(const Shape& shape, IrCloner* cloner) const;
          Val* extent_;
        };
        Node* Node::cloneWithShape(const Shape& shape, IrCloner* cloner) const {
          auto copy = std::make_unique<Node>();
          copy->extent_ = extent_;
          return copy.release();
        }
        }
        """) == [(10, "CUR501")]


CLONER_USES = [
    "Holder(const Holder* src, IrCloner* c) : held_(src->held_) {}",
    "Holder(const Holder& src, IrCloner& c) : held_(src.held_) {}",
    "Holder(const Holder* src, ir::IrCloner* const c) : held_(src->held_) {}",
    "Holder(const Holder* src, [[maybe_unused]] IrCloner* c) : held_(src->held_) {}",
    "Holder(const Holder* src, IrCloner* /* cloner */) : held_(src->held_) {}",
    "Holder(const Holder* src,\n         IrCloner *c = nullptr) : held_(src->held_) {}",
    "Holder(const Holder* src, const CloneContext& ctx) : held_(src->held_) {}",
    "Holder(const Holder* src, BasicCloner<Statement>& c) : held_(src->held_) {}",
    "static void copy(const Holder* from, Holder* to) { IrCloner c; to->held_ = from->held_; }",
    "static void copy(const Holder* from, Holder* to) {\n  IrCloner* c = make();\n"
    "  to->held_ = from->held_;\n}",
    "static void copy(const Holder* from, Holder* to) { for (IrCloner c(to); ;) {"
    " to->held_ = from->held_; break; } }",
]


def test_cloner_mentions_found_from_the_probe_words_are_the_patterns_matches():
    from cursedlint.analysis.cloner_types import ending_pattern, ending_spans
    from cursedlint.rules.cloners import DEFAULT_CLONER_TYPES

    code = (HEADER + "\n".join(CLONER_USES) + (
        "\nusing NodeMapping = std::unordered_map<Node*, Node*>;\n"
        "struct IrClonerMapper;  // IRMappingCloneContext, Mapping_, CloneContexts\n"
        "void remap(IRMapping& map, ValueToValueMapTy& vmap, Mapper* m, CloneContext& cc);\n"
        "int MappMapperMapping = 0; auto Cloner_ = Clone(CloneCloner);\n")).encode()
    endings = tuple(DEFAULT_CLONER_TYPES)
    for start, end in [(0, len(code)), (7, len(code) - 3), (len(code) // 2, len(code)),
                       (0, 0), (40, 41)]:
        assert list(ending_spans(code, endings, start, end)) == [
            match.span() for match in ending_pattern(endings).finditer(code, start, end)]
    assert list(ending_spans(code, ("Mapper", "Mapping"))) == [
        match.span() for match in ending_pattern(("Mapper", "Mapping")).finditer(code)]


@pytest.mark.parametrize("definition", CLONER_USES)
def test_the_parse_free_look_never_hides_a_cloning_candidate(definition):
    from cursedlint.c.context import CContext, parse
    from cursedlint.analysis.cloning_candidates import cloning_candidates
    from cursedlint.rules.cloners import DEFAULT_CLONER_TYPES
    from cursedlint.source import Source

    code = HEADER + "namespace ir {\nclass Holder : public Expr {\n" + definition + (
        "\n  Val* held_;\n};\n}\n"
    )
    options = PointerCopiedAroundCloner.resolved_options()
    context = CContext(Source.from_bytes("x.cpp", code.encode(), "cpp"), Settings(
        enabled=frozenset(CODES)), parse(code.encode(), "cpp"))
    assert cloning_candidates(context, DEFAULT_CLONER_TYPES, ("copy",))
    assert PointerCopiedAroundCloner.may_fire(code.encode(), options, (3, 12), "cpp")
    assert MemberMissedByCloner.may_fire(code.encode(), options, (3, 12), "cpp")


# -- cloners known by use ----------------------------------------------------------------------
BY_USE = """\
    namespace ast {{
    class Ctx {{}};
    class Loc {{}};
    class Sym : public ir::Statement {{
     public:
      Sym(Ctx &ctx, const Sym &other, const Loc &loc);
    }};
    template <class T> T *clone(Ctx &ctx, const T *node, const Loc &loc);
    template <class T> T *copyName(Ctx &ctx, const T *node);
    class Ref : public ir::Statement {{
     public:
      {constructor}
      Sym *sym = nullptr;
      Sym *alias = nullptr;
    }};
    }}
    """


@pytest.mark.parametrize("constructor", [
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(clone(ctx, other.alias, loc)), sym(other.sym) {}",
    "Ref(Ctx *ctx, const Ref *src, const Loc &loc)"
    " : alias(clone(ctx, src->alias, loc)), sym(src->sym) {}",
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(Clone(ctx, other.alias, loc)), sym(other.sym) {}",
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(ast::clone(ctx, other.alias, loc)) { sym = other.sym; }",
])
def test_a_class_handed_to_a_copy_function_with_a_source_member_is_a_cloner(constructor):
    assert findings(BY_USE.format(constructor=constructor)) == [(12, "CUR501")]


@pytest.mark.parametrize("constructor", [
    # the same shape with every member through the copy function
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(clone(ctx, other.alias, loc)), sym(clone(ctx, other.sym, loc)) {}",
    # a copy function only by its name's beginning: an arena helper, not a cloner
    "Ref(Ctx &ctx, const Ref &other) : alias(copyName(ctx, other.alias)), sym(other.sym) {}",
    # the context is not given with the source's member
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(clone(ctx, nullptr, loc)), sym(other.sym) {}",
    # no source of its own class: not a cloning constructor
    "Ref(Ctx &ctx, const Sym &first, const Loc &loc) : alias(clone(ctx, first.alias, loc)) {}",
    # a member call, not the copy function: `ctx` is not handed to it
    "Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
    " : alias(other.alias->clone(ctx)), sym(other.sym) {}",
])
def test_look_alikes_of_a_cloner_known_by_use_are_clean(constructor):
    assert findings(BY_USE.format(constructor=constructor)) == []


def test_a_cloner_known_by_use_in_one_constructor_serves_its_siblings_and_the_advice():
    code = BY_USE.format(constructor="Ref(Ctx &ctx, const Ref &other, const Loc &loc)"
                                     " : alias(clone(ctx, other.alias, loc)),"
                                     " sym(clone(ctx, other.sym, loc)) {}") + """\
        namespace ast {
        class Alias : public ir::Statement {
         public:
          Alias(Ctx &ctx, const Alias &other, const Loc &loc) : target(other.target) {}
          Sym *target = nullptr;
        };
        }
        """
    found = lint(HEADER + textwrap.dedent(code), RULES, path="shape.cpp")
    assert [(f.line - HEADER.count("\n"), f.code) for f in found] == [(20, "CUR501")]
    assert "`clone(ctx, other.target, loc)`" in found[0].help


@pytest.mark.parametrize("text,passes", [
    (b"x(clone(ctx, other.x, loc))", True),
    (b"x(copy(src->x, mapper))", True),
    (b"x(Clone(c, o.x))", True),
    (b"x(copyName(arena, other.x))", False),
    (b"x(other.x->clone(ctx))", False),
    (b"std::copy(first, last, out)", False),
])
def test_the_parse_free_look_lets_copy_calls_with_a_source_member_through(text, passes):
    options = PointerCopiedAroundCloner.resolved_options()
    code = b"struct A { A(const A &o); };\n" + text + b";\n"
    assert PointerCopiedAroundCloner.may_fire(code, options, (3, 12), "cpp") is passes
    assert MemberMissedByCloner.may_fire(code, options, (3, 12), "cpp") is passes
