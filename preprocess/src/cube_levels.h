// The box finder (decomposition.cpp) starts from every free cell bucketed by the largest free cube
// anchored at it (its minimum corner), by the power of two below the cube's side. The sides come
// from one serial dynamic programme; the buckets, lists of up to every air cell, are filled per
// slab of z planes on all cores and joined in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/preprocess/grid.h"

namespace ardent {

// bucket[b], b in [1, log2(cap)]: the free cells (free[i] != 0) whose largest free cube, its side
// capped at `cap`, has a side in [2^b, 2^(b+1)), in memory order. bucket[0] stays empty.
std::vector<std::vector<size_t>> cells_by_cube_level(const Grid& g,
                                                     const std::vector<uint8_t>& free, int cap);

}  // namespace ardent
