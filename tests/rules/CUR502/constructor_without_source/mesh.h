// A block-structured mesh: a PartitionMapping says which rank owns each tile (it copies
// nothing), and a Patch copies its tiles through a TileCloner.
#pragma once

#include <vector>

namespace mesh {

class Tile {
 public:
  virtual ~Tile() = default;
};

class Grid {
 public:
  int tiles() const;
};

class PartitionMapping {
 public:
  int ownerOf(const Tile& tile) const;
  int size() const;
};

class TileCloner {
 public:
  Tile* clone(const Tile* tile);
};

class Solver {
 public:
  Solver(const Grid& grid, const PartitionMapping& parts);
  void setBoundary(const Tile* boundary) { boundary_ = boundary; }

 private:
  const Grid* grid_ = nullptr;
  const Tile* boundary_ = nullptr;
};

class Patch {
 public:
  Patch(const Patch& other, TileCloner& cloner);

 private:
  std::vector<Tile*> tiles_;
  Tile* ghost_ = nullptr;
};

}  // namespace mesh
