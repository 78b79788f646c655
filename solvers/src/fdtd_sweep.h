// The tables of the CUDA FDTD interior sweep (cuda/fdtd_kernels.cuh), built on the host: the grid
// is cut into 32 x 8 tiles over (x, y), one thread block each, whose threads march up their z
// columns. Per warp row (32 cells along x at one y and z) a 32-bit word holds which cells are
// interior; per tile a z range holds the planes with interior cells, so blocks skip the padding and
// walls around the room. sweep_updates() walks the tables exactly as the kernel does, so host tests
// check that the kernel's stores cover the interior cells and nothing else without a GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/preprocess/air.h"
#include "fdtd_layout.h"

namespace ardent::fdtd {

inline constexpr int kTileX = 32;  // one warp along x: coalesced rows, one mask word per warp row
inline constexpr int kTileY = 8;   // López et al.'s best block shape (32 x 8)

struct SweepShape {
    int nx = 0, ny = 0;  // grid cells along x and y (x fastest)
    long long sy = 0;    // nx
    long long sz = 0;    // nx ny
    int words = 0;       // mask words per (y, z) row: ceil(nx / 32)
};

// Planes [first, last) of one tile; first >= 1 and last <= nz - 1 (interior cells are never on the
// grid's edge), so the column's reads one plane below and above stay inside the grid. Empty:
// [1, 1).
struct ZRange {
    int first = 1, last = 1;
};

struct Sweep {
    SweepShape shape;
    int tiles_x = 0, tiles_y = 0;
    std::vector<uint32_t> mask;  // word (z ny + y) words + tile_x, bit x % 32
    std::vector<ZRange> zrange;  // tile_y tiles_x + tile_x
    size_t swept_cells = 0;      // cells inside the tiles' z ranges (what the sweep visits)
};

// The mask and z ranges of a grid's interior cells (fdtd_sweep.cpp: on all cores).
Sweep build_sweep(const AirModel& air);

// The grid indices the kernel stores to, in the order one thread would (tile by tile, lane by
// lane, up the column), and in `reads` (when given) every index it loads from.
inline std::vector<size_t> sweep_updates(const Sweep& s, std::vector<long long>* reads = nullptr) {
    std::vector<size_t> out;
    for (int by = 0; by < s.tiles_y; ++by)
        for (int bx = 0; bx < s.tiles_x; ++bx) {
            const ZRange zr = s.zrange[static_cast<size_t>(by * s.tiles_x + bx)];
            for (int ty = 0; ty < kTileY; ++ty)
                for (int tx = 0; tx < kTileX; ++tx) {
                    const int x = bx * kTileX + tx, y = by * kTileY + ty;
                    if (zr.first >= zr.last || x >= s.shape.nx || y >= s.shape.ny) continue;
                    long long i = zr.first * s.shape.sz + y * s.shape.sy + x;
                    size_t m = (static_cast<size_t>(zr.first) * static_cast<size_t>(s.shape.ny) +
                                static_cast<size_t>(y)) *
                                   static_cast<size_t>(s.shape.words) +
                               static_cast<size_t>(bx);
                    const size_t mask_step =
                        static_cast<size_t>(s.shape.ny) * static_cast<size_t>(s.shape.words);
                    if (reads) reads->insert(reads->end(), {i - s.shape.sz, i});
                    for (int z = zr.first; z < zr.last; ++z) {
                        if (reads)
                            reads->insert(reads->end(), {i + s.shape.sz, i - 1, i + 1,
                                                         i - s.shape.sy, i + s.shape.sy, i});
                        if (s.mask[m] & (1u << tx)) out.push_back(static_cast<size_t>(i));
                        i += s.shape.sz;
                        m += mask_step;
                    }
                }
        }
    return out;
}

}  // namespace ardent::fdtd
