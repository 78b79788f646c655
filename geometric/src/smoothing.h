// The late energy histograms' Monte Carlo noise taken down (ray_tracer.h's smooth_late_energy,
// grid_field.h's envelopes): each bin becomes the mean density over the bins whose centres lie
// within +-fraction of its own centre time. A plain mean over a window that widens with time
// lengthens an exponential decay, by sinh(x)/x where x is the decay over half the window, which
// grows with t (T20 +3 % in test_grid_field's boxes). With `exponential` each mean is divided by
// what the window does to the exponential that the plain means at its two ends show, so the
// decay rate is kept.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ardent::geometric {

// `v`: `bins` bins of `width` values each (bin-major), bin k spanning [edges[k], edges[k + 1]);
// bins whose centres lie before `from` (s) stay as they are.
template <typename T>
void smooth_decay(T* v, size_t bins, size_t width, const std::vector<double>& edges,
                  double fraction, double from, bool exponential) {
    std::vector<double> centre(bins), w(bins);
    for (size_t k = 0; k < bins; ++k) {
        centre[k] = 0.5 * (edges[k] + edges[k + 1]);
        w[k] = edges[k + 1] - edges[k];
    }
    // Each bin's window [lo, hi].
    std::vector<size_t> lo(bins), hi(bins);
    for (size_t k = 0, a = 0, b = 0; k < bins; ++k) {
        const double half = fraction * centre[k];
        while (a < k && centre[a] < centre[k] - half)
            ++a;
        b = std::max(b, k);
        while (b + 1 < bins && centre[b + 1] <= centre[k] + half)
            ++b;
        lo[k] = centre[k] < from ? k : a;
        hi[k] = centre[k] < from ? k : b;
    }
    // The plain means (densities): little noise left, so the decay rate between the ends of a
    // window is read from them, not from the raw bins (a rate from noisy bins over-corrects).
    std::vector<double> mean(bins * width);
    for (size_t k = 0; k < bins; ++k) {
        double width_sum = 0;
        for (size_t j = lo[k]; j <= hi[k]; ++j)
            width_sum += w[j];
        for (size_t x = 0; x < width; ++x) {
            double sum = 0;
            for (size_t j = lo[k]; j <= hi[k]; ++j)
                sum += static_cast<double>(v[j * width + x]);
            mean[k * width + x] = sum / width_sum;
        }
    }
    for (size_t k = 0; k < bins; ++k) {
        if (lo[k] == hi[k]) continue;
        double width_sum = 0;
        for (size_t j = lo[k]; j <= hi[k]; ++j)
            width_sum += w[j];
        for (size_t x = 0; x < width; ++x) {
            const double a = mean[lo[k] * width + x], b = mean[hi[k] * width + x];
            double gain = 1;
            if (exponential && a > 0 && b > 0) {
                // The window's mean of that exponential relative to its value at the centre.
                const double rate = std::log(a / b) / (centre[hi[k]] - centre[lo[k]]);
                double m = 0;
                for (size_t j = lo[k]; j <= hi[k]; ++j)
                    m += w[j] * std::exp(-rate * (centre[j] - centre[k]));
                gain = m / width_sum;
            }
            v[k * width + x] = static_cast<T>(mean[k * width + x] / gain * w[k]);
        }
    }
}

}  // namespace ardent::geometric
