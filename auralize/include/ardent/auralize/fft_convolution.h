// Offline convolution of whole signals: FFT overlap-save with FFTW in single precision, the
// engine behind `ardent auralize`. One signal can go through several filters at once (a mono dry
// signal through the channels of a binaural or ambisonic impulse response), sharing the signal's
// forward transforms. Results are the full linear convolution, so a reverberant tail longer than
// the signal is kept. Measured against double-precision direct-form convolution the error stays
// below -120 dB re the output's peak (tests/test_convolution.cpp, docs/auralization.md).
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
    // the result as wisdom). Without it FFTW estimates, unless system wisdom (/etc/fftw/wisdomf,
    // made with fftwf-wisdom) already holds a measured plan for the size, which is then used.
    bool measure_fft = false;
};

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
