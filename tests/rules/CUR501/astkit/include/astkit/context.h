#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace astkit {

struct Location {
  int line = 0;
  int column = 0;
};

class Node {
 public:
  explicit Node(const Location &loc) : loc(loc) {}
  virtual ~Node() = default;
  Location loc;
};

// Owns every node of one syntax tree. A macro expansion copies a subtree into the context of
// the tree it expands in; the source tree may be freed right after.
class Context {
 public:
  template <typename T, typename... Args>
  T *make(Args &&...args) {
    auto node = std::make_unique<T>(std::forward<Args>(args)...);
    T *raw = node.get();
    nodes_.push_back(std::move(node));
    return raw;
  }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
};

// Copies one node (and, through its cloning constructor, its subtree) into `ctx`.
template <typename T>
T *clone(Context &ctx, const T *node, const Location &loc) {
  return node == nullptr ? nullptr : ctx.make<T>(ctx, *node, loc);
}

}  // namespace astkit
