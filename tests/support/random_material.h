// A material drawn from a seed, for the wall fit's tests (test_wall_admittance,
// test_ard_wall_fit): octave absorption from 63 Hz to 8 kHz as a random walk in log alpha (up or
// down by up to x1.8 per octave, clamped to 0.005-0.9) and an f_max log-uniform in 250-4000 Hz.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ardent/preprocess/scene.h"

namespace ardent::test {

struct DrawnMaterial {
    Material material;
    double f_max = 0;
};

inline DrawnMaterial draw_octave_material(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> start(std::log(0.01), std::log(0.9)), step(-0.6, 0.6),
        fmax(std::log(250.0), std::log(4000.0));
    DrawnMaterial d;
    d.material.name = "random";
    std::vector<AbsorptionBand> bands;
    double la = start(rng);
    for (double hz = 62.5; hz <= 8000; hz *= 2) {
        bands.push_back({hz == 62.5 ? 63 : hz, std::clamp(std::exp(la), 0.005, 0.9)});
        la += step(rng);
    }
    d.material.set_bands(bands);
    d.f_max = std::exp(fmax(rng));
    return d;
}

}  // namespace ardent::test
