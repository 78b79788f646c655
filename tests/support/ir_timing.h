// The time origin of an IR file, measured (issue 19): the delay of a simulated pulse against its
// exact reference, from the slope of their cross-spectrum's phase in a band, both windowed alike
// around the arrival. A sub-sample shift shows as a linear phase, so this resolves a hundredth of
// a solver step at any output rate; a solver's dispersion shows as the fit's residual slope.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <span>
#include <vector>

#include "signal_tools.h"

namespace ardent::test {

// Seconds by which `sim` lags `ref` (positive: late), both sampled at `fs`: each is multiplied
// by a Hann window over [centre - half, centre + half] seconds, and the phase of sim * conj(ref)
// is fitted by -2 pi f tau over [lo, hi] Hz, weighted by the cross-spectrum's magnitude.
inline double measured_lag(std::span<const double> sim, std::span<const double> ref, double fs,
                           double centre, double half, double lo, double hi) {
    const double pi = 3.14159265358979323846;
    std::vector<double> a(sim.size()), b(ref.size());
    for (size_t n = 0; n < a.size() && n < b.size(); ++n) {
        const double u = (static_cast<double>(n) / fs - (centre - half)) / (2 * half);
        const double w = u <= 0 || u >= 1 ? 0.0 : 0.5 - 0.5 * std::cos(2 * pi * u);
        a[n] = w * sim[n];
        b[n] = w * ref[n];
    }
    const size_t nfft = fast_fft_size(4 * a.size());  // fine bins for the fit
    const auto x = real_fft(a, nfft), y = real_fft(b, nfft);
    double num = 0, den = 0;
    for (size_t k = 0; k < x.size(); ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(nfft);
        if (f < lo || f > hi) continue;
        const std::complex<double> s = x[k] * std::conj(y[k]);
        const double w = std::abs(s);
        num += w * std::arg(s) * f;
        den += w * f * f;
    }
    return den > 0 ? -num / (2 * pi * den) : 0.0;
}

}  // namespace ardent::test
