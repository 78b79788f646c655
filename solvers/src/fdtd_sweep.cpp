#include "fdtd_sweep.h"

namespace ardent::fdtd {

Sweep build_sweep(const AirModel& air) {
    const Grid& g = air.grid;
    Sweep s;
    s.shape.nx = g.dims[0];
    s.shape.ny = g.dims[1];
    s.shape.sy = g.dims[0];
    s.shape.sz = static_cast<long long>(g.dims[0]) * g.dims[1];
    s.shape.words = (g.dims[0] + kTileX - 1) / kTileX;
    s.tiles_x = s.shape.words;
    s.tiles_y = (g.dims[1] + kTileY - 1) / kTileY;
    s.mask.assign(static_cast<size_t>(g.dims[2]) * static_cast<size_t>(g.dims[1]) *
                      static_cast<size_t>(s.shape.words),
                  0u);
    std::vector<int> lo(static_cast<size_t>(s.tiles_x) * static_cast<size_t>(s.tiles_y), g.dims[2]);
    std::vector<int> hi(lo.size(), 0);
    // Threads own planes of z (whole mask rows); the tiles' z ranges are a minimum and maximum
    // over the threads' own, the same in any order.
#pragma omp parallel
    {
        std::vector<int> my_lo(lo.size(), g.dims[2]), my_hi(lo.size(), 0);
#pragma omp for schedule(static)
        for (int k = 0; k < g.dims[2]; ++k)
            for (int j = 0; j < g.dims[1]; ++j)
                for (int i = 0; i < g.dims[0]; ++i) {
                    if (!is_interior(air, g.index(i, j, k))) continue;
                    const size_t row = (static_cast<size_t>(k) * static_cast<size_t>(g.dims[1]) +
                                        static_cast<size_t>(j)) *
                                       static_cast<size_t>(s.shape.words);
                    s.mask[row + static_cast<size_t>(i / kTileX)] |= 1u << (i % kTileX);
                    const size_t t =
                        static_cast<size_t>(j / kTileY) * static_cast<size_t>(s.tiles_x) +
                        static_cast<size_t>(i / kTileX);
                    my_lo[t] = std::min(my_lo[t], k);
                    my_hi[t] = std::max(my_hi[t], k + 1);
                }
#pragma omp critical
        for (size_t t = 0; t < lo.size(); ++t) {
            lo[t] = std::min(lo[t], my_lo[t]);
            hi[t] = std::max(hi[t], my_hi[t]);
        }
    }
    s.zrange.resize(lo.size());
    for (size_t t = 0; t < lo.size(); ++t) {
        if (lo[t] < hi[t]) s.zrange[t] = {lo[t], hi[t]};
        const int tx = static_cast<int>(t % static_cast<size_t>(s.tiles_x));
        const int ty = static_cast<int>(t / static_cast<size_t>(s.tiles_x));
        const auto w = static_cast<size_t>(std::min(kTileX, g.dims[0] - tx * kTileX));
        const auto h = static_cast<size_t>(std::min(kTileY, g.dims[1] - ty * kTileY));
        s.swept_cells += w * h * static_cast<size_t>(s.zrange[t].last - s.zrange[t].first);
    }
    return s;
}

}  // namespace ardent::fdtd
