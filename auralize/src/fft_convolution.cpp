#include "ardent/auralize/fft_convolution.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <exception>
#include <stdexcept>
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

// Stereo frames to two channels and back: the common case of a stereo file, written so that
// the compiler vectorises it (no aliasing between the arrays).
void deinterleave2(const float* __restrict src, float* __restrict a, float* __restrict b,
                   size_t n) {
    for (size_t k = 0; k < n; ++k) {
        a[k] = src[2 * k];
        b[k] = src[2 * k + 1];
    }
}

void interleave2(float* __restrict dst, const float* __restrict a, const float* __restrict b,
                 size_t n) {
    for (size_t k = 0; k < n; ++k) {
        dst[2 * k] = a[k];
        dst[2 * k + 1] = b[k];
    }
}

}  // namespace

namespace {

// The FFT size with the least estimated work for `blocks_transforms` transforms per block (the
// signals' forward and the outputs' inverse transforms) plus `fixed_transforms` once (the
// filters), for an output of out_len samples from filters of at most filter_len taps.
size_t best_fft_size(size_t out_len, size_t filter_len, double block_transforms,
                     double fixed_transforms) {
    size_t best = 0;
    double best_cost = 0;
    // Candidates from 64 up to twice the size that holds the whole output in one block (larger
    // only adds zeros); the last ones always hold the filter.
    for (size_t p = 64;; p *= 2) {
        for (size_t n : {p, 3 * p / 2}) {
            if (n < filter_len) continue;
            const size_t valid = n - filter_len + 1;
            const double blocks = static_cast<double>((out_len + valid - 1) / valid);
            const double cost = (blocks * block_transforms + fixed_transforms) * fft_cost(n);
            if (best == 0 || cost < best_cost) {
                best = n;
                best_cost = cost;
            }
        }
        if (p >= 2 * (out_len + filter_len)) break;
    }
    return best;
}

void check_outputs(std::span<const StridedSignal> signals,
                   std::span<const std::span<const float>> filters,
                   std::span<const ConvolutionOutput> outputs) {
    for (const auto& o : outputs)
        if (o.signal >= signals.size() || o.filter >= filters.size() || !o.out || o.stride == 0)
            throw std::invalid_argument(
                "convolve_into: an output names a missing signal or filter, or has no buffer");
    for (const auto& s : signals)
        if (s.size > 0 && (!s.data || s.stride == 0))
            throw std::invalid_argument("convolve_into: a signal has no data");
}

// Length of the full convolution of a signal with a filter, both non-empty.
size_t x_len(const StridedSignal& x, std::span<const float> h) {
    return x.size + h.size() - 1;
}

}  // namespace

size_t choose_fft_size(size_t signal_len, size_t filter_len, size_t filter_count) {
    if (signal_len == 0 || filter_len == 0) return 0;
    return best_fft_size(signal_len + filter_len - 1, filter_len,
                         1.0 + static_cast<double>(filter_count),
                         static_cast<double>(filter_count));
}

void convolve_into(std::span<const StridedSignal> signals,
                   std::span<const std::span<const float>> filters,
                   std::span<const ConvolutionOutput> outputs, const ConvolutionOptions& options) {
    check_outputs(signals, filters, outputs);
    // The outputs that produce samples, grouped by signal (their order within a signal kept).
    std::vector<std::vector<size_t>> by_signal(signals.size());
    std::vector<bool> filter_used(filters.size(), false);
    size_t m = 0, out_len = 0, signal_count = 0, filter_count = 0, output_count = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const auto& o = outputs[i];
        const size_t nx = signals[o.signal].size, nh = filters[o.filter].size();
        if (nx == 0 || nh == 0) continue;
        if (by_signal[o.signal].empty()) ++signal_count;
        by_signal[o.signal].push_back(i);
        if (!filter_used[o.filter]) ++filter_count;
        filter_used[o.filter] = true;
        m = std::max(m, nh);
        out_len = std::max(out_len, nx + nh - 1);
        ++output_count;
    }
    if (output_count == 0) return;

    // Overlap-save: block j yields y[jL, jL + L) from the N input samples ending at x[jL + L - 1];
    // circular wrap-around only touches the first m - 1 outputs of each block, which are dropped.
    const size_t n = best_fft_size(out_len, m, static_cast<double>(signal_count + output_count),
                                   static_cast<double>(filter_count));
    const size_t valid = n - m + 1;
    const size_t blocks = (out_len + valid - 1) / valid;
    // In-place transforms: each block touches one array of n + 2 floats per thread.
    const detail::RealFft fft(n,
                              options.measure_fft ? detail::Planning::Measure
                              : options.learn_fft ? detail::Planning::Learn
                                                  : detail::Planning::Estimate,
                              true);
    const size_t bins = fft.bins();

    // Filter spectra, scaled by 1/n so the unnormalised inverse transform returns y itself.
    std::vector<detail::FftwArray<std::complex<float>>> spectra(filters.size());
    const float scale = 1.0f / static_cast<float>(n);
    for (size_t f = 0; f < filters.size(); ++f) {
        if (!filter_used[f]) continue;
        spectra[f] = detail::alloc_complex(bins);
        auto* data = reinterpret_cast<float*>(spectra[f].get());
        const auto h = filters[f];
        for (size_t i = 0; i < h.size(); ++i)
            data[i] = h[i] * scale;
        fft.forward_in_place(data);
    }
    // Per block, every signal is read into its own buffer in one pass over the frames and every
    // output written in one pass, so interleaved channels stream through memory once instead of
    // once per channel (stride-2 writes of a stereo file would read each cache line twice).
    std::vector<size_t> active_signals;
    for (size_t s = 0; s < signals.size(); ++s)
        if (!by_signal[s].empty()) active_signals.push_back(s);
    std::vector<size_t> active_outputs;
    for (size_t s : active_signals)
        active_outputs.insert(active_outputs.end(), by_signal[s].begin(), by_signal[s].end());

    auto run_blocks = [&](size_t first, size_t last) {
        // One buffer per signal: its block, then its spectrum. A signal with one output takes
        // the product and its inverse in place; the others get one buffer per output.
        std::vector<detail::FftwArray<std::complex<float>>> sig_buf(signals.size());
        std::vector<float*> out_buf(outputs.size(), nullptr);
        std::vector<detail::FftwArray<std::complex<float>>> own_buf(outputs.size());
        for (size_t s : active_signals) {
            sig_buf[s] = detail::alloc_complex(bins);
            for (size_t i : by_signal[s]) {
                if (by_signal[s].size() > 1) own_buf[i] = detail::alloc_complex(bins);
                out_buf[i] = reinterpret_cast<float*>(by_signal[s].size() > 1 ? own_buf[i].get()
                                                                              : sig_buf[s].get());
            }
        }
        std::vector<size_t> live_signals, live_outputs;
        std::vector<float*> in_ptr;
        std::vector<const float*> src_ptr;
        for (size_t j = first; j < last; ++j) {
            const size_t y0 = j * valid;
            // The signals and outputs that still produce samples in this block.
            live_outputs.clear();
            for (size_t i : active_outputs) {
                const auto& o = outputs[i];
                if (signals[o.signal].size + filters[o.filter].size() - 1 > y0)
                    live_outputs.push_back(i);
            }
            live_signals.clear();
            for (size_t s : active_signals)
                for (size_t i : by_signal[s])
                    if (signals[s].size + filters[outputs[i].filter].size() - 1 > y0) {
                        live_signals.push_back(s);
                        break;
                    }
            // in[t] = x[j L - (m - 1) + t], zero outside x.
            const auto start = static_cast<std::ptrdiff_t>(y0) - static_cast<std::ptrdiff_t>(m - 1);
            std::ptrdiff_t common_hi = start + static_cast<std::ptrdiff_t>(n);
            in_ptr.clear();
            src_ptr.clear();
            for (size_t s : live_signals) {
                const StridedSignal& x = signals[s];
                float* in = reinterpret_cast<float*>(sig_buf[s].get());
                const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(start, 0);
                const std::ptrdiff_t hi =
                    std::max(lo, std::min(start + static_cast<std::ptrdiff_t>(n),
                                          static_cast<std::ptrdiff_t>(x.size)));
                std::fill(in, in + (lo - start), 0.0f);
                std::fill(in + (hi - start), in + n, 0.0f);
                common_hi = std::min(common_hi, hi);
                in_ptr.push_back(in - start);
                src_ptr.push_back(x.data);
            }
            // Copy frames [lo, common_hi) of every live signal together, then each signal's rest.
            const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(start, 0);
            const size_t ns = live_signals.size();
            if (ns == 1 && signals[live_signals[0]].stride == 1) {
                std::copy(src_ptr[0] + lo, src_ptr[0] + common_hi, in_ptr[0] + lo);
            } else if (ns == 2 && signals[live_signals[0]].stride == 2 &&
                       signals[live_signals[1]].stride == 2 && src_ptr[1] == src_ptr[0] + 1) {
                if (common_hi > lo)
                    deinterleave2(src_ptr[0] + 2 * lo, in_ptr[0] + lo, in_ptr[1] + lo,
                                  static_cast<size_t>(common_hi - lo));
            } else {
                for (std::ptrdiff_t t = lo; t < common_hi; ++t)
                    for (size_t k = 0; k < ns; ++k)
                        in_ptr[k][t] =
                            src_ptr[k][static_cast<size_t>(t) * signals[live_signals[k]].stride];
            }
            for (size_t k = 0; k < ns; ++k) {
                const StridedSignal& x = signals[live_signals[k]];
                const std::ptrdiff_t hi = std::min(start + static_cast<std::ptrdiff_t>(n),
                                                   static_cast<std::ptrdiff_t>(x.size));
                for (std::ptrdiff_t t = std::max(lo, common_hi); t < hi; ++t)
                    in_ptr[k][t] = x.data[static_cast<size_t>(t) * x.stride];
            }
            for (size_t s : live_signals) {
                fft.forward_in_place(reinterpret_cast<float*>(sig_buf[s].get()));
                for (size_t i : by_signal[s]) {
                    const ConvolutionOutput& o = outputs[i];
                    if (x_len(signals[s], filters[o.filter]) <= y0) continue;
                    auto* product = reinterpret_cast<std::complex<float>*>(out_buf[i]);
                    multiply(sig_buf[s].get(), spectra[o.filter].get(), product, bins);
                    fft.inverse_in_place(out_buf[i]);
                }
            }
            // Write samples y0 + t of every live output, frame by frame.
            size_t common = valid;
            for (size_t i : live_outputs)
                common = std::min(
                    common, x_len(signals[outputs[i].signal], filters[outputs[i].filter]) - y0);
            const size_t no = live_outputs.size();
            const ConvolutionOutput* o0 = no > 0 ? &outputs[live_outputs[0]] : nullptr;
            const ConvolutionOutput* o1 = no > 1 ? &outputs[live_outputs[1]] : nullptr;
            if (no == 1 && o0->stride == 1) {
                const size_t i = live_outputs[0];
                std::copy(out_buf[i] + (m - 1), out_buf[i] + (m - 1) + common, o0->out + y0);
            } else if (no == 2 && o0->stride == 2 && o1->stride == 2 && o1->out == o0->out + 1) {
                interleave2(o0->out + 2 * y0, out_buf[live_outputs[0]] + (m - 1),
                            out_buf[live_outputs[1]] + (m - 1), common);
            } else {
                for (size_t t = 0; t < common; ++t)
                    for (size_t k = 0; k < no; ++k) {
                        const ConvolutionOutput& o = outputs[live_outputs[k]];
                        o.out[(y0 + t) * o.stride] = out_buf[live_outputs[k]][m - 1 + t];
                    }
            }
            for (size_t i : live_outputs) {
                const ConvolutionOutput& o = outputs[i];
                const size_t count =
                    std::min(valid, x_len(signals[o.signal], filters[o.filter]) - y0);
                for (size_t t = common; t < count; ++t)
                    o.out[(y0 + t) * o.stride] = out_buf[i][m - 1 + t];
            }
        }
    };

    const int threads = options.threads;
    const size_t workers =
        std::clamp<size_t>(threads > 0 ? static_cast<size_t>(threads) : 1, 1, blocks);
    if (workers == 1) {
        run_blocks(0, blocks);
        return;
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
}

std::vector<std::vector<float>> convolve(std::span<const float> x,
                                         std::span<const std::span<const float>> filters,
                                         const ConvolutionOptions& options) {
    std::vector<std::vector<float>> out(filters.size());
    if (x.empty()) return out;
    const StridedSignal signal{x.data(), x.size(), 1};
    std::vector<ConvolutionOutput> outputs;
    for (size_t f = 0; f < filters.size(); ++f) {
        if (filters[f].empty()) continue;
        out[f].resize(x.size() + filters[f].size() - 1);
        outputs.push_back({0, f, out[f].data(), 1});
    }
    convolve_into(std::span<const StridedSignal>(&signal, 1), filters, outputs, options);
    return out;
}

std::vector<float> convolve(std::span<const float> x, std::span<const float> h,
                            const ConvolutionOptions& options) {
    const std::span<const float> one[] = {h};
    return std::move(convolve(x, std::span<const std::span<const float>>(one), options)[0]);
}

}  // namespace ardent::auralize
