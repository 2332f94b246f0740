#include "mesh.h"

namespace mesh {

// Takes a mapping but copies no solver: the boundary is set later by setBoundary.
Solver::Solver(const Grid& grid, const PartitionMapping& parts)  // ok: CUR502
    : grid_(&grid) {
  (void)parts.size();
}

// A copy of another patch: the ghost tile is forgotten.
Patch::Patch(const Patch& other, TileCloner& cloner)  // warning: CUR502 "ghost_"
    : tiles_() {
  for (const Tile* tile : other.tiles_) {
    tiles_.push_back(cloner.clone(tile));
  }
}

}  // namespace mesh
