// Rectangular decomposition of the air for ARD (spec section 5): every air cell belongs to exactly
// one axis-aligned partition whose sides are powers of two or, by default, smooth numbers
// 2^a 3^b 5^c chosen to leave no avoidable thin slab (PartitionSides); air-air interfaces between
// partitions are listed per normal axis (the X, Y and Z batches), each with how deep its stencil
// layer reaches into either side and a colour so that interfaces of one colour never write the same
// cell; the faces where air meets walls are grouped, per partition side and material, into
// rectangular PML slab descriptors. The result depends only on the air grid, so repeated runs are
// identical.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ardent/preprocess/air.h"

namespace ardent {

struct Partition {
    Index3 origin;  // first cell
    Index3 size;    // cells per axis: powers of two, or 2^a 3^b 5^c (PartitionSides)
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

// Which partition sides the decomposition may use (docs/ard.md, "Partition sides"). PowerOfTwo:
// powers of two only, so a run of air whose length is not a multiple of 4 ends in a 1- or 2-cell
// slab. Smooth (the default): powers of two and every 2^a 3^b 5^c up to kMaxSmoothPartitionSide,
// a partition with such a side keeping all its sides within that bound, and boxes chosen so that
// no run of air is left 1 to 3 cells long where another side avoids it.
enum class PartitionSides { PowerOfTwo, Smooth };
inline constexpr int kMaxSmoothPartitionSide = 64;
bool side_allowed(int n, PartitionSides sides);

struct DecompositionOptions {
    int max_partition_side = 1024;  // no partition side above this
    PartitionSides sides = PartitionSides::Smooth;
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
    // The smallest side of any partition, in cells (0 without partitions).
    int thinnest_partition() const;
};

// Runs of air along the grid's axes (maximal, one per axis and row) and how many of them cross a
// partition thinner than `thin` cells along the run: the interface operator is least accurate
// there (docs/ard.md, "Partition sides"), so `ardent info` reports the share before a run.
struct AirLineStats {
    size_t lines = 0;
    size_t touching_thin = 0;
    double share() const {
        return lines ? static_cast<double>(touching_thin) / static_cast<double>(lines) : 0.0;
    }
};
AirLineStats air_lines_touching_thin(const Decomposition& d, const Grid& g, int thin = 3);

Decomposition decompose(const AirModel& air, const Scene& scene,
                        const DecompositionOptions& options = {});

}  // namespace ardent
