// Decimation of impulse responses by a whole factor, for many signals of one rate pair: one
// linear-phase low-pass (a Kaiser-windowed sinc) designed once, applied as a polyphase sum at the
// output samples only. It keeps Ardent's IR convention (resample.h: the spectrum per sample is
// kept, so the output is scaled by the factor) and the time origin (zero phase: output sample n is
// the input's instant n * factor). `ardent simulate` stores the listener grid this way at a rate
// tied to its band (docs/output-format.md), in place of a per-signal sinc converter to the output
// rate.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ardent::audio {

class IrDecimator {
  public:
    // Keeps [0, pass_hz] of a signal at fs_in and takes every `factor`-th sample. The stop band
    // starts at fs_in / factor - pass_hz, where content would alias into [0, pass_hz]; the filter
    // aims at 90 dB there, with at most `max_half_length` input samples either side (fewer when
    // the transition is wide). Throws std::invalid_argument unless fs_in > 0, factor >= 1 and
    // 0 < pass_hz < fs_in / (2 factor).
    IrDecimator(double fs_in, size_t factor, double pass_hz, size_t max_half_length = 60);

    size_t factor() const { return factor_; }
    double rate_in() const { return fs_in_; }
    double rate_out() const { return fs_in_ / static_cast<double>(factor_); }
    size_t half_length() const { return half_; }  // input samples each side of an output's
    const std::vector<double>& taps() const { return taps_; }  // 2 half_length + 1, unit DC gain

    // `samples` output samples: out[n] = factor * sum_j taps[j + L] in[n factor + j], j in [-L, L],
    // the input taken as zero outside its span.
    std::vector<float> apply(std::span<const float> in, size_t samples) const;

  private:
    double fs_in_;
    size_t factor_, half_;
    std::vector<double> taps_;
};

// The largest whole factor that keeps fs_in / factor at least min_rate_out (at least 1).
size_t decimation_factor(double fs_in, double min_rate_out);

}  // namespace ardent::audio
