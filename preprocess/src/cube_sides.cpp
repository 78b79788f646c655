#include "cube_sides.h"

#include <algorithm>

namespace ardent {

// cube(c) = 1 + the least of its seven neighbours above it (+x, +y, +z and their sums). A row
// (j, k), backward along x, needs rows (j+1, k), (j, k+1) and (j+1, k+1): the rows with one
// j + k are independent, so the diagonals are taken from the highest down, each on all cores.
std::vector<uint16_t> largest_free_cubes(const Grid& g, const std::vector<uint8_t>& free, int cap) {
    std::vector<uint16_t> cube(g.count());
    const int nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
    const size_t sy = g.stride(1), sz = g.stride(2);
    const int diagonals = ny + nz - 1;
#pragma omp parallel
    for (int d = diagonals - 1; d >= 0; --d) {
        const int k_lo = std::max(0, d - (ny - 1)), k_hi = std::min(nz - 1, d);
#pragma omp for schedule(static)
        for (int k = k_lo; k <= k_hi; ++k) {
            const int j = d - k;
            const size_t row = g.index(0, j, k);
            const bool inner = j + 1 < ny && k + 1 < nz;
            int right = 0, right_y = 0, right_z = 0, right_yz = 0;  // the +x neighbours
            for (int i = nx - 1; i >= 0; --i) {
                const size_t idx = row + static_cast<size_t>(i);
                const int y = inner ? cube[idx + sy] : 0, z = inner ? cube[idx + sz] : 0;
                const int yz = inner ? cube[idx + sy + sz] : 0;
                int m = 0;
                if (inner && i + 1 < nx)
                    m = std::min({right, right_y, right_z, right_yz, y, z, yz});
                const int side = free[idx] ? std::min(m + 1, cap) : 0;
                cube[idx] = static_cast<uint16_t>(side);
                right = side;
                right_y = y;
                right_z = z;
                right_yz = yz;
            }
        }
    }
    return cube;
}

}  // namespace ardent
