#include "full_band.h"

#include <chrono>
#include <cmath>
#include <future>
#include <span>
#include <string>
#include <thread>

#include "ardent/auralize/air_absorption.h"
#include "ardent/auralize/crossover.h"
#include "ardent/preprocess/errors.h"

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

}  // namespace

FullBand::FullBand(const Preprocessed& p, int threads)
    : p_(p),
      engine_(p.mesh, p.group_material, p.scene, threads),
      crossover_hz_(checked_crossover(p.scene)) {}

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
    std::atomic<size_t> done{0};
    observer.geometric_begin(src.name, engine_.plan().rays);
    auto job = std::async(std::launch::async, [&] {
        return engine_.run(source, src.cell_centre, receivers, fs, samples, &done, stop,
                           kAmbisonicOrder);
    });
    while (job.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        observer.geometric_progress(done.load());
    geometric::SourceResult res = job.get();
    observer.geometric_progress(done.load());
    if (stop && stop->load()) {
        observer.geometric_stopped();
        return std::nullopt;
    }
    observer.geometric_end();
    // The air's absorption over the travel time, as the wave solver's IRs get it.
    const auralize::PropagationFilter air(fs, scene.air, scene.simulation.speed_of_sound, 0.0);
    for (auto& channels : res.ambisonics)
        for (auto& ir : channels)
            ir = air.apply(std::span<const float>(ir));
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    seconds_ += took;
    sources_.push_back({{"source", src.name},
                        {"rays", res.rays.rays},
                        {"ray_segments", res.rays.segments},
                        {"rain_queries", res.rays.rain_queries},
                        {"image_source_candidates", res.candidates},
                        {"specular_paths", res.specular_paths},
                        {"image_sources_s", res.image_source_seconds},
                        {"ray_tracing_s", res.rays.seconds},
                        {"synthesis_s", res.synthesis_seconds},
                        {"total_s", took}});
    return std::move(res.ambisonics);
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
    return {{"mode", "full"},
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
}

}  // namespace ardent::pipeline
