// The plane class of the CUDA ARD backend's DCTs (dct_kernels.cuh): the x and y transforms of a
// group whose xy planes fit shared memory, in one pass over global memory instead of two. A block
// takes a slab of consecutive xy planes (contiguous cells: [p][z][y][x] with planes q = p nz + z),
// reads it once into shared memory (asynchronous copies), transforms every x line there and then
// every y line with the line classes' tiles (dct_tile.cuh), which read and write the slab instead
// of global memory, and writes it back once; the inverse does y then x and leaves its input zero.
// The z pass stays the line classes'. A block is one, two or four sub-blocks of dct_threads
// threads, each with its own work lines and barrier and at most one tile of each axis; the whole
// block meets between the axes. On the Musikverein x 0.843 at 1650 Hz the hall's step is 2 %
// cheaper for it (docs/benchmarks.md); the line classes' x and y passes had run at a third to a
// half of the copy bandwidth, their intermediate field out to L2 and back between the passes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstddef>

#include "dct_tile.cuh"

namespace ardent::ard::cuda {

// The largest xy plane the class takes (DctPlan::plane_bytes; 0: none) and the slab a block
// aims at (DctPlan::plane_slab_bytes): planes are added to a slab while it stays within it.
inline constexpr size_t kPlaneBytes = 64 * 1024;
inline constexpr size_t kPlaneSlabBytes = 16 * 1024;
// The plane limit the CUDA ARD backend sets (ARDENT_DCT_PLANE_BYTES): with the plane chain
// (ard_cuda.cu) the larger planes' groups are better left to the line classes. At 8 KB (32 x 64
// points and smaller in float) the hall x 0.843 ran 1.0 % and the L-shaped room x 4.02 4.2 %
// faster than at 64 KB; 16 KB, 4 KB and none were slower on one of the two (session 41).
inline constexpr size_t kPlaneSolverBytes = 8 * 1024;
// Lines of the class: the register FFTs of up to 128 points (the line classes' class 0).
inline constexpr int kPlaneMaxLog2 = 7;
// One launch per sub-block count: a group takes the launch with the fewest sub-blocks that give
// each sub-block at most one tile of each axis. A loop over tiles kept the loop's state live
// across the tiles' register DFTs, and the kernels spilled hundreds of bytes a thread.
inline constexpr int kPlaneLaunches = 3;
inline constexpr int kPlaneSubs[kPlaneLaunches] = {1, 2, 4};

// The lines a tile of 2^ln-point lines takes.
template <typename Real>
inline long long plane_tile_lines(int ln) {
    long long lines = 1;
    static_for<kPlaneMaxLog2 + 1>([&](auto lc) {
        constexpr int LN = decltype(lc)::value;
        if (LN == ln) lines = LineShape<Real, LN>::L;
    });
    return lines;
}

// Tiles of the busier axis in a slab of k planes of nx x ny (powers of two).
template <typename Real>
inline long long plane_tiles(const GroupShape& s, long long k) {
    const long long lx = plane_tile_lines<Real>(std::countr_zero(static_cast<unsigned>(s.nx))),
                    ly = plane_tile_lines<Real>(std::countr_zero(static_cast<unsigned>(s.ny)));
    return std::max((k * s.ny + lx - 1) / lx, (k * s.nx + ly - 1) / ly);
}

// Shared bytes of a sub-block's work lines: the most a tile of either axis needs.
template <typename Real>
inline unsigned plane_work_bytes(int lx, int ly) {
    size_t most = 0;
    static_for<kPlaneMaxLog2 + 1>([&](auto lc) {
        constexpr int LN = decltype(lc)::value;
        if (LN == lx || LN == ly) most = std::max(most, LineShape<Real, LN>::kSharedBytes);
    });
    return static_cast<unsigned>((most + 15) & ~size_t{15});
}

// Whether a group's x and y passes take the plane class under a plane-size limit: both sides
// powers of two within the class's lines, the plane within the limit, and one plane's tiles
// within the largest launch's sub-blocks.
template <typename Real>
inline bool is_plane(const GroupShape& s, size_t limit) {
    const auto pow2 = [](int n) { return n > 0 && (n & (n - 1)) == 0; };
    return limit > 0 && pow2(s.nx) && pow2(s.ny) && s.nx <= (1 << kPlaneMaxLog2) &&
           s.ny <= (1 << kPlaneMaxLog2) &&
           sizeof(Real) * static_cast<size_t>(s.nx) * static_cast<size_t>(s.ny) <= limit &&
           plane_tiles<Real>(s, 1) <= kPlaneSubs[kPlaneLaunches - 1];
}

// The slab of block `block` of a plane group: its planes (the last slab may hold fewer than
// plane_slab) and its first cell in the group.
ARDENT_HD __forceinline__ int plane_slab(const DctGroup& g, long long block,
                                         long long& first_cell) {
    const long long first = (block - g.first_plane) * g.plane_slab;
    const long long left = g.shape.count * g.shape.nz - first;
    first_cell = first * g.shape.nx * g.shape.ny;
    return static_cast<int>(left < g.plane_slab ? left : g.plane_slab);
}

// One axis of a slab of `planes` planes of 2^lx x 2^ly cells in shared memory (`data`), in place:
// sub-block w takes tile w, if there is one (add_plane_group gives no sub-block two); forward
// (REDFT10) or inverse (REDFT01). The caller meets the whole block afterwards.
#pragma nv_exec_check_disable
template <typename Real, int LN, bool Inverse, typename Block>
ARDENT_HD __forceinline__ void plane_axis(Block& b, int lx, int ly, int planes, int axis, int w,
                                          typename Cplx<Real>::type* work,
                                          const typename Cplx<Real>::type* roots, Real* data) {
    using S = LineShape<Real, LN>;
    const Lines<true> ls(lx, ly, planes, axis);
    if (w << S::LL >= ls.count) return;
    const Tile<Real, true> tile{ls, w << S::LL, work, roots};
    if constexpr (Inverse)
        inverse_tile<Real, LN>(b, tile, data, data, nullptr);
    else
        forward_tile<Real, LN>(b, tile, data);
}

}  // namespace ardent::ard::cuda
