// The geometric engine's speed and convergence (docs/full-band.md): a scene's first source traced
// with N rays and with 10 N, its receivers' IRs synthesised and analysed per octave (ISO 3382-1
// T20, after the air's absorption as simulate() applies it); prints rays per second, seconds per
// source (image sources, rays, synthesis) and the largest T20 difference between the two runs over
// receivers and octaves 250 Hz-8 kHz, as JSON (N: the scene's own count unless given). Usage:
// bench_geometric [SCENE.json] [--rays N]
// [--threads T] [--ambisonic-order K]  (K as simulate's receivers: 3; default 0, omnidirectional)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/air_absorption.h"
#include "ardent/auralize/analysis.h"
#include "ardent/geometric/geometric.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"

namespace {

struct Run {
    ardent::geometric::SourceResult result;
    double seconds = 0;
    std::vector<std::vector<double>> t20;  // per receiver, per octave 250 Hz-8 kHz (NaN: none)
};

constexpr double kOctaves[] = {250, 500, 1000, 2000, 4000, 8000};

Run run(const ardent::Scene& scene, const ardent::TriangleMesh& mesh,
        const std::vector<int>& groups, double volume, size_t rays, int threads, int order) {
    ardent::Scene s = scene;
    s.geometric.rays = rays;
    const ardent::geometric::Engine engine(mesh, groups, s, threads, volume);
    std::vector<ardent::Vec3> receivers;
    for (const auto& r : s.receivers)
        receivers.push_back(r.position);
    const double fs = s.output_sample_rate;
    const auto samples = static_cast<size_t>(std::llround(s.simulation.duration * fs));
    Run out;
    const auto t0 = std::chrono::steady_clock::now();
    out.result =
        engine.run(0, s.sources.at(0).position, receivers, fs, samples, nullptr, nullptr, order);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The air's absorption, as simulate() applies it.
    const ardent::auralize::PropagationFilter air(fs, s.air, s.simulation.speed_of_sound, 0.0);
    for (const auto& raw : out.result.irs) {
        const auto ir = air.apply(raw);
        const auto a = ardent::auralize::analyze_ir(ir, fs);
        std::vector<double> t20;
        for (double hz : kOctaves) {
            double v = std::nan("");
            for (const auto& b : a.results)
                if (std::abs(b.nominal_hz - hz) < 1 && b.t20_s) v = *b.t20_s;
            t20.push_back(v);
        }
        out.t20.push_back(t20);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/lshape.json";
    size_t rays = 0;
    int threads = 0, order = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--rays") && i + 1 < argc) {
            rays = static_cast<size_t>(std::atof(argv[++i]));
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--ambisonic-order") && i + 1 < argc) {
            order = std::atoi(argv[++i]);
        } else {
            file = argv[i];
        }
    }
    const ardent::Scene scene = ardent::load_scene(file);
    // The room's air as `simulate` takes it (preprocessing's mesh_volume: a model whose walls have
    // two skins encloses only the walls' own volume), at the scene's max_frequency; not timed.
    const ardent::Preprocessed p = ardent::preprocess(scene);
    const ardent::TriangleMesh& mesh = p.mesh;
    const std::vector<int>& groups = p.group_material;
    const double volume = p.air.mesh_volume;
    // Without --rays: the scene's own count (by default the room's, GeometricSettings::rays_for).
    if (rays == 0)
        rays = ardent::geometric::Engine(mesh, groups, scene, threads, volume).plan().rays;
    const Run a = run(scene, mesh, groups, volume, rays, threads, order);
    const Run b = run(scene, mesh, groups, volume, 10 * rays, threads, order);
    double worst = 0;
    nlohmann::ordered_json per_band = nlohmann::ordered_json::object();
    for (size_t k = 0; k < std::size(kOctaves); ++k) {
        double band_worst = 0;
        for (size_t r = 0; r < a.t20.size(); ++r)
            if (std::isfinite(a.t20[r][k]) && std::isfinite(b.t20[r][k]))
                band_worst = std::max(band_worst, std::abs(a.t20[r][k] / b.t20[r][k] - 1));
        per_band[std::to_string(static_cast<int>(kOctaves[k]))] = band_worst;
        worst = std::max(worst, band_worst);
    }
    const auto report = [&](const Run& x) {
        return nlohmann::ordered_json{
            {"rays", x.result.rays.rays},
            {"seconds", x.seconds},
            {"rays_per_second", static_cast<double>(x.result.rays.rays) / x.result.rays.seconds},
            {"image_sources_s", x.result.image_source_seconds},
            {"ray_tracing_s", x.result.rays.seconds},
            {"synthesis_s", x.result.synthesis_seconds},
            {"ray_segments", x.result.rays.segments},
            {"rain_queries", x.result.rays.rain_queries}};
    };
    nlohmann::ordered_json out = {{"scene", scene.name},
                                  {"triangles", mesh.triangles.size()},
                                  {"volume_m3", volume},
                                  {"receivers", scene.receivers.size()},
                                  {"duration_s", scene.simulation.duration},
                                  {"threads", threads},
                                  {"ambisonic_order", order},
                                  {"run", report(a)},
                                  {"run_10x", report(b)},
                                  {"t20_worst_relative_difference", worst},
                                  {"t20_worst_relative_difference_per_octave", per_band}};
    if (std::getenv("ARDENT_BENCH_VERBOSE")) {
        out["t20_run"] = a.t20;
        out["t20_run_10x"] = b.t20;
    }
    std::printf("%s\n", out.dump(2).c_str());
}
