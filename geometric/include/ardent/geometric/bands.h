// The octave bands the geometric engine works in (125 Hz to 16 kHz, 8 bands) and a material's
// coefficients averaged over each. A band's coefficient is the average of the material's curve
// over the octave, uniform in log frequency (the mean of its three third octaves), as a
// reverberation room's octave value is.
#pragma once

#include <array>

#include "ardent/preprocess/scene.h"

namespace ardent::geometric {

inline constexpr int kBands = 8;
inline constexpr std::array<double, kBands> kBandHz = {125,  250,  500,  1000,
                                                       2000, 4000, 8000, 16000};
using BandValues = std::array<double, kBands>;

// The edge between band b and b + 1: the geometric mean of their centres (b = 0 .. kBands - 2).
double band_edge_hz(int b);

struct SurfaceBands {
    BandValues absorption{};  // random-incidence absorption per band
    BandValues scattering{};  // scattering coefficient per band
};
SurfaceBands surface_bands(const Material& material);

}  // namespace ardent::geometric
