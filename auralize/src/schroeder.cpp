#include "ardent/auralize/schroeder.h"

#include <algorithm>
#include <cmath>

namespace ardent::auralize {

BackwardIntegral::BackwardIntegral(std::span<const double> energy, double fs, size_t truncation,
                                   const NoiseEstimate& noise)
    : fs_(fs),
      tail_level_(noise.tail_rate > 0 ? noise.tail_level : 0),
      tail_ratio_(noise.tail_rate > 0 ? std::exp(-noise.tail_rate / fs) : 0) {
    const size_t nc = std::min(truncation, energy.size());
    sums_.assign(nc + 1, 0.0);
    moments_.assign(nc + 1, 0.0);
    // The tail's sum is a geometric series.
    sums_[nc] = tail_level_ / (1 - tail_ratio_);
    for (size_t n = nc; n-- > 0;) {
        const double e = energy[n] - noise.noise;
        sums_[n] = sums_[n + 1] + e;
        moments_[n] = moments_[n + 1] + static_cast<double>(n) * e;
    }
}

double BackwardIntegral::from(size_t n) const {
    const size_t nc = truncation();
    if (n <= nc) return sums_[n];
    return sums_[nc] * std::pow(tail_ratio_, static_cast<double>(n - nc));
}

double BackwardIntegral::moment(size_t origin) const {
    const size_t nc = truncation();
    // Measured part: sum over m >= origin of (m - origin) e'[m], m < nc.
    double m = 0;
    if (origin < nc) {
        m = moments_[origin] - static_cast<double>(origin) * (sums_[origin] - sums_[nc]);
    }
    // Tail: sum over j >= 0 of (nc + j - origin) L r^j, where nc + j >= origin.
    const double l = tail_level_, r = tail_ratio_;
    if (l > 0) {
        if (origin <= nc) {
            m += l * (static_cast<double>(nc - origin) / (1 - r) + r / ((1 - r) * (1 - r)));
        } else {
            const double lo = l * std::pow(r, static_cast<double>(origin - nc));
            m += lo * r / ((1 - r) * (1 - r));
        }
    }
    return m / fs_;
}

std::vector<double> decay_curve_db(const BackwardIntegral& integral, size_t start) {
    std::vector<double> curve;
    const double s0 = integral.from(start);
    if (!(s0 > 0)) return curve;
    for (size_t n = start; n <= integral.truncation(); ++n) {
        const double s = integral.from(n);
        if (!(s > 0)) break;
        curve.push_back(10 * std::log10(s / s0));
    }
    return curve;
}

std::optional<double> decay_time(std::span<const double> curve, double fs, double from_db,
                                 double to_db) {
    size_t i0 = 0;
    while (i0 < curve.size() && curve[i0] > from_db)
        ++i0;
    size_t i1 = i0;
    while (i1 < curve.size() && curve[i1] > to_db)
        ++i1;
    if (i1 >= curve.size() || i1 < i0 + 2) return std::nullopt;
    // Least squares over samples i0..i1 with time measured from i0, for accuracy on long curves.
    double n = 0, st = 0, sl = 0, stt = 0, stl = 0;
    for (size_t i = i0; i <= i1; ++i) {
        const double t = static_cast<double>(i - i0) / fs;
        n += 1;
        st += t;
        sl += curve[i];
        stt += t * t;
        stl += t * curve[i];
    }
    const double slope = (n * stl - st * sl) / (n * stt - st * st);
    if (!(slope < 0)) return std::nullopt;
    return -60 / slope;
}

}  // namespace ardent::auralize
