#include "ardent/auralize/decimate.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ardent::audio {
namespace {

constexpr double kStopbandDb = 90;

// The zeroth-order modified Bessel function of the first kind (its power series).
double bessel_i0(double x) {
    double sum = 1, term = 1;
    for (int k = 1; k < 60; ++k) {
        term *= (x / (2 * k)) * (x / (2 * k));
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

}  // namespace

IrDecimator::IrDecimator(double fs_in, size_t factor, double pass_hz, size_t max_half_length)
    : fs_in_(fs_in), factor_(factor) {
    if (!(fs_in > 0) || !std::isfinite(fs_in) || factor < 1 || !(pass_hz > 0) ||
        !(pass_hz < 0.5 * fs_in / static_cast<double>(factor)))
        throw std::invalid_argument("IrDecimator: need fs_in > 0, factor >= 1 and 0 < pass < " +
                                    std::string("fs_in / (2 factor); got ") +
                                    std::to_string(fs_in) + ", " + std::to_string(factor) + ", " +
                                    std::to_string(pass_hz));
    if (factor == 1) {
        half_ = 0;
        taps_ = {1.0};
        return;
    }
    // Kaiser's design (Oppenheim and Schafer): cut off at the output's Nyquist frequency, midway
    // between the pass band's edge and where aliasing reaches it.
    const double fs_out = fs_in / static_cast<double>(factor);
    const double transition = 2 * std::numbers::pi * (fs_out - 2 * pass_hz) / fs_in;
    const double beta = 0.1102 * (kStopbandDb - 8.7);
    const auto order = static_cast<size_t>(std::ceil((kStopbandDb - 7.95) / (2.285 * transition)));
    half_ = std::clamp<size_t>((order + 1) / 2, 1, max_half_length);
    const double fc = 0.5 * fs_out / fs_in;  // cycles per input sample
    taps_.resize(2 * half_ + 1);
    double sum = 0;
    for (size_t i = 0; i < taps_.size(); ++i) {
        const double j = static_cast<double>(i) - static_cast<double>(half_);
        const double x = 2 * std::numbers::pi * fc * j;
        const double sinc = j == 0 ? 1.0 : std::sin(x) / x;
        const double r = j / static_cast<double>(half_ + 1);
        taps_[i] = 2 * fc * sinc * bessel_i0(beta * std::sqrt(1 - r * r)) / bessel_i0(beta);
        sum += taps_[i];
    }
    for (double& t : taps_)
        t /= sum;
}

std::vector<float> IrDecimator::apply(std::span<const float> in, size_t samples) const {
    std::vector<float> out(samples, 0.0f);
    const auto n_in = static_cast<long long>(in.size());
    const auto half = static_cast<long long>(half_);
    const auto step = static_cast<long long>(factor_);
    const double gain = static_cast<double>(factor_);  // the IR convention (resample.h)
    const size_t taps = taps_.size();
    // Outputs whose windows lie inside the input are summed kLanes at a time: one sum alone is a
    // chain of dependent additions (the listener grid's write waited on it); side by side each
    // keeps its own terms in the same order, so every output is the value of the loop below.
    constexpr size_t kLanes = 8;
    size_t n = 0;
    while (n < samples) {
        const auto centre = static_cast<long long>(n) * step;
        const bool inside = n + kLanes <= samples && centre - half >= 0 &&
                            centre + static_cast<long long>(kLanes - 1) * step + half < n_in;
        if (inside) {
            double acc[kLanes] = {};
            const float* x = in.data() + (centre - half);
            for (size_t j = 0; j < taps; ++j) {
                const double t = taps_[j];
                for (size_t k = 0; k < kLanes; ++k)
                    acc[k] += t * static_cast<double>(x[j + k * factor_]);
            }
            for (size_t k = 0; k < kLanes; ++k)
                out[n + k] = static_cast<float>(gain * acc[k]);
            n += kLanes;
            continue;
        }
        const long long lo = std::max(-half, -centre), hi = std::min(half, n_in - 1 - centre);
        double acc = 0;
        for (long long j = lo; j <= hi; ++j)
            acc += taps_[static_cast<size_t>(j + half)] *
                   static_cast<double>(in[static_cast<size_t>(centre + j)]);
        out[n] = static_cast<float>(gain * acc);
        ++n;
    }
    return out;
}

size_t decimation_factor(double fs_in, double min_rate_out) {
    if (!(fs_in > 0) || !(min_rate_out > 0)) return 1;
    return std::max<size_t>(1, static_cast<size_t>(std::floor(fs_in / min_rate_out * (1 + 1e-12))));
}

}  // namespace ardent::audio
