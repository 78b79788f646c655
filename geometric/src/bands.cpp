#include "ardent/geometric/bands.h"

#include <cmath>

namespace ardent::geometric {
namespace {

// The average of f over the octave around `centre`, uniform in log frequency (9 points, ends
// weighted half: the trapezoidal rule).
template <typename F>
double octave_average(double centre, F f) {
    constexpr int kPoints = 9;
    double sum = 0, weight = 0;
    for (int i = 0; i < kPoints; ++i) {
        const double hz = centre * std::pow(2.0, -0.5 + static_cast<double>(i) / (kPoints - 1));
        const double w = (i == 0 || i == kPoints - 1) ? 0.5 : 1.0;
        sum += w * f(hz);
        weight += w;
    }
    return sum / weight;
}

}  // namespace

double band_edge_hz(int b) {
    return std::sqrt(kBandHz[static_cast<size_t>(b)] * kBandHz[static_cast<size_t>(b) + 1]);
}

SurfaceBands surface_bands(const Material& material) {
    SurfaceBands s;
    for (size_t b = 0; b < kBands; ++b) {
        s.absorption[b] =
            octave_average(kBandHz[b], [&](double hz) { return material.absorption_at(hz); });
        s.scattering[b] =
            octave_average(kBandHz[b], [&](double hz) { return material.scattering_at(hz); });
    }
    return s;
}

}  // namespace ardent::geometric
