#include "full_band.h"

#include <chrono>
#include <cmath>
#include <future>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "ardent/auralize/air_absorption.h"
#include "ardent/auralize/crossover.h"
#include "ardent/geometric/grid_field.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/number_text.h"
#include "in_batches.h"

namespace ardent::pipeline {
namespace {

double checked_crossover(const Scene& scene) {
    const SimulationSettings& s = scene.simulation;
    const double hz = s.effective_crossover_hz();
    if (hz > max_crossover_hz(s.max_frequency))
        throw InputError(scene.display_name() +
                         ": simulation.crossover: " + crossover_problem(hz, s.max_frequency));
    return hz;
}

// The grid's envelope cubes are at least this many detection radii on a side: a cube of twice
// the radius holds about twice a detection sphere's volume, so about as many rays cross it.
constexpr double kGridCellMin = 2.0;

// More escaped rays than this share of a source's: simulate warns (a closed model loses a few
// in 10 000 at edges, docs/full-band.md).
constexpr double kEscapedWarnFraction = 0.01;

// The lattice of cubes the grid's envelopes are counted in: `m` grid steps on a side (the
// smallest whole number that reaches min_size), aligned so that each grid point lies in one
// cube, with each cube's air volume counted from the voxels.
geometric::GridCells grid_cells(const Preprocessed& p, double min_size) {
    const Grid& g = p.air.grid;
    const int every = p.scene.listener_grid_cells();
    const double spacing = g.h * every;
    const int m = std::max(1, static_cast<int>(std::ceil(min_size / spacing - 1e-9)));
    const int side = m * every, shift = every / 2;  // in voxels; a grid point's cube starts
                                                    // `shift` voxels below it
    geometric::GridCells c;
    c.size = g.h * side;
    c.lower = g.origin - Vec3{1, 1, 1} * (g.h * shift);
    for (size_t a = 0; a < 3; ++a)
        c.dims[a] = static_cast<size_t>((g.dims[a] + shift + side - 1) / side);
    const auto cube_of = [&](int i, int j, int k) {
        return (static_cast<size_t>((k + shift) / side) * c.dims[1] +
                static_cast<size_t>((j + shift) / side)) *
                   c.dims[0] +
               static_cast<size_t>((i + shift) / side);
    };
    c.index.assign(c.dims[0] * c.dims[1] * c.dims[2], -1);
    const ListenerCells lc = p.listener_cells();
    for (size_t i = 0; i < lc.points; ++i) {
        const Index3& v = lc.cells[i];
        int32_t& slot = c.index[cube_of(v[0], v[1], v[2])];
        if (slot < 0) {
            slot = static_cast<int32_t>(c.centre.size());
            const size_t flat = cube_of(v[0], v[1], v[2]);
            const size_t ci = flat % c.dims[0], cj = (flat / c.dims[0]) % c.dims[1],
                         ck = flat / (c.dims[0] * c.dims[1]);
            c.centre.push_back(c.lower + Vec3{(static_cast<double>(ci) + 0.5) * c.size,
                                              (static_cast<double>(cj) + 0.5) * c.size,
                                              (static_cast<double>(ck) + 0.5) * c.size});
        }
        c.cell_of_point.push_back(static_cast<uint32_t>(slot));
    }
    // The air in each cube: the track length is divided by it (a cube at a wall holds less).
    c.air_volume.assign(c.centre.size(), 0.0);
    const double voxel = g.h * g.h * g.h;
    for (int k = 0; k < g.dims[2]; ++k)
        for (int j = 0; j < g.dims[1]; ++j)
            for (int i = 0; i < g.dims[0]; ++i)
                if (p.air.air[g.index(i, j, k)]) {
                    const int32_t slot = c.index[cube_of(i, j, k)];
                    if (slot >= 0) c.air_volume[static_cast<size_t>(slot)] += voxel;
                }
    return c;
}

// Runs `work(&rays_done)` on its own thread while reporting the rays done to `observer` (label,
// `rays` in all); nullopt when `stop` became true.
template <typename Work>
auto traced_with_progress(SimulateObserver& observer, const std::string& label, size_t rays,
                          const std::atomic<bool>* stop, Work work)
    -> std::optional<decltype(work(nullptr))> {
    std::atomic<size_t> done{0};
    observer.geometric_begin(label, rays);
    auto job = std::async(std::launch::async, [&] { return work(&done); });
    while (job.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        observer.geometric_progress(done.load());
    auto result = job.get();
    observer.geometric_progress(done.load());
    if (stop && stop->load()) {
        observer.geometric_stopped();
        return std::nullopt;
    }
    observer.geometric_end();
    return result;
}

}  // namespace

FullBand::FullBand(const Preprocessed& p, int threads)
    : p_(p),
      engine_(p.mesh, p.group_material, p.scene, threads, p.air.mesh_volume),
      crossover_hz_(checked_crossover(p.scene)),
      threads_(threads) {}

std::optional<std::vector<FullBand::Ambisonic>> FullBand::run(size_t source,
                                                              SimulateObserver& observer,
                                                              const std::atomic<bool>* stop) {
    const auto t0 = std::chrono::steady_clock::now();
    const Scene& scene = p_.scene;
    const auto& src = p_.air.sources[source];
    // Both halves use the cell centres the wave solver used, so that they describe one pair and
    // agree in phase across the crossover.
    std::vector<Vec3> receivers;
    for (const auto& r : p_.air.receivers)
        receivers.push_back(r.cell_centre);
    const double fs = scene.output_sample_rate;
    const auto samples = static_cast<size_t>(std::llround(scene.simulation.duration * fs));
    auto traced = traced_with_progress(
        observer, src.name, engine_.plan().rays, stop, [&](std::atomic<size_t>* done) {
            return engine_.run(source, src.cell_centre, receivers, fs, samples, done, stop,
                               kAmbisonicOrder);
        });
    if (!traced) return std::nullopt;
    geometric::SourceResult res = std::move(*traced);
    gap_[source] = {res.gap.rate_per_s, res.source_gain};
    // Rays that leave through gaps in the model carry their energy away: the geometric part of a
    // leaky model decays too fast. The wave solver does not see a gap narrower than a cell, so
    // nothing else tells the user.
    const double escaped_share = res.rays.rays > 0 ? static_cast<double>(res.rays.escaped) /
                                                         static_cast<double>(res.rays.rays)
                                                   : 0.0;
    if (escaped_share > kEscapedWarnFraction)
        observer.warning(
            "source " + src.name + ": " + std::to_string(res.rays.escaped) + " of " +
            std::to_string(res.rays.rays) + " rays (" + number_text(100 * escaped_share, 1) +
            " %) left the model through gaps in its surfaces; the part above the crossover "
            "(geometric) loses their energy and decays too fast: close the gaps in the model "
            "(docs/full-band.md)");
    // The air's absorption over the travel time, as the wave solver's IRs get it; every channel
    // of every receiver on the worker threads (a hall's 16 third-order receivers took 3 s on one).
    const auralize::PropagationFilter air(fs, scene.air, scene.simulation.speed_of_sound, 0.0);
    const size_t channels = res.ambisonics.empty() ? 0 : res.ambisonics[0].size();
    const size_t workers = worker_count(threads_);
    in_batches(
        res.ambisonics.size() * channels, workers, res.ambisonics.size() * channels,
        [&](size_t i) {
            auto& ir = res.ambisonics[i / channels][i % channels];
            ir = air.apply(std::span<const float>(ir));
        },
        [](size_t, size_t) {});
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    seconds_ += took;
    sources_.push_back({{"source", src.name},
                        {"rays", res.rays.rays},
                        {"ray_segments", res.rays.segments},
                        {"rain_queries", res.rays.rain_queries},
                        {"escaped_rays", res.rays.escaped},
                        {"image_source_candidates", res.candidates},
                        {"specular_paths", res.specular_paths},
                        {"gap_surface_m2", res.gap.gap_surface_m2},
                        {"gap_absorption_m2", res.gap.area_m2},
                        {"source_boundary_gain", res.source_gain},
                        {"receiver_boundary_gain", res.receiver_gain},
                        {"image_sources_s", res.image_source_seconds},
                        {"ray_tracing_s", res.rays.seconds},
                        {"synthesis_s", res.synthesis_seconds},
                        {"total_s", took}});
    return std::move(res.ambisonics);
}

size_t FullBand::grid_rays() const {
    return p_.scene.geometric.grid_rays_for(engine_.room().volume());
}

std::optional<auralize::GridGeometric> FullBand::grid(size_t source, SimulateObserver& observer,
                                                      const std::atomic<bool>* stop) {
    const auto t0 = std::chrono::steady_clock::now();
    const Scene& scene = p_.scene;
    const auto& src = p_.air.sources[source];
    const geometric::GridCells cells =
        grid_cells(p_, kGridCellMin * engine_.plan().receiver_radius);
    const ListenerCells lc = p_.listener_cells();
    std::vector<Vec3> points;
    for (size_t i = 0; i < lc.points; ++i)
        points.push_back(p_.air.grid.centre(lc.cells[i]));
    geometric::GridFieldSettings gs;
    gs.rays = grid_rays();
    gs.image_source_order = std::min(1, engine_.plan().image_source_order);
    gs.max_time = scene.simulation.duration + 0.01;
    gs.speed_of_sound = scene.simulation.speed_of_sound;
    gs.air = scene.air;
    gs.air_absorption = scene.air.absorption;
    gs.seed = 0x67726964ull + 7919 * source;
    gs.threads = threads_;
    auto traced = traced_with_progress(
        observer, src.name + " (listener grid)", gs.rays, stop, [&](std::atomic<size_t>* done) {
            const auto candidates = geometric::candidate_sequences(
                engine_.room(), src.cell_centre, gs.image_source_order,
                engine_.plan().candidate_rays, gs.seed + 1, threads_);
            return geometric::trace_grid(engine_.room(), src.cell_centre, points, cells, candidates,
                                         gs, done, stop);
        });
    if (!traced) return std::nullopt;
    geometric::GridField field = std::move(*traced);
    constexpr size_t B = auralize::GridGeometric::kBands;
    static_assert(B == geometric::kBands);
    // Absorbers in narrow gaps and the source's nearby surfaces, as the receivers' run found
    // them (run() comes first); the grid points' own nearby surfaces are left out.
    if (const auto g = gap_.find(source); g != gap_.end()) {
        const size_t bins = field.bins();
        std::vector<geometric::BandValues> factor(bins);
        for (size_t k = 0; k < bins; ++k)
            factor[k] =
                geometric::diffuse_factor(g->second.rate, g->second.source_gain,
                                          0.5 * (field.bin_edges[k] + field.bin_edges[k + 1]));
        for (size_t i = 0; i < field.energy.size(); ++i)
            field.energy[i] *= static_cast<float>(factor[i / B % bins][i % B]);
    }
    auralize::GridGeometric out;
    out.crossover_hz = crossover_hz_;
    out.speed_of_sound = scene.simulation.speed_of_sound;
    out.cell_size = cells.size;
    out.bin_edges = field.bin_edges;
    for (const Vec3& c : cells.centre)
        out.cell_centre.push_back({c.x, c.y, c.z});
    out.cell_of_point = cells.cell_of_point;
    out.energy = std::move(field.energy);
    out.flux = std::move(field.flux);
    out.path_offset.assign(field.path_offset.begin(), field.path_offset.end());
    for (const geometric::SpecularPath& sp : field.paths) {
        out.path_length.push_back(sp.length);
        out.path_order.push_back(sp.order);
        for (size_t b = 0; b < B; ++b)
            out.path_factor.push_back(static_cast<float>(sp.factor[b]));
        out.path_direction.insert(out.path_direction.end(), {static_cast<float>(sp.direction.x),
                                                             static_cast<float>(sp.direction.y),
                                                             static_cast<float>(sp.direction.z)});
    }
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    seconds_ += took;
    grid_sources_.push_back({{"source", src.name},
                             {"rays", field.rays.rays},
                             {"ray_segments", field.rays.segments},
                             {"points", points.size()},
                             {"cells", cells.centre.size()},
                             {"cell_size_m", cells.size},
                             {"image_source_candidates", field.candidates},
                             {"specular_paths", field.paths.size()},
                             {"image_sources_s", field.image_source_seconds},
                             {"ray_tracing_s", field.rays.seconds},
                             {"total_s", took}});
    return out;
}

std::vector<float> FullBand::join(const std::vector<float>& wave,
                                  const std::vector<float>& geo) const {
    return auralize::join_at_crossover(wave, geo, p_.scene.output_sample_rate, crossover_hz_);
}

std::string FullBand::summary(const std::string& solver) const {
    const auto hz = [](double f) { return std::to_string(std::lround(f)); };
    return solver + " below " + hz(crossover_hz_) + " Hz, geometric acoustics above (transition " +
           hz(crossover_hz_ * std::pow(2.0, -0.25)) + "-" +
           hz(crossover_hz_ * std::pow(2.0, 0.25)) + " Hz)";
}

nlohmann::ordered_json FullBand::report() const {
    const geometric::EnginePlan& plan = engine_.plan();
    nlohmann::ordered_json out = {{"mode", "full"},
                                  {"crossover_hz", crossover_hz_},
                                  {"crossover_transition_octaves", 0.5},
                                  {"wave_below_hz", crossover_hz_ * std::pow(2.0, -0.25)},
                                  {"geometric_above_hz", crossover_hz_ * std::pow(2.0, 0.25)},
                                  {"geometric",
                                   {{"rays", plan.rays},
                                    {"candidate_rays", plan.candidate_rays},
                                    {"image_source_order", plan.image_source_order},
                                    {"receiver_radius_m", plan.receiver_radius},
                                    {"mixing_time_s", plan.mixing_time},
                                    {"triangles", engine_.room().triangle_count()},
                                    {"planes", engine_.room().plane_count()},
                                    {"sources", sources_}}}};
    if (!grid_sources_.empty())
        out["listener_grid_geometric"] = {
            {"rays", grid_rays()},
            {"image_source_order", std::min(1, plan.image_source_order)},
            {"sources", grid_sources_}};
    return out;
}

RaysBesideSolve::RaysBesideSolve(FullBand& full, size_t source, bool listener_grid)
    : relay_(std::make_unique<ObserverRelay>()) {
    job_ = std::async(std::launch::async, [this, &full, source, listener_grid] {
#ifdef __linux__
        // Nice is per thread on Linux, and the engine's threads inherit this one's.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
#endif
        SimulateObserver& observer = *relay_;
        std::optional<Traced> out;
        auto receivers = full.run(source, observer, &abandon_);
        if (!receivers) return out;
        Traced t{std::move(*receivers), std::nullopt};
        if (listener_grid) {
            t.grid = full.grid(source, observer, &abandon_);
            if (!t.grid) return out;
        }
        out = std::move(t);
        return out;
    });
}

RaysBesideSolve::~RaysBesideSolve() {
    abandon_ = true;
    if (job_.valid()) job_.wait();
}

std::optional<RaysBesideSolve::Traced> RaysBesideSolve::take(SimulateObserver& observer,
                                                             const std::atomic<bool>* stop) {
    const auto t0 = std::chrono::steady_clock::now();
    while (job_.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
        if (stop && stop->load()) abandon_ = true;
        relay_->forward(observer);
    }
    std::optional<Traced> out = job_.get();  // rethrows the rays' error
    waited_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool stopped = stop && stop->load();
    relay_->finish(observer, stopped || !out);
    if (stopped) return std::nullopt;
    return out;
}

}  // namespace ardent::pipeline
