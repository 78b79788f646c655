#include "ardent/geometric/geometric.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "ardent/geometric/boundary_gain.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/synthesis.h"
#include "parallel.h"

namespace ardent::geometric {
namespace {

constexpr size_t kCandidateRays = 1000000;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A tenth of the room's cube root of volume, within 0.1-1 m: large enough for many rays to
// cross it, small against the room's features (docs/full-band.md, "Detection spheres").
double detection_radius(const Room& room) {
    const double v = room.volume() > 0 ? room.volume() : 1.0;
    return std::clamp(std::cbrt(v) / 10, 0.1, 1.0);
}

// Polack's estimate of when a room's reflections have mixed into a diffuse field: sqrt(V) ms
// with V in m^3 (shoebox 71 m^3: 8 ms; the Musikverein, 12 400 m^3: 111 ms).
double mixing_time(const Room& room) {
    return std::sqrt(std::max(room.volume(), 1.0)) * 1e-3;
}

}  // namespace

Engine::Engine(const TriangleMesh& mesh, const std::vector<int>& group_material, const Scene& scene,
               int threads, double volume)
    : room_(mesh, group_material, scene.materials, volume),
      duration_(scene.simulation.duration),
      speed_of_sound_(scene.simulation.speed_of_sound),
      threads_(threads) {
    plan_.rays = scene.geometric.rays_for(room_.volume());
    // A sequence met by few rays is easily missed: with 50 000 a Musikverein receiver lost 5 of
    // its 26 paths (a quarter of its early specular energy, T20 15 % off); 10^6 short rays of at
    // most image_source_order reflections cost about a second on 2 cores.
    plan_.candidate_rays = std::max<size_t>(kCandidateRays, plan_.rays);
    plan_.image_source_order = scene.geometric.image_source_order;
    plan_.receiver_radius = detection_radius(room_);
    plan_.mixing_time = mixing_time(room_);
}

SourceResult Engine::run(size_t source_index, Vec3 source, const std::vector<Vec3>& receivers,
                         double sample_rate, size_t samples, std::atomic<size_t>* rays_done,
                         const std::atomic<bool>* stop, int ambisonic_order) const {
    SourceResult out;
    const uint64_t seed = 0x61726465ull + 7919 * source_index;
    auto t0 = std::chrono::steady_clock::now();
    // Without receivers the rays still run: the narrow gaps' absorption and the source's gain
    // come from them, and a listener grid applies both (FullBand::grid).
    const auto candidates = receivers.empty()
                                ? std::vector<std::vector<uint32_t>>{}
                                : candidate_sequences(room_, source, plan_.image_source_order,
                                                      plan_.candidate_rays, seed + 1, threads_);
    out.candidates = candidates.size();
    // Receivers on all threads: a hall's chairs block many paths' segments, and each blocked
    // segment samples its Fresnel zones (fresnel.h).
    std::vector<std::vector<SpecularPath>> paths(receivers.size());
    parallel_ranges(receivers.size(), thread_count(threads_), [&](size_t begin, size_t end, int) {
        for (size_t r = begin; r < end; ++r)
            paths[r] = specular_paths(room_, source, receivers[r], candidates, speed_of_sound_);
    });
    for (const auto& p : paths)
        out.specular_paths.push_back(p.size());
    out.image_source_seconds = seconds_since(t0);

    RayTracingSettings rt;
    rt.rays = plan_.rays;
    rt.image_source_order = plan_.image_source_order;
    rt.max_time = static_cast<double>(samples) / sample_rate + 0.01;
    rt.speed_of_sound = speed_of_sound_;
    rt.receiver_radius = plan_.receiver_radius;
    rt.mixing_time = plan_.mixing_time;
    rt.seed = seed;
    rt.threads = threads_;
    rt.directions = ambisonic_order > 0;
    auto histograms = trace_rays(room_, source, receivers, rt, &out.rays, rays_done, stop);
    if (stop && stop->load()) return out;
    out.gap = gap_absorption(room_, out.rays.incident, speed_of_sound_, threads_);
    out.source_gain = boundary_gain(room_, source, speed_of_sound_);

    for (size_t r = 0; r < histograms.size(); ++r) {
        out.receiver_gain.push_back(boundary_gain(room_, receivers[r], speed_of_sound_));
        BandValues gain;
        for (size_t b = 0; b < kBands; ++b)
            gain[b] = out.source_gain[b] * out.receiver_gain[r][b];
        apply_gap_absorption(histograms[r], out.gap.rate_per_s, gain);
        smooth_late_energy(histograms[r]);
    }

    // Receivers on all threads: each has its own noise seed, so the IRs do not depend on the
    // thread count (a hall's 16 ambisonic receivers took 13 s on one thread).
    t0 = std::chrono::steady_clock::now();
    out.irs.resize(receivers.size());
    if (ambisonic_order > 0) out.ambisonics.resize(receivers.size());
    parallel_ranges(receivers.size(), thread_count(threads_), [&](size_t begin, size_t end, int) {
        for (size_t r = begin; r < end; ++r) {
            SynthesisSettings s;
            s.sample_rate = sample_rate;
            s.samples = samples;
            s.speed_of_sound = speed_of_sound_;
            s.seed = seed + 1000003 * (r + 1);
            if (ambisonic_order > 0) {
                out.ambisonics[r] =
                    synthesize_ambisonic_ir(paths[r], histograms[r], s, ambisonic_order);
                out.irs[r] = out.ambisonics[r][0];
            } else {
                out.irs[r] = synthesize_ir(paths[r], histograms[r], s);
            }
        }
    });
    out.synthesis_seconds = seconds_since(t0);
    return out;
}

}  // namespace ardent::geometric
