// The pressure gradient at recorded points (listener-grid points, receivers) from the cells next
// to them, which the solvers record after the points (Preprocessed::listener_cells,
// receiver_cells): per point and axis, the rows of the cells at -h and +h and whether the
// difference is central, one-sided (a wall next to the point) or impossible; and the one-cell
// difference itself. The listener grid's file and the receivers' ambisonic IRs share it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ardent/preprocess/preprocess.h"

namespace ardent::pipeline {

struct GradientStencil {
    std::array<std::array<size_t, 2>, 3> ends{};  // rows at -h and +h (the point's own if missing)
    std::array<std::int8_t, 3> kinds{};           // 2 central, 1 one-sided, 0 none
};

// One per point, cells[0, points); a cell recorded twice (two receivers in one cell) is read
// from its first row. A neighbour across a thin face (air.h) is behind a wall, as a solid one is.
inline std::vector<GradientStencil> gradient_stencils(const AirModel& air,
                                                      const ListenerCells& cells) {
    const Grid& g = air.grid;
    std::unordered_map<size_t, size_t> row_of;
    for (size_t r = cells.cells.size(); r-- > 0;)
        row_of[g.index(cells.cells[r])] = r;
    const auto row = [&](Index3 c, int axis, int d) -> std::optional<size_t> {
        if (air.blocked_links(g.index(c)) >> (2 * axis + (d > 0 ? 1 : 0)) & 1) return std::nullopt;
        c[static_cast<size_t>(axis)] += d;
        if (!g.contains(c)) return std::nullopt;
        const auto it = row_of.find(g.index(c));
        if (it == row_of.end()) return std::nullopt;
        return it->second;
    };
    std::vector<GradientStencil> out(cells.points);
    for (size_t i = 0; i < cells.points; ++i)
        for (int a = 0; a < 3; ++a) {
            const auto minus = row(cells.cells[i], a, -1), plus = row(cells.cells[i], a, 1);
            const auto ua = static_cast<size_t>(a);
            out[i].ends[ua] = {minus.value_or(i), plus.value_or(i)};
            out[i].kinds[ua] = static_cast<std::int8_t>((minus ? 1 : 0) + (plus ? 1 : 0));
        }
    return out;
}

// Central: (p(x+h) - p(x-h)) / 2h; one-sided: over h; none: zero. In double whatever the
// signals' type.
template <typename In, typename Out>
void one_cell_difference(const std::vector<In>& lo, const std::vector<In>& hi, int kind, double h,
                         std::vector<Out>& out) {
    const double span = kind == 2 ? 2 * h : h;
    out.assign(lo.size(), Out(0));
    if (kind > 0)
        for (size_t n = 0; n < out.size(); ++n)
            out[n] =
                static_cast<Out>((static_cast<double>(hi[n]) - static_cast<double>(lo[n])) / span);
}

}  // namespace ardent::pipeline
