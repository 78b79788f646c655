#include "ardent/pipeline/grid_full_band.h"

#include <map>
#include <span>
#include <stdexcept>

#include "ardent/auralize/crossover.h"
#include "ardent/auralize/resample.h"
#include "ardent/geometric/grid_field.h"
#include "ardent/geometric/synthesis.h"

namespace ardent::pipeline {
namespace {

// One noise seed per blend of points, so that a listener hears the same noise each time.
uint64_t blend_seed(const std::vector<auralize::IrGrid::Weight>& blend) {
    uint64_t seed = 0x67726964ull;
    for (const auto& w : blend)
        seed = seed * 1000003 + w.point;
    return seed;
}

}  // namespace

std::array<std::vector<float>, 4> grid_geometric_foa(
    const auralize::IrGrid& grid, const std::vector<auralize::IrGrid::Weight>& blend,
    double sample_rate, size_t samples, uint64_t seed) {
    const auralize::GridGeometric* g = grid.geometric();
    if (!g) throw std::invalid_argument("grid_geometric_foa: the grid has no geometric part");
    constexpr size_t B = auralize::GridGeometric::kBands;
    std::vector<geometric::SpecularPath> paths;
    std::map<size_t, double> cells;
    for (const auto& [point, w] : blend) {
        if (point >= g->cell_of_point.size()) continue;
        cells[g->cell_of_point[point]] += w;
        for (uint64_t i = g->path_offset[point]; i < g->path_offset[point + 1]; ++i) {
            geometric::SpecularPath p;
            p.length = g->path_length[i];
            p.order = g->path_order[i];
            for (size_t b = 0; b < B; ++b)
                p.factor[b] = w * static_cast<double>(g->path_factor[i * B + b]);
            p.direction = {static_cast<double>(g->path_direction[3 * i]),
                           static_cast<double>(g->path_direction[3 * i + 1]),
                           static_cast<double>(g->path_direction[3 * i + 2])};
            paths.push_back(p);
        }
    }
    const std::vector<std::pair<size_t, double>> weights(cells.begin(), cells.end());
    const geometric::EnergyHistogram h = geometric::grid_histogram(
        g->bin_edges, g->energy.data(), g->flux.data(), g->cells(), weights);
    geometric::SynthesisSettings s;
    s.sample_rate = sample_rate;
    s.samples = samples;
    s.speed_of_sound = g->speed_of_sound;
    s.seed = seed;
    const auto ch = geometric::synthesize_ambisonic_ir(paths, h, s, 1);
    return {ch[0], ch[1], ch[2], ch[3]};
}

std::vector<float> grid_point_ir(const auralize::IrGrid& grid, size_t point,
                                 const std::vector<float>& row, double sample_rate) {
    std::vector<float> wave =
        audio::resample_ir(std::span<const float>(row), grid.sample_rate(), sample_rate);
    const auralize::GridGeometric* g = grid.geometric();
    if (!g) return wave;
    const std::vector<auralize::IrGrid::Weight> blend{{point, 1.0}};
    const auto geo = grid_geometric_foa(grid, blend, sample_rate, wave.size(), blend_seed(blend));
    return auralize::join_at_crossover(std::span<const float>(wave),
                                       std::span<const float>(geo[auralize::kW]), sample_rate,
                                       g->crossover_hz);
}

double join_grid_full_band(const auralize::IrGrid& grid, auralize::FoaIr& foa,
                           const auralize::Orientation& orientation) {
    const auralize::GridGeometric* g = grid.geometric();
    if (!g) return 0;
    std::vector<auralize::IrGrid::Weight> blend = foa.blend;
    if (blend.empty()) blend.push_back({foa.grid_point, 1.0});
    auralize::FoaIr geo;
    geo.sample_rate = foa.sample_rate;
    const auto model =
        grid_geometric_foa(grid, blend, foa.sample_rate, foa.channels[0].size(), blend_seed(blend));
    for (size_t c = 0; c < 4; ++c)
        geo.channels[c] = model[c];
    geo = auralize::rotate_foa(geo, orientation);
    for (size_t c = 0; c < 4; ++c)
        foa.channels[c] = auralize::join_at_crossover(std::span<const float>(foa.channels[c]),
                                                      std::span<const float>(geo.channels[c]),
                                                      foa.sample_rate, g->crossover_hz);
    return g->crossover_hz;
}

}  // namespace ardent::pipeline
