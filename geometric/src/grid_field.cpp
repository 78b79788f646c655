#include "ardent/geometric/grid_field.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>

#include "ardent/geometric/directions.h"
#include "parallel.h"
#include "random.h"
#include "ray_state.h"
#include "smoothing.h"

namespace ardent::geometric {
namespace {

constexpr double kFirstBins = 0.002, kFirstUntil = 0.04, kLateFraction = 0.05;
constexpr size_t kAxes = 3;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Energy attenuation rate of the air per band (1/s): 10^(-a c t / 10) = exp(-rate t).
BandValues air_rates(const GridFieldSettings& s) {
    BandValues r{};
    if (!s.air_absorption) return r;
    for (size_t b = 0; b < kBands; ++b)
        r[b] = air_attenuation_db_per_m(kBandHz[b], s.air) * s.speed_of_sound * std::log(10.0) / 10;
    return r;
}

// One thread's sums.
struct Tally {
    std::vector<float> energy, flux;
};

struct GridTracer {
    const Room& room;
    const GridCells& cells;
    const GridFieldSettings& s;
    const std::vector<double>& edges;
    const std::vector<uint32_t>& bin_of_ms;  // bin of each millisecond
    const BandValues& air;
    Tally& tally;
    RayTracingStats& stats;
    double max_length;

    size_t bin_at(double t) const {
        const auto ms = static_cast<size_t>(t * 1e3);
        if (ms >= bin_of_ms.size()) return std::numeric_limits<size_t>::max();
        size_t k = bin_of_ms[ms];
        while (k + 1 < edges.size() - 1 && t >= edges[k + 1])
            ++k;
        return k;
    }

    void add(size_t cell, double t, double chord, Vec3 dir, const BandValues& e) {
        const size_t k = bin_at(t);
        const size_t n_bins = edges.size() - 1;
        if (k >= n_bins) return;
        const double scale = chord / cells.air_volume[cell];
        float* out = &tally.energy[(cell * n_bins + k) * kBands];
        double total = 0;
        for (size_t b = 0; b < kBands; ++b) {
            const double v = e[b] * scale * std::exp(-air[b] * t);
            out[b] += static_cast<float>(v);
            total += v;
        }
        float* f = &tally.flux[(cell * n_bins + k) * kAxes];
        f[0] -= static_cast<float>(total * dir.x);
        f[1] -= static_cast<float>(total * dir.y);
        f[2] -= static_cast<float>(total * dir.z);
    }

    // The cubes a leg from `pos` along `dir` (unit) crosses within `len`, by a 3-D DDA: each adds
    // its chord's share at the time the ray passes its middle.
    void count(Vec3 pos, Vec3 dir, double len, double travelled, const BandValues& e) {
        const double inv = 1.0 / cells.size;
        const std::array<double, 3> p{(pos.x - cells.lower.x) * inv, (pos.y - cells.lower.y) * inv,
                                      (pos.z - cells.lower.z) * inv};
        const std::array<double, 3> d{dir.x, dir.y, dir.z};
        std::array<int64_t, 3> c{}, step{};
        std::array<double, 3> t_next{}, t_delta{};
        for (size_t a = 0; a < 3; ++a) {
            c[a] = static_cast<int64_t>(std::floor(p[a]));
            if (d[a] > 0) {
                step[a] = 1;
                t_delta[a] = cells.size / d[a];
                t_next[a] = (static_cast<double>(c[a] + 1) - p[a]) * cells.size / d[a];
            } else if (d[a] < 0) {
                step[a] = -1;
                t_delta[a] = -cells.size / d[a];
                t_next[a] = (p[a] - static_cast<double>(c[a])) * cells.size / -d[a];
            } else {
                t_delta[a] = t_next[a] = std::numeric_limits<double>::infinity();
            }
        }
        double t = 0;
        while (t < len) {
            const size_t a = t_next[0] < t_next[1] ? (t_next[0] < t_next[2] ? 0 : 2)
                                                   : (t_next[1] < t_next[2] ? 1 : 2);
            const double t_end = std::min(t_next[a], len);
            bool inside = true;
            for (size_t i = 0; i < 3; ++i)
                inside = inside && c[i] >= 0 && c[i] < static_cast<int64_t>(cells.dims[i]);
            if (inside) {
                const size_t flat =
                    (static_cast<size_t>(c[2]) * cells.dims[1] + static_cast<size_t>(c[1])) *
                        cells.dims[0] +
                    static_cast<size_t>(c[0]);
                const int32_t cell = cells.index[flat];
                if (cell >= 0 && t_end > t)
                    add(static_cast<size_t>(cell),
                        (travelled + 0.5 * (t + t_end)) / s.speed_of_sound, t_end - t, dir, e);
            }
            t = t_end;
            c[a] += step[a];
            t_next[a] += t_delta[a];
        }
    }

    // The receivers' tracer's ray (ray_state.h), counted in the cubes instead of rained.
    void trace(size_t index, Vec3 source, double e0) {
        Random rng(s.seed, index);
        Vec3 pos = source, dir = rng.sphere();
        RayState ray(e0, index);
        double travelled = 0;
        int order = 0;
        bool all_specular = true;
        while (travelled < max_length) {
            const auto hit = room.intersect(pos, dir, max_length - travelled);
            ++stats.segments;
            const double len = hit ? hit->distance : max_length - travelled;
            // The image sources carry the specular paths up to their order (the direct sound
            // is order 0).
            if (!(all_specular && order <= s.image_source_order))
                count(pos, dir, len, travelled, ray.energy());
            if (!hit) break;
            travelled += len;
            pos = pos + dir * len;
            const SurfaceBands& sb = room.surface(hit->triangle);
            ray.absorb(sb);
            const bool diffuse = ray.choose_diffuse(sb, rng);
            dir = diffuse ? rng.lambert(hit->normal) : reflect(dir, hit->normal);
            all_specular = all_specular && !diffuse;
            ++order;
            if (!ray.survives(e0, rng)) break;
        }
        ++stats.rays;
    }
};

}  // namespace

std::vector<double> grid_bin_edges(double max_time) {
    std::vector<double> e{0.0};
    while (e.back() < max_time) {
        const double t = e.back();
        const double width = t < kFirstUntil ? kFirstBins : kLateFraction * t;
        e.push_back(t + width);
    }
    return e;
}

GridField trace_grid(const Room& room, Vec3 source, const std::vector<Vec3>& points,
                     const GridCells& cells, const std::vector<std::vector<uint32_t>>& candidates,
                     const GridFieldSettings& settings, std::atomic<size_t>* rays_done,
                     const std::atomic<bool>* stop) {
    GridField out;
    out.bin_edges = grid_bin_edges(settings.max_time);
    out.cells = cells.air_volume.size();
    const size_t n_bins = out.bins();
    const int t_count = thread_count(settings.threads);
    const BandValues air = air_rates(settings);

    // Image sources at every point, up to the grid's order.
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<uint32_t>> mine;
    for (const auto& seq : candidates)
        if (static_cast<int>(seq.size()) <= settings.image_source_order) mine.push_back(seq);
    out.candidates = mine.size();
    std::vector<std::vector<SpecularPath>> per_point(points.size());
    parallel_ranges(points.size(), t_count, [&](size_t begin, size_t end, int) {
        for (size_t i = begin; i < end; ++i) {
            if (stop && stop->load(std::memory_order_relaxed)) return;
            per_point[i] = specular_paths(room, source, points[i], mine, settings.speed_of_sound);
            // A point at the source has no direct sound to synthesise (the wave grid's source
            // cell is singular too).
            std::erase_if(per_point[i], [](const SpecularPath& p) { return !(p.length > 0); });
            for (SpecularPath& p : per_point[i])
                for (size_t b = 0; b < kBands; ++b)
                    p.factor[b] *= std::exp(-0.5 * air[b] * p.length / settings.speed_of_sound);
        }
    });
    out.path_offset.assign(1, 0);
    for (auto& v : per_point) {
        out.paths.insert(out.paths.end(), v.begin(), v.end());
        out.path_offset.push_back(out.paths.size());
    }
    out.image_source_seconds = seconds_since(t0);

    // The rays, each thread into its own tally, added in thread order.
    t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> bin_of_ms(static_cast<size_t>(std::ceil(settings.max_time * 1e3)) + 1);
    for (size_t ms = 0, k = 0; ms < bin_of_ms.size(); ++ms) {
        while (k + 1 < n_bins && static_cast<double>(ms) * 1e-3 >= out.bin_edges[k + 1])
            ++k;
        bin_of_ms[ms] = static_cast<uint32_t>(k);
    }
    std::vector<Tally> tallies(static_cast<size_t>(t_count));
    std::vector<RayTracingStats> stats(static_cast<size_t>(t_count));
    const double e0 = 1.0 / static_cast<double>(std::max<size_t>(1, settings.rays));
    parallel_ranges(settings.rays, t_count, [&](size_t begin, size_t end, int t) {
        Tally& tally = tallies[static_cast<size_t>(t)];
        tally.energy.assign(out.cells * n_bins * kBands, 0.0f);
        tally.flux.assign(out.cells * n_bins * kAxes, 0.0f);
        GridTracer tr{room,
                      cells,
                      settings,
                      out.bin_edges,
                      bin_of_ms,
                      air,
                      tally,
                      stats[static_cast<size_t>(t)],
                      settings.max_time * settings.speed_of_sound};
        for (size_t i = begin; i < end; ++i) {
            if (stop && stop->load(std::memory_order_relaxed)) break;
            tr.trace(i, source, e0);
            if (rays_done) rays_done->fetch_add(1, std::memory_order_relaxed);
        }
    });
    out.energy.assign(out.cells * n_bins * kBands, 0.0f);
    out.flux.assign(out.cells * n_bins * kAxes, 0.0f);
    for (const Tally& t : tallies) {
        if (t.energy.empty()) continue;
        for (size_t i = 0; i < out.energy.size(); ++i)
            out.energy[i] += t.energy[i];
        for (size_t i = 0; i < out.flux.size(); ++i)
            out.flux[i] += t.flux[i];
    }
    // The late envelopes smoothed as the receivers' histograms are (smoothing.h).
    for (size_t c = 0; c < out.cells; ++c) {
        smooth_decay(&out.energy[c * n_bins * kBands], n_bins, kBands, out.bin_edges,
                     kSmoothingFraction, kFirstUntil, true);
        smooth_decay(&out.flux[c * n_bins * kAxes], n_bins, kAxes, out.bin_edges,
                     kSmoothingFraction, kFirstUntil, false);
    }
    for (const auto& st : stats) {
        out.rays.rays += st.rays;
        out.rays.segments += st.segments;
    }
    out.rays.seconds = seconds_since(t0);
    return out;
}

EnergyHistogram grid_histogram(const GridField& field,
                               const std::vector<std::pair<size_t, double>>& weights,
                               double direction_bin) {
    return grid_histogram(field.bin_edges, field.energy.data(), field.flux.data(), field.cells,
                          weights, direction_bin);
}

EnergyHistogram grid_histogram(const std::vector<double>& edges, const float* energy,
                               const float* flux, size_t cells,
                               const std::vector<std::pair<size_t, double>>& weights,
                               double direction_bin) {
    EnergyHistogram h;
    h.bin = 1e-3;
    if (edges.size() < 2) return h;
    const size_t n = edges.size() - 1;
    // The blend's density per stored bin (per second) and net flux.
    std::vector<BandValues> density(n, BandValues{});
    std::vector<Vec3> net(n);
    for (const auto& [cell, w] : weights) {
        if (cell >= cells) continue;
        for (size_t k = 0; k < n; ++k) {
            const double width = edges[k + 1] - edges[k];
            for (size_t b = 0; b < kBands; ++b)
                density[k][b] +=
                    w * static_cast<double>(energy[(cell * n + k) * kBands + b]) / width;
            const float* f = &flux[(cell * n + k) * kAxes];
            net[k] = net[k] + Vec3{static_cast<double>(f[0]), static_cast<double>(f[1]),
                                   static_cast<double>(f[2])} *
                                  (w / width);
        }
    }
    std::vector<double> centre(n);
    for (size_t k = 0; k < n; ++k)
        centre[k] = 0.5 * (edges[k] + edges[k + 1]);
    // The density at t, log-linear between bin centres (linear where one side is zero).
    const auto at = [&](double t, size_t& k, size_t b) {
        while (k + 1 < n && centre[k + 1] <= t)
            ++k;
        if (t <= centre[0] || k + 1 >= n) return density[k][b];
        const double a = density[k][b], c = density[k + 1][b];
        const double x = (t - centre[k]) / (centre[k + 1] - centre[k]);
        if (a <= 0 || c <= 0) return a + (c - a) * x;
        return a * std::pow(c / a, x);
    };
    const auto ms = static_cast<size_t>(std::ceil(edges.back() / h.bin));
    h.bins.assign(ms, BandValues{});
    for (size_t b = 0; b < kBands; ++b) {
        size_t k = 0;
        for (size_t i = 0; i < ms; ++i)
            h.bins[i][b] = at((static_cast<double>(i) + 0.5) * h.bin, k, b) * h.bin;
    }
    // Directions: the net flux's share r from its direction, 1 - r from all kDirections.
    h.direction_bin = direction_bin;
    const auto nd = static_cast<size_t>(std::ceil(edges.back() / direction_bin));
    h.directional.assign(nd * kDirections, BandValues{});
    for (size_t j = 0, k = 0; j < nd; ++j) {
        const double t = (static_cast<double>(j) + 0.5) * direction_bin;
        while (k + 1 < n && edges[k + 1] <= t)
            ++k;
        double total = 0;
        for (double v : density[k])
            total += v;
        const double r = total > 0 ? std::min(1.0, norm(net[k]) / total) : 0.0;
        const size_t toward = r > 0 ? nearest_direction(unit(net[k])) : 0;
        BandValues e{};
        const size_t first = j * static_cast<size_t>(std::llround(direction_bin / h.bin));
        for (size_t i = first;
             i < std::min(ms, first + static_cast<size_t>(std::llround(direction_bin / h.bin)));
             ++i)
            for (size_t b = 0; b < kBands; ++b)
                e[b] += h.bins[i][b];
        for (size_t d = 0; d < kDirections; ++d) {
            const double share = (1 - r) / kDirections + (d == toward ? r : 0.0);
            for (size_t b = 0; b < kBands; ++b)
                h.directional[j * kDirections + d][b] = e[b] * share;
        }
    }
    return h;
}

}  // namespace ardent::geometric
