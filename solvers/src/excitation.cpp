#include "ardent/solvers/excitation.h"

#include <cmath>

namespace ardent {

Excitation Excitation::for_band(double f_max, double dt) {
    // Kaiser design for 60 dB stop bands (ripple 1e-3): beta = 0.1102 (A - 8.7) and a window of
    // (A - 7.95) / (14.36 df) seconds for a transition band df.
    constexpr double attenuation = 60;
    Excitation e;
    e.f_max = f_max;
    e.f_pass_lo = 0.05 * f_max;
    e.f_pass_hi = 0.8 * f_max;
    e.dt = dt;
    e.beta = 0.1102 * (attenuation - 8.7);
    const double length = (attenuation - 7.95) / 14.36;
    e.half_hi = 0.5 * length / (f_max - e.f_pass_hi);  // transition 0.8 -> 1.0 f_max
    e.half_lo = 0.5 * length / e.f_pass_lo;            // transition 0 -> 0.05 f_max
    // Each low-pass sums to 1 only up to its stop-band level (1e-3); matching the two sums at this
    // sampling rate removes the DC exactly, so a closed room gains no net pressure.
    double hi = 0, lo = 0;
    const double c = e.delay();
    const long n = static_cast<long>(std::ceil(2 * c / dt));
    for (long i = 0; i <= n; ++i) {
        const double t = static_cast<double>(i) * dt - c;
        hi += detail::windowed_lowpass(t, 0.5 * (e.f_pass_hi + f_max), e.half_hi, e.beta, dt);
        lo += detail::windowed_lowpass(t, 0.5 * e.f_pass_lo, e.half_lo, e.beta, dt);
    }
    e.lo_scale = hi / lo;
    return e;
}

std::vector<double> Excitation::samples(double step) const {
    std::vector<double> x(static_cast<size_t>(std::ceil(2 * delay() / step)) + 1);
    for (size_t n = 0; n < x.size(); ++n)
        x[n] = (*this)(static_cast<double>(n) * step);
    return x;
}

}  // namespace ardent
