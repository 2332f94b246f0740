#include "astkit/nodes.h"

namespace astkit {

// Expands a macro body into the tree being built: every node of the copy lives in `into`.
Binop *expand(Context &into, const Binop &body, const Location &at) {
  return clone(into, &body, at);
}

}  // namespace astkit
