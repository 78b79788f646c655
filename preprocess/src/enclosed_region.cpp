#include "enclosed_region.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "run_components.h"
#include "thread_share.h"

namespace ardent {
namespace {

// Region (component) -> where it is first met from the air: 6 * air cell + direction.
using FirstMet = std::unordered_map<size_t, size_t>;

// Each thread scans the air of its slab of z planes in memory order, keeping the first meeting
// with each region; the smallest over the threads is the serial scan's first.
FirstMet first_met(const AirModel& m, const RunComponents& parts, const std::vector<uint8_t>& flag,
                   uint8_t kind) {
    const Grid& g = m.grid;
    const long sy = g.dims[0], sz = sy * g.dims[1];
    const long offset[6] = {-1, 1, -sy, sy, -sz, sz};
    std::vector<FirstMet> found(static_cast<size_t>(max_threads()));
#pragma omp parallel
    {
        FirstMet& mine = found[static_cast<size_t>(thread_number())];
        const auto [k_lo, k_hi] = thread_share(g.dims[2]);
        for (size_t i = g.index(0, 0, k_lo); i < g.index(0, 0, k_hi); ++i) {
            if (!m.air[i]) continue;
            for (int n = 0; n < 6; ++n) {
                // In range: air never touches the grid's edge.
                const auto j = static_cast<size_t>(static_cast<long>(i) + offset[n]);
                if (m.air[j] || flag[j] != kind) continue;
                mine.try_emplace(parts.component(parts.run_at(j)), 6 * i + static_cast<size_t>(n));
            }
        }
    }
    FirstMet all;
    for (const FirstMet& f : found)
        for (const auto& [region, at] : f) {
            const auto [it, added] = all.try_emplace(region, at);
            if (!added) it->second = std::min(it->second, at);
        }
    return all;
}

}  // namespace

std::vector<size_t> largest_enclosed_neighbour(const AirModel& m, const std::vector<uint8_t>& flag,
                                               const std::vector<uint8_t>& walls, uint8_t kind) {
    const Grid& g = m.grid;
    const RunComponents parts(g, flag, kind, walls);
    const FirstMet met = first_met(m, parts, flag, kind);
    const std::vector<RunComponents::Extent> extent = parts.extents();
    constexpr size_t kNone = std::numeric_limits<size_t>::max();
    size_t best = kNone, best_at = 0;
    for (const auto& [region, at] : met) {
        const RunComponents::Extent& e = extent[region];
        if (e.on_edge) continue;
        if (best == kNone || e.cells > extent[best].cells ||
            (e.cells == extent[best].cells && at < best_at)) {
            best = region;
            best_at = at;
        }
    }
    std::vector<size_t> cells;
    if (best == kNone) return cells;
    parts.cells_of(best, cells);
    const long sy = g.dims[0], sz = sy * g.dims[1];
    const long offset[6] = {-1, 1, -sy, sy, -sz, sz};
    const auto start = static_cast<size_t>(static_cast<long>(best_at / 6) + offset[best_at % 6]);
    std::iter_swap(cells.begin(), std::find(cells.begin(), cells.end(), start));
    return cells;
}

}  // namespace ardent
