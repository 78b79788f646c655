// One stochastic ray's energy per band, shared by the receivers' tracer (ray_tracer.cpp) and the
// listener grid's (grid_field.cpp). The bands share one path, chosen at each reflection with the
// scattering of the ray's own band (ray index mod kBands). Each band's energy is its absorbed
// energy times q_b / mean_j q_j, where q_j is the probability band j's choices would give the path
// taken: the balance heuristic of multiple importance sampling over the kBands strategies. It is
// unbiased for every band and its weight never exceeds kBands, where weighting one choice for all
// bands grows without bound along a path when the bands' scattering differs.
#pragma once

#include <algorithm>
#include <cstddef>

#include "ardent/geometric/bands.h"
#include "random.h"

namespace ardent::geometric {

// Below this share of its initial energy (in every band) a ray plays Russian roulette: it goes
// on with probability kSurvival and its energy divided by it, so the estimate stays unbiased.
inline constexpr double kRouletteBelow = 1e-7;
inline constexpr double kSurvival = 0.1;

struct RayState {
    BandValues absorbed{};  // e0 times the product of (1 - a) so far
    BandValues q{};         // path probability under each band's strategy (rescaled)
    size_t band = 0;        // the band whose scattering chooses the directions

    RayState(double e0, size_t index) : band(index % kBands) {
        absorbed.fill(e0);
        q.fill(1.0);
    }

    BandValues energy() const {
        double mean = 0;
        for (double v : q)
            mean += v / kBands;
        BandValues e;
        for (size_t b = 0; b < kBands; ++b)
            e[b] = absorbed[b] * q[b] / mean;
        return e;
    }

    void absorb(const SurfaceBands& sb) {
        for (size_t b = 0; b < kBands; ++b)
            absorbed[b] *= 1 - sb.absorption[b];
    }

    // Diffuse (true) or specular, drawn with the ray's own band's scattering; every band's path
    // probability follows.
    bool choose_diffuse(const SurfaceBands& sb, Random& rng) {
        const bool diffuse = rng.uniform() < sb.scattering[band];
        double top = 0;
        for (size_t b = 0; b < kBands; ++b) {
            q[b] *= diffuse ? sb.scattering[b] : 1 - sb.scattering[b];
            top = std::max(top, q[b]);
        }
        for (double& v : q)  // only the ratios matter: keep them away from underflow
            v /= top;
        return diffuse;
    }

    // Russian roulette once every band is below kRouletteBelow e0: false when the ray ends.
    bool survives(double e0, Random& rng) {
        const BandValues e = energy();
        if (*std::max_element(e.begin(), e.end()) >= kRouletteBelow * e0) return true;
        if (rng.uniform() >= kSurvival) return false;
        for (double& v : absorbed)
            v /= kSurvival;
        return true;
    }
};

}  // namespace ardent::geometric
