// The post-process every delivered impulse response goes through (docs/materials.md, "Air
// absorption"): air absorption by propagation time, and a band-limited advance by a fraction of a
// sample. A wave solver's air is lossless, so its IRs decay too slowly where air absorbs (above
// about 1 kHz in a room, where ISO 9613-1 gives 4.7 dB/km at 20 degrees C and 50 %); since an IR's
// time is the sound's travel time, the sound arriving at time t has crossed c t metres of air and
// is filtered by 10^(-a(f) c t / 20). The filter changes slowly with t, so it is applied frame by
// frame (short-time Fourier transform, Hann windows at 50 % overlap that sum to one), each frame
// with its centre's attenuation: exact for a gain constant over a frame, and within 1e-4 of the
// exact time-varying gain for frames of 10 ms (the attenuation changes by 3.4 m of air across one).
// The same frames carry the sub-sample advance (a linear phase), which puts the IR's time origin
// at the emission instant to a small fraction of a sample (the solver can only drop whole steps).
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ardent/preprocess/atmosphere.h"

namespace ardent::auralize {

class PropagationFilter {
  public:
    // For signals at `sample_rate`: air absorption per `air` (none when air.absorption is false)
    // over c = `speed_of_sound` metres per second of IR time, and an advance by `advance_s`
    // seconds (0 up to a few samples; the output at time t is the input at t + advance_s).
    // Throws std::invalid_argument for a non-positive rate or speed or a negative advance.
    PropagationFilter(double sample_rate, const Atmosphere& air, double speed_of_sound,
                      double advance_s);
    ~PropagationFilter();
    PropagationFilter(const PropagationFilter&) = delete;
    PropagationFilter& operator=(const PropagationFilter&) = delete;

    // True when apply() would return its input unchanged.
    bool identity() const { return identity_; }
    // The filtered IR, as long as the input. Thread-safe.
    std::vector<float> apply(std::span<const float> ir) const;
    // Samples per frame (twice the hop), for reports.
    size_t frame() const { return frame_; }

  private:
    struct Plan;
    double fs_;
    size_t frame_ = 0;
    bool identity_ = false;
    std::vector<double> nepers_per_second_;    // per FFT bin: attenuation rate a(f) c ln(10) / 20
    std::vector<double> hop_decay_;            // per FFT bin: its decay over half a frame
    std::vector<std::complex<double>> shift_;  // per FFT bin: the advance's phase ramp
    std::vector<float> window_;                // periodic Hann of frame_ samples
    std::vector<double> offset_s_;             // per frame sample: seconds from the centre
    std::unique_ptr<Plan> plan_;
};

}  // namespace ardent::auralize
