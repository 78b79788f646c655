#include "ardent/auralize/lundeby.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

namespace ardent::auralize {
namespace {

// Choices within the ranges the paper gives.
constexpr double kNoiseMarginDb = 10;    // preliminary fit stops this far above the noise
constexpr double kIntervalsPer10Db = 5;  // averaging intervals per 10 dB of decay (paper: 3-10)
constexpr double kNoiseStartDb = 10;     // noise window starts this much decay past the crossing
constexpr double kLateFloorDb = 5;       // late fit stops this far above the noise (paper: 5-10)
constexpr double kLateRangeDb = 20;      // and spans at most this much decay (paper: 10-20)
constexpr double kMinLateRangeDb = 10;   // and at least this much
constexpr int kMaxIterations = 5;

double level_db(double mean_square) {
    return mean_square > 0 ? 10 * std::log10(mean_square)
                           : -std::numeric_limits<double>::infinity();
}

double mean(std::span<const double> e, size_t from, size_t to) {
    if (to <= from) return 0;
    return std::accumulate(e.begin() + static_cast<ptrdiff_t>(from),
                           e.begin() + static_cast<ptrdiff_t>(to), 0.0) /
           static_cast<double>(to - from);
}

// Mean squares over consecutive intervals of `len` samples, and each interval's centre time.
struct Intervals {
    std::vector<double> t, ms;
};

Intervals average(std::span<const double> e, size_t len, double fs) {
    Intervals out;
    for (size_t i = 0; i + len <= e.size(); i += len) {
        out.t.push_back((static_cast<double>(i) + 0.5 * static_cast<double>(len)) / fs);
        out.ms.push_back(mean(e, i, i + len));
    }
    return out;
}

struct Line {
    double a = 0, b = 0;  // level (dB) = a + b t
};

// Least-squares line through the levels of intervals [i0, i1), of the mean square less `noise`;
// intervals where that is not positive are skipped.
std::optional<Line> fit(const Intervals& iv, size_t i0, size_t i1, double noise) {
    double n = 0, st = 0, sl = 0, stt = 0, stl = 0;
    for (size_t i = i0; i < i1 && i < iv.ms.size(); ++i) {
        const double d = iv.ms[i] - noise;
        if (!(d > 0)) continue;
        const double l = level_db(d);
        n += 1;
        st += iv.t[i];
        sl += l;
        stt += iv.t[i] * iv.t[i];
        stl += iv.t[i] * l;
    }
    const double den = n * stt - st * st;
    if (n < 2 || !(den > 0)) return std::nullopt;
    Line line;
    line.b = (n * stl - st * sl) / den;
    line.a = (sl - line.b * st) / n;
    if (!(line.b < 0)) return std::nullopt;
    return line;
}

}  // namespace

NoiseEstimate lundeby(std::span<const double> e, double fs, double first_interval_s) {
    const size_t n = e.size();
    const double length_s = static_cast<double>(n) / fs;
    NoiseEstimate est;
    est.truncation_s = length_s;
    if (n < 2) return est;
    const size_t last_tenth = n - std::max<size_t>(n / 10, 1);

    // 1-2: short-interval averages; the noise from the last tenth of the response.
    est.noise = mean(e, last_tenth, n);
    if (!(est.noise > 0)) {
        est.noise = 0;
        est.converged = true;
        return est;
    }
    const auto len0 = std::max<size_t>(1, static_cast<size_t>(std::lround(first_interval_s * fs)));
    Intervals iv = average(e, len0, fs);
    if (iv.ms.size() < 3) return est;
    const size_t peak = static_cast<size_t>(
        std::distance(iv.ms.begin(), std::max_element(iv.ms.begin(), iv.ms.end())));
    double noise_db = level_db(est.noise);

    // 3-4: a line from the peak to kNoiseMarginDb above the noise; where it meets the noise.
    size_t stop = peak + 1;
    while (stop < iv.ms.size() && level_db(iv.ms[stop]) >= noise_db + kNoiseMarginDb)
        ++stop;
    std::optional<Line> line = fit(iv, peak, stop, 0);
    if (!line) return est;
    double tc = std::clamp((noise_db - line->a) / line->b, 0.0, length_s);

    // 5-10: refine with intervals matched to the decay rate until the crossing point settles.
    for (int it = 1; it <= kMaxIterations; ++it) {
        est.iterations = it;
        const double seconds_per_10db = -10 / line->b;
        const auto len = std::clamp<size_t>(
            static_cast<size_t>(std::lround(seconds_per_10db / kIntervalsPer10Db * fs)), 1,
            std::max<size_t>(1, n / 10));
        iv = average(e, len, fs);

        // 7: the noise from kNoiseStartDb of decay past the crossing, or the last tenth.
        const double start_s = std::min(tc + kNoiseStartDb * seconds_per_10db / 10,
                                        static_cast<double>(last_tenth) / fs);
        const auto start = std::min(static_cast<size_t>(start_s * fs), last_tenth);
        const double noise = mean(e, start, n);
        if (!(noise > 0)) break;
        noise_db = level_db(noise);

        // 8: the late decay, noise removed, from at most kLateRangeDb above the fit's floor down
        // to kLateFloorDb above the noise.
        if (iv.ms.size() < 3) break;
        size_t top = 0;
        for (size_t i = 1; i < iv.ms.size(); ++i)
            if (iv.ms[i] > iv.ms[top]) top = i;
        const double floor_db = noise_db + kLateFloorDb;
        if (level_db(iv.ms[top] - noise) < floor_db + kMinLateRangeDb) break;
        size_t i0 = top;
        while (i0 < iv.ms.size() && level_db(iv.ms[i0] - noise) > floor_db + kLateRangeDb)
            ++i0;
        size_t i1 = i0;
        while (i1 < iv.ms.size() && level_db(iv.ms[i1] - noise) >= floor_db)
            ++i1;
        const std::optional<Line> late = fit(iv, i0, i1, noise);
        if (!late) break;

        // 9: the new crossing point.
        const double tc_new = std::clamp((noise_db - late->a) / late->b, 0.0, length_s);
        est.noise = noise;
        line = late;
        const bool settled = std::fabs(tc_new - tc) < static_cast<double>(len) / fs;
        tc = tc_new;
        if (settled) {
            est.converged = true;
            break;
        }
    }
    est.truncation_s = tc;
    est.tail_level = std::pow(10.0, (line->a + line->b * tc) / 10);
    est.tail_rate = -line->b * std::log(10.0) / 10;
    return est;
}

}  // namespace ardent::auralize
