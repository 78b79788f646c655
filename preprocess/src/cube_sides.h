// The box finder (box_finder.cpp) starts from every free cell ranked by the largest free cube
// anchored at it (its minimum corner). The sides come from one dynamic programme over the grid,
// run as a wavefront of rows on all cores.
#pragma once

#include <cstdint>
#include <vector>

#include "ardent/preprocess/grid.h"

namespace ardent {

// cube[i]: the side of the largest cube of free cells (free[i] != 0) with its minimum corner at
// cell i, capped at `cap` (at most 65535); 0 at cells that are not free.
std::vector<uint16_t> largest_free_cubes(const Grid& g, const std::vector<uint8_t>& free, int cap);

}  // namespace ardent
