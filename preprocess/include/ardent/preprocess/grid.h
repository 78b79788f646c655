// The regular voxel grid every solver shares: cubic cells of side h whose faces lie at
// origin + i*h, x index fastest in memory. The origin is the model's bounding-box minimum minus a
// whole number of padding cells, so a box of sides n*h is represented exactly (spec section 5).
#pragma once

#include <cmath>
#include <cstddef>

#include "ardent/preprocess/vec.h"

namespace ardent {

struct Grid {
    Vec3 origin;
    double h = 0;
    Index3 dims{0, 0, 0};

    size_t count() const {
        return static_cast<size_t>(dims[0]) * static_cast<size_t>(dims[1]) *
               static_cast<size_t>(dims[2]);
    }
    size_t index(int i, int j, int k) const {
        return (static_cast<size_t>(k) * static_cast<size_t>(dims[1]) + static_cast<size_t>(j)) *
                   static_cast<size_t>(dims[0]) +
               static_cast<size_t>(i);
    }
    size_t index(Index3 c) const { return index(c[0], c[1], c[2]); }
    Index3 coords(size_t idx) const {
        const size_t nx = static_cast<size_t>(dims[0]), ny = static_cast<size_t>(dims[1]);
        return {static_cast<int>(idx % nx), static_cast<int>((idx / nx) % ny),
                static_cast<int>(idx / (nx * ny))};
    }
    // Stride in cells of one step along an axis.
    size_t stride(int axis) const {
        return axis == 0
                   ? 1
                   : (axis == 1 ? static_cast<size_t>(dims[0])
                                : static_cast<size_t>(dims[0]) * static_cast<size_t>(dims[1]));
    }
    Vec3 centre(Index3 c) const {
        return {origin.x + (c[0] + 0.5) * h, origin.y + (c[1] + 0.5) * h,
                origin.z + (c[2] + 0.5) * h};
    }
    // The cell containing p (may be outside the grid).
    Index3 cell_of(Vec3 p) const {
        return {static_cast<int>(std::floor((p.x - origin.x) / h)),
                static_cast<int>(std::floor((p.y - origin.y) / h)),
                static_cast<int>(std::floor((p.z - origin.z) / h))};
    }
    bool contains(Index3 c) const {
        return c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && c[0] < dims[0] && c[1] < dims[1] &&
               c[2] < dims[2];
    }
    bool on_edge(Index3 c) const {
        return c[0] == 0 || c[1] == 0 || c[2] == 0 || c[0] == dims[0] - 1 || c[1] == dims[1] - 1 ||
               c[2] == dims[2] - 1;
    }
};

// Number of cells a bounding box needs per axis (without padding); exact multiples of h need
// exactly that many cells.
inline int cells_for_extent(double extent, double h) {
    return std::max(1, static_cast<int>(std::ceil(extent / h - 1e-6)));
}

// A grid covering `bounds` with `pad` cells of margin on every side.
Grid make_grid(const Box3& bounds, double h, int pad);

}  // namespace ardent
