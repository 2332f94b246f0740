// A label list kept in an arena: a copy shares the tail of the chain on purpose.
#include <cstring>

namespace astkit {

class Arena {
 public:
  char *allocate(unsigned long size);
};

char *copyName(Arena &arena, const char *name) {
  char *out = arena.allocate(std::strlen(name) + 1);
  std::strcpy(out, name);
  return out;
}

class Label {
 public:
  Label(Arena &arena, const Label &other)
      : text(copyName(arena, other.text)), next(other.next) {}

  char *text = nullptr;
  Label *next = nullptr;
};

}  // namespace astkit
