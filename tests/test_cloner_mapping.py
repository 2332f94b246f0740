"""CUR501/CUR502 across a small IR project: members a container's copy routine maps through
the cloner right after cloning (in another file, found through the project index) are not
missed by the cloning constructor; one range insertion is one finding."""

from __future__ import annotations

import textwrap

import pytest

from cursedlint.rules.cloners import (
    MemberMissedByCloner,
    PointerCopiedAroundCloner,
    setter_subject,
)

from harness import lint, lint_project

RULES = {rule.code: rule for rule in (PointerCopiedAroundCloner, MemberMissedByCloner)}

HEADER = """\
#pragma once
#include <unordered_set>
#include <vector>

namespace ir {
class IrCloner;
class Container;
class Expr;

class Statement {
 public:
  virtual ~Statement() = default;
};

class Val : public Statement {
 public:
  Val(const Val* src, IrCloner* cloner);
  Expr* definition() const { return definition_; }
  const std::vector<Expr*>& uses() const { return uses_; }
  void setDefinition(Expr* expr) { definition_ = expr; }
  void setUses(const std::vector<Expr*>& uses) { uses_ = uses; }

 private:
  Expr* definition_ = nullptr;
  std::vector<Expr*> uses_;
};

class Expr : public Statement {
 public:
  Expr(const Expr* src, IrCloner* cloner);

 private:
  std::vector<Val*> inputs_;
  std::vector<Val*> outputs_;
};

class IrCloner {
 public:
  explicit IrCloner(Container* to);
  Statement* clone(const Statement* statement);
  template <class T> std::vector<T> clone(const std::vector<T>& nodes);
};

class Container {
 public:
  static void copy(const Container* from, Container* to);

 private:
  std::unordered_set<Val*> vals_;
};
}  // namespace ir
"""

VAL = """\
#include "ir/ir.h"

namespace ir {
Val::Val(const Val* src, IrCloner* cloner) : Statement() {}
}  // namespace ir
"""

CONTAINER = """\
#include "ir/ir.h"

namespace ir {
void Container::copy(const Container* from, Container* to) {
  IrCloner cloner(to);
  for (Val* val : from->vals_) {
    to->vals_.insert(static_cast<Val*>(cloner.clone(val)));
  }
  // the values' graph edges are mapped once every value exists
  for (Val* val : from->vals_) {
    static_cast<Val*>(cloner.clone(val))->setUses(cloner.clone(val->uses()));
    {definition}
  }
}
}  // namespace ir
"""


def lint_in_project(tmp_path, container: str) -> list[tuple[int, str, str]]:
    files = {"include/ir/ir.h": HEADER, "src/val.cpp": VAL, "src/container.cpp": container}
    found = lint_project(tmp_path, files, RULES, paths=["src/val.cpp"])
    return [(finding.line, finding.code, finding.message) for finding in found]


def missed(found) -> list[str]:
    return sorted(message.split("never sets `")[1].split("`")[0] for _, _, message in found)


def test_members_the_copy_routine_maps_after_cloning_are_not_missed(tmp_path):
    container = CONTAINER.replace(
        "{definition}", "static_cast<Val*>(cloner.clone(val))->setDefinition(\n"
                        "        static_cast<Expr*>(cloner.clone(val->definition())));")
    assert lint_in_project(tmp_path, container) == []


def test_a_member_the_copy_routine_leaves_alone_is_still_missed(tmp_path):
    found = lint_in_project(tmp_path, CONTAINER.replace("{definition}", ""))
    assert [(line, code) for line, code, _ in found] == [(4, "CUR502")]
    assert missed(found) == ["definition_"]


def test_a_setter_given_the_source_objects_pointers_is_not_a_mapping(tmp_path):
    container = CONTAINER.replace("{definition}", "").replace(
        "->setUses(cloner.clone(val->uses()))", "->setUses(val->uses())")
    assert missed(lint_in_project(tmp_path, container)) == ["definition_", "uses_"]


@pytest.mark.parametrize("name, subject", [
    ("uses_", "uses"), ("m_uses", "uses"), ("setUses", "uses"), ("set_uses", "uses"),
    ("setup_", "setup"), ("definition", "definition"),
])
def test_setter_subject(name, subject):
    assert setter_subject(name) == subject


def test_one_range_insertion_is_one_finding():
    code = HEADER + textwrap.dedent("""\
        namespace ir {
        Expr::Expr(const Expr* src, IrCloner* cloner)
            : Statement(), inputs_(cloner->clone(src->inputs_)) {
          outputs_.insert(outputs_.end(), src->outputs_.begin(), src->outputs_.end());
        }
        }  // namespace ir
        """)
    found = lint(code, RULES, path="expr.cpp")
    offset = HEADER.count("\n")
    assert [(f.line - offset, f.code) for f in found] == [(4, "CUR501")]
