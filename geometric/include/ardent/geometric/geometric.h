// The geometric engine in one call per source (docs/full-band.md): image sources up to the
// scene's order, then ray tracing for the rest, then one synthesised IR per receiver at the
// output rate, in the IR convention with time zero the emission. Air absorption is not applied
// here: the pipeline filters these IRs with the same propagation filter as the wave solver's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ardent/geometric/gap_absorption.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent::geometric {

struct SourceResult {
    std::vector<std::vector<float>> irs;  // per receiver, `samples` long
    // With an ambisonic order > 0: per receiver its AmbiX channels (W, Y, Z, X, ...; W is irs[r]).
    std::vector<std::vector<std::vector<float>>> ambisonics;
    std::vector<size_t> specular_paths;  // per receiver, image-source paths found
    size_t candidates = 0;               // plane sequences tried as image sources
    RayTracingStats rays;
    GapAbsorption gap;         // absorbers in narrow gaps: the diffuse part's extra decay
    BandValues source_gain{};  // the diffuse part's gain for the source near surfaces
    std::vector<BandValues> receiver_gain;  // and for each receiver (boundary_gain.h)
    double image_source_seconds = 0, synthesis_seconds = 0;
};

// What a run costs (for `ardent info` and the report), as chosen for a room.
struct EnginePlan {
    size_t rays = 0;            // per source
    size_t candidate_rays = 0;  // specular rays that look for image sources
    int image_source_order = 0;
    double receiver_radius = 0;  // m
    double mixing_time = 0;      // s: from then on reflections rain all they reflect
};

class Engine {
  public:
    // `volume`: the room's air in m^3 where known (Room's constructor says why), else 0.
    Engine(const TriangleMesh& mesh, const std::vector<int>& group_material, const Scene& scene,
           int threads, double volume = 0);
    const EnginePlan& plan() const { return plan_; }
    const Room& room() const { return room_; }

    // `rays_done` counts rays as they finish (plan().rays per source); returns early, with
    // incomplete IRs, when `stop` becomes true (the caller checks it).
    // `ambisonic_order` > 0 (at most 3) also gives each receiver's IR as AmbiX channels, its
    // diffuse part from arrival directions (then irs[r] is their W channel). Without receivers
    // the rays still run, for `gap` and `source_gain`.
    SourceResult run(size_t source_index, Vec3 source, const std::vector<Vec3>& receivers,
                     double sample_rate, size_t samples, std::atomic<size_t>* rays_done = nullptr,
                     const std::atomic<bool>* stop = nullptr, int ambisonic_order = 0) const;

  private:
    Room room_;
    EnginePlan plan_;
    double duration_, speed_of_sound_;
    int threads_;
};

}  // namespace ardent::geometric
