// Stochastic ray tracing with diffuse rain (docs/full-band.md, "Ray tracing"): the energy that
// the image sources do not carry, as an energy histogram per receiver and octave band. Each ray
// leaves the source with 1/N of its energy and loses (1 - a) at every reflection; it continues
// specularly or in a Lambert direction, chosen with the scattering of the ray's own band (rays
// take the bands in turn) and each band's energy weighted by multiple importance sampling, so that
// every band's split is its own s and 1 - s with bounded weights. At every reflection the
// scattered share is sent straight to each receiver that sees the point (diffuse rain: a Lambert
// radiator's fluence E s cos(theta) / (pi d^2)); the specular share is counted where the ray
// crosses a receiver's detection sphere (fluence E l / V), except on paths of specular
// reflections only up to the image-source order, which the image sources carry. Every path is
// thus counted once, whichever way it ends. After the mixing time the field is diffuse, and a
// specular reflection of a diffuse field sends energy towards a receiver as a Lambert one does:
// from then on every reflection rains all it reflects and no leg is detected. The spheres' counts
// are rare events in a hall (a 1 m sphere in 12 400 m^3), the rain reaches every receiver that
// sees the reflection: the late decay's noise per receiver falls several times
// (docs/full-band.md, "Ray tracing").
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "ardent/geometric/bands.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

struct RayTracingSettings {
    size_t rays = 10000;
    int image_source_order = 3;  // all-specular paths up to this order are left out
    double max_time = 1.0;       // s: histograms and rays end here
    double speed_of_sound = 343.0;
    double bin = 1e-3;             // s: histogram bin
    double receiver_radius = 0.3;  // m: the detection sphere of the specular share
    // s: from this time on (path length / c) reflections rain all they reflect (see above);
    // infinite: never.
    double mixing_time = std::numeric_limits<double>::infinity();
    // Also bin the energy by where it arrives from (EnergyHistogram::directional), in bins of
    // direction_bin: the late field's directions change slowly, and a coarse bin keeps the
    // threads' histograms small (kDirections times the omnidirectional one's size otherwise).
    bool directions = false;
    double direction_bin = 0.01;  // s
    uint64_t seed = 1;
    int threads = 0;  // 0: every core
};

// Per receiver: bins[k][b] is the fluence (m^-2) arriving in [k bin, (k + 1) bin) in band b, for
// a source emitting unit energy. Divided by 4 pi it is the IR's squared magnitude in that bin,
// the unit the synthesis uses (synthesis.h).
struct EnergyHistogram {
    double bin = 1e-3;
    std::vector<BandValues> bins;
    // With RayTracingSettings::directions: the same fluence split by arrival direction (the
    // nearest of directions.h's set), directional[k * kDirections + d] for [k, k + 1)
    // direction_bin; empty otherwise.
    double direction_bin = 0;
    std::vector<BandValues> directional;
};

struct RayTracingStats {
    size_t rays = 0;
    size_t segments = 0;      // ray-surface queries
    size_t rain_queries = 0;  // visibility queries towards receivers
    size_t escaped = 0;       // rays that left the model through a gap in its surfaces
    double seconds = 0;
    // The energy that arrived at each triangle, per side: incident[2 t] from the side its wound
    // normal points to, incident[2 t + 1] from the other; each ray counts its own band's energy
    // (rays take the bands in turn). gap_absorption.h reads where little arrives.
    std::vector<double> incident;
};

// `rays_done` (may be null) counts traced rays as they finish, for progress reports; when `stop`
// (may be null) becomes true the threads stop after their current ray and the histograms are
// incomplete.
std::vector<EnergyHistogram> trace_rays(const Room& room, Vec3 source,
                                        const std::vector<Vec3>& receivers,
                                        const RayTracingSettings& settings,
                                        RayTracingStats* stats = nullptr,
                                        std::atomic<size_t>* rays_done = nullptr,
                                        const std::atomic<bool>* stop = nullptr);

// The histograms' Monte Carlo noise, taken down where the decay is smooth: each bin from time t on
// becomes the mean over the bins within +-kSmoothingFraction t of it (at least its own), divided
// by what that window does to the exponential decay its two halves show, so that a decay keeps
// its rate (a plain mean over a window widening with t lengthened T20 by 1-3 %; smoothing.h); the
// early bins, where single reflections stand out, stay as they are.
inline constexpr double kSmoothingFraction = 0.1;
void smooth_late_energy(EnergyHistogram& h);

}  // namespace ardent::geometric
