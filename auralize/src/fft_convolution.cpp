#include "ardent/auralize/fft_convolution.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <exception>
#include <thread>

#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

// Relative cost per element of an FFT of size n beyond the N log2 N count: large transforms
// stream through memory instead of the core's cache. Fitted to FFTW's estimate-mode plans on the
// development machine (2 MB L2 per core): per-sample time grows about 1.25x from 2^18 to 2^19
// and doubles beyond.
double cache_penalty(size_t n) {
    if (n <= (size_t{1} << 18)) return 1.0;
    if (n <= (size_t{1} << 19)) return 1.25;
    return 2.0;
}

double fft_cost(size_t n) {
    const double dn = static_cast<double>(n);
    // Sizes 3 * 2^a use a radix-3 pass, a little slower per element than radix 2.
    const double radix = (n & (n - 1)) == 0 ? 1.0 : 1.15;
    return dn * std::log2(dn) * cache_penalty(n) * radix;
}

// out[i] = a[i] * b[i] over `n` bins, written out because std::complex multiplication goes
// through a NaN-handling library call without -ffast-math.
void multiply(const std::complex<float>* a, const std::complex<float>* b, std::complex<float>* out,
              size_t n) {
    const auto* pa = reinterpret_cast<const float*>(a);
    const auto* pb = reinterpret_cast<const float*>(b);
    auto* po = reinterpret_cast<float*>(out);
    for (size_t i = 0; i < n; ++i) {
        const float ar = pa[2 * i], ai = pa[2 * i + 1], br = pb[2 * i], bi = pb[2 * i + 1];
        po[2 * i] = ar * br - ai * bi;
        po[2 * i + 1] = ar * bi + ai * br;
    }
}

}  // namespace

size_t choose_fft_size(size_t signal_len, size_t filter_len, size_t filter_count) {
    if (signal_len == 0 || filter_len == 0) return 0;
    const size_t out_len = signal_len + filter_len - 1;
    const double transforms_per_block = 1.0 + static_cast<double>(filter_count);
    size_t best = 0;
    double best_cost = 0;
    // Candidates from 64 up to twice the size that holds the whole output in one block (larger
    // only adds zeros); the last ones always hold the filter.
    for (size_t p = 64;; p *= 2) {
        for (size_t n : {p, 3 * p / 2}) {
            if (n < filter_len) continue;
            const size_t valid = n - filter_len + 1;
            const double blocks = static_cast<double>((out_len + valid - 1) / valid);
            const double cost =
                (blocks * transforms_per_block + static_cast<double>(filter_count)) * fft_cost(n);
            if (best == 0 || cost < best_cost) {
                best = n;
                best_cost = cost;
            }
        }
        if (p >= 2 * (out_len + filter_len)) break;
    }
    return best;
}

std::vector<std::vector<float>> convolve(std::span<const float> x,
                                         std::span<const std::span<const float>> filters,
                                         const ConvolutionOptions& options) {
    const int threads = options.threads;
    std::vector<std::vector<float>> out(filters.size());
    size_t m = 0;  // longest filter
    for (auto h : filters)
        m = std::max(m, h.size());
    if (x.empty() || m == 0) return out;

    // Overlap-save: block j yields y[jL, jL + L) from the N input samples ending at x[jL + L - 1];
    // circular wrap-around only touches the first m - 1 outputs of each block, which are dropped.
    const size_t n = choose_fft_size(x.size(), m, filters.size());
    const size_t valid = n - m + 1;
    const size_t out_len = x.size() + m - 1;
    const size_t blocks = (out_len + valid - 1) / valid;
    // In-place transforms: each block touches one array of n + 2 floats per thread.
    const detail::RealFft fft(
        n, options.measure_fft ? detail::Planning::Measure : detail::Planning::Estimate, true);
    const size_t bins = fft.bins();

    // Filter spectra, scaled by 1/n so the unnormalised inverse transform returns y itself.
    std::vector<detail::FftwArray<std::complex<float>>> spectra;
    const float scale = 1.0f / static_cast<float>(n);
    for (auto h : filters) {
        spectra.push_back(detail::alloc_complex(bins));
        auto* data = reinterpret_cast<float*>(spectra.back().get());
        for (size_t i = 0; i < h.size(); ++i)
            data[i] = h[i] * scale;
        fft.forward_in_place(data);
    }
    for (size_t f = 0; f < filters.size(); ++f)
        out[f].assign(filters[f].empty() ? 0 : x.size() + filters[f].size() - 1, 0.0f);

    auto run_blocks = [&](size_t first, size_t last) {
        // xs: the block's input, then its spectrum; ys: a product, then its inverse. With one
        // filter the product goes straight into xs.
        detail::FftwArray<std::complex<float>> xs = detail::alloc_complex(bins);
        detail::FftwArray<std::complex<float>> ys;
        if (filters.size() > 1) ys = detail::alloc_complex(bins);
        auto* in = reinterpret_cast<float*>(xs.get());
        for (size_t j = first; j < last; ++j) {
            // in[t] = x[j L - (m - 1) + t], zero outside x.
            const auto start =
                static_cast<std::ptrdiff_t>(j * valid) - static_cast<std::ptrdiff_t>(m - 1);
            const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(start, 0);
            const std::ptrdiff_t hi = std::min(start + static_cast<std::ptrdiff_t>(n),
                                               static_cast<std::ptrdiff_t>(x.size()));
            if (hi <= lo) {
                std::fill(in, in + n, 0.0f);
            } else {
                std::fill(in, in + (lo - start), 0.0f);
                std::copy(x.begin() + lo, x.begin() + hi, in + (lo - start));
                std::fill(in + (hi - start), in + n, 0.0f);
            }
            fft.forward_in_place(in);
            for (size_t f = 0; f < filters.size(); ++f) {
                std::vector<float>& y = out[f];
                if (y.empty()) continue;
                std::complex<float>* product = filters.size() > 1 ? ys.get() : xs.get();
                multiply(xs.get(), spectra[f].get(), product, bins);
                auto* result = reinterpret_cast<float*>(product);
                fft.inverse_in_place(result);
                const size_t y0 = j * valid;
                const size_t count = std::min(valid, y.size() > y0 ? y.size() - y0 : 0);
                std::copy(result + (m - 1), result + (m - 1) + count,
                          y.begin() + static_cast<std::ptrdiff_t>(y0));
            }
        }
    };

    const size_t workers =
        std::clamp<size_t>(threads > 0 ? static_cast<size_t>(threads) : 1, 1, blocks);
    if (workers == 1) {
        run_blocks(0, blocks);
        return out;
    }
    // Output blocks are disjoint, so threads write straight into the result. A worker's failure
    // (out of memory) is rethrown here rather than terminating the process.
    std::vector<std::exception_ptr> errors(workers);
    std::vector<std::thread> pool;
    for (size_t w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            try {
                run_blocks(blocks * w / workers, blocks * (w + 1) / workers);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        });
    for (auto& t : pool)
        t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

std::vector<float> convolve(std::span<const float> x, std::span<const float> h,
                            const ConvolutionOptions& options) {
    const std::span<const float> one[] = {h};
    return std::move(convolve(x, std::span<const std::span<const float>>(one), options)[0]);
}

}  // namespace ardent::auralize
