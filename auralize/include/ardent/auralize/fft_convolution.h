// Offline convolution of whole signals: FFT overlap-save with FFTW in single precision, the
// engine behind `ardent auralize`. One signal can go through several filters at once (a mono dry
// signal through the channels of a binaural or ambisonic impulse response), sharing the signal's
// forward transforms, and several signals through one filter share its spectrum; signals can be
// read from and results written to interleaved audio directly. Results are the full linear
// convolution, so a reverberant tail longer than the signal is kept. Measured against
// double-precision direct-form convolution the error stays below -120 dB re the output's peak
// (tests/test_convolution.cpp, docs/auralization.md).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ardent::auralize {

// The FFT size used to convolve `signal_len` samples with `filter_count` filters of at most
// `filter_len` taps: among sizes 2^a and 3 * 2^a of at least `filter_len`, the one that minimises
// the estimated work, i.e. the number of blocks times (1 + filter_count) transforms of cost
// N log2 N, with a penalty for sizes whose buffers leave a typical per-core cache. Returns 0 when
// either length is 0.
size_t choose_fft_size(size_t signal_len, size_t filter_len, size_t filter_count = 1);

struct ConvolutionOptions {
    // > 1: the blocks are split over that many threads.
    int threads = 1;
    // Let FFTW time candidate algorithms for the transform size first (FFTW_MEASURE): transforms
    // up to twice as fast, but planning a large size takes seconds, once per process (FFTW keeps
    // the result as wisdom), or once per user with the plan cache (fft_plan_cache.h). Without it
    // FFTW estimates, unless system wisdom (/etc/fftw/wisdomf, made with fftwf-wisdom) or the
    // plan cache already holds a measured plan for the size, which is then used.
    bool measure_fft = false;
    // Measured plans from the plan cache where it has them, else estimated plans, the size noted
    // for measuring later (fft_plan_cache.h). Ignored when measure_fft is set.
    bool learn_fft = false;
};

// A signal read with a stride: sample i is data[i * stride] (one channel of interleaved audio).
struct StridedSignal {
    const float* data = nullptr;
    size_t size = 0;
    size_t stride = 1;
};

// One result of convolve_into: signals[signal] through filters[filter], written to out[i * stride]
// for i < signals[signal].size + filters[filter].size() - 1 (nothing when either is empty). The
// caller provides that room; other samples of `out` are not touched.
struct ConvolutionOutput {
    size_t signal = 0, filter = 0;
    float* out = nullptr;
    size_t stride = 1;
};

// Computes every output in one pass over the blocks: each signal block is transformed once for
// all its outputs and each filter once for all signals. Outputs must not overlap. Throws
// std::invalid_argument for an index out of range or a null output.
void convolve_into(std::span<const StridedSignal> signals,
                   std::span<const std::span<const float>> filters,
                   std::span<const ConvolutionOutput> outputs,
                   const ConvolutionOptions& options = {});

// y[n] = sum_k x[n - k] h[k] for n = 0 .. x.size() + h.size() - 2 (empty if x or h is empty).
std::vector<float> convolve(std::span<const float> x, std::span<const float> h,
                            const ConvolutionOptions& options = {});

// result[i] = convolve(x, filters[i]): each x.size() + filters[i].size() - 1 samples long
// (empty where the filter is empty), computed with one forward transform of x per block for all
// filters.
std::vector<std::vector<float>> convolve(std::span<const float> x,
                                         std::span<const std::span<const float>> filters,
                                         const ConvolutionOptions& options = {});

}  // namespace ardent::auralize
