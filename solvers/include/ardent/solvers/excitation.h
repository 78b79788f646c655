// The band-limited source signal every solver injects, and the IR convention it implements (spec
// section 4). G(t) is a symmetric, zero-DC band-pass kernel: the difference of two Kaiser-windowed
// sinc low-passes, flat (within 0.03 dB) from 0.05 to 0.8 f_max, zero at DC and above f_max. A
// point monopole forced with c^2 G(t) delta(x) radiates p = G(t - r/c) / (4 pi r), so sampled at
// any rate fs the free-field direct pulse has, in the flat band, the spectrum 1/(4 pi r) per
// sample: the pulse of a unit discrete impulse. Delivered IRs are the receiver signals advanced by
// delay(). Written once for host and device code.
#pragma once

#include <cmath>
#include <vector>

#include "ardent/solvers/hd.h"

namespace ardent {

struct Excitation {
    double f_max = 0;      // Hz: nothing at or above
    double f_pass_lo = 0;  // Hz: flat from here ...
    double f_pass_hi = 0;  // ... to here
    double dt = 0;         // s: the sample period G is normalised for (per-sample gain 1)
    double half_lo = 0;    // s: half-length of the low cut's window
    double half_hi = 0;    // s: half-length of the high cut's window
    double beta = 0;       // Kaiser window shape
    double lo_scale = 1;   // makes the sum of G(n dt) exactly zero: no DC at the sampling rate

    // Kernel for a simulation with time step dt up to f_max.
    static Excitation for_band(double f_max, double dt);

    // Seconds from the start of the kernel to its centre; the kernel lasts 2 * delay().
    ARDENT_HD double delay() const { return half_lo > half_hi ? half_lo : half_hi; }
    // G at time t after the kernel's start (zero outside [0, 2 delay()]).
    ARDENT_HD double operator()(double t) const;
    // G(n dt) for n = 0 .. ceil(2 delay() / dt): the samples a solver injects.
    std::vector<double> samples(double dt) const;
};

namespace detail {

ARDENT_HD inline double bessel_i0(double x) {
    // Power series; converges fast for the |x| <= ~20 a Kaiser window needs.
    double sum = 1, term = 1;
    const double q = x * x / 4;
    for (int k = 1; k < 60; ++k) {
        term *= q / (static_cast<double>(k) * k);
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

// dt * 2 fc sinc(2 fc t), Kaiser-windowed over |t| <= half: a low-pass of per-sample gain 1.
ARDENT_HD inline double windowed_lowpass(double t, double fc, double half, double beta, double dt) {
    if (t <= -half || t >= half) return 0;
    const double pi = 3.14159265358979323846;
    const double x = 2 * fc * t;
    const double sinc = std::fabs(x) < 1e-12 ? 1.0 : std::sin(pi * x) / (pi * x);
    const double r = t / half;
    const double w = bessel_i0(beta * std::sqrt(1 - r * r)) / bessel_i0(beta);
    return dt * 2 * fc * sinc * w;
}

}  // namespace detail

ARDENT_HD inline double Excitation::operator()(double t) const {
    const double c = delay();
    const double tc = t - c;
    const double hi = detail::windowed_lowpass(tc, 0.5 * (f_pass_hi + f_max), half_hi, beta, dt);
    const double lo = detail::windowed_lowpass(tc, 0.5 * f_pass_lo, half_lo, beta, dt);
    return hi - lo_scale * lo;
}

}  // namespace ardent
