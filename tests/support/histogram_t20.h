// T20 of the geometric engine's energy histograms, for the tests that trace rays directly
// (test_geometric, test_near_surfaces).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "ardent/geometric/ray_tracer.h"
#include "signal_tools.h"

namespace ardent::test {

// T20 of an energy histogram's band (Schroeder's backward integral, fitted -5 to -25 dB).
inline double histogram_t20(const geometric::EnergyHistogram& h, size_t band) {
    std::vector<double> tail(h.bins.size() + 1, 0.0);
    for (size_t k = h.bins.size(); k-- > 0;)
        tail[k] = tail[k + 1] + h.bins[k][band];
    std::vector<double> t, db;
    for (size_t k = 0; k < h.bins.size(); ++k) {
        const double level = 10 * std::log10(tail[k] / tail[0]);
        if (level <= -5 && level >= -25) {
            t.push_back((static_cast<double>(k) + 0.5) * h.bin);
            db.push_back(level);
        }
    }
    return -60 / least_squares_slope(t, db);
}

}  // namespace ardent::test
