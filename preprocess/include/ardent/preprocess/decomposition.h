// Rectangular decomposition of the air for ARD (spec section 5): every air cell belongs to exactly
// one axis-aligned partition whose sides are powers of two; air-air interfaces between partitions
// are listed per normal axis (the X, Y and Z batches), each with how deep its stencil layer reaches
// into either side and a colour so that interfaces of one colour never write the same cell; the
// faces where air meets walls are grouped, per partition side and material, into rectangular PML
// slab descriptors. The result depends only on the air grid, so repeated runs are identical.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ardent/preprocess/air.h"

namespace ardent {

struct Partition {
    Index3 origin;  // first cell
    Index3 size;    // cells per axis, each a power of two
    size_t cells() const {
        return static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) *
               static_cast<size_t>(size[2]);
    }
};

// Air-air interface between `left` (below the plane along `axis`) and `right` (above it).
struct Interface {
    int axis;
    int plane;      // index along `axis` of the right partition's first cell layer
    Index3 lo, hi;  // face rectangle, half open in the two tangential axes; lo/hi[axis] = plane
    int32_t left, right;
    int depth_left, depth_right;  // cells of the 3-deep stencil layer each side really has
    int color;                    // interfaces of one axis and colour write disjoint cells
    size_t faces() const;
};

// Absorbing layer behind a rectangle of air-wall faces of one partition side.
struct PmlSlab {
    int32_t partition;
    int axis;
    int side;       // -1: wall below the partition along axis, +1: above
    Index3 lo, hi;  // face rectangle of the partition's boundary cells (half open tangentially)
    int material;
    int depth;  // layer thickness in cells
    size_t faces() const;
};

struct DecompositionOptions {
    int max_partition_side = 1024;  // no partition side above this (power of two)
    int pml_depth = 10;  // spec: at least 5; 10 brings a fully absorbing wall below -45 dB
};

struct Decomposition {
    std::vector<Partition> partitions;
    std::vector<Interface> interfaces;  // sorted by axis, then colour
    std::vector<PmlSlab> pml;           // only for materials that absorb
    std::vector<int32_t> owner;         // partition per grid cell, -1 outside air
    size_t rigid_faces = 0;             // air-wall faces of non-absorbing materials (no PML)
    int pml_depth = 0;

    size_t cells_in_partitions() const;
    size_t pml_cells() const;
    size_t interfaces_on_axis(int axis) const;
    int colors_on_axis(int axis) const;
    // "64x32x16" -> number of partitions of that shape.
    std::map<std::string, size_t> shape_counts() const;
    // Share of partition cells in partitions whose every side is at least `side`.
    double share_in_partitions_at_least(int side) const;
};

Decomposition decompose(const AirModel& air, const Scene& scene,
                        const DecompositionOptions& options = {});

}  // namespace ardent
