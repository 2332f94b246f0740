#pragma once

#include <string>

#include "astkit/context.h"

namespace astkit {

// Interned once per program and shared by every tree: not a node of any context.
struct TypeInfo {
  const char *name;
  int size;
};

class Variable : public Node {
 public:
  Variable(Context &ctx, std::string ident, const Location &loc)
      : Node(loc), ident(std::move(ident)) {}
  Variable(Context &ctx, const Variable &other, const Location &loc)
      : Node(loc), ident(other.ident), type(other.type) {}  // ok: CUR501

  std::string ident;
  const TypeInfo *type = nullptr;
};

class Binop : public Node {
 public:
  Binop(Context &ctx, const Binop &other, const Location &loc)
      : Node(loc),
        op(other.op),
        left(clone(ctx, other.left, loc)),
        right(clone(ctx, other.right, loc)) {}

  char op = '+';
  Variable *left = nullptr;
  Variable *right = nullptr;
};

class AddressOf : public Node {
 public:
  AddressOf(Context &ctx, const AddressOf &other, const Location &loc)
      : Node(loc),
        target(other.target),  // error: CUR501@9
        type(other.type) {}

  Variable *target = nullptr;
  const TypeInfo *type = nullptr;
};

}  // namespace astkit
