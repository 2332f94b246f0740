"""CUR501/CUR502 with a copy routine whose cloner is an `auto` local (NVIDIA/Fuser's
`Fusion::copy`: `auto ir_cloner = IrContainer::copy(from, to);`): a cloner when its initializer
calls a function the project declares (in a header) to return a cloner, or when it is used as
one; an `auto` local that is neither, or whose `clone` is a node copying itself, is no cloner."""

from __future__ import annotations

import pytest

from cursedlint.rules.cloners import MemberMissedByCloner, PointerCopiedAroundCloner

from harness import lint_project

RULES = {rule.code: rule for rule in (PointerCopiedAroundCloner, MemberMissedByCloner)}

HEADER = """\
#pragma once
#include <vector>

namespace ir {
class IrCloner;
class Container;

class Statement {
 public:
  virtual ~Statement() = default;
};

class Val : public Statement {
 public:
  Val(const Val* src, IrCloner* cloner);
  Val* clone(IrCloner* cloner) const;  // a value copying itself, through a cloner
  Val* clone(Container* to) const;     // into another container
  Val* clone() const;                  // alone
  Expr* definition() const { return definition_; }
  const std::vector<Expr*>& uses() const { return uses_; }
  void setDefinition(Expr* expr) { definition_ = expr; }
  void setUses(const std::vector<Expr*>& uses) { uses_ = uses; }

 private:
  Expr* definition_ = nullptr;  // set by the container's copy routine
  std::vector<Expr*> uses_;     // likewise
};

class Expr : public Statement {
 public:
  Expr(const Expr* src, IrCloner* cloner);
};

class IrCloner {
 public:
  explicit IrCloner(Container* to);
  Statement* clone(const Statement* statement);
  Statement* lookup(const Statement* statement);  // the copy already made of a node
  template <class T> std::vector<T> clone(const std::vector<T>& nodes);
};

IrCloner* clonerOf(Container* to);

class Container {
 public:
  static IrCloner copy(const Container* from, Container* to);
  static Val* aliasOf(const Container* container, const Val* val);
  IrCloner& cloner();
  const std::vector<Val*>& vals() const { return vals_; }

 protected:
  std::vector<Val*> vals_;
};

class Fusion : public Container {
 public:
  static IrCloner copy(const Fusion* from, Fusion* to);

 private:
  std::vector<Val*> inputs_;
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
IrCloner Container::copy(const Container* from, Container* to) {
  IrCloner cloner(to);
  for (Val* val : from->vals_) {
    to->vals_.push_back(static_cast<Val*>(cloner.clone(val)));
  }
  return cloner;
}
}  // namespace ir
"""

FUSION = """\
#include "ir/ir.h"

namespace ir {
IrCloner Fusion::copy(const Fusion* from, Fusion* to) {
  {declaration}
  // the values' graph edges are mapped once every value exists
  for (Val* val : from->vals()) {
    {definition}
    static_cast<Val*>(cloner{access}clone(val))->setUses(cloner{access}clone(val->uses()));
  }
  to->inputs_ = cloner{access}clone(from->inputs_);
  return {returned};
}
}  // namespace ir
"""

SET_DEFINITION = ("static_cast<Val*>(cloner{access}clone(val))->setDefinition(\n"
                  "        static_cast<Expr*>(cloner{access}clone(val->definition())));")


def fusion(declaration: str, definition: str = SET_DEFINITION, uses: bool = True) -> str:
    access = "->" if "*" in declaration else "."
    text = FUSION.replace("{declaration}", declaration).replace("{definition}", definition)
    if not uses:
        text = "\n".join(line for line in text.splitlines() if "setUses" not in line) + "\n"
    returned = "*cloner" if "*" in declaration else "cloner"
    return text.replace("{access}", access).replace("{returned}", returned)


def findings(tmp_path, routine: str, path: str = "src/val.cpp") -> list[tuple[int, str, str]]:
    files = {"include/ir/ir.h": HEADER, "src/val.cpp": VAL, "src/container.cpp": CONTAINER,
             "src/fusion.cpp": routine}
    found = lint_project(tmp_path, files, RULES, paths=[path])
    return [(finding.line, finding.code, finding.message) for finding in found]


def missed(found) -> list[str]:
    return sorted(message.split("never sets `")[1].split("`")[0] for _, _, message in found)


@pytest.mark.parametrize("declaration", [
    "auto cloner = Container::copy(from, to);",  # declared in the header to return IrCloner
    "const auto& cloner = Container::copy(from, to);",
    "auto* cloner = clonerOf(to);",  # a free function returning IrCloner*
    "auto& cloner = to->cloner();",  # through an object: a cloner by its use alone
    "auto* cloner = &to->cloner();",
])
def test_an_auto_cloner_maps_what_the_constructor_leaves_unset(tmp_path, declaration):
    assert findings(tmp_path, fusion(declaration)) == []


def test_the_members_an_auto_cloner_leaves_alone_are_still_missed(tmp_path):
    routine = fusion("auto cloner = Container::copy(from, to);", definition="")
    assert missed(findings(tmp_path, routine)) == ["definition_"]


def test_the_index_alone_makes_a_cloner_of_an_auto_local_not_used_as_one(tmp_path):
    """No `cloner.clone(x)`: only the header says `Container::copy` returns a cloner."""
    mapped = ("static_cast<Val*>(cloner.lookup(val))->setDefinition(\n"
              "        static_cast<Expr*>(cloner.lookup(val->definition())));")
    routine = fusion("auto cloner = Container::copy(from, to);", definition=mapped, uses=False)
    routine = routine.replace("cloner.clone(from->inputs_)", "{}")
    assert missed(findings(tmp_path, routine)) == ["uses_"]
    unknown = routine.replace("Container::copy(from, to)", "copyValues(from, to)")
    assert missed(findings(tmp_path, unknown)) == ["definition_", "uses_"]


def test_a_pointer_copied_around_an_auto_cloner_is_reported(tmp_path):
    routine = fusion("auto cloner = Container::copy(from, to);").replace(
        "cloner.clone(from->inputs_)", "from->inputs_")
    assert findings(tmp_path, routine, path="src/fusion.cpp") == [
        (12, "CUR501", "`inputs_` is copied from `from->inputs_` without the cloner")]


@pytest.mark.parametrize("argument", ["&cloner", "to", ""])
def test_an_auto_local_whose_clone_is_a_node_copying_itself_is_no_cloner(tmp_path, argument):
    """`alias->clone(&cloner)`, `alias->clone(to)`, `alias->clone()`: `Val::clone`, not the
    cloner's; what it is given keeps the source's pointers, so `definition_` is still missed."""
    look_alike = ("auto* alias = Container::aliasOf(from, val);\n"
                  f"    alias->clone({argument})->setDefinition(alias->definition());")
    routine = fusion("auto cloner = Container::copy(from, to);", definition=look_alike)
    assert missed(findings(tmp_path, routine)) == ["definition_"]


def test_an_auto_local_of_another_type_does_not_make_a_copy_routine(tmp_path):
    """`auto vals = from->vals();` is no cloner: the routine copies nothing through one."""
    routine = """\
#include "ir/ir.h"

namespace ir {
IrCloner Fusion::copy(const Fusion* from, Fusion* to) {
  auto vals = from->vals();
  auto* alias = Container::aliasOf(from, vals[0]);
  to->inputs_ = from->inputs_;
  alias->clone(to)->setDefinition(alias->definition());
  return IrCloner(to);
}
}  // namespace ir
"""
    assert findings(tmp_path, routine, path="src/fusion.cpp") == []
    assert missed(findings(tmp_path, routine)) == ["definition_", "uses_"]
