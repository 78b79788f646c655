#include "ardent/auralize/crossover.h"

#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

constexpr double kTransitionOctaves = 0.5;

// A transform size at least n with no prime factor above 5.
size_t fast_size(size_t n) {
    for (size_t m = n;; ++m) {
        size_t r = m;
        for (size_t p : {2, 3, 5})
            while (r % p == 0)
                r /= p;
        if (r == 1) return m;
    }
}

}  // namespace

double crossover_low_gain(double hz, double crossover_hz) {
    if (hz <= 0) return 1;
    const double x = std::log2(hz / crossover_hz) / kTransitionOctaves;  // -0.5 .. 0.5 inside
    if (x <= -0.5) return 1;
    if (x >= 0.5) return 0;
    return 0.5 + 0.5 * std::cos(std::numbers::pi * (x + 0.5));
}

BandOrigin band_origin(double lower_hz, double upper_hz, double crossover_hz) {
    if (crossover_low_gain(upper_hz, crossover_hz) == 1) return BandOrigin::Wave;
    if (crossover_low_gain(lower_hz, crossover_hz) == 0) return BandOrigin::Geometric;
    return BandOrigin::Both;
}

const char* to_string(BandOrigin origin) {
    switch (origin) {
        case BandOrigin::Wave:
            return "wave";
        case BandOrigin::Geometric:
            return "geometric";
        case BandOrigin::Both:
            return "wave+geometric";
    }
    return "";
}

std::vector<float> join_at_crossover(std::span<const float> low, std::span<const float> high,
                                     double sample_rate, double crossover_hz) {
    if (low.size() != high.size())
        throw std::invalid_argument("join_at_crossover: the two IRs differ in length");
    if (!(sample_rate > 0) || !(crossover_hz > 0))
        throw std::invalid_argument("join_at_crossover: rate and crossover must be positive");
    const size_t n_in = low.size();
    if (n_in == 0) return {};
    // The split's response lasts a few periods of the transition's width: room for it to ring
    // before time zero and after the end without wrapping onto the IR.
    const double periods = std::ceil(40 * sample_rate / crossover_hz);
    if (!(periods <= 64.0 * static_cast<double>(n_in) + 4e6))
        throw std::invalid_argument("join_at_crossover: the crossover is too low for the IR");
    const auto pad = static_cast<size_t>(periods);
    const size_t n = fast_size(n_in + 2 * pad);
    detail::RealFft fft(n, detail::Planning::Estimate);
    auto a = detail::alloc_floats(n), b = detail::alloc_floats(n);
    for (size_t k = 0; k < n_in; ++k) {
        a[pad + k] = low[k];
        b[pad + k] = high[k];
    }
    auto sa = detail::alloc_complex(fft.bins()), sb = detail::alloc_complex(fft.bins());
    fft.forward(a.get(), sa.get());
    fft.forward(b.get(), sb.get());
    for (size_t k = 0; k < fft.bins(); ++k) {
        const double hz = static_cast<double>(k) * sample_rate / static_cast<double>(n);
        const auto g = static_cast<float>(crossover_low_gain(hz, crossover_hz));
        sa[k] = (sa[k] * g + sb[k] * (1 - g)) / static_cast<float>(n);
    }
    fft.inverse(sa.get(), a.get());
    return {a.get() + pad, a.get() + pad + n_in};
}

}  // namespace ardent::auralize
