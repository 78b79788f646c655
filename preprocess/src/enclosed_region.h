// The check that the first source is not inside a solid needs the regions on the other side of the
// air's surfaces (air.cpp). Found here with the parallel run components (run_components.h) rather
// than one breadth-first fill per region, which on a 512^3 grid took seconds on one core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/preprocess/air.h"

namespace ardent {

// The largest face-connected region of cells flagged `kind` (never air) that touches the air and
// does not reach the grid's edge; regions connect only where no surface separates two cells. Ties
// go to the region met first from the air (air cells in memory order, then neighbours -x +x -y +y
// -z +z). Its cells, the one it was met at first; empty if there is none.
std::vector<size_t> largest_enclosed_neighbour(const AirModel& m, const std::vector<uint8_t>& flag,
                                               const std::vector<uint8_t>& walls, uint8_t kind);

}  // namespace ardent
