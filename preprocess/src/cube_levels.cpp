#include "cube_levels.h"

#include <algorithm>
#include <bit>

#include "thread_share.h"

namespace ardent {
namespace {

// cube[i] = side of the largest free cube with its minimum corner at cell i, capped at `cap`: one
// backward pass, each cell from its seven neighbours above it (serial: each plane needs the next).
std::vector<uint16_t> cube_sides(const Grid& g, const std::vector<uint8_t>& free, int cap) {
    std::vector<uint16_t> cube(g.count(), 0);
    const size_t sx = g.stride(0), sy = g.stride(1), sz = g.stride(2);
    for (int k = g.dims[2] - 1; k >= 0; --k)
        for (int j = g.dims[1] - 1; j >= 0; --j)
            for (int i = g.dims[0] - 1; i >= 0; --i) {
                const size_t idx = g.index(i, j, k);
                if (!free[idx]) continue;
                int m = 0;
                if (i + 1 < g.dims[0] && j + 1 < g.dims[1] && k + 1 < g.dims[2])
                    m = std::min({cube[idx + sx], cube[idx + sy], cube[idx + sz],
                                  cube[idx + sx + sy], cube[idx + sx + sz], cube[idx + sy + sz],
                                  cube[idx + sx + sy + sz]});
                cube[idx] = static_cast<uint16_t>(std::min(m + 1, cap));
            }
    return cube;
}

size_t level(int side) {
    return static_cast<size_t>(std::bit_width(static_cast<unsigned>(side)) - 1);
}

}  // namespace

std::vector<std::vector<size_t>> cells_by_cube_level(const Grid& g,
                                                     const std::vector<uint8_t>& free, int cap) {
    const std::vector<uint16_t> cube = cube_sides(g, free, cap);
    const size_t levels = level(cap) + 1;
    // Each slab of z planes lists its cells per level; the slabs are joined in order.
    const int slabs = std::max(1, std::min(g.dims[2], 4 * max_threads()));
    std::vector<std::vector<std::vector<size_t>>> part(static_cast<size_t>(slabs),
                                                       std::vector<std::vector<size_t>>(levels));
#pragma omp parallel for schedule(dynamic)
    for (int n = 0; n < slabs; ++n) {
        auto& mine = part[static_cast<size_t>(n)];
        for (size_t i = g.index(0, 0, g.dims[2] * n / slabs);
             i < g.index(0, 0, g.dims[2] * (n + 1) / slabs); ++i)
            if (cube[i] >= 2) mine[level(cube[i])].push_back(i);
    }
    std::vector<std::vector<size_t>> bucket(levels);
    for (size_t b = 1; b < levels; ++b) {
        size_t n = 0;
        for (const auto& p : part)
            n += p[b].size();
        bucket[b].reserve(n);
        for (const auto& p : part)
            bucket[b].insert(bucket[b].end(), p[b].begin(), p[b].end());
    }
    return bucket;
}

}  // namespace ardent
